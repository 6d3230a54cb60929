// `ptxdump dump --statistics` and `ptxdump types`: formatting what
// ptxdwarf::view computes.
#pragma once

#include <string>
#include <string_view>

#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/view/types.h"

namespace ptxdump {

// One JSON object (indented like llvm-dwarfdump's) with llvm-dwarfdump
// --statistics' key names for the counts, and the scope measures in PTX instructions.
void appendStatisticsJson(std::string_view file, const ptxdwarf::view::Statistics& s, std::string& out);

// The types as C declarations with pahole's layout comments.
void appendTypesText(const std::vector<ptxdwarf::view::TypeLayout>& types, std::string& out);
// {"types": [{"name", "kind", "size", "members": [...]}, ...]} plus "file".
void appendTypesJson(std::string_view file, const std::vector<ptxdwarf::view::TypeLayout>& types, std::string& out);

}  // namespace ptxdump
