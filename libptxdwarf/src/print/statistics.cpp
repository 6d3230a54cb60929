// The --statistics JSON object. Key names are llvm-dwarfdump 14's, so that a
// script comparing builds reads either; LLVM's "#bytes" measures are PTX
// instructions here and named so.
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/json.h"
#include "ptxdwarf/print/views.h"

namespace ptxdwarf::print {

namespace {

// printLocationStats: "<what> with 0% of parent scope covered by DW_AT_location", ...
void buckets(JsonWriter& j, std::string_view what, const std::array<uint64_t, view::kCoverageBuckets>& b) {
  constexpr std::string_view tail = " of parent scope covered by DW_AT_location";
  std::string prefix = std::string(what) + " with ";
  j.field(prefix + "0%" + std::string(tail), b[0]);
  j.field(prefix + "(0%,10%)" + std::string(tail), b[1]);
  for (int i = 2; i < view::kCoverageBuckets - 1; ++i)
    j.field(prefix + "[" + std::to_string((i - 1) * 10) + "%," + std::to_string(i * 10) + "%)" + std::string(tail),
            b[static_cast<size_t>(i)]);
  j.field(prefix + "100%" + std::string(tail), b[view::kCoverageBuckets - 1]);
}

void scopeSums(JsonWriter& j, std::string_view what, const std::string& unit, const view::ScopeCoverage& c) {
  std::string w(what);
  j.field(w + "(" + unit + " in parent scope)", c.inParentScope);
  j.field(w + "(" + unit + " in parent scope covered by DW_AT_location)", c.coveredInParentScope);
  j.field(w + "(" + unit + " in parent scope covered by DW_OP_entry_value)", c.coveredByEntryValues);
}

}  // namespace

void statisticsJson(std::string_view file, const view::Statistics& s, std::string& out) {
  // LLVM's keys say "bytes"; a PTX file's measures are instructions and say so.
  const std::string unit = s.inBytes ? "#bytes" : "#instructions";
  JsonWriter j(out, 2);  // llvm-dwarfdump --statistics' layout: one object, a member per line
  j.objectBegin();
  j.field("version", uint64_t{9});  // the llvm-dwarfdump algorithm version these follow
  j.field("file", file);
  j.field("format", s.format);
  j.field("#functions", s.functions);
  j.field("#functions with location", s.functionsWithLocation);
  j.field("#inlined functions", s.inlinedFunctions);
  j.field("#inlined functions with abstract origins", s.inlinedWithAbstractOrigins);
  j.field("#unique source variables", s.uniqueSourceVariables);
  j.field("#source variables", s.sourceVariables);
  j.field("#source variables with location", s.sourceVariablesWithLocation);
  j.field("#call site entries", s.callSiteEntries);
  j.field("#call site DIEs", s.callSiteDies);
  j.field("#call site parameter DIEs", s.callSiteParameterDies);
  j.field("sum_all_variables(" + unit + " in parent scope)", s.variables.inParentScope);
  j.field("sum_all_variables(" + unit + " in any scope covered by DW_AT_location)", s.coveredInAnyScope);
  j.field("sum_all_variables(" + unit + " in parent scope covered by DW_AT_location)",
          s.variables.coveredInParentScope);
  j.field("sum_all_variables(" + unit + " in parent scope covered by DW_OP_entry_value)",
          s.variables.coveredByEntryValues);
  scopeSums(j, "sum_all_params", unit, s.paramScopes);
  scopeSums(j, "sum_all_local_vars", unit, s.localVarScopes);
  j.field(unit + " within functions", s.instructionsWithinFunctions);
  j.field(unit + " within inlined functions", s.instructionsWithinInlinedFunctions);
  for (const auto& [section, bytes] : s.debugSectionBytes) j.field("#bytes in " + section, bytes);
  j.field("#params", s.params);
  j.field("#params with source location", s.paramsWithSourceLocation);
  j.field("#params with type", s.paramsWithType);
  j.field("#params with binary location", s.paramsWithBinaryLocation);
  j.field("#local vars", s.localVars);
  j.field("#local vars with source location", s.localVarsWithSourceLocation);
  j.field("#local vars with type", s.localVarsWithType);
  j.field("#local vars with binary location", s.localVarsWithBinaryLocation);
  j.field("#variables processed by location statistics", s.variableCoverage.processed);
  buckets(j, "#variables", s.variableCoverage.buckets);
  buckets(j, "#variables - entry values", s.variableCoverage.withoutEntryValues);
  j.field("#params processed by location statistics", s.paramCoverage.processed);
  buckets(j, "#params", s.paramCoverage.buckets);
  buckets(j, "#params - entry values", s.paramCoverage.withoutEntryValues);
  j.field("#local vars processed by location statistics", s.localVarCoverage.processed);
  buckets(j, "#local vars", s.localVarCoverage.buckets);
  buckets(j, "#local vars - entry values", s.localVarCoverage.withoutEntryValues);
  j.objectEnd();
  out += '\n';
}

}  // namespace ptxdwarf::print
