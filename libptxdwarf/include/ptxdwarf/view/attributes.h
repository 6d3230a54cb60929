// Attribute look-ups as a debugger makes them: through DW_AT_abstract_origin
// and DW_AT_specification (llvm::DWARFDie::findRecursively).
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::view {

// The first of `attrs` found on `die` or on the DIEs its abstract origin and
// specification chains lead to (each DIE visited once); nullopt when none.
std::optional<read::AttrValue> findRecursively(const read::Dwarf& dwarf, const read::Die& die,
                                               std::initializer_list<uint16_t> attrs);

// DW_AT_name, found recursively; empty when none.
std::string_view shortName(const read::Dwarf& dwarf, const read::Die& die);
// DW_AT_MIPS_linkage_name / DW_AT_linkage_name found recursively, else
// shortName (llvm::DWARFDie::getName(DINameKind::LinkageName)).
std::string_view linkageOrShortName(const read::Dwarf& dwarf, const read::Die& die);

// The DIE a reference attribute of `die` names (nullptr: absent, symbolic, or not a DIE).
const read::Die* referencedDie(const read::Dwarf& dwarf, const read::Die& die, uint16_t attr);

// Where each DIE's subtree ends in the flat DIE array: the index of the
// first DIE after it (its next sibling, or the NULL entry that ends its
// parent's children). Made in one pass; with it the children of a DIE are
// visited in as many steps as it has children, where a walk of the array
// visits its whole subtree (a type nested n deep: n^2 steps for them all).
class SubtreeEnds {
 public:
  explicit SubtreeEnds(const read::Dwarf& dwarf);
  uint32_t end(uint32_t die) const { return ends_[die] & kIndex; }
  // Whether the DIE has a template parameter child: a type's name looks for
  // them among its children each time it is spelled (a struct of n members
  // of its own pointer type: n^2 steps for its layout).
  bool hasTemplateParameters(uint32_t die) const { return ends_[die] & kTemplated; }

 private:
  static constexpr uint32_t kTemplated = 0x80000000u, kIndex = ~kTemplated;
  std::vector<uint32_t> ends_;  // the end, and kTemplated
};

// Calls f(child) for each child of `die`, NULL entries left out, in order,
// until f returns false: sibling to sibling with `ends` (made of this
// Dwarf), through the subtree without.
void forEachChild(const read::Dwarf& dwarf, const read::Die& die, const SubtreeEnds* ends,
                  const std::function<bool(const read::Die&)>& f);

}  // namespace ptxdwarf::view
