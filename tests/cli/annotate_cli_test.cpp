// `ptxdump annotate` as users run it: output file or stdout, warnings and
// refusals at file:line:col, exit codes; the annotated file then dumps and
// checks clean with ptxdump itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tools.h"

using ptxdwarf::testsupport::CommandResult;
using ptxdwarf::testsupport::readFile;
using ptxdwarf::testsupport::runCommand;
using ptxdwarf::testsupport::writeFile;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;
const std::string kDsl = kFixtures + "/annotate/dsl.ptx";

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_annotate_" + std::to_string(getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST(PtxdumpAnnotate, WritesTheAnnotatedFileAndWarnsAboutLongRegisters) {
  std::string out = tempPath("dsl.ptx");
  CommandResult r = ptxdump({"annotate", kDsl, "-o", out, "--source-name", "dsl.ptx"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, kDsl +
                       ":23:12: warning: register %val_f32_0 gets no variable: cannot use '%val_f32_0' as a "
                       "DW_OP_regx register: cuda-gdb needs a PTX register name starting with '%', at most 8 "
                       "bytes of [A-Za-z0-9_$%] [annotate]\n");
  std::optional<std::string> text = readFile(out);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find(".target sm_80, debug\n.address_size 64\n.file\t1 \"dsl.ptx\"\n"), std::string::npos);
  EXPECT_EQ(*text, ptxdump({"annotate", kDsl, "--source-name", "dsl.ptx"}).out);  // the same on stdout

  // ptxdump reads it back: the line table names the input, the DIE tree has the registers, check is clean.
  CommandResult line = ptxdump({"dump", "--debug-line", out});
  ASSERT_EQ(line.exitCode, 0) << line.err;
  EXPECT_NE(line.out.find("dsl.ptx"), std::string::npos) << line.out;
  CommandResult info = ptxdump({"dump", "--debug-info", out});
  ASSERT_EQ(info.exitCode, 0) << info.err;
  EXPECT_NE(info.out.find("DW_AT_name\t(\"%lidx0\")"), std::string::npos);
  EXPECT_NE(info.out.find("DW_AT_location\t(DW_OP_regx %lidx0)"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("DW_AT_language\t(DW_LANG_Mips_Assembler)"), std::string::npos);
  CommandResult check = ptxdump({"check", out});
  EXPECT_EQ(check.exitCode, 0) << check.err << check.out;
  std::filesystem::remove(out);
}

TEST(PtxdumpAnnotate, RefusesFilesWithDebugInformation) {
  CommandResult r = ptxdump({"annotate", kFixtures + "/chapter6.ptx"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(kFixtures + "/chapter6.ptx:52:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error: the file already has .debug_info"), std::string::npos) << r.err;

  std::string lineinfo = tempPath("lineinfo.ptx");
  ASSERT_TRUE(writeFile(lineinfo,
                        ".version 7.5\n.target sm_80\n.address_size 64\n.file 1 \"a.cu\"\n"
                        ".visible .entry k()\n{\n\t.loc 1 3 1\n\tret;\n}\n"));
  CommandResult lines = ptxdump({"annotate", lineinfo});
  EXPECT_EQ(lines.exitCode, 1);
  EXPECT_NE(lines.err.find(lineinfo + ":4:1: error: the file already has line information (.file/.loc); "
                                      "--keep-lines keeps it and adds only the DWARF [annotate]"),
            std::string::npos)
      << lines.err;
  CommandResult kept = ptxdump({"annotate", "--keep-lines", lineinfo});
  EXPECT_EQ(kept.exitCode, 0) << kept.err;
  EXPECT_NE(kept.out.find("\t.section\t.debug_info"), std::string::npos);
  std::filesystem::remove(lineinfo);
}

TEST(PtxdumpAnnotate, UnreadableInputExitsTwo) {
  CommandResult r = ptxdump({"annotate", tempPath("missing.ptx")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("error: cannot read"), std::string::npos) << r.err;
  std::string bad = tempPath("bad.ptx");
  ASSERT_TRUE(writeFile(bad, ".version 7.5\n.target sm_80\n.visible .entry k(\n"));
  CommandResult parse = ptxdump({"annotate", bad});
  EXPECT_EQ(parse.exitCode, 2);
  EXPECT_NE(parse.err.find(bad + ":"), std::string::npos) << parse.err;
  std::filesystem::remove(bad);
}

// -j 1 keeps annotate on one thread; a large file otherwise builds its DWARF
// and renders its sections on a second one: the same file either way.
TEST(PtxdumpAnnotate, JobsChangeNothingButTheThreads) {
  std::string in = ".version 7.5\n.target sm_80\n.address_size 64\n";
  for (int f = 0; f < 40; ++f) {
    in += ".visible .entry k" + std::to_string(f) + "()\n{\n\t.reg .b32 %r<64>;\n";
    for (int i = 0; i < 700; ++i) in += "\tadd.s32 %r" + std::to_string(i % 64) + ", %r1, 1;\n";
    in += "\tret;\n}\n";
  }
  const std::string path = tempPath("large.ptx"), one = tempPath("one.ptx"), two = tempPath("two.ptx");
  ASSERT_TRUE(writeFile(path, in));
  CommandResult a = ptxdump({"annotate", "-j", "1", path, "-o", one});
  CommandResult b = ptxdump({"annotate", "-j", "2", path, "-o", two});
  ASSERT_EQ(a.exitCode, 0) << a.err;
  ASSERT_EQ(b.exitCode, 0) << b.err;
  std::optional<std::string> x = readFile(one), y = readFile(two);
  ASSERT_TRUE(x && y);
  EXPECT_GT(x->size(), in.size());
  EXPECT_TRUE(*x == *y);
  EXPECT_EQ(ptxdump({"annotate", "-j", "0", path}).exitCode, 2);  // CLI11: out of range
  for (const std::string& p : {path, one, two}) std::filesystem::remove(p);
}
