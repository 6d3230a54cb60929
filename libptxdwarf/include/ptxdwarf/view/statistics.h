// Debug-info quality figures, as `llvm-dwarfdump --statistics` (LLVM 14,
// Statistics.cpp version 9) computes them, over the DWARF of a PTX file.
//
// The counts (functions, inlined functions, variables, parameters, call
// sites) describe the DIEs, not the code, and equal llvm-dwarfdump's on the
// cubin. Where LLVM measures scopes and location coverage in machine-code
// bytes, these measure a PTX file's in PTX instructions: a scope is the
// instructions from its low_pc label to its high_pc label, a location-list
// entry those from its begin label to its end label (a label stands for the
// next instruction). A cubin's are measured in its SASS bytes, as LLVM does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::view {

// LLVM's coverage buckets: [0] 0%, [1] (0%,10%), [2..10] [10%,20%) ..
// [90%,100%), [11] 100% of the parent scope covered by DW_AT_location.
inline constexpr int kCoverageBuckets = 12;

struct LocationCoverage {
  uint64_t processed = 0;  // variables with a non-empty scope, plus inlined ones with no location
  std::array<uint64_t, kCoverageBuckets> buckets{};
  std::array<uint64_t, kCoverageBuckets> withoutEntryValues{};  // "- entry values": DW_OP_entry_value ranges left out
};

struct ScopeCoverage {
  uint64_t inParentScope = 0;         // instructions of each variable's enclosing scope, summed
  uint64_t coveredInParentScope = 0;  // of those, the ones its location covers
  uint64_t coveredByEntryValues = 0;  // of those, covered by DW_OP_entry_value locations
};

struct Statistics {
  std::string format;    // "format": the module's file format ("ptx", or a cubin's "elf64-unknown")
  bool inBytes = false;  // a cubin's: the measures below are in bytes (and named so), not instructions
  // A cubin's "#bytes in .debug_*": each debug section's size, in file order.
  std::vector<std::pair<std::string, uint64_t>> debugSectionBytes;
  // llvm-dwarfdump's count keys.
  uint64_t functions = 0;                    // "#functions": distinct concrete functions (out of line or inlined)
  uint64_t functionsWithLocation = 0;        // "#functions with location": with decl_file and decl_line
  uint64_t inlinedFunctions = 0;             // "#inlined functions": DW_TAG_inlined_subroutine instances
  uint64_t inlinedWithAbstractOrigins = 0;   // "#inlined functions with abstract origins"
  uint64_t uniqueSourceVariables = 0;        // "#unique source variables"
  uint64_t sourceVariables = 0;              // "#source variables": per function instance
  uint64_t sourceVariablesWithLocation = 0;  // "#source variables with location"
  uint64_t callSiteEntries = 0;              // "#call site entries": scopes with call_file and call_line
  uint64_t callSiteDies = 0;                 // "#call site DIEs"
  uint64_t callSiteParameterDies = 0;        // "#call site parameter DIEs"
  uint64_t params = 0, paramsWithSourceLocation = 0, paramsWithType = 0, paramsWithBinaryLocation = 0;
  uint64_t localVars = 0, localVarsWithSourceLocation = 0, localVarsWithType = 0, localVarsWithBinaryLocation = 0;

  // The measures LLVM takes in bytes: a PTX file's in instructions.
  uint64_t instructionsWithinFunctions = 0;         // "#bytes within functions"
  uint64_t instructionsWithinInlinedFunctions = 0;  // "#bytes within inlined functions" (outermost only)
  uint64_t coveredInAnyScope = 0;  // "sum_all_variables(#bytes in any scope covered by DW_AT_location)"
  ScopeCoverage variables, paramScopes, localVarScopes;
  LocationCoverage variableCoverage, paramCoverage, localVarCoverage;
};

Statistics computeStatistics(const ptx::Module& module, const read::Dwarf& dwarf);

}  // namespace ptxdwarf::view
