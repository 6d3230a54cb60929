// What view::lookup on PTX (lookup.cpp) and on a cubin (lookup_cubin.cpp)
// share: a location expression spelled in PTX terms, gdb's match of a
// `--at SOURCE:LINE` source against file paths, and the units' directories.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/view/attributes.h"
#include "ptxdwarf/view/lookup.h"

namespace ptxdwarf::view::detail {

// A location expression in PTX terms: registers by name, symbols as the PTX
// writes them, offsets added on ("%r5", "*(%rd1+8)", "__local_depot0+8").
std::string expressionText(const read::Expression& e);

// A string attribute's characters; empty when it is absent or no string.
std::string_view stringValue(const std::optional<read::AttrValue>& v);
// A constant attribute's value; none when it is absent, no constant or a symbol.
std::optional<uint64_t> constantValue(const std::optional<read::AttrValue>& v);

// Every unit's DW_AT_comp_dir, each once: a relative `.file` path's full
// name is joined to it, as `dump` prints DW_AT_decl_file.
std::vector<std::string_view> compDirs(const read::Dwarf& dwarf);

// What a variable or parameter DIE says of itself wherever the debugger
// stops: name, kind, DIE, declaration line, address class and type (the
// location is the caller's: a PTX file's and a cubin's differ).
VariableInfo describeVariable(const read::Dwarf& dwarf, const read::Die& die, const SubtreeEnds& ends);

bool isAbsolutePath(std::string_view p);
// gdb's rule for `break FILE:LINE` (compare_filenames_for_search): does
// `search` name `path`?
bool namesPath(std::string_view path, std::string_view search);

// A SOURCE of `--at SOURCE:LINE`, matched against `.file` paths and their
// full names: a relative path joined to a unit's DW_AT_comp_dir with '/'
// (what `dump` prints for DW_AT_decl_file). Each full name is matched
// without being made: SOURCE names DIR/PATH when it names PATH, or ends in
// "/" + PATH after a head that names DIR -- and that is decided once per
// head, however many files and directories there are.
class SourceName {
 public:
  SourceName(std::string_view search, std::vector<std::string_view> dirs)
      : search_(search), dirs_(std::move(dirs)), headNamesDir_(search.size() + 1, kUnknown) {}

  bool names(std::string_view path) {
    if (namesPath(path, search_)) return true;
    if (isAbsolutePath(path) || path.empty() || search_.size() <= path.size() || !search_.ends_with(path)) return false;
    const size_t head = search_.size() - path.size() - 1;
    return search_[head] == '/' && headNamesADir(head);
  }

 private:
  static constexpr int8_t kUnknown = -1;

  // Whether search_'s first `head` characters name a directory: DIR (with
  // no '/' at its end; "/" is the empty head of "/PATH") ends them at a
  // component boundary, as namesPath asks of the joined name.
  bool headNamesADir(size_t head) {
    int8_t& known = headNamesDir_[head];
    if (known == kUnknown) {
      known = 0;
      for (std::string_view dir : dirs_) {
        while (!dir.empty() && dir.back() == '/') dir.remove_suffix(1);
        if (namesPath(dir, search_.substr(0, head))) {
          known = 1;
          break;
        }
      }
    }
    return known == 1;
  }

  std::string_view search_;
  std::vector<std::string_view> dirs_;
  std::vector<int8_t> headNamesDir_;  // per head length: kUnknown, 0 or 1
};


}  // namespace ptxdwarf::view::detail
