// view::diff, the library's semantic diff, as data: symbols compared by what
// they stand for (code labels by their place, section labels by the offset
// they name), on generated pairs: a file and the same file with every label
// renamed (equal), and with one thing really changed (reported).
#include "ptxdwarf/view/diff.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "corpus.h"
#include "label_rename.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace {

using ptxdwarf::testsupport::readFixture;
using ptxdwarf::testsupport::renameEveryLabel;
using ptxdwarf::view::DiffLine;

struct Loaded {
  std::string text;
  ptxdwarf::ptx::ReadResult read;
  ptxdwarf::read::Dwarf dwarf;
};

std::unique_ptr<Loaded> load(std::string text) {
  auto l = std::make_unique<Loaded>();
  l->text = std::move(text);
  l->read = ptxdwarf::ptx::read(l->text, "mem.ptx");
  EXPECT_TRUE(l->read.ok());
  l->dwarf = ptxdwarf::read::decode(l->read.module.sections);
  EXPECT_FALSE(l->dwarf.diagnostics.hasErrors());
  return l;
}

std::vector<DiffLine> diffTexts(const std::string& before, const std::string& after) {
  auto a = load(before);
  auto b = load(after);
  return ptxdwarf::view::diff(a->read.module, a->dwarf, b->read.module, b->dwarf);
}

std::string printed(const std::vector<DiffLine>& lines) {
  std::string out;
  ptxdwarf::view::printDiff(out, lines);
  return out;
}

// `text` with the one occurrence of `from` replaced by `to`.
std::string replaceOnce(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "not unique: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST(Diff, IdenticalFilesAreEqual) {
  const std::string chapter6 = readFixture("chapter6.ptx");
  const std::vector<DiffLine> lines = diffTexts(chapter6, chapter6);
  EXPECT_TRUE(lines.empty()) << printed(lines);
  EXPECT_EQ(printed(lines), "0 DIEs changed, 0 added, 0 removed\n");
}

TEST(Diff, RenamedCodeLabelsAreEqual) {
  // func_begin0/func_end0/func_begin1/func_end1 (DW_AT_low_pc, DW_AT_high_pc)
  // renamed, numbered backwards: each old name now stands for another place.
  const std::string chapter6 = readFixture("chapter6.ptx");
  const std::string renamed = renameEveryLabel(chapter6);
  ASSERT_NE(renamed, chapter6);
  ASSERT_NE(renamed.find("$L__renamed3:"), std::string::npos) << renamed;
  const std::vector<DiffLine> lines = diffTexts(chapter6, renamed);
  EXPECT_TRUE(lines.empty()) << printed(lines);
}

TEST(Diff, RenamedSectionLabelsAreEqual) {
  // Every `.b8`/`.b32` line of the debug sections labelled (`$L__debug_info_1:`),
  // every label renamed: nothing refers to them but their own sections.
  const std::string labelled = readFixture("variants/section_labels.ptx");
  const std::string renamed = renameEveryLabel(labelled);
  ASSERT_NE(renamed.find("$L__renamed"), std::string::npos);
  EXPECT_TRUE(diffTexts(readFixture("chapter6.ptx"), renamed).empty());
  EXPECT_TRUE(diffTexts(labelled, renamed).empty());
}

TEST(Diff, ASectionLabelComparesByTheOffsetItNames) {
  // pubnames name their unit as `.debug_info`; a label at the same offset is the same unit.
  const std::string labelled = readFixture("variants/section_labels.ptx");
  const std::string sameUnit =
      replaceOnce(labelled, "$L__debug_pubnames_41:\n.b32 .debug_info\n", "$L__debug_pubnames_41:\n.b32 $L__debug_info_1\n");
  EXPECT_TRUE(diffTexts(labelled, sameUnit).empty());
  // A label four bytes further names no unit there: both names lose their DIE.
  const std::string elsewhere =
      replaceOnce(labelled, "$L__debug_pubnames_41:\n.b32 .debug_info\n", "$L__debug_pubnames_41:\n.b32 $L__debug_info_2\n");
  const std::vector<DiffLine> lines = diffTexts(labelled, elsewhere);
  ASSERT_EQ(lines.size(), 2u) << printed(lines);
  for (const DiffLine& l : lines) {
    EXPECT_EQ(l.subject, DiffLine::Subject::pubname);
    EXPECT_EQ(l.kind, DiffLine::Kind::changed);
    EXPECT_EQ(l.after, "<unresolved>");
  }
  EXPECT_EQ(lines[0].path, "_Z3fooii");
  EXPECT_EQ(lines[0].before, "compile_unit/subprogram[_Z3fooii]");
}

TEST(Diff, AReferenceThroughDebugInfoComparesByItsTarget) {
  // p's type as `.debug_info+259` instead of the number 259: the same DIE.
  const std::string chapter6 = readFixture("chapter6.ptx");
  const std::string symbolic = replaceOnce(chapter6, ".b32 1, 6, 259\n", ".b32 1, 6, .debug_info+259\n");
  EXPECT_TRUE(diffTexts(chapter6, symbolic).empty()) << printed(diffTexts(chapter6, symbolic));
  // At int (164) instead: a change, spelled as the targets' paths.
  const std::string retyped = replaceOnce(chapter6, ".b32 1, 6, 259\n", ".b32 1, 6, .debug_info+164\n");
  const std::vector<DiffLine> lines = diffTexts(chapter6, retyped);
  ASSERT_EQ(lines.size(), 1u) << printed(lines);
  EXPECT_EQ(lines[0].attribute, "DW_AT_type");
  EXPECT_EQ(lines[0].before, "compile_unit/pointer_type[#0]");
  EXPECT_EQ(lines[0].after, "compile_unit/base_type[int]");
}

TEST(Diff, ALabelMovedIsAChangeWhateverItsName) {
  // _Z3fooi ends one instruction earlier (before `ret`), in a file whose labels
  // are all renamed: one change, the value shown with what each label stands for.
  const std::string chapter6 = readFixture("chapter6.ptx");
  const std::string moved = renameEveryLabel(replaceOnce(
      chapter6, "    ret;\nfunc_end0:\n", "func_end0:\n    ret;\n"));
  const std::vector<DiffLine> lines = diffTexts(chapter6, moved);
  ASSERT_EQ(lines.size(), 1u) << printed(lines);
  EXPECT_EQ(lines[0].kind, DiffLine::Kind::changed);
  EXPECT_EQ(lines[0].path, "compile_unit/subprogram[_Z3fooii]");
  EXPECT_EQ(lines[0].attribute, "DW_AT_high_pc");
  // func_end0 after the last of _Z3fooi's five instructions; the renamed label at the last (`ret`, line 3).
  EXPECT_EQ(lines[0].before, "func_end0 (_Z3fooi+5)");
  EXPECT_EQ(lines[0].after, "$L__renamed2 (_Z3fooi+4 call_example.cu:3:1)");
  EXPECT_EQ(printed(lines),
            "~ compile_unit/subprogram[_Z3fooii]: DW_AT_high_pc func_end0 (_Z3fooi+5) -> $L__renamed2 (_Z3fooi+4 "
            "call_example.cu:3:1)\n"
            "1 DIE changed, 0 added, 0 removed\n");
}

TEST(Diff, ALabelOnTheSameSourceLineAfterOtherCodeIsEqual) {
  // An instruction more before _Z4testPi's `.loc 1 8 9` shifts every label
  // after it by one instruction; they still stand for the same source places.
  const std::string chapter6 = readFixture("chapter6.ptx");
  const std::string longer =
      replaceOnce(chapter6, "    mov.u32         %r2, 2;\n", "    mov.u32         %r2, 2;\n    mov.u32         %r2, 2;\n");
  const std::vector<DiffLine> lines = diffTexts(chapter6, longer);
  for (const DiffLine& l : lines) EXPECT_EQ(l.subject, DiffLine::Subject::lineRow) << printed(lines);
}

TEST(Diff, AddedDieIsOneLineWithItsPath) {
  // A base type "char" (abbreviation 4: name, encoding, byte_size) before the
  // closing NULL of the unit, with the unit length (and pubnames' unit size) fixed.
  std::string t = readFixture("chapter6.ptx");
  const std::string before = t;
  t = replaceOnce(t, ".section .debug_info {\n.b32 262\n", ".section .debug_info {\n.b32 273\n");
  t = replaceOnce(t, ".b8 12, 0\n}", ".b8 12, 4, 99, 104, 97, 114, 0, 6\n.b32 1\n.b8 0\n}");
  t = replaceOnce(t, ".b32 262, 69\n", ".b32 273, 69\n");
  const std::vector<DiffLine> lines = diffTexts(before, t);
  ASSERT_EQ(lines.size(), 1u) << printed(lines);
  EXPECT_EQ(lines[0].kind, DiffLine::Kind::added);
  EXPECT_EQ(lines[0].subject, DiffLine::Subject::die);
  EXPECT_EQ(lines[0].path, "compile_unit/base_type[char]");
  EXPECT_EQ(lines[0].descendants, 0u);
  const ptxdwarf::view::DiffSummary sum = ptxdwarf::view::summarize(lines);
  EXPECT_EQ(sum.added, 1u);
  EXPECT_EQ(sum.changed, 0u);
}

TEST(Diff, DeepTreeNeedsNoRecursion) {
  // 100 000 nested lexical blocks under the unit DIE (abbreviation 1: lexical_block
  // with children, no attributes), the deepest one different on each side.
  constexpr int kDepth = 100000;
  auto deep = [&](int lastLine) {
    std::string t = ".version 7.0\n.target sm_75, debug\n.address_size 64\n";
    t += ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 11, 1, 0, 0, 3, 52, 0, 59, 11, 0, 0, 0\n}\n";
    std::string body;
    body += "1";  // compile_unit
    for (int i = 0; i < kDepth; ++i) body += ", 2";
    body += ", 3, " + std::to_string(lastLine);  // a variable with a decl_line
    for (int i = 0; i < kDepth + 1; ++i) body += ", 0";
    uint64_t length = 7 + (kDepth + 1) + 2 + (kDepth + 1);
    t += ".section .debug_info {\n.b32 " + std::to_string(length) + "\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8, " + body +
         "\n}\n";
    return t;
  };
  auto a = load(deep(1));
  auto b = load(deep(2));
  ASSERT_EQ(a->dwarf.dies.size(), static_cast<size_t>(2 * kDepth + 3));
  std::vector<DiffLine> lines = ptxdwarf::view::diff(a->read.module, a->dwarf, b->read.module, b->dwarf);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].attribute, "DW_AT_decl_line");
  EXPECT_EQ(lines[0].before, "1");
  EXPECT_EQ(lines[0].after, "2");
  EXPECT_TRUE(lines[0].path.starts_with("compile_unit/lexical_block[#0]/lexical_block[#0]/"))
      << lines[0].path.substr(0, 200);
  EXPECT_TRUE(lines[0].path.ends_with("/lexical_block[#0]/variable[#0]")) << lines[0].path;
  EXPECT_NE(lines[0].path.find("/...(99970 steps).../"), std::string::npos);
  EXPECT_LT(lines[0].path.size(), 1000u);
}
