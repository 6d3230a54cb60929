// LLVM's DebugInfo/DWARF as an oracle: an in-memory DWARFContext over linked
// section images (no ELF file), walked into an OracleView, plus DWARFVerifier's
// .debug_abbrev and .debug_info checks. Builds against LLVM 14 to 22; what differs
// between them is in oracle_llvm_compat.h. Only LLVM headers here (and oracle.h,
// which includes neither LLVM nor libdwarf nor ptxdwarf/dwarf.h).
#include <llvm/ADT/StringMap.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugArangeSet.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLoc.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugPubTable.h>
#include <llvm/DebugInfo/DWARF/DWARFVerifier.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>

#include "oracle.h"
#include "ptxdwarf/format.h"
#include "oracle_llvm_compat.h"

namespace ptxdump {

bool haveLlvmOracle() { return true; }

namespace {

bool isLocationAttribute(uint16_t at) {
  using namespace llvm::dwarf;
  switch (at) {
    case DW_AT_location:
    case DW_AT_frame_base:
    case DW_AT_data_member_location:
    case DW_AT_string_length:
    case DW_AT_return_addr:
    case DW_AT_static_link:
    case DW_AT_use_location:
    case DW_AT_vtable_elem_location:
      return true;
    default:
      return false;
  }
}

bool isLoclistForm(uint16_t form) {
  using namespace llvm::dwarf;
  return form == DW_FORM_sec_offset || form == DW_FORM_data4 || form == DW_FORM_data8;
}

OracleAttr readAttribute(const llvm::DWARFAttribute& attr, std::vector<std::string>& messages, uint64_t dieOffset,
                         uint64_t unitOffset) {
  OracleAttr a;
  a.name = static_cast<uint16_t>(attr.Attr);
  a.form = static_cast<uint16_t>(attr.Value.getForm());
  a.kind = kindOfForm(a.form);
  const llvm::DWARFFormValue& v = attr.Value;
  switch (a.kind) {
    case AttrKind::reference:
      if (auto r = llvmcompat::referenceOffset(v, unitOffset)) a.u64 = *r;
      else a.valueKnown = false;
      break;
    case AttrKind::string: {
      if (a.form == llvm::dwarf::DW_FORM_strp) a.u64 = v.getRawUValue();
      llvm::Expected<const char*> s = v.getAsCString();
      if (s) {
        a.string = *s;
      } else {
        a.valueKnown = false;
        messages.push_back("error: DIE " + ptxdwarf::hex(dieOffset) + ": " + llvm::toString(s.takeError()));
      }
      break;
    }
    case AttrKind::block:
      if (auto b = v.getAsBlock()) a.bytes.assign(b->begin(), b->end());
      else a.valueKnown = false;
      break;
    default:
      a.u64 = v.getRawUValue();  // constants (sdata: the two's complement bits), flags, addresses
      break;
  }
  return a;
}

// The verifier's report, one message per finding: its "error:"/"warning:" line
// and the first line of the DIE it dumps after it ("0x00000045: DW_TAG_subprogram").
void collectVerifierFindings(const std::string& text, std::vector<std::string>& messages) {
  std::string current;
  bool haveDie = false;
  auto flush = [&] {
    if (!current.empty()) messages.push_back("verifier: " + current);
    current.clear();
    haveDie = false;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    std::string trimmed = line.substr(first);
    if (trimmed.starts_with("error:") || trimmed.starts_with("warning:")) {
      flush();
      current = trimmed;
    } else if (trimmed.starts_with("Verifying") || trimmed.starts_with("No errors") ||
               trimmed.starts_with("Errors detected")) {
      flush();
    } else if (!current.empty() && !haveDie && trimmed.starts_with("0x")) {
      current += " [" + trimmed + "]";
      haveDie = true;
    }
  }
  flush();
}

// The DWARF 2-4 location list at `offset` of .debug_loc, entry by entry.
OracleLocList readLocationList(const llvm::DWARFObject& obj, uint64_t offset, uint8_t addressSize,
                               std::vector<std::string>& messages) {
  llvm::DWARFDebugLoc loc(llvm::DWARFDataExtractor(obj, obj.getLocSection(), true, addressSize));
  OracleLocList list;
  list.offset = offset;
  uint64_t cursor = offset;
  uint64_t entryOffset = offset;
  llvm::Error e = loc.visitLocationList(&cursor, [&](const llvm::DWARFLocationEntry& le) {
    OracleLocEntry entry;
    entry.offset = entryOffset;
    if (le.Kind == llvm::dwarf::DW_LLE_end_of_list) {
      entry.kind = OracleLocEntry::endOfList;
      entryOffset += 2u * addressSize;
    } else if (le.Kind == llvm::dwarf::DW_LLE_base_address) {
      entry.kind = OracleLocEntry::baseAddress;
      entry.begin = addressSize == 4 ? 0xffffffffu : UINT64_MAX;
      entry.end = le.Value0;
      entryOffset += 2u * addressSize;
    } else {
      entry.begin = le.Value0;
      entry.end = le.Value1;
      entry.expr.assign(le.Loc.begin(), le.Loc.end());
      entryOffset += 2u * addressSize + 2 + le.Loc.size();
    }
    list.entries.push_back(std::move(entry));
    return true;
  });
  if (e) messages.push_back("error: .debug_loc+" + ptxdwarf::hex(offset) + ": " + llvm::toString(std::move(e)));
  return list;
}

}  // namespace

std::optional<OracleView> llvmView(std::span<const ptxdwarf::SectionImage> linked, std::string* error) {
  (void)error;
  OracleView view;
  view.oracle = "llvm";
  view.hasNullEntries = true;
  view.hasLocEnd = true;
  view.hasLocExprBytes = true;
  view.hasNameSetHeaders = true;
  view.hasEmptyNameSets = true;
  view.hasArangeSetHeaders = true;

  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> sections;
  for (const ptxdwarf::SectionImage& s : linked) {
    std::string key = s.name.starts_with('.') ? s.name.substr(1) : s.name;  // LLVM's keys have no dot
    llvm::StringRef bytes(reinterpret_cast<const char*>(s.bytes.data()), s.bytes.size());
    sections[key] = llvm::MemoryBuffer::getMemBuffer(bytes, key, /*RequiresNullTerminator=*/false);
  }
  std::vector<std::string>& messages = view.messages;
  auto onError = [&messages](llvm::Error e) { messages.push_back("error: " + llvm::toString(std::move(e))); };
  auto onWarning = [&messages](llvm::Error e) { messages.push_back("warning: " + llvm::toString(std::move(e))); };
  std::unique_ptr<llvm::DWARFContext> ctx =
      llvm::DWARFContext::create(sections, /*AddrSize=*/8, /*isLittleEndian=*/true, onError, onWarning);

  // Units and DIEs.
  std::map<uint64_t, uint8_t> loclistOffsets;  // offset -> address size of the unit naming it
  for (const std::unique_ptr<llvm::DWARFUnit>& cu : ctx->info_section_units()) {
    OracleUnit u;
    u.offset = cu->getOffset();
    u.length = cu->getLength();
    u.version = cu->getVersion();
    u.abbrevOffset = cu->getAbbreviationsOffset();
    u.addressSize = cu->getAddressByteSize();
    view.units.push_back(u);
    cu->getUnitDIE(/*ExtractUnitDIEOnly=*/false);
    uint32_t depth = 0;
    unsigned n = cu->getNumDIEs();
    for (unsigned i = 0; i < n; ++i) {
      llvm::DWARFDie die = cu->getDIEAtIndex(i);
      OracleDie d;
      d.offset = die.getOffset();
      d.depth = depth;
      const llvm::DWARFAbbreviationDeclaration* abbrev = die.getAbbreviationDeclarationPtr();
      if (!abbrev) {  // a NULL entry closes its siblings' list
        if (depth) --depth;
        view.dies.push_back(std::move(d));
        continue;
      }
      d.tag = static_cast<uint16_t>(die.getTag());
      if (abbrev->hasChildren()) ++depth;
      for (const llvm::DWARFAttribute& attr : die.attributes()) {
        d.attrs.push_back(readAttribute(attr, messages, d.offset, u.offset));
        const OracleAttr& a = d.attrs.back();
        if (isLocationAttribute(a.name) && isLoclistForm(a.form)) loclistOffsets.emplace(a.u64, u.addressSize);
      }
      view.dies.push_back(std::move(d));
    }
  }

  // Location lists: every offset a location attribute names.
  const llvm::DWARFObject& obj = ctx->getDWARFObj();
  for (const auto& [offset, addressSize] : loclistOffsets) {
    if (offset >= obj.getLocSection().Data.size()) continue;  // the verifier reports it
    view.loclists.push_back(readLocationList(obj, offset, addressSize, messages));
  }

  // .debug_pubnames
  if (!obj.getPubnamesSection().Data.empty()) {
    llvm::DWARFDebugPubTable table;
    table.extract(llvm::DWARFDataExtractor(obj, obj.getPubnamesSection(), true, 0), /*GnuStyle=*/false, onError);
    for (const llvm::DWARFDebugPubTable::Set& s : table.getData()) {
      view.nameSets.push_back({s.Length, s.Version, s.Offset, s.Size, s.Entries.size()});
      for (const llvm::DWARFDebugPubTable::Entry& e : s.Entries)
        view.pubnames.push_back({s.Offset + e.SecOffset, e.Name.str()});
    }
  }

  // .debug_aranges, set by set (the context's own table also invents ranges from unit PCs).
  llvm::DWARFDataExtractor aranges(obj.getArangesSection(), true, 0);
  uint64_t offset = 0;
  while (aranges.isValidOffset(offset)) {
    llvm::DWARFDebugArangeSet set;
    if (llvm::Error e = set.extract(aranges, &offset, onWarning)) {
      onError(std::move(e));
      break;
    }
    const auto& h = set.getHeader();
    view.arangeSets.push_back({h.Length, h.Version, h.CuOffset, h.AddrSize, h.SegSize});
    for (const auto& d : set.descriptors()) view.ranges.push_back({h.CuOffset, d.Address, d.Length});
  }

  // The verifier.
  std::string report;
  llvm::raw_string_ostream os(report);
  llvm::DWARFVerifier verifier(os, *ctx);
  verifier.handleDebugAbbrev();
  verifier.handleDebugInfo();
  os.flush();
  collectVerifierFindings(report, messages);
  return view;
}

}  // namespace ptxdump
