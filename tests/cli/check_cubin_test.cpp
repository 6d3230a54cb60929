// `ptxdump check X.ptx --cubin X.cubin` and `check X.cubin`: the cubin rules
// (ptxdwarf/check/cubin.h) on what ptxas 13 makes of real PTX, and on inputs
// mutated to trigger each rule. The registers cuda-gdb printed
// `<optimized out>` on a GPU (fixtures/device/cuda-gdb-dsl.txt: %p0, %r0,
// %f0, %f2 and %rd0 of fixtures/annotate/dsl.ptx, annotated) are exactly the
// variables cubin-variable-unavailable names.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "missing_tool.h"
#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kFixtures = PTXDWARF_FIXTURES;

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_check_cubin_" + std::to_string(getpid()) + "_" + name))
      .string();
}

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

// The diagnostics of one rule: (line, message) in order.
std::vector<std::pair<int, std::string>> findings(const std::string& err, const std::string& rule) {
  std::vector<std::pair<int, std::string>> found;
  std::istringstream in(err);
  static const std::regex located(R"(^[^:]+:(\d+):\d+: \w+: (.*)$)");
  for (std::string line; std::getline(in, line);) {
    if (line.find("[" + rule + "]") == std::string::npos) continue;
    std::smatch m;
    found.emplace_back(std::regex_search(line, m, located) ? std::stoi(m[1]) : 0,
                       std::regex_search(line, m, located) ? std::string(m[2]) : line);
  }
  return found;
}

// The variables cubin-variable-unavailable names: 'NAME' is never available.
std::set<std::string> unavailableVariables(const std::string& err) {
  std::set<std::string> names;
  static const std::regex named(R"('([^']*)' is never available)");
  for (const auto& [line, message] : findings(err, "cubin-variable-unavailable")) {
    std::smatch m;
    if (std::regex_search(message, m, named)) names.insert(m[1]);
  }
  return names;
}

std::string lineOf(const std::string& text, int n) {
  std::istringstream in(text);
  std::string line;
  for (int i = 0; i < n && std::getline(in, line);) ++i;
  return line;
}

class CheckCubin : public testing::Test {
 protected:
  void SetUp() override {
    std::optional<std::string> ptxas = findTool("ptxas");
    if (!ptxas) PTXDWARF_MISSING_TOOL("ptxas not found");
    ptxas_ = *ptxas;
  }
  void TearDown() override {
    for (const std::string& p : made_) std::filesystem::remove(p);
  }
  // `ptxas -g -arch=sm_90 ptx -o NAME.cubin`.
  std::string compile(const std::string& ptx, const std::string& name) {
    const std::string cubin = made(name + ".cubin");
    CommandResult r = runCommand({ptxas_, "-g", "-arch=sm_90", ptx, "-o", cubin});
    EXPECT_TRUE(r.ok()) << r.summary();
    return cubin;
  }
  // fixtures/annotate/dsl.ptx with its debug information made by `ptxdump annotate`.
  std::string annotatedDsl() {
    const std::string ptx = made("dsl.ptx");
    CommandResult r = ptxdump({"annotate", kFixtures + "/annotate/dsl.ptx", "-o", ptx});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return ptx;
  }
  // `from` with every `what` replaced by `with`, written to NAME.ptx.
  std::string mutated(const std::string& from, const std::string& what, const std::string& with,
                      const std::string& name) {
    std::string text = readFile(from).value_or("");
    size_t replaced = 0;
    for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; ++replaced, at += with.size())
      text.replace(at, what.size(), with);
    EXPECT_GT(replaced, 0u) << what;
    const std::string path = made(name + ".ptx");
    EXPECT_TRUE(writeFile(path, text));
    return path;
  }
  std::string made(const std::string& name) { return made_.emplace_back(tempPath(name)); }

  std::string ptxas_;
  std::vector<std::string> made_;
};

// Registers declared and never used get no map entry: their variables are
// <optimized out> at every stop, as cuda-gdb showed on a GPU.
TEST_F(CheckCubin, NeverUsedRegistersAreUnavailableEverywhere) {
  const std::string ptx = annotatedDsl();
  const std::string cubin = compile(ptx, "dsl");
  const std::set<std::string> optimizedOut = {"%f0", "%f2", "%p0", "%r0", "%rd0"};
  CommandResult paired = ptxdump({"check", ptx, "--cubin", cubin});
  EXPECT_EQ(paired.exitCode, 0) << "warnings only: " << paired.err;
  EXPECT_EQ(unavailableVariables(paired.err), optimizedOut) << paired.err;
  EXPECT_NE(paired.out.find("0 errors, 5 warnings"), std::string::npos) << paired.out;
  EXPECT_NE(paired.err.find("ptxas kept no entry for %r0"), std::string::npos) << paired.err;
  // Located at the DIE's location bytes in the PTX (annotate writes .debug_info as .b32 words).
  for (const auto& [line, message] : findings(paired.err, "cubin-variable-unavailable"))
    EXPECT_TRUE(lineOf(readFile(ptx).value_or(""), line).starts_with(".b32 ")) << line << ": " << message;

  // The cubin alone: the same variables, at the declarations of their
  // registers in the embedded PTX (`extract --ptx`'s lines).
  CommandResult alone = ptxdump({"check", cubin});
  EXPECT_EQ(alone.exitCode, 0) << alone.err;
  EXPECT_EQ(unavailableVariables(alone.err), optimizedOut) << alone.err;
  const std::string embedded = ptxdump({"extract", "--ptx", cubin}).out;
  for (const auto& [line, message] : findings(alone.err, "cubin-variable-unavailable"))
    EXPECT_NE(lineOf(embedded, line).find(".reg"), std::string::npos) << line << ": " << message;
}

// nvcc -G's PTX through ptxas -g: every variable has a map entry in its
// scope, every .loc line an address, every subprogram its code.
TEST_F(CheckCubin, NvccDebugBuildIsClean) {
  const std::string ptx = kFixtures + "/producers/nvcc_G_locals_main.ptx";
  const std::string cubin = compile(ptx, "locals");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", ptx, "--cubin", cubin}, std::vector<std::string>{"check", cubin}}) {
    CommandResult r = ptxdump(args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find(": 0 errors, 0 warnings"), std::string::npos) << r.out;
  }
}

// A register renamed past 8 bytes in the code but not in the DWARF (what a
// producer that cuts names does): the DW_OP_regx name is in no map entry.
TEST_F(CheckCubin, RegisterCutTo8BytesIsUnmapped) {
  const std::string ptx = mutated(annotatedDsl(), "%lidx0", "%lidx0_wide", "long");
  const std::string cubin = compile(ptx, "long");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", ptx, "--cubin", cubin}, std::vector<std::string>{"check", cubin}}) {
    CommandResult r = ptxdump(args);
    EXPECT_EQ(r.exitCode, 1) << r.err;
    const auto found = findings(r.err, "cubin-register-unmapped");
    ASSERT_EQ(found.size(), 1u) << r.err;
    EXPECT_NE(found[0].second.find("register %lidx0 is not in the register map of E_4_32: the function has "
                                   "%lidx0_wide, and a DW_OP_regx name holds at most 8 bytes"),
              std::string::npos)
        << found[0].second;
  }
}

// A DIE naming a register the function no longer declares.
TEST_F(CheckCubin, UndeclaredRegisterIsUnmapped) {
  const std::string ptx = mutated(annotatedDsl(), ".reg .f32 %f<3>;", ".reg .f32 %f<2>;", "undeclared");
  CommandResult r = ptxdump({"check", compile(ptx, "undeclared")});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  const auto found = findings(r.err, "cubin-register-unmapped");
  ASSERT_EQ(found.size(), 1u) << r.err;
  EXPECT_NE(found[0].second.find("register %f2 is not in the register map of E_4_32: the function declares no "
                                 "such register"),
            std::string::npos)
      << found[0].second;
  EXPECT_EQ(unavailableVariables(r.err), (std::set<std::string>{"%f0", "%p0", "%r0", "%rd0"})) << r.err;
}

// Chapter 6's subprogram names _Z3fooii, a function neither the PTX nor the cubin has.
TEST_F(CheckCubin, LinkageNameWithoutCodeInTheCubin) {
  const std::string ptx = kFixtures + "/chapter6.ptx";
  const std::string cubin = compile(ptx, "chapter6");
  CommandResult r = ptxdump({"check", ptx, "--cubin", cubin});
  EXPECT_EQ(r.exitCode, 0) << "a warning: " << r.err;
  const auto found = findings(r.err, "cubin-function-missing");
  ASSERT_EQ(found.size(), 1u) << r.err;
  EXPECT_NE(found[0].second.find("'_Z3fooii' names no function of the cubin (no .text._Z3fooii"), std::string::npos)
      << found[0].second;
  EXPECT_NE(lineOf(readFile(ptx).value_or(""), found[0].first).find(".b8"), std::string::npos);
}

// A .loc line the cubin was not compiled with has no address in its line table.
TEST_F(CheckCubin, SourceLineWithoutAddress) {
  const std::string original = kFixtures + "/producers/nvcc_G_locals_main.ptx";
  const std::string cubin = compile(original, "lines");
  const std::string ptx =
      mutated(original, "\tld.param.u64 \t%rd1, [_Z8sumLocalPKii_param_0];",
              "\t.loc\t3 99 1\n\tld.param.u64 \t%rd1, [_Z8sumLocalPKii_param_0];", "lines");
  CommandResult r = ptxdump({"check", ptx, "--cubin", cubin});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const auto found = findings(r.err, "cubin-line-unplaced");
  ASSERT_EQ(found.size(), 1u) << r.err;
  EXPECT_NE(found[0].second.find("locals.cu:99 has .loc lines here but no address"), std::string::npos);
  EXPECT_EQ(lineOf(readFile(ptx).value_or(""), found[0].first), "\t.loc\t3 99 1");
  CommandResult werror = ptxdump({"check", "--werror", ptx, "--cubin", cubin});
  EXPECT_EQ(werror.exitCode, 1);
}

// A cubin compiled with other paths: not a finding per line, one for the file.
TEST_F(CheckCubin, AFileWithNoPlacedLineIsOneFinding) {
  const std::string original = kFixtures + "/producers/nvcc_G_locals_main.ptx";
  const std::string cubin = compile(original, "paths");
  const std::string ptx = mutated(original, "\"/work/main/tests/device/../../fixtures/corpus/locals.cu\"",
                                  "\"/elsewhere/locals.cu\"", "paths");
  CommandResult r = ptxdump({"check", ptx, "--cubin", cubin});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const auto found = findings(r.err, "cubin-line-unplaced");
  ASSERT_EQ(found.size(), 1u) << r.err;
  EXPECT_NE(found[0].second.find("no line of /elsewhere/locals.cu has an address in the cubin's line table"),
            std::string::npos)
      << found[0].second;
  EXPECT_NE(lineOf(readFile(ptx).value_or(""), found[0].first).find(".loc"), std::string::npos);
}

TEST_F(CheckCubin, CubinOptionNeedsOneFileAndACubin) {
  const std::string ptx = kFixtures + "/chapter6.ptx";
  CommandResult notCubin = ptxdump({"check", ptx, "--cubin", ptx});
  EXPECT_EQ(notCubin.exitCode, 2);
  EXPECT_NE(notCubin.err.find("--cubin: not a cubin"), std::string::npos) << notCubin.err;
  CommandResult two = ptxdump({"check", ptx, ptx, "--cubin", ptx});
  EXPECT_EQ(two.exitCode, 2);
  EXPECT_NE(two.err.find("--cubin holds one cubin against one PTX file"), std::string::npos) << two.err;
  CommandResult missing = ptxdump({"check", ptx, "--cubin", tempPath("absent.cubin")});
  EXPECT_EQ(missing.exitCode, 2);
  const std::string cubin = compile(ptx, "twice");
  CommandResult twoCubins = ptxdump({"check", cubin, "--cubin", cubin});
  EXPECT_EQ(twoCubins.exitCode, 2);
  EXPECT_NE(twoCubins.err.find("--cubin: this is a cubin already"), std::string::npos) << twoCubins.err;
  // A cubin on standard input is checked as the file is.
  CommandResult piped = runCommand({"/bin/sh", "-c", "'" + std::string(PTXDUMP_EXE) + "' check - < '" + cubin + "'"});
  EXPECT_EQ(piped.exitCode, 0) << piped.err;
  EXPECT_NE(piped.out.find("-: 0 errors, 1 warning"), std::string::npos) << piped.out;
}

}  // namespace
