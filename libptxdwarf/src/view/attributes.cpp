#include "ptxdwarf/view/attributes.h"

#include <algorithm>
#include <vector>

#include "ptxdwarf/dwarf.h"

namespace ptxdwarf::view {

using read::AttrValue;
using read::Die;
using read::Dwarf;

const Die* referencedDie(const Dwarf& dwarf, const Die& die, uint16_t attr) {
  std::optional<AttrValue> v = dwarf.attribute(die, attr);
  if (!v || !v->isReference() || v->reloc) return nullptr;
  return dwarf.dieAt(v->value);
}

std::optional<AttrValue> findRecursively(const Dwarf& dwarf, const Die& die, std::initializer_list<uint16_t> attrs) {
  // Most DIEs have the attribute themselves: answer without the worklist.
  for (uint16_t a : attrs)
    if (std::optional<AttrValue> v = dwarf.attribute(die, a)) return v;
  // LLVM's worklist: a crafted file may make the chains cycle, so each DIE
  // once; and chain thousands of DIEs, so a bounded number of them (real
  // chains are two or three long: concrete -> abstract -> declaration).
  constexpr size_t kMaxChain = 64;
  std::vector<const Die*> work{&die}, seen{&die};
  bool first = true;
  while (!work.empty()) {
    const Die* d = work.back();
    work.pop_back();
    if (!first)
      for (uint16_t a : attrs)
        if (std::optional<AttrValue> v = dwarf.attribute(*d, a)) return v;
    first = false;
    for (uint16_t link : {dw::DW_AT_abstract_origin, dw::DW_AT_specification}) {
      const Die* t = referencedDie(dwarf, *d, link);
      if (t && seen.size() < kMaxChain && std::find(seen.begin(), seen.end(), t) == seen.end()) {
        seen.push_back(t);
        work.push_back(t);
      }
    }
  }
  return std::nullopt;
}

std::string_view shortName(const Dwarf& dwarf, const Die& die) {
  std::optional<AttrValue> v = findRecursively(dwarf, die, {dw::DW_AT_name});
  return v && v->isString() ? v->string() : std::string_view();
}

std::string_view linkageOrShortName(const Dwarf& dwarf, const Die& die) {
  std::optional<AttrValue> v = findRecursively(dwarf, die, {dw::DW_AT_MIPS_linkage_name, dw::DW_AT_linkage_name});
  if (v && v->isString()) return v->string();
  return shortName(dwarf, die);
}

}  // namespace ptxdwarf::view
