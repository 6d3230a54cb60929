// `ptxdump check --sources`, `reformat --remap-path` and `strip` as users run
// them: on real nvcc -G output whose source is then deleted, on a hand-written
// NVRTC-style module, and the errors (a malformed OLD=NEW, -o missing, an
// unreadable input: exit 2 at file:line:col, no output file made).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tools.h"
#include "missing_tool.h"

using ptxdwarf::testsupport::CommandResult;
using ptxdwarf::testsupport::findTool;
using ptxdwarf::testsupport::readFile;
using ptxdwarf::testsupport::runCommand;
using ptxdwarf::testsupport::writeFile;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

std::filesystem::path tempDir() {
  std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("ptxdump_strip_remap_" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  return d;
}

// What NVRTC writes for a program created without a name: `.file 1 "default_program"`.
const char* kNvrtcStyle =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".file 1 \"default_program\"\n"
    ".visible .entry k()\n"
    "{\n"
    ".loc 1 3 1\n"
    "ret;\n"
    "}\n";

}  // namespace

TEST(PtxdumpSources, NvrtcDefaultProgramIsReportedAtItsFileLine) {
  const std::string ptx = (tempDir() / "nvrtc.ptx").string();
  ASSERT_TRUE(writeFile(ptx, kNvrtcStyle));
  CommandResult plain = ptxdump({"check", ptx});
  EXPECT_EQ(plain.exitCode, 0) << plain.err;
  EXPECT_EQ(plain.err, "");  // without --sources the file system is not looked at

  CommandResult r = ptxdump({"check", "--sources", ptx});
  EXPECT_EQ(r.exitCode, 0) << r.err;  // warnings only
  EXPECT_NE(r.err.find(ptx + ":4:1: warning: .file 1 \"default_program\": no readable source file"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("NVRTC"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[source-file]"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, ptx + ": 0 errors, 1 warning\n");
  EXPECT_EQ(ptxdump({"check", "--sources", "--werror", ptx}).exitCode, 1);

  // --sources=DIR: gdb's `directory DIR`, where the program's source was saved under that name.
  const std::filesystem::path dir = tempDir() / "saved";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(writeFile((dir / "default_program").string(), "__global__ void k() {}\n"));
  CommandResult found = ptxdump({"check", "--sources=" + dir.string(), ptx});
  EXPECT_EQ(found.err, "");
  EXPECT_EQ(found.out, ptx + ": 0 errors, 0 warnings\n");

  // Remapped to where the source is, it is found without DIR.
  const std::string remapped = (tempDir() / "nvrtc_remapped.ptx").string();
  CommandResult re = ptxdump({"reformat", ptx, "--remap-path", "default_program=" + (dir / "default_program").string(),
                              "-o", remapped});
  ASSERT_EQ(re.exitCode, 0) << re.err;
  EXPECT_EQ(ptxdump({"check", "--sources", remapped}).err, "");
  std::filesystem::remove_all(tempDir());
}

TEST(PtxdumpSources, NvccOutputWarnsOnceItsSourceIsDeleted) {
  std::optional<std::string> nvcc = findTool("nvcc");
  if (!nvcc) PTXDWARF_MISSING_TOOL("nvcc not found");
  const std::filesystem::path dir = tempDir();
  const std::string cu = (dir / "scale.cu").string(), ptx = (dir / "scale.ptx").string();
  ASSERT_TRUE(writeFile(cu, "__global__ void scale(float* a, float s) { a[threadIdx.x] *= s; }\n"));
  CommandResult built = runCommand({*nvcc, "-G", "-ptx", "-arch=sm_80", cu, "-o", ptx});
  ASSERT_TRUE(built.ok()) << built.summary();
  CommandResult before = ptxdump({"check", "--sources", ptx});
  EXPECT_EQ(before.exitCode, 0) << before.err;
  EXPECT_EQ(before.err, "") << "the source exists: nothing to report";

  std::filesystem::remove(cu);  // as a JIT's temporary file is
  CommandResult after = ptxdump({"check", "--sources", ptx});
  EXPECT_EQ(after.exitCode, 0) << after.err;
  // The .file (nvcc writes the absolute path), the unit's DW_AT_name (nvcc
  // writes the path as given), and the first DW_AT_decl_file naming file 1.
  EXPECT_NE(after.err.find(": warning: .file 1 \"" + cu + "\": no readable source file"), std::string::npos)
      << after.err;
  EXPECT_NE(after.err.find("the unit's DW_AT_name \"" + cu + "\""), std::string::npos) << after.err;
  EXPECT_NE(after.err.find("DW_AT_decl_file 1 names \"" + cu + "\""), std::string::npos) << after.err;
  EXPECT_EQ(after.out, ptx + ": 0 errors, 3 warnings\n");

  // Every diagnostic names its PTX line: the .file line is the one holding the path.
  std::optional<std::string> text = readFile(ptx);
  ASSERT_TRUE(text);
  size_t at = text->find(".file\t1 \"" + cu + "\"");
  ASSERT_NE(at, std::string::npos);
  const size_t line = 1 + static_cast<size_t>(std::count(text->begin(), text->begin() + static_cast<long>(at), '\n'));
  EXPECT_NE(after.err.find(ptx + ":" + std::to_string(line) + ":"), std::string::npos) << after.err;

  // Remapped to a directory holding the source, and the dump's line table names it.
  const std::filesystem::path src = dir / "src";
  std::filesystem::create_directories(src);
  ASSERT_TRUE(writeFile((src / "scale.cu").string(), "// the kept copy\n"));
  const std::string remapped = (dir / "remapped.ptx").string();
  CommandResult re = ptxdump({"reformat", ptx, "--remap-path", dir.string() + "=" + src.string(), "-o", remapped});
  ASSERT_EQ(re.exitCode, 0) << re.err;
  CommandResult lines = ptxdump({"dump", "--debug-line", remapped});
  EXPECT_NE(lines.out.find("include_directories[  1] = \"" + src.string() + "\""), std::string::npos) << lines.out;
  CommandResult clean = ptxdump({"check", "--sources", remapped});
  EXPECT_EQ(clean.exitCode, 0);
  EXPECT_EQ(clean.err, "");
  if (std::optional<std::string> ptxas = findTool("ptxas")) {
    CommandResult a = runCommand({*ptxas, "-arch=sm_80", "-g", remapped, "-o", (dir / "r.cubin").string()});
    EXPECT_TRUE(a.ok()) << a.summary();
  }
  std::filesystem::remove_all(dir);
}

TEST(PtxdumpRemap, MalformedMapIsExit2) {
  CommandResult r = ptxdump({"reformat", kFixtures + "/chapter6.ptx", "--remap-path", "no-equals-sign"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "ptxdump reformat: error: --remap-path takes OLD=NEW (as -ffile-prefix-map), not 'no-equals-sign'\n");
}

TEST(PtxdumpRemap, LastMatchingMapWins) {
  CommandResult r = ptxdump({"reformat", kFixtures + "/chapter6.ptx", "--remap-path", "call=/a/", "--remap-path",
                             "call_ex=/b/ex"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find(".file 1 \"/b/example.cu\""), std::string::npos);
  CommandResult first = ptxdump({"reformat", kFixtures + "/chapter6.ptx", "--remap-path", "call_ex=/b/ex",
                                 "--remap-path", "call=/a/"});
  EXPECT_NE(first.out.find(".file 1 \"/a/_example.cu\""), std::string::npos);
}

TEST(PtxdumpStrip, OutputIsRequired) {
  CommandResult r = ptxdump({"strip", kFixtures + "/chapter6.ptx"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "ptxdump strip: error: -o OUT is required (`-o -` writes to standard output)\n");
}

TEST(PtxdumpStrip, AllAndKeepLinesExcludeEachOther) {
  EXPECT_EQ(ptxdump({"strip", kFixtures + "/chapter6.ptx", "--all", "--keep-lines", "-o", "-"}).exitCode, 2);
}

TEST(PtxdumpStrip, UnreadableInputIsExit2AtItsLineAndLeavesTheOutput) {
  const std::string bad = (tempDir() / "bad.ptx").string(), out = (tempDir() / "out.ptx").string();
  ASSERT_TRUE(writeFile(bad, ".version 7.0\n.target sm_80\n.section .debug_info {\n.b8 1,\n"));
  ASSERT_TRUE(writeFile(out, "kept\n"));
  CommandResult r = ptxdump({"strip", bad, "-o", out});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err.rfind(bad + ":", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": error: "), std::string::npos) << r.err;
  EXPECT_EQ(readFile(out).value_or(""), "kept\n");  // not written at all
  CommandResult remap = ptxdump({"reformat", bad, "--remap-path", "a=b", "-o", out});
  EXPECT_EQ(remap.exitCode, 2);
  EXPECT_EQ(remap.err.rfind(bad + ":", 0), 0u) << remap.err;
  EXPECT_EQ(readFile(out).value_or(""), "kept\n");
  EXPECT_EQ(ptxdump({"strip", (tempDir() / "missing.ptx").string(), "-o", out}).exitCode, 2);
  std::filesystem::remove_all(tempDir());
}

TEST(PtxdumpStrip, KeepsEveryOtherByte) {
  const std::string out = (tempDir() / "lines.ptx").string();
  CommandResult r = ptxdump({"strip", kFixtures + "/chapter6.ptx", "--keep-lines", "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::optional<std::string> in = readFile(kFixtures + "/chapter6.ptx"), got = readFile(out);
  ASSERT_TRUE(in && got);
  // What is left is the input less whole lines and `, debug`: every line of the output is a line of the input
  // (the .target line less `, debug`), in order.
  size_t from = 0;
  for (size_t p = 0; p < got->size();) {
    size_t nl = got->find('\n', p);
    std::string line = got->substr(p, nl == std::string::npos ? std::string::npos : nl - p);
    if (line == ".target sm_20") line = ".target sm_20, debug";
    size_t at = in->find(line + "\n", from);
    ASSERT_NE(at, std::string::npos) << "not a line of the input: " << line;
    from = at + line.size();
    if (nl == std::string::npos) break;
    p = nl + 1;
  }
  EXPECT_EQ(got->find(".debug_info"), std::string::npos);
  EXPECT_NE(got->find(".loc"), std::string::npos);
  std::filesystem::remove_all(tempDir());
}

TEST(PtxdumpRemap, DebugStrStringsMoveWithTheirOffsetsAndLabels) {
  const std::string in = kFixtures + "/remap/strp_paths.ptx";
  const std::filesystem::path dir = tempDir();
  const std::string longer = (dir / "longer.ptx").string(), shorter = (dir / "shorter.ptx").string();
  ASSERT_EQ(ptxdump({"reformat", in, "--remap-path", "/tmp/jit=/home/user/project", "-o", longer}).exitCode, 0);
  ASSERT_EQ(ptxdump({"reformat", in, "--remap-path", "/tmp/jit=/j", "-o", shorter}).exitCode, 0);
  std::optional<std::string> text = readFile(longer);
  ASSERT_TRUE(text);
  // "/home/user/project/k.cu" is 10 bytes longer than "/tmp/jit/k.cu": the second string is at 24, not 14.
  EXPECT_NE(text->find(".b32 .debug_str+24\n"), std::string::npos) << *text;
  for (const std::string& out : {longer, shorter}) {
    CommandResult check = ptxdump({"check", out});
    EXPECT_EQ(check.exitCode, 0) << check.err;
  }
  CommandResult info = ptxdump({"dump", longer});
  EXPECT_NE(info.out.find("DW_AT_name\t(\"/home/user/project/k.cu\")"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("DW_AT_comp_dir\t(\"/home/user/project\")"), std::string::npos) << info.out;
  CommandResult lines = ptxdump({"dump", "--debug-line", shorter});
  EXPECT_NE(lines.out.find("include_directories[  1] = \"/j\""), std::string::npos) << lines.out;

  std::optional<std::string> ptxas = findTool("ptxas"), dwarfdump = findTool("llvm-dwarfdump");
  if (!ptxas || !dwarfdump) PTXDWARF_MISSING_TOOL("ptxas or llvm-dwarfdump not found");
  const std::string cubin = (dir / "shorter.cubin").string();
  CommandResult a = runCommand({*ptxas, "-arch=sm_80", "-g", shorter, "-o", cubin});
  ASSERT_TRUE(a.ok()) << a.summary();
  CommandResult d = runCommand({*dwarfdump, "--debug-info", "--debug-line", cubin});
  EXPECT_NE(d.out.find("DW_AT_name\t(\"/j/k.cu\")"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("DW_AT_comp_dir\t(\"/j\")"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("DW_AT_type\t(0x0000001c \"int\")"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("include_directories[  1] = \"/j\""), std::string::npos) << d.out;
  std::filesystem::remove_all(dir);
}

TEST(PtxdumpStrip, HelpShowsAnExampleThatRuns) {
  CommandResult help = ptxdump({"strip", "--help"});
  ASSERT_EQ(help.exitCode, 0) << help.err;
  EXPECT_NE(help.out.find("Example:\n  ptxdump strip fixtures/chapter6.ptx --keep-lines -o -\n"), std::string::npos)
      << help.out;
  CommandResult run = ptxdump({"strip", kFixtures + "/chapter6.ptx", "--keep-lines", "-o", "-"});
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find(".target sm_20\n"), std::string::npos) << run.out;
  EXPECT_NE(ptxdump({"--help"}).out.find("  ptxdump strip kernel.ptx -o plain.ptx"), std::string::npos);
}
