// ptxdump on cubins as users run it: a cubin ptxas makes of Chapter 6 is
// dumped, its line table, register map and embedded PTX printed; a damaged
// ELF file is a clear error and exit 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "missing_tool.h"
#include "tools.h"

using namespace ptxdwarf::testsupport;

namespace {

const std::string kChapter6 = std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx";

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ptxdump_cubin_" + std::to_string(getpid()) + "_" + name))
      .string();
}

CommandResult ptxdump(std::vector<std::string> args) {
  args.insert(args.begin(), PTXDUMP_EXE);
  return runCommand(args);
}

class CubinCli : public testing::Test {
 protected:
  void SetUp() override {
    std::optional<std::string> ptxas = findTool("ptxas");
    if (!ptxas) PTXDWARF_MISSING_TOOL("ptxas not found");
    cubin_ = tempPath("chapter6.cubin");
    CommandResult r = runCommand({*ptxas, "-arch=sm_80", "-g", kChapter6, "-o", cubin_});
    ASSERT_TRUE(r.ok()) << r.summary();
  }
  void TearDown() override { std::filesystem::remove(cubin_); }
  std::string cubin_;
};

TEST_F(CubinCli, DumpsTheDwarfOfACubin) {
  CommandResult r = ptxdump({"dump", cubin_});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find(":\tfile format elf64-unknown\n"), std::string::npos);
  EXPECT_NE(r.out.find("DW_TAG_compile_unit"), std::string::npos);
  EXPECT_NE(r.out.find("DW_OP_regx %r"), std::string::npos) << "packed registers spelled as PTX names";
  EXPECT_NE(r.out.find("ADDR_reg_space"), std::string::npos);
}

TEST_F(CubinCli, LineTableRegisterMapAndEmbeddedPtx) {
  CommandResult line = ptxdump({"dump", "--debug-line", "--format", "json", cubin_});
  ASSERT_EQ(line.exitCode, 0) << line.err;
  EXPECT_NE(line.out.find("\"line_tables\":[{\"offset\":0,\"version\":2"), std::string::npos) << line.out;
  EXPECT_NE(line.out.find("\"is_stmt\":true"), std::string::npos);
  CommandResult map = ptxdump({"dump", "--debug-regmap", "--format", "json", cubin_});
  ASSERT_EQ(map.exitCode, 0) << map.err;
  EXPECT_NE(map.out.find("\"register\":\"%r"), std::string::npos) << map.out;
  EXPECT_NE(map.out.find("\"sass\":\"R"), std::string::npos);
  EXPECT_EQ(map.out.find("\"entries\":0"), std::string::npos);
  CommandResult text = ptxdump({"dump", "--debug-regmap", cubin_});
  EXPECT_NE(text.out.find("Function: _Z4testPi"), std::string::npos) << text.out;
  CommandResult sass = ptxdump({"dump", "--sass-lines", cubin_});
  EXPECT_NE(sass.out.find(".nv_debug_line_sass contents:"), std::string::npos);
  CommandResult ptx = ptxdump({"extract", "--ptx", cubin_});
  ASSERT_EQ(ptx.exitCode, 0) << ptx.err;
  EXPECT_NE(ptx.out.find(".version"), std::string::npos);
  EXPECT_NE(ptx.out.find("_Z4testPi"), std::string::npos);
}

// Binary input through a pipe: a cubin has NUL bytes throughout, so a
// stream that starts with the ELF magic is read to its end (a PTX text stops
// at its first NUL). Every command that loads a file reads `-` so; the
// outputs equal those of the file itself.
TEST_F(CubinCli, ACubinOnStandardInputReadsAsTheFile) {
  const std::string quoted = "'" + cubin_ + "'";
  for (const std::string& command : {std::string("dump --debug-info --debug-loc"), std::string("dump --debug-regmap"),
                                     std::string("dump --debug-line"), std::string("extract --ptx"),
                                     std::string("dump --sass-lines")}) {
    CommandResult file = runCommand({"/bin/sh", "-c", "'" + std::string(PTXDUMP_EXE) + "' " + command + " " + quoted});
    CommandResult piped =
        runCommand({"/bin/sh", "-c", "cat " + quoted + " | '" + std::string(PTXDUMP_EXE) + "' " + command + " -"});
    ASSERT_EQ(file.exitCode, 0) << command << ": " << file.err;
    ASSERT_EQ(piped.exitCode, 0) << command << ": " << piped.err;
    const size_t head = file.out.find('\n');  // the first line names the file
    EXPECT_EQ(piped.out.substr(piped.out.find('\n')), file.out.substr(head)) << command;
    EXPECT_GT(file.out.size(), 200u) << command;
  }
  // A pipe holding something else with a NUL in it is still read as text: the reader's error, exit 2.
  CommandResult nul = runCommand({"/bin/sh", "-c", "printf '.version 8.0\\n\\0junk' | '" + std::string(PTXDUMP_EXE) + "' dump -"});
  EXPECT_EQ(nul.exitCode, 2) << nul.out;
}

TEST_F(CubinCli, DamagedElfIsAClearErrorAndExit2) {
  std::optional<std::string> bytes = readFile(cubin_);
  ASSERT_TRUE(bytes);
  const std::string cut = tempPath("cut.cubin");
  ASSERT_TRUE(writeFile(cut, bytes->substr(0, bytes->size() / 2)));  // the section header table is at the end
  CommandResult r = ptxdump({"dump", cut});
  std::filesystem::remove(cut);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("error: not a readable cubin: section header table"), std::string::npos) << r.err;
}

}  // namespace
