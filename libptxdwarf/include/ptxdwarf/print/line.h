// The line table (`.file`/`.loc`) as text in llvm-dwarfdump's --debug-line
// layout, and as the JSON "line" object.
#pragma once

#include <functional>
#include <string>

#include "ptxdwarf/ptx/lines.h"
#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::print {

// Appends ".debug_line contents:" and the table. `drain`, when set, is called
// after each row, so a streaming caller can write out what has accumulated.
void lineTableText(const ptx::Module& module, std::string& out, const std::function<void()>& drain = {});

// Writes the member `"line":{"files":[...],"rows":[...]}` through `w`, inside
// the object `w` has open, calling `drain` after each row as lineTableText does.
class JsonWriter;
void lineTableJson(const ptx::Module& module, JsonWriter& w, const std::function<void()>& drain = {});

// `path:line:col` of a source position, the path resolved through the file
// table and escaped as the dump escapes it.
void appendSourcePosition(std::string& out, const ptx::LineTable& t, const ptx::SourcePosition& p);

}  // namespace ptxdwarf::print
