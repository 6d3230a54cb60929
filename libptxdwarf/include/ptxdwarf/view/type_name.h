// Type names as a debugger spells them: llvm-dwarfdump's qualified names
// ("const char *", "int[32]", "geo::Vec3", "float (*)(int)"), printed from
// the decoded DIEs.
#pragma once

#include <string>
#include <string_view>

#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/attributes.h"

namespace ptxdwarf::view {

// Appends the name of the type `die` describes (llvm::DWARFTypePrinter's
// spelling, LLVM 14); "void" for none. Bounded work per name, whatever the
// DIEs: a type nested more than 64 scopes deep is named by its innermost 64
// after "(enclosing scopes left out)::", and a name whose spelling would take more steps than the bound (DIEs that
// reference each other in a cycle, templates of templates) stops where the
// bound is reached with "(name cut short)". `ends` (made of this Dwarf)
// lets the children of a type -- template parameters, subranges, function
// parameters -- be found without walking its members' subtrees: callers
// naming many types pass one, so the work does not grow with how deep the
// types are nested.
void appendTypeName(const read::Dwarf& dwarf, const read::Die* die, std::string& out,
                    const SubtreeEnds* ends = nullptr);
std::string typeName(const read::Dwarf& dwarf, const read::Die* die, const SubtreeEnds* ends = nullptr);

}  // namespace ptxdwarf::view
