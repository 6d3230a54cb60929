// The line information of a PTX file: the `.file` table as ptxas writes it
// into `.debug_line`, and one row per `.loc` directive with the inline stack
// its `function_name`/`inlined_at` operands describe. ptxas builds the
// `.debug_line` section from exactly this; a `-lineinfo` build has nothing
// else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::ptx {

// A `.file` entry split the way ptxas splits it: the path up to its last '/'
// becomes an include directory (shared by the files in it, numbered from 1
// in order of first use), the rest the file name; a path without '/' has
// directory 0.
struct LineFile {
  unsigned index = 0;           // the `.file` number
  uint32_t directory = 0;       // into LineTable::includeDirectories, 1-based; 0 for none
  std::string name = {};
  uint64_t modificationTime = 0;  // from `.file`; ptxas fills in the file system's when absent
  uint64_t length = 0;
  uint32_t entry = 0;           // index into Module::files
};

struct LineRow {
  uint32_t loc = 0;              // index into Module::locs (rows are in `.loc` order)
  // For inlined code: the row whose location `inlined_at` names, the most
  // recent `.loc` before this one at that file, line and column. kNoIndex
  // when the row is not inlined or no earlier `.loc` used the location.
  uint32_t caller = kNoIndex;
  // The inlined rows of its inline stack (the frames a debugger shows above
  // the function): 0 for a row not inlined, else 1 + its caller's.
  uint32_t inlineDepth = 0;
};

struct LineTable {
  std::vector<std::string> includeDirectories = {};  // includeDirectories[0] is directory 1
  std::vector<LineFile> files = {};                  // by `.file` index, each index once (its first entry)
  std::vector<LineRow> rows = {};
  // Module::locFunctionNames[i] resolved: the string its label starts in
  // `.debug_str`, or nullopt when the label is not defined there or does not
  // start a NUL-terminated string.
  std::vector<std::optional<std::string>> functionNames = {};

  const LineFile* file(unsigned index) const;
  // The row and its callers, innermost first: [row, caller, caller's caller,
  // ...], at most `most` of them (a stack may be as deep as the file has
  // `.loc`s: a caller that shows every row's whole stack shows O(n^2)).
  std::vector<uint32_t> inlineStack(uint32_t row, size_t most = SIZE_MAX) const;
};

// Builds the table in two linear passes over the `.loc` records.
LineTable buildLineTable(const Module& module);

// The NUL-terminated string that starts at `label` in `.debug_str`, or
// nullopt when there is none.
std::optional<std::string> debugStringAt(const Module& module, std::string_view label);

// The path as a debugger shows it: directory and name joined.
std::string pathOf(const LineTable& table, const LineFile& file);

}  // namespace ptxdwarf::ptx
