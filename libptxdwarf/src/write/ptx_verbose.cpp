// The PTX writer's verbose style: a comment per DWARF field (tag, attribute,
// form, value, location expression) of the sections the model read.
#include "ptxdwarf/write/ptx_writer.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/print/render.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptx_writer_internal.h"

namespace ptxdwarf::write {

using namespace ptx_text;

namespace {

// ---- verbose: DWARF field boundaries ------------------------------------------

class FieldBuilder {
 public:
  explicit FieldBuilder(const SectionImage& image) : image_(image) {}

  void add(uint64_t offset, uint64_t size, std::string comment, bool fixed = false) {
    if (size == 0 || offset + size > image_.bytes.size() || offset + size < offset) return;
    // A relocation must not straddle the field's boundaries.
    if (const Relocation* r = image_.relocationOverlapping(offset, 1); r && r->offset < offset) return;
    if (const Relocation* r = image_.relocationOverlapping(offset + size - 1, 1); r && r->offset + r->size > offset + size)
      return;
    fields_.push_back({offset, size, fixed && (size == 4 || size == 8), std::move(comment)});
  }
  // A field of `size` bytes: 4 and 8 as one directive, others as a `.b8` run.
  void fixed(uint64_t offset, uint64_t size, std::string comment) { add(offset, size, std::move(comment), true); }

  uint64_t ulebSize(uint64_t offset) const {
    ByteReader r(image_.bytes, offset);
    r.uleb();
    return r.ok() ? r.offset() - offset : 0;
  }
  uint64_t cstringSize(uint64_t offset) const {
    const auto& b = image_.bytes;
    for (uint64_t i = offset; i < b.size(); ++i)
      if (b[i] == 0) return i - offset + 1;
    return 0;
  }
  std::string_view cstring(uint64_t offset, uint64_t size) const {
    return {reinterpret_cast<const char*>(image_.bytes.data() + offset), size ? size - 1 : 0};
  }

  std::vector<Field> take() {
    std::stable_sort(fields_.begin(), fields_.end(), [](const Field& a, const Field& b) { return a.offset < b.offset; });
    return std::move(fields_);
  }

  const SectionImage& image() const { return image_; }

 private:
  const SectionImage& image_;
  std::vector<Field> fields_;
};

std::string quoted(std::string_view s) {
  std::string out = "\"";
  appendCommentText(out, s);
  out += '"';
  return out;
}

// A tag's, attribute's or form's name; llvm-dwarfdump's `DW_TAG_unknown_4109` for one without.
template <void (*appendName)(std::string&, uint64_t)>
std::string named(uint64_t value) {
  std::string s;
  appendName(s, value);
  return s;
}

// "DW_OP_regx %r1 DW_OP_deref", "DW_OP_addr _Z4testPi_param_0".
std::string describeExpression(const SectionImage& image, uint64_t offset, uint64_t size, uint8_t addressSize) {
  std::string s;
  print::Renderer::encodedExpression(s, std::span<const uint8_t>(image.bytes).subspan(offset, size), &image, offset,
                                     addressSize);
  return s;
}

bool isFixedForm(uint16_t form) {
  switch (form) {
    case dw::DW_FORM_addr: case dw::DW_FORM_data2: case dw::DW_FORM_data4: case dw::DW_FORM_data8:
    case dw::DW_FORM_data1: case dw::DW_FORM_flag: case dw::DW_FORM_strp: case dw::DW_FORM_ref_addr:
    case dw::DW_FORM_ref1: case dw::DW_FORM_ref2: case dw::DW_FORM_ref4: case dw::DW_FORM_ref8:
    case dw::DW_FORM_sec_offset: case dw::DW_FORM_ref_sig8:
      return true;
    default:
      return false;
  }
}

void infoFields(const read::Dwarf& dwarf, FieldBuilder& fb) {
  const SectionImage& image = fb.image();
  for (const read::Unit& u : dwarf.units) {
    if (u.version < 2 || u.version > 4) continue;  // DWARF 5 headers are laid out differently
    fb.fixed(u.offset, 4, "Length of Unit");
    fb.fixed(u.offset + 4, 2, "DWARF version number");
    fb.fixed(u.offset + 6, 4, "Offset Into Abbrev. Section");
    fb.fixed(u.offset + 10, 1, "Address Size (in bytes)");
    // Subtree extents ("Abbrev [2] 0x45:0x5f": offset and size with children, as
    // LLVM prints them): a DIE ends where the next entry at its depth or above starts.
    const uint32_t last = uint32_t(std::min<size_t>(u.firstDie + u.dieCount, dwarf.dies.size()));
    std::vector<uint64_t> ends(last > u.firstDie ? last - u.firstDie : 0, u.end);
    std::vector<uint32_t> open;
    for (uint32_t i = u.firstDie; i < last; ++i) {
      while (!open.empty() && dwarf.dies[open.back()].depth >= dwarf.dies[i].depth) {
        ends[open.back() - u.firstDie] = dwarf.dies[i].offset;
        open.pop_back();
      }
      if (!dwarf.dies[i].isNull()) open.push_back(i);
    }
    for (uint32_t i = u.firstDie; i < last; ++i) {
      const read::Die& d = dwarf.dies[i];
      if (d.isNull()) {
        fb.fixed(d.offset, 1, "End Of Children Mark");
        continue;
      }
      const uint64_t codeSize = fb.ulebSize(d.offset);
      if (codeSize == 0) break;
      std::string c = "Abbrev [";
      appendDec(c, dwarf.abbrevCode(d));
      c += "] ";
      appendHex(c, d.offset);
      c += ':';
      appendHex(c, ends[i - u.firstDie] > d.offset ? ends[i - u.firstDie] - d.offset : 0);
      c += ' ';
      print::appendTagName(c, d.tag);
      fb.fixed(d.offset, codeSize, std::move(c));
      uint64_t at = d.offset + codeSize;
      for (const read::AttrValue& a : dwarf.attributes(d)) {
        const uint64_t end = a.offset + a.size;
        if (a.offset < at || end > image.bytes.size()) break;
        std::string ac = named<print::appendAttrName>(a.name);
        if (a.indirect) {
          ac += " [DW_FORM_indirect ";
          print::appendFormName(ac, a.form);
          ac += ']';
        }
        if (a.isString()) {
          ac += ' ';
          ac += quoted(a.string());
        } else if (a.isBlock() && read::isLocationAttribute(a.name) && !a.block().empty()) {
          const uint64_t exprOffset = end - a.block().size();
          const std::string e = describeExpression(image, exprOffset, a.block().size(), u.addressSize);
          if (!e.empty()) ac += " " + e;
        }
        if (end > at) fb.add(at, end - at, std::move(ac), !a.indirect && isFixedForm(a.form));
        at = end;
      }
    }
  }
}

void abbrevFields(const read::Dwarf& dwarf, FieldBuilder& fb) {
  const SectionImage& image = fb.image();
  for (const read::AbbrevTable& t : dwarf.abbrevTables) {
    for (const read::Abbrev& a : t.abbrevs) {
      ByteReader r(image.bytes, a.offset);
      auto uleb = [&](auto&& describe) {
        const uint64_t at = r.offset();
        const uint64_t v = r.uleb();
        if (r.ok()) fb.add(at, r.offset() - at, describe(v));
        return v;
      };
      uleb([](uint64_t) { return std::string("Abbreviation Code"); });
      uleb(named<print::appendTagName>);
      const uint64_t childrenAt = r.offset();
      const uint8_t children = r.u8();
      if (!r.ok()) continue;
      fb.add(childrenAt, 1, children == 1 ? "DW_CHILDREN_yes" : children == 0 ? "DW_CHILDREN_no" : "DW_CHILDREN_?");
      for (uint32_t s = 0; s < a.specCount && r.ok(); ++s) {
        uleb(named<print::appendAttrName>);
        const uint64_t form = uleb(named<print::appendFormName>);
        if (form == dw::DW_FORM_implicit_const) {
          const uint64_t at = r.offset();
          r.sleb();
          if (r.ok()) fb.add(at, r.offset() - at, "implicit constant");
        }
      }
      if (!r.ok()) continue;
      uleb([](uint64_t) { return std::string("EOM(1)"); });
      uleb([](uint64_t) { return std::string("EOM(2)"); });
    }
    if (t.terminated && t.end > t.offset) fb.add(t.end - 1, 1, "EOM(3)");
  }
}

void pubnamesFields(const read::Dwarf& dwarf, FieldBuilder& fb) {
  for (const read::NameSet& s : dwarf.pubnameSets) {
    fb.fixed(s.offset, 4, "Length of Public Names Info");
    fb.fixed(s.offset + 4, 2, "DWARF Version");
    fb.fixed(s.offset + 6, 4, "Offset of Compilation Unit Info");
    fb.fixed(s.offset + 10, 4, "Compilation Unit Length");
    uint64_t last = s.offset + 14;
    for (const read::NameEntry& e : s.entries) {
      fb.fixed(e.offset, 4, "DIE offset");
      const uint64_t n = fb.cstringSize(e.offset + 4);
      if (n == 0) break;
      fb.add(e.offset + 4, n, "External Name " + quoted(fb.cstring(e.offset + 4, n)));
      last = e.offset + 4 + n;
    }
    const uint64_t end = s.offset + 4 + s.length;
    if (end >= last + 4) fb.fixed(end - 4, 4, "End Mark");
  }
}

void arangesFields(const read::Dwarf& dwarf, FieldBuilder& fb) {
  for (const read::ArangeSet& s : dwarf.arangeSets) {
    const unsigned a = s.addressSize;
    fb.fixed(s.offset, 4, "Length of ARange Set");
    fb.fixed(s.offset + 4, 2, "DWARF Arange version number");
    fb.fixed(s.offset + 6, 4, "Offset Into Debug Info Section");
    fb.fixed(s.offset + 10, 1, "Address Size (in bytes)");
    fb.fixed(s.offset + 11, 1, "Segment Size (in bytes)");
    if (a == 0) continue;
    const uint64_t tuple = 2u * a;
    const uint64_t first = s.offset + (12 + tuple - 1) / tuple * tuple;
    if (first > s.offset + 12) fb.add(s.offset + 12, first - (s.offset + 12), "Pad");
    uint64_t next = first;
    for (const read::Range& r : s.ranges) {
      fb.fixed(r.offset, a, "Address");
      fb.fixed(r.offset + a, a, "Length");
      next = r.offset + tuple;
    }
    if (next + tuple <= s.offset + 4 + s.length) {
      fb.fixed(next, a, "ARange terminator");
      fb.fixed(next + a, a, "");
    }
  }
}

void locFields(const read::Dwarf& dwarf, FieldBuilder& fb) {
  unsigned defaultSize = dwarf.units.empty() ? 8 : dwarf.units.front().addressSize;
  if (defaultSize != 4 && defaultSize != 8) defaultSize = 8;
  std::vector<bool> described(dwarf.allLocEntries().size());  // lists sharing a tail describe it once
  for (const read::LocList& l : dwarf.locLists) {
    for (size_t i = 0; i < l.entries.size(); ++i) {
      if (const size_t index = dwarf.locEntryIndex(l.entries.refs()[i]); index != SIZE_MAX) {
        if (described[index]) break;
        described[index] = true;
      }
      const read::LocEntry e = l.entries[i];
      unsigned a = defaultSize;
      if (e.kind == read::LocEntry::range && e.exprOffset >= e.offset + 2 && (e.exprOffset - e.offset - 2) % 2 == 0)
        a = unsigned((e.exprOffset - e.offset - 2) / 2);
      switch (e.kind) {
        case read::LocEntry::range: {
          std::string b = "Loc list ";
          appendHex(b, l.offset);
          b += ": beginning address offset";
          fb.fixed(e.offset, a, std::move(b));
          fb.fixed(e.offset + a, a, "ending address offset");
          fb.add(e.offset + 2u * a, 2, "Loc expr size");
          if (!e.expr.empty())
            fb.add(e.exprOffset, e.expr.size(),
                   describeExpression(fb.image(), e.exprOffset, e.expr.size(), uint8_t(a)));
          break;
        }
        case read::LocEntry::baseAddress:
          fb.fixed(e.offset, a, "Base address selection");
          fb.fixed(e.offset + a, a, "base address");
          break;
        case read::LocEntry::endOfList:
          fb.fixed(e.offset, a, "End of list");
          fb.fixed(e.offset + a, a, "");
          break;
      }
    }
  }
}

bool sameBytes(const SectionImage* a, const SectionImage& b) { return a && (a == &b || a->bytes == b.bytes); }

}  // namespace

namespace ptx_text {

std::vector<Field> verboseFields(const read::Dwarf& dwarf, const SectionImage& image) {
  FieldBuilder fb(image);
  if (image.name == ".debug_info" && sameBytes(dwarf.info, image)) {
    infoFields(dwarf, fb);
  } else if (image.name == ".debug_abbrev" && sameBytes(dwarf.abbrev, image)) {
    abbrevFields(dwarf, fb);
  } else if (image.name == ".debug_pubnames" && sameBytes(dwarf.pubnames, image)) {
    pubnamesFields(dwarf, fb);
  } else if (image.name == ".debug_aranges" && sameBytes(dwarf.aranges, image)) {
    arangesFields(dwarf, fb);
  } else if (image.name == ".debug_loc" && sameBytes(dwarf.loc, image)) {
    locFields(dwarf, fb);
  }
  return fb.take();
}
}  // namespace ptx_text

}  // namespace ptxdwarf::write
