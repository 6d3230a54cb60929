// Check rules in operands.cpp, run by check.cpp's Checker (one hook each).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::check::detail {

// Reports an error of `rule` at `offset` of `section` (its PTX line, or `at`
// when it names one), in `die` when given.
using Report = std::function<void(const SectionImage* section, uint64_t offset, std::string_view rule,
                                  std::string message, const read::Die* die, SourceLoc at)>;

// DW_FORM_strp values: inside .debug_str, on a NUL-terminated string, naming .debug_str.
void stringOffsets(const read::Dwarf& dwarf, const Report& report);
// `.debug_x+N` operands: the section exists, N is inside it and not negative;
// name-table headers name .debug_info.
void debugSectionOperands(const ptx::Module& module, const read::Dwarf& dwarf, const Report& report);
// DW_AT_type chains that come back to where they started.
void typeCycles(const read::Dwarf& dwarf, const Report& report);
// Labels inside sections defined once, and not named like a function, code label or variable.
void sectionLabels(const ptx::Module& module, const Report& report);

}  // namespace ptxdwarf::check::detail
