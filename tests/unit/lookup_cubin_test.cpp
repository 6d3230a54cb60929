// view::lookup on a cubin: cuda-gdb's reading of the register map
// (cubin::locateRegister) on maps written here, and lookupCubin on the
// cubin ptxas makes of nvcc -G's PTX for fixtures/corpus/locals.cu (two
// functions, both from address 0 in the file): gdb's breakpoint rule, the
// code placed as the driver loads it, SASS locations.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "corpus.h"
#include "missing_tool.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/locate.h"
#include "ptxdwarf/view/lookup.h"
#include "tools.h"

using namespace ptxdwarf;
using ptxdwarf::testsupport::findTool;
using ptxdwarf::testsupport::readFixture;

namespace {

cubin::RegMapEntry entry(uint32_t piece, std::string_view reg, uint32_t location, uint32_t start, uint32_t end) {
  cubin::RegMapEntry e;
  e.piece = piece;
  e.reg = reg;
  e.location = location;
  e.start = start;
  e.end = end;
  return e;
}

constexpr uint32_t kFull = 5u << 24, kPredicate = 2u << 24;

TEST(LocateRegister, OneFullRegisterWithTheEndInclusive) {
  cubin::RegMapFunction f;
  f.entries = {entry(0, "%r1", kFull | 7, 0x100, 0x1f0)};
  EXPECT_EQ(cubin::locateRegister(&f, "%r1", 0x100).sass, std::vector<std::string>{"R7"});
  EXPECT_TRUE(cubin::locateRegister(&f, "%r1", 0x1f0).available);  // cuda-gdb: addr > end is out
  const cubin::RegisterAt after = cubin::locateRegister(&f, "%r1", 0x200);
  EXPECT_FALSE(after.available);
  EXPECT_TRUE(after.sass.empty());
  EXPECT_EQ(after.reason, "no register map entry of %r1 covers +0x200");
  EXPECT_FALSE(cubin::locateRegister(&f, "%r1", 0xf0).available);
  EXPECT_EQ(cubin::locateRegister(&f, "%r2", 0x100).reason, "no entry of the register map names %r2");
  EXPECT_EQ(cubin::locateRegister(nullptr, "%r1", 0x100).reason, "the register map has no record of the function");
}

TEST(LocateRegister, A64BitRegisterNeedsBothPieces) {
  cubin::RegMapFunction f;
  f.entries = {entry(0, "%rd1", kFull | 4, 0x10, 0x60), entry(1, "%rd1", kFull | 5, 0x20, 0x70),
               entry(0, "%rd1", kFull | 0, 0x60, 0x3a0)};
  EXPECT_EQ(cubin::locateRegister(&f, "%rd1", 0x30).sass, (std::vector<std::string>{"R4", "R5"}));
  EXPECT_EQ(cubin::joinSass(cubin::locateRegister(&f, "%rd1", 0x30).sass), "R4:R5");
  // At 0x10 only the low half is mapped, in one full register: cuda-gdb
  // takes a lone full register as the value's register (cuda_dwarf2_reg_to_regnum)
  // and reads from it, as it does past 0x70.
  EXPECT_EQ(cubin::locateRegister(&f, "%rd1", 0x10).sass, std::vector<std::string>{"R4"});
  EXPECT_EQ(cubin::locateRegister(&f, "%rd1", 0x100).sass, std::vector<std::string>{"R0"});
  // Put together from pieces, every piece must be there: a low half in
  // local memory and no high half is <optimized out>.
  cubin::RegMapFunction spilled;
  spilled.entries = {entry(0, "%rd2", (6u << 24) | 0x10, 0x0, 0x40), entry(1, "%rd2", kFull | 9, 0x0, 0x20)};
  EXPECT_EQ(cubin::locateRegister(&spilled, "%rd2", 0x10).sass, (std::vector<std::string>{"[local+0x10]", "R9"}));
  const cubin::RegisterAt half = cubin::locateRegister(&spilled, "%rd2", 0x30);
  EXPECT_FALSE(half.available);
  EXPECT_EQ(half.reason, "piece 1 of %rd2 is in no register at +0x30");
}

TEST(LocateRegister, PredicatesHalvesAndWhatCudaGdbSkips) {
  cubin::RegMapFunction f;
  f.entries = {entry(0, "%p1", kPredicate | 0, 0x130, 0x1c0), entry(0, "%rs3", (4u << 24) | 10, 0x0, 0x50),
               entry(0, "%val_f32_0", kFull | 9, 0x0, 0x50), entry(0, "%q1", kFull | 1, 0, 0x50),
               entry(1, "%q1", kFull | 2, 0, 0x50), entry(2, "%q1", kFull | 3, 0, 0x50)};
  EXPECT_EQ(cubin::locateRegister(&f, "%p1", 0x130).sass, std::vector<std::string>{"P0"});
  EXPECT_EQ(cubin::locateRegister(&f, "%rs3", 0x10).sass, std::vector<std::string>{"R5.lo"});
  // Over 8 bytes: cuda-gdb drops the entry when it loads the map.
  EXPECT_EQ(cubin::locateRegister(&f, "%val_f32_0", 0x10).reason, "no entry of the register map names %val_f32_0");
  // A 128-bit register: cuda-gdb never uses pieces 2 and 3, so never has them all.
  EXPECT_FALSE(cubin::locateRegister(&f, "%q1", 0x10).available);
}

TEST(LocateRegister, ValueExtrapolationReadsUpToTheNextEntry) {
  cubin::RegMapFunction f;
  f.entries = {entry(0, "%r2", kFull | 11, 0x10, 0x1c0), entry(0, "%r2", kFull | 12, 0x330, 0x470),
               entry(0, "%r9", kFull | 1, 0x0, 0x4f0)};
  EXPECT_FALSE(cubin::locateRegister(&f, "%r2", 0x310).available);
  EXPECT_EQ(cubin::locateRegister(&f, "%r2", 0x310, true).sass, std::vector<std::string>{"R11"});
  // After the last entry: up to the function's last mapped address.
  EXPECT_EQ(cubin::locateRegister(&f, "%r2", 0x4f0, true).sass, std::vector<std::string>{"R12"});
}

// ptxas -g -arch=sm_90 of the fixture (nullopt when it fails).
std::optional<std::string> localsCubin() {
  const std::optional<std::string> ptxas = findTool("ptxas");
  if (!ptxas) return std::nullopt;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ptxdwarf_lookup_cubin_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string in = (dir / "locals.ptx").string(), out = (dir / "locals.cubin").string();
  EXPECT_TRUE(testsupport::writeFile(in, readFixture("producers/nvcc_G_locals_main.ptx")));
  const testsupport::CommandResult r = testsupport::runCommand({*ptxas, "-g", "-arch=sm_90", in, "-o", out});
  EXPECT_TRUE(r.ok()) << r.summary();
  std::optional<std::string> bytes = testsupport::readFile(out);
  std::filesystem::remove_all(dir);
  return r.ok() ? bytes : std::nullopt;
}

view::LookupResult lookupIn(const std::string& cubin, std::string_view at) {
  return view::lookupCubin(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(cubin.data()), cubin.size()),
                           "locals.cubin", at);
}

std::vector<uint64_t> pcsOf(const view::LookupResult& r) {
  std::vector<uint64_t> pcs;
  for (const view::Match& m : r.matches) pcs.push_back(m.pc.value_or(UINT64_MAX));
  return pcs;
}

class LookupCubin : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!findTool("ptxas")) PTXDWARF_MISSING_TOOL("ptxas not found");
    std::optional<std::string> bytes = localsCubin();
    ASSERT_TRUE(bytes);
    cubin_ = std::move(*bytes);
  }
  std::string cubin_;
};

TEST_F(LookupCubin, EachFunctionIsPlacedAtItsOwnAddress) {
  cubin::ReadOptions placed;
  placed.placeCode = true;
  const cubin::ReadResult r = cubin::read(cubin_, "locals.cubin", placed);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.cubin.code.size(), 2u);
  const cubin::CodeSection& a = r.cubin.code[0];
  const cubin::CodeSection& b = r.cubin.code[1];
  EXPECT_GE(b.address, a.address + a.size);
  EXPECT_EQ(a.address % 128, 0u);  // the .text sections' alignment
  EXPECT_EQ(b.address % 128, 0u);
  // Read as the file has it (what dump prints): both from 0.
  const cubin::ReadResult file = cubin::read(cubin_, "locals.cubin");
  EXPECT_EQ(file.cubin.code[0].address, 0u);
  EXPECT_EQ(file.cubin.code[1].address, 0u);
}

TEST_F(LookupCubin, ALoopLineInOneBlockStopsOnce) {
  // Line 18 (`for (int j ...)`) has is_stmt rows at +0xf40 and +0x1530 of
  // localArrays, both in the block that declares j: gdb keeps the first.
  const view::LookupResult r = lookupIn(cubin_, "locals.cu:18");
  ASSERT_EQ(r.matches.size(), 1u) << r.error;
  EXPECT_EQ(r.matches[0].function, "_Z11localArraysPKiPxi");
  EXPECT_EQ(pcsOf(r), std::vector<uint64_t>{0xf40});
  EXPECT_EQ(r.matches[0].line, 18u);
}

TEST_F(LookupCubin, TheFunctionsDoNotShareAddresses) {
  // Both functions' DIE ranges and rows start at 0 in the file: placed, a
  // line of one has none of the other's scopes or variables.
  const view::LookupResult sum = lookupIn(cubin_, "locals.cu:4");
  ASSERT_EQ(sum.matches.size(), 1u) << sum.error;
  EXPECT_EQ(sum.matches[0].function, "_Z8sumLocalPKii");
  EXPECT_EQ(sum.matches[0].scopes.back().name, "sumLocal");
  const view::LookupResult arrays = lookupIn(cubin_, "_Z11localArraysPKiPxi+0xd0");
  ASSERT_EQ(arrays.matches.size(), 1u) << arrays.error;
  EXPECT_EQ(arrays.matches[0].scopes.back().name, "localArrays");
  for (const view::VariableInfo& v : arrays.matches[0].variables) EXPECT_NE(v.name, "s");
}

TEST_F(LookupCubin, PtxLineOfTheEmbeddedPtx) {
  const view::LookupResult r = lookupIn(cubin_, "ptx:36");
  ASSERT_EQ(r.matches.size(), 1u) << r.error;
  EXPECT_EQ(r.matches[0].function, "_Z8sumLocalPKii");
  EXPECT_EQ(r.matches[0].ptxLines, std::vector<uint32_t>{36});
  EXPECT_EQ(lookupIn(cubin_, "ptx:36").matches[0].pc, lookupIn(cubin_, "locals.cu:4").matches[0].pc);
}

TEST_F(LookupCubin, LocationsInSassTerms) {
  const view::LookupResult r = lookupIn(cubin_, "locals.cu:20");
  ASSERT_EQ(r.matches.size(), 1u) << r.error;
  std::map<std::string, std::vector<std::string>> sass;
  for (const view::VariableInfo& v : r.matches[0].variables) {
    ASSERT_TRUE(v.sass) << v.name;
    EXPECT_TRUE(v.available) << v.name << ": " << v.location;
    sass[v.name] = *v.sass;
  }
  EXPECT_EQ(sass["n"], std::vector<std::string>{"[param+0x220]"});        // DW_OP_addr in the parameter space
  EXPECT_EQ(sass["table"], std::vector<std::string>{"[CFA-0x68]"});       // DW_OP_fbreg -104
  EXPECT_EQ(sass["wide"], std::vector<std::string>{"[CFA-0x28]"});        // ... + DW_OP_plus_uconst 64
  EXPECT_EQ(sass["k"].size(), 1u);                                         // a 32-bit register
  EXPECT_EQ(sass["acc"].size(), 2u);                                       // a 64-bit one, in two
  EXPECT_TRUE(sass["k"][0].starts_with("R")) << sass["k"][0];
}

}  // namespace
