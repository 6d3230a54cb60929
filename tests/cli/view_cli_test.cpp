// `ptxdump types`, `ptxdump dump --statistics` and dump's selection options as
// users run them: output, exit codes, errors.
#include <gtest/gtest.h>

#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kChapter6 = std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx";

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

TEST(TypesCli, TextAndJson) {
  CommandResult r = ptxdump({"types", kChapter6});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // Chapter 6 has two types: int and a generic pointer to it (nvcc's address class on pointers).
  EXPECT_EQ(r.out, "/* pointer */ int *;\t/* size: 8, address class: 12 ADDR_generic_space */\n");
  r = ptxdump({"types", "--format", "json", kChapter6});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"types\":[\n{\"name\":\"int *\",\"kind\":\"pointer\",\"size\":8,"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"address_class\":12,\"address_class_name\":\"ADDR_generic_space\""), std::string::npos);
}

TEST(TypesCli, NameThatMatchesNothingIsExitOne) {
  CommandResult r = ptxdump({"types", "--name", "Nope", kChapter6});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no type named 'Nope'"), std::string::npos) << r.err;
  r = ptxdump({"types", "--name", "int *", kChapter6});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("int *"), std::string::npos);
}

TEST(TypesCli, UnreadableFileIsExitTwo) {
  CommandResult r = ptxdump({"types", "/nonexistent/x.ptx"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("/nonexistent/x.ptx: error: cannot read file"), std::string::npos) << r.err;
}

TEST(StatisticsCli, LlvmKeys) {
  CommandResult r = ptxdump({"dump", "--statistics", kChapter6});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\n  \"version\": 9,\n  \"file\": ", 0), 0u) << r.out;
  for (const char* line : {"\n  \"#functions\": 2,", "\n  \"#params\": 3,", "\n  \"#params with binary location\": 3,",
                           "\n  \"#local vars\": 0,", "\n  \"#variables processed by location statistics\": 3,"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  EXPECT_EQ(r.out.substr(r.out.size() - 3), "\n}\n");
}

TEST(SelectionCli, NameRegexAndErrors) {
  CommandResult r = ptxdump({kChapter6, "--name", "^_Z4", "--regex", "-c"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\n0x000000ae: DW_TAG_subprogram\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n0x000000e2:   DW_TAG_formal_parameter\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("_Z3fooii"), std::string::npos) << r.out;
  r = ptxdump({kChapter6, "--name", "(", "--regex"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("error in regular expression '('"), std::string::npos) << r.err;
  r = ptxdump({kChapter6, "--name", "i", "--format", "json"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--name selects DIEs of the text dump"), std::string::npos) << r.err;
  r = ptxdump({kChapter6, "-r", "0"});
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_EQ(r.out.find("DW_TAG_subprogram"), std::string::npos);
  EXPECT_NE(r.out.find("DW_TAG_compile_unit"), std::string::npos);
}

}  // namespace
