// The newer LLVMs' output (clang-19/clang-22 on the corpus programs, llc-19/
// llc-22 on LLVM's own NVPTX debug-info tests, fixtures/llvm/): where ptxas
// accepts the file, `check` finds no error in it. (The dump is compared with
// llvm-dwarfdump on the cubin by dump_llvm_test, over the same entries.)
// Entries skip, saying which tool is missing, where clang-N or llc-N is absent.
#include <gtest/gtest.h>

#include "corpus.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

using namespace ptxdwarf::testsupport;

namespace {

std::vector<CorpusEntry> newerLlvmEntries() {
  std::vector<CorpusEntry> out;
  for (const CorpusEntry& e : corpusEntries())
    if (llvmVersion(e.producer) != 0) out.push_back(e);
  return out;
}

// Faults the producer wrote that check finds and ptxas lets through: LLVM 19
// names printf's format strings `.str` in DW_OP_addr, where the PTX calls
// them `_$_str` (ptxas writes address 0 there, llvm-dwarfdump-19 shows
// `DW_OP_addr 0x0`); LLVM 22 writes `_$_str` in both.
struct KnownFault {
  const char* program;
  int llvm;
  const char* rule;
};
constexpr KnownFault kKnownFaults[] = {{"printf_loops", 19, "symbol-defined"}};

bool isKnownFault(const CorpusEntry& e, const ptxdwarf::Diagnostic& d) {
  for (const KnownFault& k : kKnownFaults)
    if (e.program == k.program && llvmVersion(e.producer) == k.llvm && d.rule == k.rule) return true;
  return false;
}

struct Counts {
  int files = 0, clean = 0, known = 0;
  ~Counts() {
    if (files)
      std::printf("LLVM 19/22 output: %d files ptxas accepts, %d with no check error, %d with only the producer's "
                  "known faults\n", files, clean, known);
  }
} counts;

class NewerLlvm : public testing::TestWithParam<CorpusEntry> {};

TEST_P(NewerLlvm, CheckFindsNoErrorWherePtxasAccepts) {
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  if (p.status == PreparedEntry::Status::ptxasRejected) {
    // What ptxas rejects, the reader rejects too, at a line.
    const ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(*readFile(p.ptxPath), p.ptxPath);
    EXPECT_FALSE(r.ok()) << p.ptxPath << ": ptxas rejects it (" << p.message << ")";
    ASSERT_FALSE(r.diagnostics.items.empty());
    EXPECT_GT(r.diagnostics.items[0].loc.line, 0u);
    return;
  }
  ASSERT_EQ(p.status, PreparedEntry::Status::ready) << p.message;
  const std::string text = *readFile(p.ptxPath);
  ptxdwarf::ptx::ReadResult r = ptxdwarf::ptx::read(text, p.ptxPath);
  ASSERT_TRUE(r.ok()) << (r.diagnostics.items.empty() ? "" : r.diagnostics.items[0].message);
  const ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  ++counts.files;
  std::string errors;
  int known = 0;
  for (const ptxdwarf::Diagnostic& d : ptxdwarf::check::run(r.module, dwarf).items) {
    if (d.severity != ptxdwarf::Severity::error) continue;
    if (isKnownFault(GetParam(), d)) {
      ++known;
      continue;
    }
    errors += "\n  " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + " " + d.message + " [" + d.rule + "]";
  }
  EXPECT_TRUE(errors.empty()) << p.ptxPath << errors;
  for (const KnownFault& k : kKnownFaults) {  // still there: the producer's, not a reading of ours
    const CorpusEntry& e = GetParam();
    if (e.program == k.program && llvmVersion(e.producer) == k.llvm && !isLineTablesOnly(e.producer)) {
      EXPECT_GT(known, 0) << k.rule << " no longer found in " << p.ptxPath;
    }
  }
  counts.clean += errors.empty() && known == 0;
  counts.known += errors.empty() && known != 0;
}

INSTANTIATE_TEST_SUITE_P(Corpus, NewerLlvm, testing::ValuesIn(newerLlvmEntries()),
                         [](const testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; });

}  // namespace
