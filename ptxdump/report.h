// Diagnostics as ptxdump's commands print them.
#pragma once

#include <string>

#include "ptxdwarf/diagnostic.h"

namespace ptxdump {

// One line per diagnostic, `file:line:col: severity: message [rule]`, with
// ` (section+0xOFFSET)` after one that has both a PTX position and a section
// offset (one without a line names its offset in place of the position).
void appendDiagnostics(const ptxdwarf::Diagnostics& diags, const std::string& path, std::string& err);

}  // namespace ptxdump
