// `ptxdump lookup` on a cubin (fixtures/cubin/lookup_locals_G_sm90.cubin:
// ptxas -g of nvcc -G's PTX for fixtures/corpus/locals.cu): a source line at
// cuda-gdb's breakpoint address with each variable's SASS location or
// <optimized out>, FUNCTION+0xPC as JSON (pc, sass), the prologue skipped
// for a line before a function, and the errors (exit 1).
#include <gtest/gtest.h>

#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kCubin = std::string(PTXDWARF_FIXTURES) + "/cubin/lookup_locals_G_sm90.cubin";

CommandResult lookup(const std::string& at, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {PTXDUMP_EXE, "lookup", kCubin, "--at", at};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCommand(args);
}

TEST(LookupCubinCli, SourceLineAtTheBreakpointAddress) {
  CommandResult r = lookup("locals.cu:4");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, kCubin +
                       ": locals.cu:4 in _Z8sumLocalPKii+0xd0, line 4, PTX line 36\n"
                       "  scopes (innermost first):\n"
                       "    DW_TAG_lexical_block (0x00001107)\n"
                       "    DW_TAG_lexical_block (0x000010e9)\n"
                       "    DW_TAG_subprogram 'sumLocal' (0x00001095)\n"
                       "  visible:\n"
                       "    variable  int i: <optimized out> (not available here (no range of .debug_loc+133 covers "
                       "+0xd0)) (0x00001118)\n"
                       "    variable  int s: %r1 = R4 (0x000010fa)\n"
                       "    parameter const int *a: %rd1 = R0:R3 (ADDR_reg_space) (0x000010c8)\n"
                       "    parameter int n: %r7 = R5 (ADDR_reg_space) (0x000010d9)\n");
}

TEST(LookupCubinCli, FunctionPlusPcAsJson) {
  CommandResult r = lookup("_Z8sumLocalPKii+0xd0", {"--format", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"matches\":[{\"function\":\"_Z8sumLocalPKii\",\"pc\":208,\"ptx_lines\":[36],"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("{\"name\":\"a\",\"kind\":\"parameter\",\"type\":\"const int *\",\"location\":\"%rd1\","
                       "\"available\":true,\"sass\":[\"R0\",\"R3\"],"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"location\":\"not available here (no range of .debug_loc+133 covers +0xd0)\","
                       "\"available\":false,\"sass\":[],"),
            std::string::npos)
      << r.out;
  // The same place by the function's DW_AT_name and a decimal offset.
  CommandResult byName = lookup("sumLocal+208", {"--format", "json"});
  ASSERT_EQ(byName.exitCode, 0) << byName.err;
  EXPECT_EQ(byName.out.substr(byName.out.find("\"matches\"")), r.out.substr(r.out.find("\"matches\"")));
}

TEST(LookupCubinCli, ALineBeforeAFunctionStopsPastItsPrologue) {
  // Line 6 has no code: the next line that has some is 8, localArrays'
  // entry, which gdb's breakpoint moves past the prologue: to line 10.
  CommandResult r = lookup("locals.cu:6");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), kCubin + ": locals.cu:6 in _Z11localArraysPKiPxi+0x280, line 10, PTX line 107");
  EXPECT_NE(r.out.find("    parameter int n: 0x220 = [param+0x220] (ADDR_param_space) (0x00001190)\n"), std::string::npos)
      << r.out;
}

TEST(LookupCubinCli, PlacesThatMatchNothingAreErrors) {
  CommandResult past = lookup("_Z8sumLocalPKii+0x480");
  EXPECT_EQ(past.exitCode, 1);
  EXPECT_EQ(past.err, kCubin + ": error: +0x480 is past the end of _Z8sumLocalPKii (0x480 bytes of SASS)\n");
  CommandResult after = lookup("locals.cu:99");
  EXPECT_EQ(after.exitCode, 1);
  EXPECT_EQ(after.err, kCubin + ": error: no line table row of locals.cu is at or after line 99\n");
  CommandResult noFile = lookup("other.cu:3");
  EXPECT_EQ(noFile.exitCode, 1);
  EXPECT_EQ(noFile.err, kCubin + ": error: no file of the line table is named 'other.cu'\n");
  CommandResult notAnAddress = lookup("_Z8sumLocalPKii+0xzz");
  EXPECT_EQ(notAnAddress.exitCode, 1);
  EXPECT_EQ(notAnAddress.err, kCubin + ": error: '0xzz' is not an address (FUNCTION+0xPC)\n");
}

}  // namespace
