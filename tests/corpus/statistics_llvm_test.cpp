// `ptxdump dump --statistics` against `llvm-dwarfdump --statistics` on the
// cubin ptxas makes of each corpus file: every count key (functions, inlined
// functions, variables, parameters, call sites) must be equal. The coverage
// figures are left out: LLVM's are in SASS bytes, ours in PTX instructions.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "corpus.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/statistics.h"
#include "view_format.h"

using namespace ptxdwarf::testsupport;

namespace {

const char* const kCountKeys[] = {
    "#functions",
    "#functions with location",
    "#inlined functions",
    "#inlined functions with abstract origins",
    "#unique source variables",
    "#source variables",
    "#source variables with location",
    "#call site entries",
    "#call site DIEs",
    "#call site parameter DIEs",
    "#params",
    "#params with source location",
    "#params with type",
    "#params with binary location",
    "#local vars",
    "#local vars with source location",
    "#local vars with type",
    "#local vars with binary location",
};

// `"key": 123` lines of a pretty-printed JSON object (both sides print one key a line).
std::map<std::string, uint64_t> numbers(const std::string& json) {
  static const std::regex entry(R"re("([^"]+)": (\d+))re");
  std::map<std::string, uint64_t> out;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), entry); it != std::sregex_iterator(); ++it)
    out[(*it)[1].str()] = std::stoull((*it)[2].str());
  return out;
}

struct Totals {
  int files = 0, keys = 0, nonZero = 0;
  ~Totals() {
    if (files)
      std::printf("--statistics vs llvm-dwarfdump --statistics: %d files, %d count keys equal (%d of them non-zero)\n",
                  files, keys, nonZero);
  }
} totals;

class StatisticsAgainstLlvm : public testing::TestWithParam<CorpusEntry> {};

TEST_P(StatisticsAgainstLlvm, EveryCountKeyAgrees) {
  std::optional<std::string> tool = findTool("llvm-dwarfdump");
  if (!tool) GTEST_SKIP() << "llvm-dwarfdump not found";
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  if (p.status == PreparedEntry::Status::ptxasRejected) GTEST_SKIP() << "ptxas rejects this variant by design";
  ASSERT_EQ(p.status, PreparedEntry::Status::ready) << p.message;
  std::string text = *readFile(p.ptxPath);
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, p.ptxPath);
  ASSERT_TRUE(r.ok());
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  std::string ours;
  ptxdump::appendStatisticsJson(p.ptxPath, ptxdwarf::view::computeStatistics(r.module, dwarf), ours);
  CommandResult llvm = runCommand({*tool, "--statistics", p.cubinPath});
  ASSERT_EQ(llvm.exitCode, 0) << llvm.summary();
  std::map<std::string, uint64_t> a = numbers(ours), b = numbers(llvm.out);
  ++totals.files;
  for (const char* key : kCountKeys) {
    ASSERT_TRUE(a.count(key)) << "we print no \"" << key << "\"";
    ASSERT_TRUE(b.count(key)) << "llvm-dwarfdump prints no \"" << key << "\"";
    EXPECT_EQ(a[key], b[key]) << key;
    ++totals.keys;
    totals.nonZero += b[key] != 0;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, StatisticsAgainstLlvm, testing::ValuesIn(corpusEntries()),
                         [](const testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; });

}  // namespace
