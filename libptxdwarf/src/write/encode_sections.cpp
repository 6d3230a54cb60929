// The encoder's sections beside .debug_info: .debug_abbrev from the interned
// abbreviations, .debug_loc from the unit's location lists, .debug_pubnames and
// .debug_aranges from the unit's laid-out DIEs.
#include "ptxdwarf/write/encode.h"

#include "ptxdwarf/dwarf.h"
#include "encode_internal.h"

namespace ptxdwarf::write::encoding {

using namespace dw;

void emitAbbrevs(SectionImage& img, const AbbrevInterner& abbrevs) {
  SectionWriter w(img);
  for (const AbbrevEntry& a : abbrevs.entries()) {
    w.uleb(a.code);
    w.uleb(a.tag);
    w.u8(a.children ? 1 : 0);
    for (auto [name, form] : a.specs) {
      w.uleb(name);
      w.uleb(form);
    }
    w.u8(0);
    w.u8(0);
  }
  w.u8(0);
}

// .debug_loc: each list as (begin, end, length, expression) entries and a 0,0 end.
std::vector<uint64_t> emitLocationLists(SectionImage& img, const Unit& u) {
  SectionWriter w(img);
  std::vector<uint64_t> offsets;
  const unsigned as = u.options().addressSize;
  for (const auto& list : u.locationLists()) {
    offsets.push_back(w.offset());
    for (const Location::ListEntry& e : list) {
      w.symbol(e.begin, as);
      w.symbol(e.end, as);
      w.fixed(e.expr.bytes().size(), 2);
      w.expr(e.expr);
    }
    w.fixed(0, as);
    w.fixed(0, as);
  }
  return offsets;
}

void emitPubnames(SectionImage& img, const UnitLayout& L, UnitLengthConvention convention) {
  SectionWriter w(img);
  const Unit& u = *L.unit;
  uint64_t start = w.offset();
  w.fixed(0, 4);  // length, patched below
  w.fixed(2, 2);
  w.symbol({".debug_info", static_cast<int64_t>(L.offset)}, 4);
  w.fixed(convention == UnitLengthConvention::unitLengthField ? L.size - 4 : L.size, 4);
  if (const auto* entries = u.explicitPubnames()) {
    for (const Unit::Pubname& e : *entries) {
      w.fixed(L.dieOffset[e.die] - L.offset, 4);
      w.string(e.name);
    }
  } else {
    for (DieId child = u.die(u.root()).firstChild; child != kNoDie; child = u.die(child).nextSibling) {
      const Die& d = u.die(child);
      if (d.tag != DW_TAG_subprogram && d.tag != DW_TAG_variable) continue;
      std::optional<AttributeView> external = u.find(child, DW_AT_external);
      std::optional<AttributeView> name = u.find(child, DW_AT_name);
      if (!external || !external->u() || !name || name->kind() != Value::Kind::string) continue;
      w.fixed(L.dieOffset[child] - L.offset, 4);
      w.string(name->str());
    }
  }
  w.fixed(0, 4);
  w.patch(start, w.offset() - start - 4, 4);
}

void emitAranges(SectionImage& img, const UnitLayout& L) {
  SectionWriter w(img);
  const Unit& u = *L.unit;
  const unsigned as = u.options().addressSize;
  uint64_t start = w.offset();
  w.fixed(0, 4);
  w.fixed(2, 2);
  w.symbol({".debug_info", static_cast<int64_t>(L.offset)}, 4);
  w.u8(as);
  w.u8(0);
  while ((w.offset() - start) % (2 * as)) w.u8(0);
  for (DieId id = 0; id < u.size(); ++id) {
    const Die& d = u.die(id);
    if (d.tag != DW_TAG_subprogram) continue;
    std::optional<AttributeView> low = u.find(id, DW_AT_low_pc);
    std::optional<AttributeView> high = u.find(id, DW_AT_high_pc);
    if (!low || !high || low->kind() != Value::Kind::address || high->kind() != Value::Kind::address) continue;
    if (low->symbol().empty() || high->symbol().empty()) continue;
    // ptxas computes `A-B` only between labels inside debug sections, so the
    // length cannot be `end-begin`. It places every function in its own
    // .text section starting at 0: the end label's address is the length when
    // low_pc is the function's first label, as producers emit it.
    w.symbol(low->symbol(), low->addend(), as);
    w.symbol(high->symbol(), high->addend() - low->addend(), as);
  }
  w.fixed(0, as);
  w.fixed(0, as);
  w.patch(start, w.offset() - start - 4, 4);
}

}  // namespace ptxdwarf::write::encoding
