// Reading llvm-dwarfdump's text output in tests.
#pragma once

#include <string>
#include <tuple>
#include <vector>

namespace ptxdwarf::testsupport {

// A row of a line table: the file's full path, line, column.
using DumpRow = std::tuple<std::string, unsigned, unsigned>;

// `llvm-dwarfdump --debug-line`: each sequence's rows (end_sequence rows
// left out), files resolved through include_directories + file_names as
// ptxas splits the `.file` paths. Sets *error (and returns nothing) when a
// row names a file the table does not have.
std::vector<std::vector<DumpRow>> parseDebugLine(const std::string& dump, std::string* error);

}  // namespace ptxdwarf::testsupport
