// The canonical re-encoding: every unit rebuilt through the producer model (Unit, Die, Value) from what
// was read, so that encoding it again shows what the model keeps and what it loses.
#include "ptxdwarf/write/reencode.h"

#include <algorithm>
#include <memory>
#include <set>
#include <unordered_map>

#include "ptxdwarf/dwarf.h"
#include "../work.h"

namespace ptxdwarf::write {

using namespace dw;

namespace {

SymbolRef symbolOf(const Relocation* r, uint64_t raw) {
  if (!r) return {"", static_cast<int64_t>(raw)};
  return {std::string(r->symbol), r->addend()};
}

// Copies a block's bytes and the relocations inside it.
Expr exprOf(const SectionImage* sec, uint64_t at, std::span<const uint8_t> bytes, uint8_t addressSize) {
  Expr e(addressSize);
  size_t pos = 0;
  if (sec) {
    auto it = std::lower_bound(sec->relocations.begin(), sec->relocations.end(), at,
                               [](const Relocation& r, uint64_t o) { return r.offset < o; });
    for (; it != sec->relocations.end() && it->offset < at + bytes.size(); ++it) {
      for (; pos < it->offset - at; ++pos) e.u8(bytes[pos]);
      e.symbolic({std::string(it->symbol), it->addend()}, it->size);
      pos += it->size;
    }
  }
  for (; pos < bytes.size(); ++pos) e.u8(bytes[pos]);
  return e;
}

class CanonicalBuilder {
 public:
  CanonicalBuilder(const read::Dwarf& dwarf, Diagnostics& diags) : dwarf_(dwarf), diags_(diags) {}

  std::vector<std::unique_ptr<Unit>> build() {
    std::vector<std::unique_ptr<Unit>> units;
    for (const read::Unit& u : dwarf_.units) {
      if (u.dieCount == 0 || u.abbrevTable == read::kNone) continue;
      if (std::unique_ptr<Unit> unit = buildUnit(u)) units.push_back(std::move(unit));
    }
    return units;
  }

 private:
  std::unique_ptr<Unit> buildUnit(const read::Unit& ru) {
    // The unit DIE is the first real entry: NULL padding may come before it.
    uint32_t first = 0;
    while (first < ru.dieCount && dwarf_.dies[ru.firstDie + first].isNull()) ++first;
    if (first == ru.dieCount) return nullptr;
    const read::Die& rootDie = dwarf_.dies[ru.firstDie + first];
    auto unit = std::make_unique<Unit>(rootDie.tag, UnitOptions{ru.version, ru.addressSize, FormPolicy::chapter6});
    // Pass 1: the tree, so references can be mapped to ids.
    std::unordered_map<uint64_t, DieId> ids;
    ids.reserve(ru.dieCount);
    unit->reserve(ru.dieCount, 0);
    std::vector<DieId> parents;
    std::vector<std::pair<const read::Die*, DieId>> order;
    for (uint32_t i = 0; i < ru.dieCount; ++i) {
      const read::Die& d = dwarf_.dies[ru.firstDie + i];
      if (d.isNull()) {
        if (!parents.empty()) parents.pop_back();
        continue;
      }
      DieId id = i == first ? unit->root() : unit->add(parents.empty() ? unit->root() : parents.back(), d.tag);
      if (d.hasChildren) {
        unit->forceChildren(id);
        parents.push_back(id);
      }
      ids[d.offset] = id;
      order.emplace_back(&d, id);
    }
    // The unit's pubnames entries, kept as they are (producers disagree on which DIEs they list).
    std::vector<Unit::Pubname> pubnames;
    for (const read::NameSet& set : dwarf_.pubnameSets) {
      if (set.infoOffset != ru.offset) continue;
      for (const read::NameEntry& e : set.entries) {
        auto it = ids.find(ru.offset + e.dieOffset);
        if (it != ids.end()) pubnames.push_back({it->second, std::string(e.name)});
      }
    }
    unit->setPubnames(std::move(pubnames));
    // Pass 2: attributes, forms kept.
    for (auto [d, id] : order) {
      for (const read::AttrValue& v : dwarf_.attributes(*d)) {
        std::optional<Value> value = convert(v, ru, ids, *unit);
        if (value) unit->append(id, v.name, std::move(*value));
      }
    }
    return unit;
  }

  std::optional<Value> convert(const read::AttrValue& v, const read::Unit& u,
                               const std::unordered_map<uint64_t, DieId>& ids, Unit& unit) {
    if (v.isReference()) {
      const uint64_t target = dwarf_.referenceTarget(v).value_or(v.value);  // `.debug_info+N` resolved
      auto it = ids.find(target);
      if (it == ids.end()) {
        dwarf_error(v, "reference to " + std::to_string(target) +
                           " lands on no DIE of the unit (a reference into another unit is not re-encoded); dropped");
        return std::nullopt;
      }
      return Value::reference(it->second, v.form);
    }
    if (v.isBlock())
      return Value::expression(exprOf(dwarf_.info, v.value, v.block(), u.addressSize), v.form);
    switch (v.form) {
      case DW_FORM_string: return Value::string(v.string());
      case DW_FORM_strp: return Value::sectionOffset(symbolOf(v.reloc, v.value), DW_FORM_strp);
      case DW_FORM_flag:
      case DW_FORM_flag_present: return Value::flag(v.value != 0, v.form);
      case DW_FORM_sdata: return Value::signedValue(v.svalue(), v.form);
      case DW_FORM_addr: return Value::address(symbolOf(v.reloc, v.value), v.form);
      default: break;
    }
    // `.debug_loc+N`, or a label defined in .debug_loc (LLVM 22).
    const std::optional<uint64_t> listAt = v.reloc ? dwarf_.offsetIn(".debug_loc", v.value, v.reloc) : std::nullopt;
    if (listAt && dwarf_.locListAt(*listAt)) {
      const read::LocList* list = dwarf_.locListAt(*listAt);
      std::vector<Location::ListEntry> entries;
      for (const read::LocEntry& e : list->entries) {
        if (e.kind == read::LocEntry::endOfList) break;
        if (e.kind == read::LocEntry::baseAddress) {
          dwarf_error(v, "location lists with base-address entries are not re-encoded; list kept as an offset");
          return Value::sectionOffset(symbolOf(v.reloc, v.value), v.form);
        }
        entries.push_back({symbolOf(e.beginReloc, e.begin), symbolOf(e.endReloc, e.end),
                           exprOf(dwarf_.loc, e.exprOffset, e.expr, list->addressSize)});
      }
      Value lv;
      lv.kind = Value::Kind::locationList;
      lv.list = unit.addLocationList(std::move(entries));
      lv.form = v.form;
      return lv;
    }
    if (v.reloc) return Value::sectionOffset(symbolOf(v.reloc, v.value), v.form);
    return Value::unsignedValue(v.value, v.form);
  }

  void dwarf_error(const read::AttrValue& v, std::string message) {
    Diagnostic& d = diags_.error(dwarf_.info ? dwarf_.info->locate(v.offset) : SourceLoc{}, std::move(message));
    d.section = ".debug_info";
    d.offset = static_cast<int64_t>(v.offset);
  }

  const read::Dwarf& dwarf_;
  Diagnostics& diags_;
};

}  // namespace

std::vector<SectionImage> encodeCanonical(const read::Dwarf& dwarf, Diagnostics& diags, unsigned threads) {
  CanonicalBuilder builder(dwarf, diags);
  std::vector<std::unique_ptr<Unit>> units;
  try {
    units = builder.build();
  } catch (const BuildError& e) {  // input the producer model cannot hold (a DIE with tag 0, ...)
    diags.error({}, std::string("cannot re-encode: ") + e.what());
    return {};
  }
  std::vector<const Unit*> pointers;
  for (auto& u : units) pointers.push_back(u.get());
  EncodeOptions options{.pubnames = dwarf.pubnames != nullptr, .aranges = dwarf.aranges != nullptr, .threads = threads};
  if (!dwarf.pubnameSets.empty() && !dwarf.units.empty() && dwarf.pubnameSets[0].infoLength == dwarf.units[0].length)
    options.pubnamesLength = UnitLengthConvention::unitLengthField;  // keep the input's convention
  std::vector<SectionImage> out = encode(pointers, options, diags);
  // Sections the model does not cover are kept as they were.
  std::set<std::string, work::CountingLess<work::sectionLookup>> produced;
  for (const SectionImage& s : out) produced.insert(s.name);
  out.reserve(out.size() + dwarf.sections.size());  // a copy of each image, not three at a doubling
  for (const SectionImage& in : dwarf.sections)
    if (in.name != ".debug_loc" && produced.insert(in.name).second) out.push_back(in);
  return out;
}

}  // namespace ptxdwarf::write
