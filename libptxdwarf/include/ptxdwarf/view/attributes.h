// Attribute look-ups as a debugger makes them: through DW_AT_abstract_origin
// and DW_AT_specification (llvm::DWARFDie::findRecursively).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

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

}  // namespace ptxdwarf::view
