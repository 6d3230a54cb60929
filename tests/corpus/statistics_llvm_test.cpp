// `ptxdump dump --statistics` against `llvm-dwarfdump --statistics` on the
// cubin ptxas makes of each corpus file: of the PTX, every count key
// (functions, inlined functions, variables, parameters, call sites) must be
// equal -- the coverage figures are left out, LLVM's are in SASS bytes and a
// PTX file's in PTX instructions; of the cubin itself, every key.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "corpus.h"
#include "tools.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/print/views.h"
#include "missing_tool.h"

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
  int files = 0, keys = 0, nonZero = 0, cubins = 0;
  ~Totals() {
    if (files)
      std::printf("--statistics vs llvm-dwarfdump --statistics: %d files, %d count keys equal (%d of them non-zero); "
                  "%d cubins compared whole\n",
                  files, keys, nonZero, cubins);
  }
} totals;

class StatisticsAgainstLlvm : public testing::TestWithParam<CorpusEntry> {};

TEST_P(StatisticsAgainstLlvm, EveryCountKeyAgrees) {
  std::optional<std::string> tool = findTool("llvm-dwarfdump");
  if (!tool) PTXDWARF_MISSING_TOOL("llvm-dwarfdump not found");
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  ASSERT_EQ(p.status, PreparedEntry::Status::ready) << p.message;
  std::string text = *readFile(p.ptxPath);
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, p.ptxPath);
  ASSERT_TRUE(r.ok());
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  std::string ours;
  ptxdwarf::print::statisticsJson(p.ptxPath, ptxdwarf::view::computeStatistics(r.module, dwarf), ours);
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

// The cubin read as llvm-dwarfdump reads it (no relocation applied: it has
// no EM_CUDA resolver): every key, the coverage in bytes and the debug
// sections' sizes included, but "file".
TEST_P(StatisticsAgainstLlvm, OfTheCubinEveryKeyAgrees) {
  std::optional<std::string> tool = findTool("llvm-dwarfdump");
  if (!tool) PTXDWARF_MISSING_TOOL("llvm-dwarfdump not found");
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  ASSERT_EQ(p.status, PreparedEntry::Status::ready) << p.message;
  std::string bytes = *readFile(p.cubinPath);
  ptxdwarf::cubin::ReadResult r = ptxdwarf::cubin::read(bytes, p.cubinPath, {.applyRelocations = false});
  ASSERT_TRUE(r.ok()) << r.diagnostics.items.front().message;
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  std::string ours;
  ptxdwarf::print::statisticsJson(p.cubinPath, ptxdwarf::view::computeStatistics(r.module, dwarf), ours);
  CommandResult llvm = runCommand({*tool, "--statistics", p.cubinPath});
  ASSERT_EQ(llvm.exitCode, 0) << llvm.summary();
  static const std::regex format(R"re("format": "([^"]+)")re");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(ours, a, format));
  ASSERT_TRUE(std::regex_search(llvm.out, b, format));
  EXPECT_EQ(a[1].str(), b[1].str());
  EXPECT_EQ(numbers(ours), numbers(llvm.out));
  ++totals.cubins;
}

// LLVM counts a function's unique variables by VarPrefix and name: "v", a
// "0A." per enclosing lexical block and "p01." for a formal parameter's
// subtree, each numbered in its parent by one hex byte (the 257th block's
// is the first's). Ours number the prefixes instead of spelling them: a
// subprogram of 300 blocks, each with an `x`, one of them holding two more
// blocks inside each other, and a formal parameter with an `x` below it.
std::string blocksAndPrefixes() {
  auto b8 = [](std::initializer_list<int> bytes) {
    std::string s = ".b8 ";
    for (int b : bytes) s += std::to_string(b) + ", ";
    s.resize(s.size() - 2);
    return s + "\n";
  };
  // 1: compile_unit, children, name; 2: subprogram, children, name, low_pc and
  // high_pc addr; 3: lexical_block, children; 4: variable, name, decl_file,
  // decl_line, location block1; 5: formal_parameter, children, name.
  std::string abbrev = b8({1, 17, 1, 3, 8, 0, 0, 2, 46, 1, 3, 8, 17, 1, 18, 1, 0, 0, 3, 11, 1, 0, 0, 4, 52, 0, 3, 8,
                           58, 11, 59, 11, 2, 10, 0, 0, 5, 5, 1, 3, 8, 0, 0, 0});
  const std::string x = b8({4, 'x', 0, 1, 2, 1, 0x30});  // DW_OP_lit0
  std::string info = b8({1, 's', 0}) + b8({2, 'k', 0}) + ".b64 k\n.b64 k+8\n";
  size_t bytes = 3 + 3 + 16;
  for (int i = 0; i < 300; ++i) {
    info += b8({3}) + x;
    bytes += 1 + 7;
    if (i == 5) {
      info += b8({3}) + x + b8({3}) + x + b8({0, 0});
      bytes += 2 * 8 + 2;
    }
    info += b8({0});
    bytes += 1;
  }
  info += b8({5, 'p', 0}) + x + b8({0, 0, 0});
  bytes += 3 + 7 + 3;
  return ".version 7.5\n.target sm_75, debug\n.address_size 64\n.file 1 \"s.cu\"\n"
         ".visible .entry k()\n{\n.reg .b32 %r<2>;\n.loc 1 1 1\nmov.b32 %r1, 0;\nret;\n}\n"
         ".section .debug_abbrev {\n" + abbrev + "}\n.section .debug_info {\n.b32 " + std::to_string(7 + bytes) +
         "\n.b8 2, 0\n.b32 0\n.b8 8\n" + info + "}\n";
}

TEST(StatisticsAgainstLlvm, UniqueVariablesByBlockPrefixes) {
  std::optional<std::string> llvm = findTool("llvm-dwarfdump"), ptxas = findTool("ptxas");
  if (!llvm || !ptxas) PTXDWARF_MISSING_TOOL("needs llvm-dwarfdump and ptxas");
  const std::string text = blocksAndPrefixes(), dir = workDir();
  const std::string ptx = dir + "/statistics_prefixes.ptx", cubin = dir + "/statistics_prefixes.cubin";
  ASSERT_TRUE(writeFile(ptx, text));
  CommandResult assembled = runCommand({*ptxas, "-arch=sm_75", ptx, "-o", cubin});
  ASSERT_EQ(assembled.exitCode, 0) << assembled.summary();
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, ptx);
  ASSERT_TRUE(r.ok());
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  std::string ours;
  ptxdwarf::print::statisticsJson(ptx, ptxdwarf::view::computeStatistics(r.module, dwarf), ours);
  CommandResult theirs = runCommand({*llvm, "--statistics", cubin});
  ASSERT_EQ(theirs.exitCode, 0) << theirs.summary();
  std::map<std::string, uint64_t> a = numbers(ours), b = numbers(theirs.out);
  for (const char* key : kCountKeys) EXPECT_EQ(a[key], b[key]) << key;
  // 256 top-level blocks by number, the two nested ones, the parameter's:
  // 259 `x`, and the parameter itself.
  EXPECT_EQ(a["#unique source variables"], 260u);
  EXPECT_EQ(a["#source variables"], 260u);
}

INSTANTIATE_TEST_SUITE_P(Corpus, StatisticsAgainstLlvm, testing::ValuesIn(assembledEntries()),
                         [](const testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; });

}  // namespace
