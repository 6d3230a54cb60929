// view::diff on real pairs: one program built twice (nvcc -G for sm_80 and
// sm_90, clang-19 and clang-22) differs only where its debug information
// does, whatever the builds number their labels; and a build with every
// label renamed equals the build.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corpus.h"
#include "label_rename.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/diff.h"

using namespace ptxdwarf::testsupport;
using ptxdwarf::view::DiffLine;

namespace {

struct Loaded {
  std::string text;
  ptxdwarf::ptx::ReadResult read;
  ptxdwarf::read::Dwarf dwarf;
};

std::unique_ptr<Loaded> load(std::string text, const std::string& name) {
  auto l = std::make_unique<Loaded>();
  l->text = std::move(text);
  l->read = ptxdwarf::ptx::read(l->text, name);
  EXPECT_TRUE(l->read.ok()) << name;
  l->dwarf = ptxdwarf::read::decode(l->read.module.sections);
  EXPECT_FALSE(l->dwarf.diagnostics.hasErrors()) << name;
  return l;
}

// The PTX of corpus entry `id` ("scopes_nvcc_sm_80"), compiled on first use;
// nullopt (and the test skipped) where its producer is absent.
std::optional<std::string> entryText(const std::string& id) {
  for (const CorpusEntry& e : corpusEntries()) {
    if (e.id != id) continue;
    const PreparedEntry p = prepare(e);
    if (p.status == PreparedEntry::Status::skipped) return std::nullopt;
    EXPECT_EQ(p.status, PreparedEntry::Status::ready) << id << ": " << p.message;
    return readFile(p.ptxPath);
  }
  ADD_FAILURE() << "no corpus entry " << id;
  return std::nullopt;
}

std::vector<DiffLine> diffTexts(const std::string& before, const std::string& after) {
  auto a = load(before, "old.ptx");
  auto b = load(after, "new.ptx");
  return ptxdwarf::view::diff(a->read.module, a->dwarf, b->read.module, b->dwarf);
}

std::string printed(const std::vector<DiffLine>& lines) {
  std::string out;
  ptxdwarf::view::printDiff(out, lines);
  return out.size() > 4000 ? out.substr(0, 4000) + "..." : out;
}

// The lines that are about the DIEs (not the line table).
std::vector<DiffLine> dieLines(const std::vector<DiffLine>& lines) {
  std::vector<DiffLine> out;
  for (const DiffLine& l : lines)
    if (l.subject == DiffLine::Subject::die || l.subject == DiffLine::Subject::attribute) out.push_back(l);
  return out;
}

// What a line says apart from how its values spell labels.
std::string shape(const DiffLine& l) {
  return std::to_string(static_cast<int>(l.kind)) + "/" + std::to_string(static_cast<int>(l.subject)) + " " + l.path +
         " " + l.attribute;
}

class DiffRenamedLabels : public testing::TestWithParam<const char*> {};

TEST_P(DiffRenamedLabels, AreEqual) {
  // Code labels in low_pc/high_pc and location lists, `.debug_loc+N`, section
  // labels (LLVM 22's `$L__debug_loc0`, `$L__info_string0`): all renamed.
  const std::optional<std::string> text = entryText(GetParam());
  if (!text) GTEST_SKIP() << GetParam() << ": producer absent";
  const std::string renamed = renameEveryLabel(*text);
  ASSERT_NE(renamed, *text);
  const std::vector<DiffLine> lines = diffTexts(*text, renamed);
  EXPECT_TRUE(lines.empty()) << printed(lines);
}

INSTANTIATE_TEST_SUITE_P(Corpus, DiffRenamedLabels,
                         testing::Values("scopes_nvcc_sm_80", "loclists_nvcc_sm_90", "calls_inline_nvcc_sm_90",
                                         "cccl_cub_block_nvcc_sm_90", "loclists_clang19_sm_80",
                                         "templates_clang22_sm_80", "shared_mem_clang22_sm_80"));

class DiffArchitectures : public testing::TestWithParam<const char*> {};

TEST_P(DiffArchitectures, Sm80AndRenamedSm90AreEqual) {
  // nvcc writes these programs' debug information alike for both targets;
  // with the sm_90 build's labels renamed it still compares equal.
  const std::string program = GetParam();
  const std::optional<std::string> sm80 = entryText(program + "_nvcc_sm_80");
  const std::optional<std::string> sm90 = entryText(program + "_nvcc_sm_90");
  if (!sm80 || !sm90) GTEST_SKIP() << program << ": nvcc absent";
  const std::vector<DiffLine> lines = diffTexts(*sm80, renameEveryLabel(*sm90));
  EXPECT_TRUE(lines.empty()) << printed(lines);
}

INSTANTIATE_TEST_SUITE_P(Corpus, DiffArchitectures, testing::Values("scopes", "templates", "loclists", "structs"));

TEST(DiffArchitectures, CubDiffersAlikeWhateverTheLabelsAreCalled) {
  // CUB's sm_90 build is other code (its namespaces are versioned by
  // architecture, `CUB_300001_SM_900`, and it takes other paths): real
  // differences. Renaming every label of one side changes none of them.
  const std::optional<std::string> sm80 = entryText("cccl_cub_block_nvcc_sm_80");
  const std::optional<std::string> sm90 = entryText("cccl_cub_block_nvcc_sm_90");
  if (!sm80 || !sm90) GTEST_SKIP() << "nvcc absent";
  const std::vector<DiffLine> plain = diffTexts(*sm80, *sm90);
  const std::vector<DiffLine> renamed = diffTexts(*sm80, renameEveryLabel(*sm90));
  ASSERT_FALSE(plain.empty());
  ASSERT_EQ(plain.size(), renamed.size());
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(shape(plain[i]), shape(renamed[i]));
  // Nearly every changed name differs by the namespace's architecture alone
  // (the rest are other functions: ThreadReduceTernaryTree for Sequential).
  size_t names = 0, byArchitecture = 0;
  for (const DiffLine& l : plain) {
    if (l.subject != DiffLine::Subject::attribute || l.kind != DiffLine::Kind::changed) continue;
    if (l.attribute != "DW_AT_name" && l.attribute != "DW_AT_MIPS_linkage_name") continue;
    std::string expected = l.before;
    for (size_t at = expected.find("SM_800"); at != std::string::npos; at = expected.find("SM_800", at + 1))
      expected.replace(at, 6, "SM_900");
    ++names;
    byArchitecture += l.after == expected;
  }
  EXPECT_GT(names, 0u);
  EXPECT_GE(byArchitecture * 10, names * 9) << byArchitecture << " of " << names;
}

class DiffLlvmVersions : public testing::TestWithParam<const char*> {};

TEST_P(DiffLlvmVersions, DifferOnlyInTheUnitAndConstructorLinkageNames) {
  // clang-19 and clang-22 at -O0 number their labels differently and write
  // other code (LLVM 22 stores constants directly, drops a copy here and
  // there, moves inlined code's columns): the line tables differ everywhere.
  // The DIEs differ only where LLVM 22 writes other debug information: the
  // producer, no DW_AT_low_pc/high_pc on the unit, and a linkage name
  // (`C4`, the unified constructor) on constructor declarations.
  const std::string program = GetParam();
  const std::optional<std::string> v19 = entryText(program + "_clang19_sm_80");
  const std::optional<std::string> v22 = entryText(program + "_clang22_sm_80");
  if (!v19 || !v22) GTEST_SKIP() << program << ": clang-19 or clang-22 absent";
  const std::vector<DiffLine> lines = dieLines(diffTexts(*v19, *v22));
  size_t unitLines = 0;
  for (const DiffLine& l : lines) {
    SCOPED_TRACE(shape(l) + " " + l.before + " -> " + l.after);
    ASSERT_EQ(l.subject, DiffLine::Subject::attribute);
    if (l.path == "compile_unit") {
      ++unitLines;
      if (l.attribute == "DW_AT_producer") {
        EXPECT_EQ(l.kind, DiffLine::Kind::changed);
      } else {
        EXPECT_TRUE(l.attribute == "DW_AT_low_pc" || l.attribute == "DW_AT_high_pc");
        EXPECT_EQ(l.kind, DiffLine::Kind::removed);
      }
      continue;
    }
    EXPECT_EQ(l.kind, DiffLine::Kind::added);
    EXPECT_EQ(l.attribute, "DW_AT_MIPS_linkage_name");
    EXPECT_NE(l.after.find("C4E"), std::string::npos);
  }
  EXPECT_EQ(unitLines, 3u);
}

INSTANTIATE_TEST_SUITE_P(Corpus, DiffLlvmVersions,
                         testing::Values("scopes", "templates", "loclists", "structs", "classes", "calls_inline",
                                         "constant_mem", "locals", "shared_mem"));

}  // namespace
