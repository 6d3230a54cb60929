// Every corpus entry that ptxas accepts is clean under `check`: no error from
// any rule or from the round trip. Real producer output (nvcc -G for sm_80,
// sm_90 and sm_100, clang, the CCCL programs) is what the rules are calibrated
// on; a rule that fires here is a false alarm. Warnings are allowed and listed
// (nvcc's overlapping lexical blocks in CUB code are one: scope-overlap).
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>
#include <string>

#include "corpus.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "tools.h"

namespace ptxdwarf::testsupport {
void PrintTo(const CorpusEntry& e, std::ostream* os);
}  // namespace ptxdwarf::testsupport

namespace {

using ptxdwarf::testsupport::CorpusEntry;
using ptxdwarf::testsupport::PreparedEntry;

class CorpusCheck : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(CorpusCheck, CheckFindsNoError) {
  const CorpusEntry& entry = GetParam();
  if (entry.expectPtxasFailure) GTEST_SKIP() << entry.id << ": ptxas rejects it by design";
  const PreparedEntry prepared = ptxdwarf::testsupport::prepare(entry);
  if (prepared.status == PreparedEntry::Status::skipped) GTEST_SKIP() << prepared.message;
  ASSERT_EQ(prepared.status, PreparedEntry::Status::ready) << prepared.message;
  std::string error;
  const auto text = ptxdwarf::testsupport::readFile(prepared.ptxPath, &error);
  ASSERT_TRUE(text.has_value()) << error;
  const ptxdwarf::ptx::ReadResult read = ptxdwarf::ptx::read(*text, prepared.ptxPath);
  ASSERT_TRUE(read.ok());
  const ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(read.module.sections);
  const ptxdwarf::Diagnostics found = ptxdwarf::check::run(read.module, dwarf);
  std::string errors;
  for (const ptxdwarf::Diagnostic& d : found.items) {
    if (d.severity == ptxdwarf::Severity::error) errors += d.format(prepared.ptxPath) + "\n";
    else std::printf("%s: %s\n", entry.id.c_str(), d.format("").c_str());
  }
  EXPECT_EQ(errors, "");
}

std::string paramName(const ::testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; }

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusCheck, ::testing::ValuesIn(ptxdwarf::testsupport::corpusEntries()),
                         paramName);

}  // namespace
