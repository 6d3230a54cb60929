// The Linker that prepares section images for the oracles, and our decoder's
// view of the same images (see oracle.h).
#include <algorithm>
#include <cstdio>

#include "oracle.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdump {

using namespace ptxdwarf;

namespace {

uint64_t mask(uint64_t v, unsigned size) { return size >= 8 ? v : v & ((uint64_t{1} << (8 * size)) - 1); }

constexpr uint64_t kLineSpacing = 256;

}  // namespace

// ---------------------------------------------------------------------------- Linker

Linker::Linker(std::span<const SectionImage> sections, const ptx::Module* module)
    : sections_(sections), module_(module) {
  auto place = [&](std::string_view name, uint64_t address) { addresses_.try_emplace(std::string(name), address); };
  for (const SectionImage& s : sections) place(s.name, 0);
  for (const SectionImage& s : sections)
    for (const SectionLabel& l : s.labels) place(l.name, l.offset);
  if (module) {
    for (const ptx::Label& l : module->labels) place(l.name, uint64_t{l.line} * kLineSpacing);
    for (const ptx::Function& f : module->functions) place(f.name, uint64_t{f.loc.line} * kLineSpacing);
    for (const ptx::Variable& v : module->variables) place(v.name, uint64_t{v.loc.line} * kLineSpacing);
  }
}

uint64_t Linker::symbolValue(std::string_view name) const {
  if (name.starts_with(".debug_")) return 0;  // a section ptxas builds (.debug_line) or one of ours
  auto it = addresses_.find(std::string(name));
  return it == addresses_.end() ? 0 : it->second;
}

uint64_t Linker::value(const Relocation& r) const {
  uint64_t v;
  if (r.isDifference()) {
    std::optional<int64_t> d;
    for (const SectionImage& s : sections_)
      if ((d = s.resolveDifference(r))) break;
    v = d ? static_cast<uint64_t>(*d)
          : symbolValue(r.symbol) - symbolValue(r.minus()) + static_cast<uint64_t>(r.addend());
  } else {
    v = symbolValue(r.symbol) + static_cast<uint64_t>(r.addend());
  }
  return mask(v, r.size);
}

std::vector<uint8_t> Linker::bytes(const SectionImage& image, uint64_t offset, uint64_t length) const {
  if (offset > image.bytes.size()) return {};
  length = std::min<uint64_t>(length, image.bytes.size() - offset);
  std::vector<uint8_t> out(image.bytes.begin() + static_cast<ptrdiff_t>(offset),
                           image.bytes.begin() + static_cast<ptrdiff_t>(offset + length));
  for (const Relocation& r : image.relocations) {
    if (r.offset + r.size <= offset || r.offset >= offset + length) continue;
    uint64_t v = value(r);  // relocated bytes are zero-filled: the value is the link
    for (unsigned i = 0; i < r.size; ++i) {
      uint64_t at = r.offset + i;
      if (at >= offset && at < offset + length) out[at - offset] = static_cast<uint8_t>(v >> (8 * i));
    }
  }
  return out;
}

bool Linker::addedDebugLine() const {
  return std::none_of(sections_.begin(), sections_.end(),
                      [](const SectionImage& s) { return s.name == ".debug_line"; });
}

std::vector<uint8_t> minimalDebugLine(const std::vector<std::string>& files) {
  // After unit_length: version 2, header_length, min_inst_length 1,
  // default_is_stmt 1, line_base -5, line_range 14, opcode_base 13, the 12
  // standard opcode lengths, no include directories, the files, no program.
  std::vector<uint8_t> header = {1, 1, 0xfb, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0};
  for (const std::string& f : files) {
    header.insert(header.end(), f.begin(), f.end());
    header.insert(header.end(), {0, 0, 0, 0});  // NUL, directory 0, time 0, size 0 (ULEB128)
  }
  header.push_back(0);  // end of the file names
  auto u32 = [](std::vector<uint8_t>& out, uint64_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  std::vector<uint8_t> out;
  u32(out, 2 + 4 + header.size());
  out.insert(out.end(), {2, 0});
  u32(out, header.size());
  out.insert(out.end(), header.begin(), header.end());
  return out;
}

std::vector<SectionImage> Linker::link() const {
  std::vector<SectionImage> out;
  for (const SectionImage& s : sections_) {
    if (!s.name.starts_with(".debug_")) continue;
    SectionImage l;
    l.name = s.name;
    l.bytes = bytes(s, 0, s.bytes.size());
    out.push_back(std::move(l));
  }
  if (addedDebugLine()) {
    SectionImage line;
    line.name = ".debug_line";
    // `.file` indices as ptxas numbers them; a gap (never seen from real producers)
    // gets a placeholder name so later indices keep their place.
    std::vector<std::string> files;
    if (module_)
      for (const ptx::FileEntry& f : module_->files) {
        if (f.index == 0 || f.index > 65536) continue;
        if (files.size() < f.index) files.resize(f.index, "<no .file>");
        files[f.index - 1] = f.path.empty() ? "<empty>" : f.path;
      }
    line.bytes = minimalDebugLine(files);
    out.push_back(std::move(line));
  }
  return out;
}

// ---------------------------------------------------------------------------- views

AttrKind kindOfForm(uint16_t form) {
  switch (form) {
    case dw::DW_FORM_data1:
    case dw::DW_FORM_data2:
    case dw::DW_FORM_data4:
    case dw::DW_FORM_data8:
    case dw::DW_FORM_udata:
    case dw::DW_FORM_sdata:
    case dw::DW_FORM_sec_offset:
      return AttrKind::constant;
    case dw::DW_FORM_flag:
    case dw::DW_FORM_flag_present:
      return AttrKind::flag;
    case dw::DW_FORM_addr:
      return AttrKind::address;
    case dw::DW_FORM_ref1:
    case dw::DW_FORM_ref2:
    case dw::DW_FORM_ref4:
    case dw::DW_FORM_ref8:
    case dw::DW_FORM_ref_udata:
    case dw::DW_FORM_ref_addr:
      return AttrKind::reference;
    case dw::DW_FORM_string:
    case dw::DW_FORM_strp:
      return AttrKind::string;
    case dw::DW_FORM_block1:
    case dw::DW_FORM_block2:
    case dw::DW_FORM_block4:
    case dw::DW_FORM_block:
    case dw::DW_FORM_exprloc:
      return AttrKind::block;
    default:
      return AttrKind::other;
  }
}

std::string_view attrKindName(AttrKind k) {
  switch (k) {
    case AttrKind::constant: return "constant";
    case AttrKind::flag: return "flag";
    case AttrKind::address: return "address";
    case AttrKind::reference: return "reference";
    case AttrKind::string: return "string";
    case AttrKind::block: return "block";
    case AttrKind::other: return "other";
  }
  return "other";
}

size_t OracleView::attributeCount() const {
  size_t n = 0;
  for (const OracleDie& d : dies) n += d.attrs.size();
  return n;
}

OracleView ourView(const read::Dwarf& dwarf, const Linker& linker) {
  OracleView v;
  v.oracle = "ours";
  v.hasNullEntries = true;
  v.hasLocEnd = true;
  v.hasLocExprBytes = true;
  v.hasNameSetHeaders = true;
  v.hasEmptyNameSets = true;
  v.hasArangeSetHeaders = true;
  for (const read::Unit& u : dwarf.units) {
    OracleUnit ou;
    ou.offset = u.offset;
    ou.length = u.length;
    ou.version = u.version;
    // The decoder resolves `.debug_abbrev+N` itself; anything else it leaves raw.
    ou.abbrevOffset = u.abbrevReloc && u.abbrevReloc->symbol != ".debug_abbrev" ? linker.value(*u.abbrevReloc)
                                                                                 : u.abbrevOffset;
    ou.addressSize = u.addressSize;
    v.units.push_back(ou);
  }
  for (const read::Die& d : dwarf.dies) {
    if (d.isNull() && d.parent == read::kNone) continue;  // padding after the unit DIE
    OracleDie od;
    od.offset = d.offset;
    od.tag = d.tag;
    od.depth = d.depth;
    for (const read::AttrValue& a : dwarf.attributes(d)) {
      OracleAttr oa;
      oa.name = a.name;
      oa.form = a.form;
      oa.kind = kindOfForm(a.form);
      switch (oa.kind) {
        case AttrKind::string:
          if (a.form == dw::DW_FORM_strp) oa.u64 = a.reloc ? linker.value(*a.reloc) : a.value;
          oa.string = std::string(a.string());
          break;
        case AttrKind::block:
          oa.bytes = dwarf.info ? linker.bytes(*dwarf.info, a.value, a.block().size())
                                : std::vector<uint8_t>(a.block().begin(), a.block().end());
          break;
        default:
          oa.u64 = a.reloc ? linker.value(*a.reloc) : a.value;
          break;
      }
      od.attrs.push_back(std::move(oa));
    }
    v.dies.push_back(std::move(od));
  }
  for (const read::LocList& l : dwarf.locLists) {
    OracleLocList ol;
    ol.offset = l.offset;
    for (const read::LocEntry& e : l.entries) {
      OracleLocEntry oe;
      oe.kind = e.kind == read::LocEntry::range         ? OracleLocEntry::range
                : e.kind == read::LocEntry::baseAddress ? OracleLocEntry::baseAddress
                                                        : OracleLocEntry::endOfList;
      oe.offset = e.offset;
      oe.begin = e.beginReloc ? linker.value(*e.beginReloc) : e.begin;
      oe.end = e.endReloc ? linker.value(*e.endReloc) : e.end;
      if (oe.kind == OracleLocEntry::range)
        oe.expr = dwarf.loc ? linker.bytes(*dwarf.loc, e.exprOffset, e.expr.size())
                            : std::vector<uint8_t>(e.expr.begin(), e.expr.end());
      ol.entries.push_back(std::move(oe));
    }
    v.loclists.push_back(std::move(ol));
  }
  for (const read::NameSet& s : dwarf.pubnameSets) {
    OracleNameSet os;
    os.length = s.length;
    os.version = s.version;
    os.infoOffset = s.infoReloc ? linker.value(*s.infoReloc) : s.infoOffset;
    os.infoLength = s.infoLength;
    os.names = s.entries.size();
    v.nameSets.push_back(os);
    for (const read::NameEntry& e : s.entries) v.pubnames.push_back({os.infoOffset + e.dieOffset, std::string(e.name)});
  }
  for (const read::ArangeSet& s : dwarf.arangeSets) {
    OracleArangeSet os;
    os.length = s.length;
    os.version = s.version;
    os.infoOffset = s.infoReloc ? linker.value(*s.infoReloc) : s.infoOffset;
    os.addressSize = s.addressSize;
    os.segmentSize = s.segmentSize;
    v.arangeSets.push_back(os);
    for (const read::Range& r : s.ranges)
      v.ranges.push_back({os.infoOffset, r.addressReloc ? linker.value(*r.addressReloc) : r.address,
                          r.lengthReloc ? linker.value(*r.lengthReloc) : r.length});
  }
  for (const Diagnostic& d : dwarf.diagnostics.items) {
    if (d.severity != Severity::error) continue;
    std::string m = "error: " + d.message;
    if (!d.section.empty() && d.offset >= 0) {
      char buf[48];
      std::snprintf(buf, sizeof buf, " (%s+0x%llx)", d.section.c_str(), static_cast<unsigned long long>(d.offset));
      m += buf;
    }
    v.messages.push_back(std::move(m));
  }
  return v;
}

}  // namespace ptxdump
