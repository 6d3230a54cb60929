// `ptxdump lookup` as users run it, on the Chapter 6 example: a source line,
// a PTX line (JSON, the key names scripts rely on), a function, and the
// errors for places that match nothing (exit 1).
#include <gtest/gtest.h>

#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kChapter6 = std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx";

CommandResult lookup(const std::string& at, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {PTXDUMP_EXE, "lookup", kChapter6, "--at", at};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCommand(args);
}

TEST(LookupCli, SourceLine) {
  CommandResult r = lookup("call_example.cu:8");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, kChapter6 +
                       ": call_example.cu:8 in _Z4testPi, PTX line 39\n"
                       "  scopes (innermost first):\n"
                       "    DW_TAG_subprogram '_Z4testPi' (0x000000ae)\n"
                       "  visible:\n"
                       "    parameter int *p: _Z4testPi_param_0 (ADDR_param_space) (0x000000e2)\n");
}

TEST(LookupCli, PtxLineAsJson) {
  CommandResult r = lookup("ptx:17", {"--format", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "{\"file\":\"" + kChapter6 +
                       "\",\"at\":\"ptx:17\",\"matches\":[{\"function\":\"_Z3fooi\",\"ptx_lines\":[17],\"scopes\":["
                       "{\"tag\":\"DW_TAG_subprogram\",\"name\":\"_Z3fooii\",\"die\":69}],\"variables\":["
                       "{\"name\":\"i\",\"kind\":\"parameter\",\"type\":\"int\",\"location\":\"%r1\",\"available\":true,"
                       "\"address_class\":\"ADDR_reg_space\",\"decl_line\":1,\"die\":119},"
                       "{\"name\":\"j\",\"kind\":\"parameter\",\"type\":\"int\",\"location\":\"%r2\",\"available\":true,"
                       "\"address_class\":\"ADDR_reg_space\",\"decl_line\":1,\"die\":141}]}]}\n");
}

TEST(LookupCli, FunctionNameAndALabelLineMeanTheNextInstruction) {
  CommandResult byName = lookup("_Z4testPi");
  ASSERT_EQ(byName.exitCode, 0) << byName.err;
  EXPECT_NE(byName.out.find("_Z4testPi in _Z4testPi, PTX line 34\n"), std::string::npos) << byName.out;
  CommandResult byLabel = lookup("ptx:33");  // `func_begin1:` stands for line 34's instruction
  ASSERT_EQ(byLabel.exitCode, 0) << byLabel.err;
  EXPECT_NE(byLabel.out.find("ptx:33 in _Z4testPi, PTX line 34\n"), std::string::npos) << byLabel.out;
}

TEST(LookupCli, PlacesThatMatchNothingAreErrors) {
  CommandResult noFile = lookup("nothere.cu:3");
  EXPECT_EQ(noFile.exitCode, 1);
  EXPECT_EQ(noFile.err, kChapter6 + ": error: no .file names 'nothere.cu'\n");
  CommandResult outside = lookup("ptx:2");
  EXPECT_EQ(outside.exitCode, 1);
  EXPECT_EQ(outside.err, kChapter6 + ": error: PTX line 2 is not inside a function body with an instruction at or after it\n");
  CommandResult noFunction = lookup("_Z5nopev");
  EXPECT_EQ(noFunction.exitCode, 1);
  EXPECT_EQ(noFunction.err, kChapter6 + ": error: no function named '_Z5nopev' has code\n");
}

}  // namespace
