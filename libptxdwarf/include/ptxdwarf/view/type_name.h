// Type names as a debugger spells them: llvm-dwarfdump's qualified names
// ("const char *", "int[32]", "geo::Vec3", "float (*)(int)"), printed from
// the decoded DIEs.
#pragma once

#include <string>

#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::view {

// Appends the name of the type `die` describes (llvm::DWARFTypePrinter's
// spelling, LLVM 14); "void" for none. Bounded work per name, whatever the DIEs.
void appendTypeName(const read::Dwarf& dwarf, const read::Die* die, std::string& out);
std::string typeName(const read::Dwarf& dwarf, const read::Die* die);

}  // namespace ptxdwarf::view
