// The line table (`.file`/`.loc`) as text in llvm-dwarfdump's --debug-line
// layout, and as the JSON "line" object.
#pragma once

#include <functional>
#include <string>

#include "ptxdwarf/ptx/lines.h"
#include "ptxdwarf/ptx/module.h"

namespace ptxdump {

// Appends ".debug_line contents:" and the table. `drain` is called after
// each row, so a streaming caller can write out what has accumulated.
void dumpLineText(const ptxdwarf::ptx::Module& module, std::string& out, const std::function<void()>& drain);

// Appends `"line":{"files":[...],"rows":[...]}` (no separator before it),
// calling `drain` after each row as dumpLineText does.
void dumpLineJson(const ptxdwarf::ptx::Module& module, std::string& out, const std::function<void()>& drain);

}  // namespace ptxdump
