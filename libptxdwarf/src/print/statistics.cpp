// The --statistics JSON object. Key names are llvm-dwarfdump 14's, so that a
// script comparing builds reads either; LLVM's "#bytes" measures are PTX
// instructions here and named so.
#include <cstdio>

#include "ptxdwarf/format.h"
#include "ptxdwarf/print/json.h"
#include "ptxdwarf/print/views.h"

namespace ptxdwarf::print {

namespace {

// llvm-dwarfdump --statistics' layout: one object, a member per line.
class JsonObject {
 public:
  explicit JsonObject(std::string& out) : w_(out, 2) { w_.objectBegin(); }
  void number(std::string_view k, uint64_t v) { w_.field(k, v); }
  void string(std::string_view k, std::string_view v) { w_.field(k, v); }
  void close() {
    w_.objectEnd();
    w_.out() += '\n';
  }

 private:
  JsonWriter w_;
};

// printLocationStats: "<what> with 0% of parent scope covered by DW_AT_location", ...
void buckets(JsonObject& j, std::string_view what, const std::array<uint64_t, view::kCoverageBuckets>& b) {
  constexpr std::string_view tail = " of parent scope covered by DW_AT_location";
  std::string prefix = std::string(what) + " with ";
  j.number(prefix + "0%" + std::string(tail), b[0]);
  j.number(prefix + "(0%,10%)" + std::string(tail), b[1]);
  for (int i = 2; i < view::kCoverageBuckets - 1; ++i)
    j.number(prefix + "[" + std::to_string((i - 1) * 10) + "%," + std::to_string(i * 10) + "%)" + std::string(tail),
             b[static_cast<size_t>(i)]);
  j.number(prefix + "100%" + std::string(tail), b[view::kCoverageBuckets - 1]);
}

void scopeSums(JsonObject& j, std::string_view what, const std::string& unit, const view::ScopeCoverage& c) {
  std::string w(what);
  j.number(w + "(" + unit + " in parent scope)", c.inParentScope);
  j.number(w + "(" + unit + " in parent scope covered by DW_AT_location)", c.coveredInParentScope);
  j.number(w + "(" + unit + " in parent scope covered by DW_OP_entry_value)", c.coveredByEntryValues);
}

}  // namespace

void statisticsJson(std::string_view file, const view::Statistics& s, std::string& out) {
  // LLVM's keys say "bytes"; a PTX file's measures are instructions and say so.
  const std::string unit = s.inBytes ? "#bytes" : "#instructions";
  JsonObject j(out);
  j.number("version", 9);  // the llvm-dwarfdump algorithm version these follow
  j.string("file", file);
  j.string("format", s.format);
  j.number("#functions", s.functions);
  j.number("#functions with location", s.functionsWithLocation);
  j.number("#inlined functions", s.inlinedFunctions);
  j.number("#inlined functions with abstract origins", s.inlinedWithAbstractOrigins);
  j.number("#unique source variables", s.uniqueSourceVariables);
  j.number("#source variables", s.sourceVariables);
  j.number("#source variables with location", s.sourceVariablesWithLocation);
  j.number("#call site entries", s.callSiteEntries);
  j.number("#call site DIEs", s.callSiteDies);
  j.number("#call site parameter DIEs", s.callSiteParameterDies);
  j.number("sum_all_variables(" + unit + " in parent scope)", s.variables.inParentScope);
  j.number("sum_all_variables(" + unit + " in any scope covered by DW_AT_location)", s.coveredInAnyScope);
  j.number("sum_all_variables(" + unit + " in parent scope covered by DW_AT_location)",
           s.variables.coveredInParentScope);
  j.number("sum_all_variables(" + unit + " in parent scope covered by DW_OP_entry_value)",
           s.variables.coveredByEntryValues);
  scopeSums(j, "sum_all_params", unit, s.paramScopes);
  scopeSums(j, "sum_all_local_vars", unit, s.localVarScopes);
  j.number(unit + " within functions", s.instructionsWithinFunctions);
  j.number(unit + " within inlined functions", s.instructionsWithinInlinedFunctions);
  for (const auto& [section, bytes] : s.debugSectionBytes) j.number("#bytes in " + section, bytes);
  j.number("#params", s.params);
  j.number("#params with source location", s.paramsWithSourceLocation);
  j.number("#params with type", s.paramsWithType);
  j.number("#params with binary location", s.paramsWithBinaryLocation);
  j.number("#local vars", s.localVars);
  j.number("#local vars with source location", s.localVarsWithSourceLocation);
  j.number("#local vars with type", s.localVarsWithType);
  j.number("#local vars with binary location", s.localVarsWithBinaryLocation);
  j.number("#variables processed by location statistics", s.variableCoverage.processed);
  buckets(j, "#variables", s.variableCoverage.buckets);
  buckets(j, "#variables - entry values", s.variableCoverage.withoutEntryValues);
  j.number("#params processed by location statistics", s.paramCoverage.processed);
  buckets(j, "#params", s.paramCoverage.buckets);
  buckets(j, "#params - entry values", s.paramCoverage.withoutEntryValues);
  j.number("#local vars processed by location statistics", s.localVarCoverage.processed);
  buckets(j, "#local vars", s.localVarCoverage.buckets);
  buckets(j, "#local vars - entry values", s.localVarCoverage.withoutEntryValues);
  j.close();
}

}  // namespace ptxdwarf::print
