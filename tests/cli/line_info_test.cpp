// The line information through ptxdump: `dump --debug-line` (text and JSON),
// the default dump of a -lineinfo file, and `check` on the seeded line faults
// of fixtures/faults/lines (see generate.py there; the same table).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;
const std::string kBase = kFixtures + "/faults/lines/base.ptx";

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

TEST(DumpDebugLine, TextShowsFilesRowsAndInlineStacks) {
  CommandResult r = ptxdump({"dump", "--debug-line", kBase});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string expected =
      ".debug_line contents:\n"
      "PTX line table: from the .file and .loc directives (ptxas builds .debug_line from them)\n"
      "include_directories[  1] = \"/home/dev\"\n"
      "include_directories[  2] = \"/home/dev/include\"\n"
      "file_names[  1]:\n"
      "           name: \"kernel.cu\"\n"
      "      dir_index: 1\n"
      "       mod_time: 0x00000000\n"
      "         length: 0x00000000\n"
      "file_names[  2]:\n"
      "           name: \"square.h\"\n"
      "      dir_index: 2\n"
      "       mod_time: 0x00000000\n"
      "         length: 0x00000000\n"
      "\n"
      "Address (PTX)        Line Column   File Function\n"
      "------------------ ------ ------ ------ --------\n"
      "ptx:18                 20      3      1 _Z6kernelPi\n"
      "ptx:21                 21      7      1 _Z6kernelPi\n"
      "ptx:23                  5     10      2 _Z6kernelPi\n"
      "                   inlined: square(int) at /home/dev/kernel.cu:21:7\n"
      "ptx:25                  9      3      2 _Z6kernelPi\n"
      "                   inlined: bump(int) at /home/dev/include/square.h:5:10\n"
      "                   inlined: square(int) at /home/dev/kernel.cu:21:7\n"
      "ptx:27                 22      3      1 _Z6kernelPi\n"
      "ptx:29                 23      1      1 _Z6kernelPi\n"
      "ptx:39                 12      5      1 _Z6helperi\n"
      "ptx:41                 13      1      1 _Z6helperi\n";
  ASSERT_NE(r.out.find(expected), std::string::npos) << r.out;
}

TEST(DumpDebugLine, ALineinfoFileDumpsItsLineTableByDefault) {
  CommandResult r = ptxdump({kBase});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.find("no debug sections"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(".debug_line contents:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(".debug_info contents:"), std::string::npos) << r.out;
  // -a includes it, after .debug_aranges as in llvm-dwarfdump.
  CommandResult all = ptxdump({"-a", kFixtures + "/chapter6.ptx"});
  ASSERT_EQ(all.exitCode, 0) << all.err;
  size_t aranges = all.out.find(".debug_aranges contents:"), line = all.out.find(".debug_line contents:");
  ASSERT_NE(line, std::string::npos);
  EXPECT_LT(aranges, line);
  EXPECT_NE(all.out.find("ptx:16                  1      1      1 _Z3fooi\n"), std::string::npos) << all.out;
}

TEST(DumpDebugLine, Json) {
  CommandResult r = ptxdump({"dump", "--format", "json", "--debug-line", kBase});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"line\":{\"include_directories\":[\"/home/dev\",\"/home/dev/include\"],\"files\":["
                       "{\"index\":1,\"path\":\"/home/dev/kernel.cu\",\"timestamp\":null,\"size\":null,"
                       "\"directory\":1,\"name\":\"kernel.cu\"},"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("{\"function\":\"_Z6kernelPi\",\"ptx_line\":18,\"loc_line\":17,\"file\":1,\"line\":20,"
                       "\"column\":3}"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("{\"function\":\"_Z6kernelPi\",\"ptx_line\":25,\"loc_line\":24,\"file\":2,\"line\":9,"
                       "\"column\":3,\"function_name\":\"$L__info_string1\",\"inlined_at\":{\"file\":2,\"line\":5,"
                       "\"column\":10},\"inline_stack\":[{\"function_name\":\"$L__info_string1\",\"name\":\"bump(int)\","
                       "\"inlined_at\":{\"file\":2,\"line\":5,\"column\":10},\"resolved\":true},"
                       "{\"function_name\":\"$L__info_string0\",\"name\":\"square(int)\",\"inlined_at\":{\"file\":1,"
                       "\"line\":21,\"column\":7},\"resolved\":true}]}"),
            std::string::npos)
      << r.out;
}

// `n` `.loc`s, each inlined at the one before: the last row's inline stack
// is n deep.
std::string inlinedIntoTheOneBefore(int n) {
  std::string text = ".version 7.5\n.target sm_75, debug\n.address_size 64\n.file 1 \"a.cu\"\n"
                     ".visible .entry k()\n{\n.reg .b32 %r<2>;\n.loc 1 1 1\nmov.b32 %r1, 0;\n";
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    text += ".loc 1 " + std::to_string(i + 2) + " 1, function_name $L__info_string" + k + ", inlined_at 1 " +
            std::to_string(i + 1) + " 1\nmov.b32 %r1, " + k + ";\n";
  }
  text += "ret;\n}\n.section .debug_str {\n";
  for (int i = 0; i < n; ++i) text += "$L__info_string" + std::to_string(i) + ":\n.b8 102, 0\n";
  return text + "}\n";
}

std::string writeTemp(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ptxdump_lines_" + std::to_string(getpid()) + "_" + name)).string();
  EXPECT_TRUE(writeFile(path, text));
  return path;
}

TEST(DumpDebugLine, ARowShowsSixtyFourFramesOfADeepInlineStack) {
  const std::string path = writeTemp("deep.ptx", inlinedIntoTheOneBefore(70));
  CommandResult text = ptxdump({"dump", "--debug-line", path});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  // The last row: 70 frames deep, the innermost 64 shown.
  const std::string last = text.out.substr(text.out.rfind("ptx:"));
  EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 1 + 64 + 1) << last;
  EXPECT_TRUE(last.ends_with("                   inlined: f at a.cu:7:1\n                   (6 more inline frames)\n"))
      << last;
  const size_t one = text.out.find("(1 more inline frames)");  // the 65-deep row, and only it
  EXPECT_NE(one, std::string::npos);
  EXPECT_EQ(one, text.out.rfind("(1 more inline frames)"));
  CommandResult json = ptxdump({"dump", "--format", "json", "--debug-line", path});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  EXPECT_TRUE(json.out.find("\"resolved\":true}],\"inline_frames_omitted\":6}]") != std::string::npos) << json.out;
  std::filesystem::remove(path);
}

TEST(DumpDebugLine, DeepInlineStacksGrowTheDumpLinearly) {
  // Every row's whole stack made the dump O(n^2): 20,000 such rows, 9 GB.
  size_t bytes[2];
  for (int i = 0; i < 2; ++i) {
    const std::string path = writeTemp("chain.ptx", inlinedIntoTheOneBefore(i == 0 ? 200 : 800));
    CommandResult r = ptxdump({"dump", "--debug-line", path});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    bytes[i] = r.out.size();
    ASSERT_LT(r.out.size(), size_t{16} << 20) << "runCommand keeps at most 16 MiB: the output was cut short";
    std::filesystem::remove(path);
  }
  std::printf("dump --debug-line bytes at n = 200: %zu, at 4n: %zu (x%.2f)\n", bytes[0], bytes[1],
              static_cast<double>(bytes[1]) / static_cast<double>(bytes[0]));
  EXPECT_LE(bytes[1], 5 * bytes[0]);
}

struct LineFault {
  const char* file;
  const char* rule;
  const char* severity;
  int line;
};

class SeededLineFault : public testing::TestWithParam<LineFault> {};

TEST_P(SeededLineFault, CheckReportsTheRuleAtTheLine) {
  const LineFault& f = GetParam();
  const std::string path = kFixtures + "/faults/lines/" + f.file;
  CommandResult r = ptxdump({"check", path});
  EXPECT_EQ(r.exitCode, std::string(f.severity) == "error" ? 1 : 0) << r.err;
  const std::string prefix = path + ":" + std::to_string(f.line) + ":";
  bool found = false;
  for (size_t pos = 0; !found && (pos = r.err.find(prefix, pos)) != std::string::npos; ++pos) {
    std::string diag = r.err.substr(pos, r.err.find('\n', pos) - pos);
    found = diag.find(std::string(": ") + f.severity + ": ") != std::string::npos &&
            diag.find(std::string("[") + f.rule + "]") != std::string::npos;
  }
  EXPECT_TRUE(found) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Lines, SeededLineFault,
    testing::Values(LineFault{"loc_file.ptx", "loc-file", "error", 26},
                    LineFault{"inlined_at_file.ptx", "loc-file", "error", 24},
                    LineFault{"file_duplicate.ptx", "file-duplicate", "error", 45},
                    LineFault{"function_name_undefined.ptx", "loc-function-name", "error", 22},
                    LineFault{"function_name_mid_string.ptx", "loc-function-name", "error", 24},
                    LineFault{"inlined_at_unused.ptx", "loc-inlined-at", "error", 24},
                    LineFault{"loc_version.ptx", "loc-version", "warning", 22},
                    LineFault{"loc_version_old.ptx", "loc-version", "error", 22},
                    LineFault{"loc_scope.ptx", "loc-scope", "error", 9},
                    LineFault{"subprogram_lines.ptx", "subprogram-lines", "warning", 73}),
    [](const testing::TestParamInfo<LineFault>& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(CheckLines, TheBaseIsClean) {
  CommandResult r = ptxdump({"check", kBase});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "") << r.err;
}

}  // namespace
