// The debugger's questions, answered from the PTX alone: stopped at a source
// line, a PTX line or a function, which function, inlined subroutines and
// blocks am I in; which variables and parameters are visible; where does each
// live right there (register, .local depot offset, .param symbol — through
// location lists whose ranges are PTX labels); of which type and address class.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/scopes.h"

namespace ptxdwarf::view {

struct ScopeInfo {
  uint16_t tag = 0;
  std::string name = {};          // through abstract_origin for inlined subroutines; empty for blocks
  uint64_t die = 0;          // DIE offset
  // Inlined subroutines: the call site, as DW_AT_call_file/call_line give it.
  std::string callFile = {};
  uint64_t callLine = 0;
};

struct VariableInfo {
  std::string name = {};
  bool parameter = false;
  std::string type = {};          // the C spelling ("int *", "geo::Vec3")
  std::string location = {};      // in PTX terms at the place: "%r5", "_Z4testPi_param_0", "__local_depot0+8", ...
  bool available = true;     // false: no location covers the place (optimized out there)
  uint64_t addressClass = 0;  // DW_AT_address_class, 0 when absent
  uint64_t declLine = 0;
  uint64_t die = 0;          // DIE offset
};

// One place the question matched: a function and the PTX instructions there
// that share one innermost scope.
struct Match {
  std::string function = {};                  // the PTX function
  std::vector<uint32_t> ptxLines = {};        // of those instructions
  std::vector<uint32_t> instructions = {};    // indices into Module::instructions
  std::vector<ScopeInfo> scopes = {};         // innermost first, up to the subprogram
  std::vector<VariableInfo> variables = {};   // visible at the first of the instructions
};

struct LookupResult {
  std::vector<Match> matches = {};
  std::string error = {};  // why nothing matched, when nothing did
};

// WHERE: `SOURCE:LINE` (a source path or any suffix of it at a '/'), `ptx:LINE`
// (a line of the PTX file: its instruction, or the next one), or a function's
// PTX name or DW_AT_name (its first instruction).
//
// Visibility follows the debugger and C++: the variables and parameters of
// every scope from the innermost up to the frame (the subprogram, or the
// inlined subroutine the place is in), less those a source line lookup finds
// declared later in the same file (C++: a name is visible from its
// declaration on).
LookupResult lookup(const ptx::Module& module, const read::Dwarf& dwarf, std::string_view where);

}  // namespace ptxdwarf::view
