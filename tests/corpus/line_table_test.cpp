// The line table against ptxas and llvm-dwarfdump, on every corpus entry
// (nvcc -G, nvcc -lineinfo -O3 with `inlined_at`, clang -g, clang
// -gline-tables-only, the hand-written fixtures):
//  - ptxdwarf's rows are exactly the file's `.loc` directives, in order
//    (counted by an independent scan of the text);
//  - every file ptxas writes into the cubin's .debug_line has the same path
//    (include directory + name) in ptxdwarf's file table, at the same index;
//  - every (file, line) row of the cubin is among ptxdwarf's rows;
//  - every inlined row resolves its inline stack, and its function_name
//    names a string.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "corpus.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/ptx/lines.h"
#include "ptxdwarf/ptx/module.h"
#include "missing_tool.h"

using namespace ptxdwarf;
using namespace ptxdwarf::testsupport;

namespace {

struct CubinLineTable {
  std::vector<std::string> includeDirectories;
  std::map<unsigned, std::string> paths;             // file index -> dir/name
  std::vector<std::pair<unsigned, unsigned>> rows;   // (file, line)
};

// llvm-dwarfdump --debug-line's text: include_directories, file_names and the row table.
CubinLineTable parseDebugLine(const std::string& text) {
  static const std::regex dir(R"(^include_directories\[\s*(\d+)\] = \"(.*)\"$)");
  static const std::regex file(R"(^file_names\[\s*(\d+)\]:$)");
  static const std::regex name(R"(^\s+name: \"(.*)\"$)");
  static const std::regex dirIndex(R"(^\s+dir_index: (\d+)$)");
  static const std::regex row(R"(^0x[0-9a-f]{16}\s+(\d+)\s+(\d+)\s+(\d+)\s)");
  CubinLineTable t;
  std::istringstream in(text);
  std::string line, currentName;
  unsigned currentFile = 0;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, dir)) {
      t.includeDirectories.resize(std::stoul(m[1]));
      t.includeDirectories.back() = m[2];
    } else if (std::regex_match(line, m, file)) {
      currentFile = static_cast<unsigned>(std::stoul(m[1]));
    } else if (std::regex_match(line, m, name)) {
      currentName = m[1];
    } else if (std::regex_match(line, m, dirIndex)) {
      size_t d = std::stoul(m[1]);
      t.paths[currentFile] = d == 0 || d > t.includeDirectories.size()
                                 ? currentName
                                 : t.includeDirectories[d - 1] + "/" + currentName;
    } else if (std::regex_search(line, m, row)) {
      t.rows.emplace_back(static_cast<unsigned>(std::stoul(m[3])), static_cast<unsigned>(std::stoul(m[1])));
    }
  }
  return t;
}

// The `.loc` directives of a text, found without the PTX reader: FILE LINE [COL].
std::vector<ptx::SourcePosition> scanLocs(const std::string& text) {
  static const std::regex loc(R"(^\s*\.loc\s+(\d+)\s+(\d+)(?:\s+(\d+))?)");
  std::vector<ptx::SourcePosition> out;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, loc))
      out.push_back({static_cast<unsigned>(std::stoul(m[1])), static_cast<unsigned>(std::stoul(m[2])),
                     m[3].matched ? static_cast<unsigned>(std::stoul(m[3])) : 0u});
  return out;
}

std::string paramName(const ::testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; }

class LineTableCorpus : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(LineTableCorpus, RowsAndFilesAgreeWithPtxasAndTheText) {
  const CorpusEntry& entry = GetParam();
  const PreparedEntry prepared = prepare(entry);
  if (prepared.status == PreparedEntry::Status::skipped) GTEST_SKIP() << prepared.message;
  ASSERT_EQ(prepared.status, PreparedEntry::Status::ready) << prepared.message;
  const auto dwarfdump = findTool("llvm-dwarfdump");
  if (!dwarfdump) PTXDWARF_MISSING_TOOL("llvm-dwarfdump not found");

  const std::string text = readFile(prepared.ptxPath).value_or("");
  ptx::ReadResult read = ptx::read(text, prepared.ptxPath);
  ASSERT_TRUE(read.ok()) << (read.diagnostics.items.empty() ? "" : read.diagnostics.items[0].message);
  const ptx::Module& m = read.module;
  const ptx::LineTable table = ptx::buildLineTable(m);

  // Rows: exactly the .loc directives, in order.
  const std::vector<ptx::SourcePosition> scanned = scanLocs(text);
  ASSERT_EQ(table.rows.size(), scanned.size());
  for (size_t i = 0; i < scanned.size(); ++i)
    ASSERT_EQ(m.locs[table.rows[i].loc].position(), scanned[i]) << "row " << i;
  if (isLineTablesOnly(entry.producer)) {
    EXPECT_FALSE(scanned.empty()) << "a line-tables-only build without .loc";
  }

  // Inlined rows resolve.
  size_t inlined = 0;
  for (const ptx::LineRow& row : table.rows) {
    const ptx::LocRecord& r = m.locs[row.loc];
    if (!r.isInlined()) continue;
    ++inlined;
    EXPECT_NE(row.caller, ptx::kNoIndex) << "line " << r.loc.line;
    const uint32_t name = m.inliningOf(r).functionName;
    EXPECT_TRUE(table.functionNames[name].has_value()) << m.locFunctionNames[name];
  }
  if (entry.producer == Producer::nvccLineinfo && entry.program == "calls_inline") {
    EXPECT_GT(inlined, 0u) << "nvcc -lineinfo -O3 inlines shade() and the Vec3 methods";
  }

  // The cubin's .debug_line.
  CommandResult r = runCommand({*dwarfdump, "--debug-line", prepared.cubinPath});
  ASSERT_EQ(r.exitCode, 0) << r.summary();
  const CubinLineTable cubin = parseDebugLine(r.out);
  for (const auto& [index, path] : cubin.paths) {
    const ptx::LineFile* ours = table.file(index);
    ASSERT_NE(ours, nullptr) << "file " << index;
    EXPECT_EQ(ptx::pathOf(table, *ours), path) << "file " << index;
  }
  if (!cubin.paths.empty()) {
    EXPECT_EQ(table.includeDirectories, cubin.includeDirectories);
  }
  std::set<std::pair<unsigned, unsigned>> ourRows;
  for (const ptx::LocRecord& loc : m.locs) ourRows.emplace(loc.file, loc.line);
  size_t missing = 0;
  for (const auto& row : cubin.rows)
    if (!ourRows.count(row) && ++missing <= 5)
      ADD_FAILURE() << "cubin row file " << row.first << " line " << row.second << " is not a .loc of the PTX";
  EXPECT_EQ(missing, 0u);
  if (!scanned.empty()) {
    EXPECT_FALSE(cubin.rows.empty()) << "ptxas wrote no line rows";
  }
  std::printf("[ lines    ] %s: %zu rows (%zu inlined), %zu files; cubin %zu rows, all among ours\n",
              entry.id.c_str(), table.rows.size(), inlined, table.files.size(), cubin.rows.size());
}

INSTANTIATE_TEST_SUITE_P(Corpus, LineTableCorpus, ::testing::ValuesIn(assembledEntries()), paramName);

}  // namespace

namespace {

// nvcc -G describes inlining with DW_TAG_inlined_subroutine only. Seed one
// `.loc ... inlined_at` for the shade() call site (calls_inline.cu:19): the
// line table now describes inlining, and the two other inlined calls (clampTo
// at :12, countOnes at :21) are call sites it lacks.
TEST(InlineCallSites, DiesAgainstTheInlinedAtChain) {
  const auto entries = corpusEntries();
  auto it = std::find_if(entries.begin(), entries.end(),
                         [](const CorpusEntry& e) { return e.id == "calls_inline_nvcc_sm_90"; });
  ASSERT_NE(it, entries.end());
  const PreparedEntry prepared = prepare(*it);
  if (prepared.status == PreparedEntry::Status::skipped) GTEST_SKIP() << prepared.message;
  ASSERT_EQ(prepared.status, PreparedEntry::Status::ready) << prepared.message;
  std::string text = readFile(prepared.ptxPath).value_or("");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(\.file\s+(\d+)\s+"[^"]*/calls_inline\.cu")")));
  const std::string file = m[1];  // nvcc numbers the files in its own order
  ASSERT_TRUE(std::regex_search(text, m, std::regex("\n\\s*\\.loc\\s+" + file + " 19 3\n")));
  const size_t at = static_cast<size_t>(m.position(0) + m.length(0));
  text.insert(at, "\t.loc\t" + file + " 10 33, function_name $L__seeded, inlined_at " + file + " 19 3\n");
  text += "\t.section\t.debug_str\n\t{\n$L__seeded:\n.b8 102,0\n\t}\n";

  ptx::ReadResult read = ptx::read(text, "seeded.ptx");
  ASSERT_TRUE(read.ok());
  read::Dwarf dwarf = read::decode(read.module.sections);
  Diagnostics diags = check::run(read.module, dwarf);
  std::vector<std::string> sites;
  for (const Diagnostic& d : diags.items) {
    if (d.rule == "inline-call-site") {
      EXPECT_EQ(d.severity, Severity::warning);
      sites.push_back(d.message.substr(0, d.message.find(" is no")));
    } else {
      EXPECT_NE(d.severity, Severity::error) << d.rule << ": " << d.message;
    }
  }
  EXPECT_EQ(sites, (std::vector<std::string>{"call site " + file + ":12", "call site " + file + ":21"}));

  // Without the seeded line, the rule stays silent: nvcc -G output is clean.
  ptx::ReadResult clean = ptx::read(readFile(prepared.ptxPath).value_or(""), "clean.ptx");
  read::Dwarf cleanDwarf = read::decode(clean.module.sections);
  for (const Diagnostic& d : check::run(clean.module, cleanDwarf).items) EXPECT_NE(d.rule, "inline-call-site");
}

}  // namespace
