// `ptxdump diff`: semantic differences between two files' debug info, through
// the CLI (exit codes, output). The comparison itself, as data, is tested in
// tests/unit/diff_test.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus.h"
#include "tools.h"

using ptxdwarf::testsupport::CommandResult;
using ptxdwarf::testsupport::readFile;
using ptxdwarf::testsupport::runCommand;
using ptxdwarf::testsupport::writeFile;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;
const std::string kChapter6 = kFixtures + "/chapter6.ptx";

CommandResult runPtxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_diff_" + std::to_string(getpid()) + "_" + name)).string();
}

std::string chapter6Text() {
  std::optional<std::string> text = readFile(kChapter6);
  EXPECT_TRUE(text) << kChapter6;
  return text.value_or("");
}

// `text` with the one occurrence of `from` replaced by `to`.
std::string replaceOnce(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "not unique: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A temporary PTX file, removed with the object.
struct TempFile {
  std::string path;
  TempFile(const std::string& name, const std::string& text) : path(tempPath(name)) {
    EXPECT_TRUE(writeFile(path, text)) << path;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

// The lines of `out` without the summary (the last line).
std::vector<std::string> diffLines(const std::string& out) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t nl = out.find('\n', start);
    if (nl == std::string::npos) nl = out.size();
    lines.push_back(out.substr(start, nl - start));
    start = nl + 1;
  }
  if (!lines.empty()) lines.pop_back();
  return lines;
}

std::string lastLine(const std::string& out) {
  std::string s = out;
  if (!s.empty() && s.back() == '\n') s.pop_back();
  size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// i's DIE in chapter6: name "i", then `.b32 decl_file, decl_line, type`.
const std::string kParamI = ".b8 1, 156, 3, 105, 0\n.b32 1, 1, 164\n";

// A base type "char" (abbreviation 4: name, encoding, byte_size) before the
// closing NULL of the unit, with the unit length (and pubnames' unit size) fixed.
std::string chapter6WithChar() {
  std::string t = chapter6Text();
  t = replaceOnce(t, ".section .debug_info {\n.b32 262\n", ".section .debug_info {\n.b32 273\n");
  t = replaceOnce(t, ".b8 12, 0\n}", ".b8 12, 4, 99, 104, 97, 114, 0, 6\n.b32 1\n.b8 0\n}");
  t = replaceOnce(t, ".b32 262, 69\n", ".b32 273, 69\n");
  return t;
}

}  // namespace

TEST(PtxdumpDiff, IdenticalFilesAreEqual) {
  CommandResult r = runPtxdump({"diff", kChapter6, kChapter6});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "0 DIEs changed, 0 added, 0 removed\n");
}

TEST(PtxdumpDiff, OneChangedAttributeIsReportedWithItsPath) {
  TempFile changed("declline.ptx", replaceOnce(chapter6Text(), kParamI, ".b8 1, 156, 3, 105, 0\n.b32 1, 2, 164\n"));
  CommandResult r = runPtxdump({"diff", kChapter6, changed.path});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "~ compile_unit/subprogram[_Z3fooii]/formal_parameter[i]: DW_AT_decl_line 1 -> 2\n"
            "1 DIE changed, 0 added, 0 removed\n");
}

TEST(PtxdumpDiff, ARenamedDieIsOneChangedName) {
  // j -> k: matched as the same parameter (same tag, same other attributes).
  TempFile renamed("rename.ptx", replaceOnce(chapter6Text(), "2, 3, 106, 0\n", "2, 3, 107, 0\n"));
  CommandResult r = runPtxdump({"diff", kChapter6, renamed.path});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.out,
            "~ compile_unit/subprogram[_Z3fooii]/formal_parameter[j]: DW_AT_name \"j\" -> \"k\"\n"
            "1 DIE changed, 0 added, 0 removed\n");
}

TEST(PtxdumpDiff, ChangedRegisterAndAddressClassAreSpelledByName) {
  std::string t = chapter6Text();
  // i lives in %r3 instead of %r1 (0x257233), and in the param space instead of the register space.
  t = replaceOnce(t, ".b8 5, 144, 177, 228, 149, 1, 2, 3, 106, 0\n", ".b8 5, 144, 179, 228, 149, 1, 7, 3, 106, 0\n");
  TempFile changed("regx.ptx", t);
  CommandResult r = runPtxdump({"diff", kChapter6, changed.path});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.out,
            "~ compile_unit/subprogram[_Z3fooii]/formal_parameter[i]: DW_AT_location DW_OP_regx %r1 -> DW_OP_regx %r3\n"
            "~ compile_unit/subprogram[_Z3fooii]/formal_parameter[i]: DW_AT_address_class ADDR_reg_space (2) -> "
            "ADDR_param_space (7)\n"
            "1 DIE changed, 0 added, 0 removed\n");
}

TEST(PtxdumpDiff, AReferenceIsComparedByItsTarget) {
  // p's type: the pointer type (0x103) -> int (0xa4), spelled as the targets' paths.
  TempFile changed("ref.ptx", replaceOnce(chapter6Text(), ".b32 1, 6, 259\n", ".b32 1, 6, 164\n"));
  CommandResult r = runPtxdump({"diff", kChapter6, changed.path});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.out,
            "~ compile_unit/subprogram[_Z4testPi]/formal_parameter[p]: DW_AT_type compile_unit/pointer_type[#0] -> "
            "compile_unit/base_type[int]\n"
            "1 DIE changed, 0 added, 0 removed\n");
}

TEST(PtxdumpDiff, AddedAndRemovedDies) {
  TempFile withChar("char.ptx", chapter6WithChar());
  CommandResult added = runPtxdump({"diff", kChapter6, withChar.path});
  EXPECT_EQ(added.exitCode, 1) << added.err;
  EXPECT_EQ(added.out, "+ compile_unit/base_type[char]\n0 DIEs changed, 1 added, 0 removed\n");

  CommandResult removed = runPtxdump({"diff", withChar.path, kChapter6});
  EXPECT_EQ(removed.exitCode, 1) << removed.err;
  EXPECT_EQ(removed.out, "- compile_unit/base_type[char]\n0 DIEs changed, 0 added, 1 removed\n");
}

TEST(PtxdumpDiff, AnAddedSubtreeIsOneLine) {
  // A subprogram "bar" (abbreviation 2) with one parameter "x" (abbreviation 3)
  // before the unit's closing NULL: 66 more bytes.
  std::string t = chapter6Text();
  t = replaceOnce(t, ".section .debug_info {\n.b32 262\n", ".section .debug_info {\n.b32 328\n");
  t = replaceOnce(t, ".b8 12, 0\n}",
                  ".b8 12, 2, 95, 90, 51, 98, 97, 114, 0, 98, 97, 114, 0\n.b32 1, 12, 164\n.b8 1\n"
                  ".b64 func_begin0\n.b64 func_end0\n.b8 1, 156, 3, 120, 0\n.b32 1, 12, 164\n"
                  ".b8 5, 144, 177, 228, 149, 1, 2, 0, 0\n}");
  t = replaceOnce(t, ".b32 262, 69\n", ".b32 328, 69\n");
  TempFile withBar("bar.ptx", t);
  CommandResult added = runPtxdump({"diff", kChapter6, withBar.path});
  EXPECT_EQ(added.exitCode, 1) << added.err;
  EXPECT_EQ(added.out, "+ compile_unit/subprogram[bar] (and 1 descendant)\n0 DIEs changed, 1 added, 0 removed\n");
  CommandResult removed = runPtxdump({"diff", withBar.path, kChapter6});
  EXPECT_EQ(removed.exitCode, 1) << removed.err;
  EXPECT_EQ(removed.out, "- compile_unit/subprogram[bar] (and 1 descendant)\n0 DIEs changed, 0 added, 1 removed\n");
}

TEST(PtxdumpDiff, PubnamesAreComparedAsNames) {
  // The second pubnames entry (_Z4testPi) dropped, the set length fixed.
  std::string t = chapter6Text();
  t = replaceOnce(t, ".b32 174\n.b8 95, 90, 52, 116, 101, 115, 116, 80, 105, 0\n", "");
  t = replaceOnce(t, ".section .debug_pubnames {\n.b32 41\n", ".section .debug_pubnames {\n.b32 27\n");
  TempFile fewerNames("pubnames.ptx", t);
  CommandResult r = runPtxdump({"diff", kChapter6, fewerNames.path});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.out,
            "- pubnames: \"_Z4testPi\"\n"
            "0 DIEs changed, 0 added, 0 removed, 1 name-table entry different\n");
  // The name pointing at another DIE: _Z3fooii -> the base type int.
  TempFile moved("pubnames2.ptx", replaceOnce(chapter6Text(), ".b32 262, 69\n", ".b32 262, 164\n"));
  r = runPtxdump({"diff", kChapter6, moved.path});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.out,
            "~ pubnames[\"_Z3fooii\"]: compile_unit/subprogram[_Z3fooii] -> compile_unit/base_type[int]\n"
            "0 DIEs changed, 0 added, 0 removed, 1 name-table entry different\n");
}

TEST(PtxdumpDiff, SiblingOrderCountsOnlyWithOrder) {
  // i and j swapped (same size, same abbreviation): the same parameters in another order.
  std::string t = chapter6Text();
  t = replaceOnce(t,
                  "3, 105, 0\n.b32 1, 1, 164\n.b8 5, 144, 177, 228, 149, 1, 2, 3, 106, 0\n.b32 1, 1, 164\n"
                  ".b8 5, 144, 178,",
                  "3, 106, 0\n.b32 1, 1, 164\n.b8 5, 144, 178, 228, 149, 1, 2, 3, 105, 0\n.b32 1, 1, 164\n"
                  ".b8 5, 144, 177,");
  TempFile swapped("swapped.ptx", t);
  CommandResult plain = runPtxdump({"diff", kChapter6, swapped.path});
  EXPECT_EQ(plain.exitCode, 0) << plain.out << plain.err;
  EXPECT_EQ(plain.out, "0 DIEs changed, 0 added, 0 removed\n");

  CommandResult ordered = runPtxdump({"diff", "--order", kChapter6, swapped.path});
  EXPECT_EQ(ordered.exitCode, 1) << ordered.err;
  EXPECT_EQ(ordered.out,
            "~ compile_unit/subprogram[_Z3fooii]/formal_parameter[i]: moved 0 -> 1\n"
            "1 DIE changed, 0 added, 0 removed\n");
}

TEST(PtxdumpDiff, UnreadableFileIsExit2) {
  CommandResult r = runPtxdump({"diff", kChapter6, tempPath("does-not-exist.ptx")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("cannot read file"), std::string::npos) << r.err;
}

TEST(PtxdumpDiff, ReformattedChapter6IsEqual) {
  for (const char* style : {"packed", "one-per-line", "verbose", "dense"}) {
    for (bool reencode : {false, true}) {
      SCOPED_TRACE(std::string(style) + (reencode ? " --reencode" : ""));
      std::string out = tempPath(std::string("reformat_") + style + (reencode ? "_re" : "") + ".ptx");
      std::vector<std::string> args{"reformat", kChapter6, "-o", out, "--style", style};
      if (reencode) args.push_back("--reencode");
      CommandResult f = runPtxdump(args);
      ASSERT_EQ(f.exitCode, 0) << f.err;
      CommandResult r = runPtxdump({"diff", kChapter6, out});
      EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
      EXPECT_EQ(r.out, "0 DIEs changed, 0 added, 0 removed\n");
      // And a real change still shows through the reformatting.
      std::string changed = tempPath("changed.ptx");
      ASSERT_TRUE(writeFile(changed, replaceOnce(chapter6Text(), kParamI, ".b8 1, 156, 3, 105, 0\n.b32 1, 9, 164\n")));
      CommandResult c = runPtxdump({"diff", out, changed});
      EXPECT_EQ(c.exitCode, 1) << c.err;
      EXPECT_EQ(
          diffLines(c.out),
          std::vector<std::string>{"~ compile_unit/subprogram[_Z3fooii]/formal_parameter[i]: DW_AT_decl_line 1 -> 9"});
      std::filesystem::remove(changed);
      std::filesystem::remove(out);
    }
  }
}

TEST(PtxdumpDiff, ReformattedNvccCorpusEntriesAreEqual) {
  using ptxdwarf::testsupport::PreparedEntry;
  using ptxdwarf::testsupport::Producer;
  std::vector<std::string> wanted{"loclists_nvcc_sm_90", "structs_nvcc_sm_90"};
  size_t ran = 0;
  std::string skipped;
  for (const auto& entry : ptxdwarf::testsupport::corpusEntries()) {
    if (std::find(wanted.begin(), wanted.end(), entry.id) == wanted.end()) continue;
    SCOPED_TRACE(entry.id);
    PreparedEntry p = ptxdwarf::testsupport::prepare(entry);
    if (p.status != PreparedEntry::Status::ready) {
      skipped += entry.id + ": " + p.message + "; ";
      continue;
    }
    ++ran;
    CommandResult self = runPtxdump({"diff", p.ptxPath, p.ptxPath});
    EXPECT_EQ(self.exitCode, 0) << self.out << self.err;
    for (const char* style : {"packed", "one-per-line", "verbose", "dense"}) {
      for (bool reencode : {false, true}) {
        SCOPED_TRACE(std::string(style) + (reencode ? " --reencode" : ""));
        std::string out = tempPath(entry.id + "_" + style + (reencode ? "_re" : "") + ".ptx");
        std::vector<std::string> args{"reformat", p.ptxPath, "-o", out, "--style", style};
        if (reencode) args.push_back("--reencode");
        CommandResult f = runPtxdump(args);
        ASSERT_EQ(f.exitCode, 0) << f.err;
        CommandResult r = runPtxdump({"diff", p.ptxPath, out});
        EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
        EXPECT_EQ(lastLine(r.out), "0 DIEs changed, 0 added, 0 removed");
        std::filesystem::remove(out);
      }
    }
  }
  if (ran == 0) GTEST_SKIP() << "no nvcc corpus entry ready: " << skipped;
}
