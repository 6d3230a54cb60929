// `lookup` and `types` at their limits, as users run them: a source path
// given as `dump` prints it (the unit's directory joined on) or by any tail
// of whole components; type layouts whose numbers pass what 64 bits count;
// types nested deeper than a name spells; reformat of many sections.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kChapter6 = std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx";

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_limits_" + std::to_string(getpid()) + "_" + name)).string();
}

constexpr const char* kHeader = ".version 7.5\n.target sm_75\n.address_size 64\n";

TEST(LookupCli, TheDeclFilePathDumpPrintsAndItsTails) {
  // dump: DW_AT_decl_file ("/home/mmurphy/test/call_example.cu"), a relative
  // `.file` joined to DW_AT_comp_dir: lookup takes it, as gdb's `break` does.
  CommandResult dump = ptxdump({kChapter6});
  ASSERT_NE(dump.out.find("DW_AT_decl_file\t(\"/home/mmurphy/test/call_example.cu\")"), std::string::npos);
  for (std::string at : {"/home/mmurphy/test/call_example.cu:8", "test/call_example.cu:8"}) {
    CommandResult r = ptxdump({"lookup", kChapter6, "--at", at});
    ASSERT_EQ(r.exitCode, 0) << at << ": " << r.err;
    EXPECT_EQ(r.out, kChapter6 + ": " + at +
                         " in _Z4testPi, PTX line 39\n"
                         "  scopes (innermost first):\n"
                         "    DW_TAG_subprogram '_Z4testPi' (0x000000ae)\n"
                         "  visible:\n"
                         "    parameter int *p: _Z4testPi_param_0 (ADDR_param_space) (0x000000e2)\n");
  }
  CommandResult partial = ptxdump({"lookup", kChapter6, "--at", "st/call_example.cu:8"});
  EXPECT_EQ(partial.exitCode, 1);
  EXPECT_EQ(partial.err, kChapter6 + ": error: no .file names 'st/call_example.cu'\n");
}

TEST(TypesCli, NumbersPastSixtyFourBits) {
  // struct Far { int a at 0; int b at 2^64 - 16 }; int[] with upper bound 2^64 - 1.
  std::string text = kHeader;
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 19, 11, 0, 0, 2, 36, 0, 3, 8, 11, 11, 0, 0, 3, 19, 1, 3, 8, 11, 7, "
          "0, 0, 4, 13, 0, 3, 8, 73, 19, 56, 7, 0, 0, 5, 13, 0, 3, 8, 73, 19, 56, 13, 0, 0, 6, 1, 1, 73, 19, 0, 0, 7, 33, "
          "0, 47, 7, 0, 0, 0\n}\n";
  text += ".section .debug_info {\n.b32 68\n.b8 2, 0\n.b32 0\n.b8 8\n"
          ".b8 1, 4\n"                                        // 11: the unit, C++
          ".b8 2, 105, 110, 116, 0, 4\n"                      // 13: int
          ".b8 3, 70, 97, 114, 0\n.b8 248, 255, 255, 255, 255, 255, 255, 255\n"  // 19: Far
          ".b8 4, 97, 0\n.b32 13\n.b64 0\n"                   // 32: a
          ".b8 5, 98, 0\n.b32 13\n.b8 124\n"                  // 47: b at sdata -4
          ".b8 0\n"
          ".b8 6\n.b32 13\n.b8 7\n.b8 255, 255, 255, 255, 255, 255, 255, 255\n.b8 0\n"  // 56: int[2^64]
          ".b8 0\n}\n";
  const std::string path = tempPath("huge.ptx");
  ASSERT_TRUE(writeFile(path, text));
  CommandResult r = ptxdump({"types", path});
  std::filesystem::remove(path);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\tint b;" + std::string(49, ' ') + "/*     ?     4 */\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\t/* no holes or padding: member at DIE 0x0000002f: DW_AT_data_member_location is "
                       "negative (-4) */\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("/* array */ int[18446744073709551616];\t/* size: ? */\n\t/* dimension 1: bounds [0, "
                       "18446744073709551615] hold 18446744073709551616 elements, more than 64 bits count */\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("XXX"), std::string::npos) << r.out;
}

TEST(TypesCli, ATypeNestedDeeperThanANameSpellsSaysSo) {
  // 70 structs N0 { N1 { ... } }: N69's name spells its 64 innermost scopes.
  std::string body = ".b8 1\n";
  size_t bytes = 1;
  for (int i = 0; i < 70; ++i) {
    const std::string name = "N" + std::to_string(i);
    body += ".b8 2";
    for (char c : name) body += ", " + std::to_string(static_cast<unsigned char>(c));
    body += ", 0, 1\n";
    bytes += name.size() + 3;
  }
  for (int i = 0; i <= 70; ++i) body += ".b8 0\n";
  bytes += 71;
  const std::string text = std::string(kHeader) +
                           ".section .debug_abbrev {\n.b8 1, 17, 1, 0, 0, 2, 19, 1, 3, 8, 11, 11, 0, 0, 0\n}\n"
                           ".section .debug_info {\n.b32 " +
                           std::to_string(7 + bytes) + "\n.b8 2, 0\n.b32 0\n.b8 8\n" + body + "}\n";
  const std::string path = tempPath("nested.ptx");
  ASSERT_TRUE(writeFile(path, text));
  CommandResult r = ptxdump({"types", path, "--name", "N69"});
  std::filesystem::remove(path);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string scopes;
  for (int i = 5; i <= 68; ++i) scopes += "N" + std::to_string(i) + "::";
  EXPECT_EQ(r.out, "struct (enclosing scopes left out)::" + scopes + "N69 {\n\n\t/* size: 1, members: 0 */\n"
                   "\t/* sum members: 0 */\n\t/* padding: 1 */\n};\n");
}

TEST(ReformatCli, ManySections) {
  std::string text = kHeader;
  for (int i = 0; i < 3000; ++i) text += ".section .debug_s" + std::to_string(i) + " {\n.b8 " + std::to_string(i % 256) + "\n}\n";
  const std::string path = tempPath("sections.ptx");
  ASSERT_TRUE(writeFile(path, text));
  for (bool reencode : {false, true}) {
    std::vector<std::string> args = {"reformat", path};
    if (reencode) args.push_back("--reencode");
    CommandResult r = ptxdump(args);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    // Re-encoded, the (empty) .debug_abbrev and .debug_info the model writes come too.
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '{'), reencode ? 3002 : 3000);
    EXPECT_NE(r.out.find(".section\t.debug_s2999\n\t{\n.b8 183\n\t}"), std::string::npos) << r.out.substr(0, 400);
  }
  std::filesystem::remove(path);
}

}  // namespace
