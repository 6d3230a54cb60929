// `lookup` against C++ scoping: every corpus program line that carries a
// `// visible: a b c` comment is looked up as `program.cu:LINE` in each
// build with DWARF (nvcc -G for three architectures, clang -g): no match may
// list a name the comment lacks, and together the matches list them all.
// The comments were written from the C++ rules (a name is visible in its
// block from its declaration on; a function's parameters in its body; an
// inlined function's frame sees only its own names).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "corpus.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/lookup.h"

using namespace ptxdwarf;
using namespace ptxdwarf::testsupport;

namespace {

struct Expectation {
  unsigned line = 0;
  std::set<std::string> names;
};

std::vector<Expectation> visibleComments(const std::string& source) {
  static const std::regex visible(R"(//\s*visible:\s*(.*)$)");
  std::vector<Expectation> out;
  std::istringstream in(source);
  std::string line;
  std::smatch m;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    if (!std::regex_search(line, m, visible)) continue;
    Expectation e{n, {}};
    std::istringstream names(m[1].str());
    for (std::string name; names >> name;) e.names.insert(name);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<CorpusEntry> annotatedEntries() {
  std::vector<CorpusEntry> out;
  for (CorpusEntry& e : corpusEntries())
    if ((e.producer == Producer::nvcc || e.producer == Producer::clang) &&
        !visibleComments(readFile(e.source).value_or("")).empty())
      out.push_back(std::move(e));
  return out;
}

std::string paramName(const ::testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; }

class LookupScoping : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(LookupScoping, EveryAnnotatedLineListsWhatCppMakesVisible) {
  const CorpusEntry& entry = GetParam();
  const PreparedEntry prepared = prepare(entry);
  if (prepared.status == PreparedEntry::Status::skipped) GTEST_SKIP() << prepared.message;
  ASSERT_EQ(prepared.status, PreparedEntry::Status::ready) << prepared.message;
  const std::string text = readFile(prepared.ptxPath).value_or("");
  ptx::ReadResult read = ptx::read(text, prepared.ptxPath);
  ASSERT_TRUE(read.ok());
  const read::Dwarf dwarf = read::decode(read.module.sections);
  const std::string file = std::filesystem::path(entry.source).filename().string();
  size_t lines = 0, matches = 0;
  for (const Expectation& e : visibleComments(readFile(entry.source).value_or(""))) {
    const std::string at = file + ":" + std::to_string(e.line);
    const view::LookupResult r = view::lookup(read.module, dwarf, at);
    ASSERT_FALSE(r.matches.empty()) << at << ": " << r.error;
    std::set<std::string> all;
    for (const view::Match& m : r.matches) {
      std::set<std::string> names;
      for (const view::VariableInfo& v : m.variables) names.insert(v.name);
      // No place shows a name C++ hides there.
      for (const std::string& n : names)
        EXPECT_TRUE(e.names.count(n)) << at << " (PTX line " << m.ptxLines.front() << ") shows " << n;
      all.insert(names.begin(), names.end());
      ++matches;
    }
    // Together the places show exactly what C++ makes visible. A single place
    // may show less: nvcc -G starts the block of `int even = twice(acc);` after
    // the statement's first instructions, so at those the DWARF (and cuda-gdb)
    // has no `even` yet.
    EXPECT_EQ(all, e.names) << at;
    ++lines;
  }
  std::printf("[ lookup   ] %s: %zu lines, %zu places\n", entry.id.c_str(), lines, matches);
}

INSTANTIATE_TEST_SUITE_P(Corpus, LookupScoping, ::testing::ValuesIn(annotatedEntries()), paramName);

// Locations at a place: a variable nvcc -G moves between registers is found
// in the register its .debug_loc range names there.
TEST(LookupLocations, LocationListsAreEvaluatedAtThePlace) {
  const auto entries = corpusEntries();
  auto it = std::find_if(entries.begin(), entries.end(), [](const CorpusEntry& e) { return e.id == "scopes_nvcc_sm_90"; });
  ASSERT_NE(it, entries.end());
  const PreparedEntry prepared = prepare(*it);
  if (prepared.status == PreparedEntry::Status::skipped) GTEST_SKIP() << prepared.message;
  ASSERT_EQ(prepared.status, PreparedEntry::Status::ready) << prepared.message;
  ptx::ReadResult read = ptx::read(readFile(prepared.ptxPath).value_or(""), prepared.ptxPath);
  const read::Dwarf dwarf = read::decode(read.module.sections);
  std::set<std::string> accLocations;
  for (unsigned line : {19u, 21u, 22u, 25u, 28u, 32u}) {
    for (const view::Match& m : view::lookup(read.module, dwarf, "scopes.cu:" + std::to_string(line)).matches)
      for (const view::VariableInfo& v : m.variables) {
        if (v.name == "out") {
          EXPECT_EQ(v.location, "_Z6kernelPii_param_0");
          EXPECT_EQ(v.addressClass, 7u);
          EXPECT_EQ(v.type, "int *");
        }
        if (v.name == "acc" && v.available) accLocations.insert(v.location);
      }
  }
  // acc lives in more than one register over the kernel, each a declared %r.
  EXPECT_GE(accLocations.size(), 2u);
  for (const std::string& loc : accLocations) EXPECT_TRUE(loc.starts_with("%r")) << loc;
}

}  // namespace
