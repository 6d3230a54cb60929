// The rules for the line information: `.file` and `.loc` (with
// `function_name`/`inlined_at`) against each other, `.debug_str` and the PTX
// version. They need no DWARF: a -lineinfo build is checked by them alone.
#pragma once

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/lines.h"
#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::check {

void checkLineTable(const ptx::Module& module, const ptx::LineTable& table, Diagnostics& out);

}  // namespace ptxdwarf::check
