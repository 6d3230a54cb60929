// The output of the views (ptxdwarf/view/): `ptxdump dump --statistics`,
// `ptxdump types` and `ptxdump lookup`, as text and JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/view/types.h"

namespace ptxdwarf::print {

// One JSON object (indented like llvm-dwarfdump's) with llvm-dwarfdump
// --statistics' key names for the counts, and the scope measures in PTX instructions.
void statisticsJson(std::string_view file, const view::Statistics& s, std::string& out);

// The types as C declarations with pahole's layout comments.
void typesText(const std::vector<view::TypeLayout>& types, std::string& out);
// {"types": [{"name", "kind", "size", "members": [...]}, ...]} plus "file".
void typesJson(std::string_view file, const std::vector<view::TypeLayout>& types, std::string& out);

// What a debugger sees at `at` in `file` (view::lookup): each match's
// scopes and visible variables. Names are escaped as the dump escapes them.
// On a cubin a match is `FUNCTION+0xPC, line L`, a variable's location is
// followed by ` = R4:R5` (its SASS) or is `<optimized out> (why)`.
void lookupText(std::string_view file, std::string_view at, const view::LookupResult& r, std::string& out);
// {"file", "at", "matches": [{"function", "ptx_lines", "scopes", "variables"}]}; on a cubin a match also
// has "pc" and a variable "sass": [...].
void lookupJson(std::string_view file, std::string_view at, const view::LookupResult& r, std::string& out);

}  // namespace ptxdwarf::print
