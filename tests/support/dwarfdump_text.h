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

// A line of our dump in llvm-dwarfdump's spelling of the two CUDA extensions
// that are spelling only: `(0x5 ADDR_local_space)` -> `(0x5)`, and a
// packed register `DW_OP_regx %r5` -> `DW_OP_regx 0x257235`.
std::string llvmSpelling(const std::string& line);

}  // namespace ptxdwarf::testsupport
