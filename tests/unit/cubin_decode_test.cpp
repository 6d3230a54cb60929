// The cubin decoders on bytes built here: the line program with NVIDIA's
// inlined-call extension, the register map, the SASS spellings; and every
// truncation of them decoded without a read past the end (a problem said).
#include <gtest/gtest.h>

#include <span>
#include <string>

#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/print/cubin.h"
#include "ptxdwarf/print/json.h"
#include "ptxdwarf/cubin/regmap.h"

namespace cubin = ptxdwarf::cubin;

namespace {

void put(std::vector<uint8_t>& b, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void putString(std::vector<uint8_t>& b, std::string_view s) {
  b.insert(b.end(), s.begin(), s.end());
  b.push_back(0);
}

// A version 2 table as ptxas writes one: two files, the extension's u32
// (names at .debug_str+2), and `program`.
std::vector<uint8_t> tableWith(const std::vector<uint8_t>& program) {
  std::vector<uint8_t> header;
  header.push_back(1);     // min_inst_length
  header.push_back(1);     // default_is_stmt
  header.push_back(0xfb);  // line_base -5
  header.push_back(14);    // line_range
  header.push_back(10);    // opcode_base
  for (uint8_t n : {0, 1, 1, 1, 1, 0, 0, 0, 1}) header.push_back(n);
  putString(header, "/src");
  header.push_back(0);
  putString(header, "a.cu");
  header.push_back(1), header.push_back(0), header.push_back(0);
  putString(header, "/abs/b.h");
  header.push_back(0), header.push_back(0), header.push_back(0);
  header.push_back(0);
  put(header, 2, 4);  // the names' base in .debug_str
  std::vector<uint8_t> t;
  put(t, 2 + 4 + header.size() + program.size(), 4);
  put(t, 2, 2);
  put(t, header.size(), 4);
  t.insert(t.end(), header.begin(), header.end());
  t.insert(t.end(), program.begin(), program.end());
  return t;
}

// The program's opcodes, spelt out.
void setAddress(std::vector<uint8_t>& p, uint64_t a) {
  p.insert(p.end(), {0, 9, 2});
  put(p, a, 8);
}
void inlinedCall(std::vector<uint8_t>& p, uint8_t context, uint8_t name) { p.insert(p.end(), {0, 3, 0x90, context, name}); }
void advancePc(std::vector<uint8_t>& p, uint8_t by) { p.insert(p.end(), {2, by}); }
void advanceLine(std::vector<uint8_t>& p, int8_t by) { p.insert(p.end(), {3, static_cast<uint8_t>(by & 0x7f)}); }
void copy(std::vector<uint8_t>& p) { p.push_back(1); }
void endSequence(std::vector<uint8_t>& p) { p.insert(p.end(), {0, 1, 1}); }

// Rows 1 (line 10), 2 (line 20, inlined `g` called from row 1), 3 (line 30,
// file 2, inlined `h` called from row 2), a repeat of row 3, the end.
std::vector<uint8_t> lineTable() {
  std::vector<uint8_t> program;
  setAddress(program, 0);
  program.insert(program.end(), {3, 9, 1});      // advance_line 9, copy: row 1, line 10
  program.insert(program.end(), {0, 3, 0x90, 1, 0});   // inlined_call context 1, name +0
  program.insert(program.end(), {2, 0x10, 3, 10, 1});  // +0x10, line 20, copy: row 2
  program.insert(program.end(), {0, 3, 0x90, 2, 2});   // context 2, name +2
  program.insert(program.end(), {2, 0x10, 3, 10, 4, 2, 1});  // +0x10, line 30, file 2, copy: row 3
  program.insert(program.end(), {3, 0, 1});            // a repeat of row 3: numbered 3 too
  program.insert(program.end(), {2, 0x10, 0, 1, 1});   // end_sequence at 0x30
  return tableWith(program);
}

const std::string kNames("xxg\0h\0", 6);  // names at base 2: "g" at +0, "h" at +2
std::span<const uint8_t> names() { return {reinterpret_cast<const uint8_t*>(kNames.data()), kNames.size()}; }

TEST(CubinLineProgram, DecodesRowsAndNvidiaInlinedCalls) {
  std::vector<uint8_t> bytes = lineTable();
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  ASSERT_EQ(tables.size(), 1u);
  const cubin::LineTable& t = tables[0];
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  EXPECT_EQ(t.header.version, 2);
  EXPECT_EQ(t.header.inlineNamesBase, 2u);
  EXPECT_EQ(t.header.filePath(1), "/src/a.cu");
  EXPECT_EQ(t.header.filePath(2), "/abs/b.h");
  ASSERT_EQ(t.rows.size(), 5u);
  EXPECT_EQ(t.rows[3].ordinal, 3u);  // the repeat
  EXPECT_EQ(t.rows[4].ordinal, 4u);
  EXPECT_EQ(t.rows[0].line, 10u);
  EXPECT_EQ(t.rows[1].address, 0x10u);
  EXPECT_EQ(t.rows[1].line, 20u);
  EXPECT_EQ(t.rows[2].file, 2u);
  EXPECT_TRUE(t.rows[4].endSequence);
  EXPECT_EQ(t.rows[4].address, 0x30u);

  const std::span<const uint8_t> strBytes = names();
  EXPECT_TRUE(cubin::inlineStack(t, 0, strBytes).empty());
  std::vector<cubin::InlineFrame> one = cubin::inlineStack(t, 1, strBytes);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].function, "g");
  EXPECT_EQ(one[0].callLine, 10u);
  std::vector<cubin::InlineFrame> two = cubin::inlineStack(t, 2, strBytes);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].function, "h");
  EXPECT_EQ(two[0].callLine, 20u);
  EXPECT_EQ(two[1].function, "g");
  EXPECT_EQ(two[1].callLine, 10u);
}

TEST(CubinLineProgram, AContextNamingALaterRowIsNotFollowed) {
  std::vector<uint8_t> bytes = lineTable();
  // The second inlined_call's context 2 -> 9 (a row that does not come before).
  for (size_t i = 0; i + 4 < bytes.size(); ++i)
    if (bytes[i] == 0 && bytes[i + 1] == 3 && bytes[i + 2] == 0x90 && bytes[i + 3] == 2) bytes[i + 3] = 9;
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  bool broken = false;
  EXPECT_TRUE(cubin::inlineStack(tables[0], 2, {}, &broken).empty());
  EXPECT_TRUE(broken);
}

// ptxas numbers each sequence's rows from 1: a context names a row of its own
// sequence (measured: CUB's second kernel's contexts are 3, 4, 5, ... there).
TEST(CubinLineProgram, ContextsNumberTheRowsOfTheirOwnSequence) {
  std::vector<uint8_t> p;
  setAddress(p, 0);
  advanceLine(p, 9), copy(p);                        // sequence 1, row 1: line 10
  advancePc(p, 0x10), advanceLine(p, 10), copy(p);   // row 2: line 20
  advancePc(p, 0x10), endSequence(p);                // row 3: the end
  setAddress(p, 0x100);
  advanceLine(p, 39), copy(p);                       // sequence 2, row 1: line 40
  inlinedCall(p, 1, 2);                              // called from this sequence's row 1
  advancePc(p, 0x10), advanceLine(p, 10), copy(p);   // row 2: line 50, inlined `h`
  advancePc(p, 0x10), endSequence(p);
  std::vector<uint8_t> bytes = tableWith(p);
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  ASSERT_EQ(tables.size(), 1u);
  const cubin::LineTable& t = tables[0];
  ASSERT_EQ(t.rows.size(), 6u);
  EXPECT_EQ(t.rows[3].ordinal, 1u);
  EXPECT_EQ(t.rows[4].context, 1u);
  EXPECT_EQ(t.rows[4].callSite, 3u);
  EXPECT_EQ(t.rows[4].cudaGdbCallSite, 3u);
  std::vector<cubin::InlineFrame> stack = cubin::inlineStack(t, 4, names());
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack[0].function, "h");
  EXPECT_EQ(stack[0].callLine, 40u);  // not sequence 1's row 1 (line 10)
}

// ptxas does not number a row at the same address and line as the one before
// it (`advance_line 0; copy`), cuda-gdb does: after such a repeat cuda-gdb's
// call site is one row early. Measured: classes.cu's second `area()` call in
// `operator<` (ptxas 13.0 -lineinfo): context 40 is line 21, the call; the
// 40th row counting the repeat is line 15, inside the first `area()`.
std::vector<uint8_t> repeatedRowTable() {
  std::vector<uint8_t> p;
  setAddress(p, 0);
  advanceLine(p, 35), copy(p);                      // row 1: line 36
  inlinedCall(p, 1, 0);
  advanceLine(p, -15), copy(p);                     // row 2: line 21, `g` called from row 1
  inlinedCall(p, 2, 2);
  advanceLine(p, -6), copy(p);                      // row 3: line 15, `h` called from row 2
  advanceLine(p, 0), copy(p);                       // the repeat: ptxas's row 3 again, cuda-gdb's row 4
  inlinedCall(p, 1, 0);
  advancePc(p, 0x30), advanceLine(p, 6), copy(p);   // row 4 (cuda-gdb: 5): line 21, the second call
  inlinedCall(p, 4, 2);
  advanceLine(p, -6), copy(p);                      // `h` called from row 4
  advancePc(p, 0x10), endSequence(p);
  return tableWith(p);
}

TEST(CubinLineProgram, ARepeatedRowSharesItsNumberAsPtxasNumbersThem) {
  std::vector<uint8_t> bytes = repeatedRowTable();
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  ASSERT_EQ(tables.size(), 1u);
  const cubin::LineTable& t = tables[0];
  ASSERT_EQ(t.rows.size(), 7u);
  EXPECT_EQ(t.rows[3].ordinal, 3u);
  EXPECT_EQ(t.rows[4].ordinal, 4u);
  EXPECT_EQ(t.rows[5].callSite, 4u);         // ptxas's row 4: line 21
  EXPECT_EQ(t.rows[5].cudaGdbCallSite, 3u);  // cuda-gdb's row 4: the repeat, line 15
  std::vector<cubin::InlineFrame> stack = cubin::inlineStack(t, 5, names());
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0].function, "h");
  EXPECT_EQ(stack[0].callLine, 21u);
  EXPECT_EQ(stack[1].function, "g");
  EXPECT_EQ(stack[1].callLine, 36u);
  EXPECT_EQ(t.rows[5].inlineDepth, 2u);
}

// cuda-gdb numbers only rows whose file is in the file table.
TEST(CubinLineProgram, CudaGdbDoesNotNumberARowOfAnUnknownFile) {
  std::vector<uint8_t> p;
  setAddress(p, 0);
  advanceLine(p, 9), copy(p);                                   // row 1: line 10
  p.insert(p.end(), {4, 7}), advancePc(p, 0x10), copy(p);       // row 2: file 7 (none)
  p.insert(p.end(), {4, 1}), advancePc(p, 0x10), advanceLine(p, 10), copy(p);  // row 3: line 20
  inlinedCall(p, 3, 0);
  advancePc(p, 0x10), advanceLine(p, 10), copy(p);              // row 4: called from row 3
  advancePc(p, 0x10), endSequence(p);
  std::vector<uint8_t> bytes = tableWith(p);
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  ASSERT_EQ(tables.size(), 1u);
  const cubin::LineTable& t = tables[0];
  ASSERT_EQ(t.rows.size(), 5u);
  EXPECT_EQ(t.rows[3].callSite, 2u);
  // cuda-gdb numbered rows 1 and 3 and this one: its third is this row itself.
  EXPECT_EQ(t.rows[3].cudaGdbCallSite, 3u);
}

TEST(CubinLineProgram, AContextNamingItsOwnRowIsNotFollowed) {
  std::vector<uint8_t> p;
  setAddress(p, 0);
  advanceLine(p, 9), copy(p);      // row 1
  inlinedCall(p, 2, 0);
  advancePc(p, 0x10), copy(p);     // row 2, "called from row 2"
  advancePc(p, 0x10), endSequence(p);
  std::vector<uint8_t> bytes = tableWith(p);
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  const cubin::LineTable& t = tables[0];
  bool broken = false;
  EXPECT_TRUE(cubin::inlineStack(t, 1, names(), &broken).empty());
  EXPECT_TRUE(broken);
  EXPECT_EQ(t.rows[1].callSite, cubin::LineRow::kNoRow);
  EXPECT_EQ(t.rows[1].cudaGdbCallSite, 1u);  // cuda-gdb numbers the row before it resolves: its own line
}

// `rows` rows (under 128), each inlined into the one before.
std::vector<uint8_t> chainTable(unsigned rows) {
  std::vector<uint8_t> p;
  setAddress(p, 0);
  advanceLine(p, 9), copy(p);
  for (unsigned n = 1; n < rows; ++n) {
    inlinedCall(p, static_cast<uint8_t>(n), 0);  // a one-byte ULEB
    advancePc(p, 0x10), copy(p);
  }
  advancePc(p, 0x10), endSequence(p);
  return tableWith(p);
}

// Each row inlined into the one before: row n's stack is n - 1 deep, so every
// row's whole stack would be O(n^2); `most` bounds the frames one call
// returns (the work is one step per frame), inlineDepth says how many there are.
TEST(CubinLineProgram, DeepStacksAreBoundedByMost) {
  constexpr unsigned kRows = 100;
  std::vector<uint8_t> bytes = chainTable(kRows);
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  const cubin::LineTable& t = tables[0];
  ASSERT_EQ(t.rows.size(), kRows + 1);
  EXPECT_EQ(t.rows[kRows - 1].inlineDepth, kRows - 1);
  EXPECT_EQ(cubin::inlineStack(t, kRows - 1, names()).size(), kRows - 1);
  size_t frames = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) frames += cubin::inlineStack(t, i, names(), nullptr, 8).size();
  EXPECT_LE(frames, 8 * t.rows.size());
}

// A cubin module holding `debugLine` and the names.
ptxdwarf::ptx::Module cubinWith(std::vector<uint8_t> debugLine) {
  ptxdwarf::ptx::Module m;
  m.sections.push_back({.name = ".debug_line", .bytes = std::move(debugLine)});
  m.sections.push_back({.name = ".debug_str", .bytes = std::vector<uint8_t>(names().begin(), names().end())});
  return m;
}

// The dump shows ptxas's stack, and where cuda-gdb takes another row for the
// context, the call site cuda-gdb shows.
TEST(CubinLineProgramPrint, StacksAndCudaGdbsReadingWhereItDiffers) {
  const ptxdwarf::ptx::Module m = cubinWith(repeatedRowTable());
  std::string text;
  ptxdwarf::print::cubinLineTablesText(m, text);
  EXPECT_NE(text.find("0x0000000000000030     15      0      1   0             0  is_stmt\n"
                      "                   inlined: h at /src/a.cu:21:0\n"
                      "                   inlined: g at /src/a.cu:36:0\n"
                      "                   cuda-gdb: called at /src/a.cu:15:0 (it counts repeated rows)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("cuda-gdb:"), text.rfind("cuda-gdb:")) << "only the row after the repeat";
  std::string json;
  ptxdwarf::print::JsonWriter w(json);
  w.objectBegin();
  ptxdwarf::print::cubinLineTablesJson(m, w);
  w.objectEnd();
  EXPECT_NE(json.find("\"inlined_at\":[{\"function\":\"h\",\"file\":1,\"line\":21,\"column\":0},{\"function\":"
                      "\"g\",\"file\":1,\"line\":36,\"column\":0}],\"cuda_gdb_call_site\":{\"file\":1,\"line\":15,"
                      "\"column\":0}}"),
            std::string::npos)
      << json;
}

// A deep stack shows 64 frames and how many more there are.
TEST(CubinLineProgramPrint, DeepStacksShowTheirFirstFramesAndACount) {
  const ptxdwarf::ptx::Module m = cubinWith(chainTable(100));
  std::string text;
  ptxdwarf::print::cubinLineTablesText(m, text);
  EXPECT_NE(text.find("                   (35 more inline frames)\n"), std::string::npos);  // row 100: 99 deep
  std::string json;
  ptxdwarf::print::JsonWriter w(json);
  w.objectBegin();
  ptxdwarf::print::cubinLineTablesJson(m, w);
  w.objectEnd();
  EXPECT_NE(json.find("\"inline_frames_omitted\":35"), std::string::npos);
}

TEST(CubinLineProgram, LineAdvancesWrapModulo32BitsAsLlvmDwarfdumpKeepsThem) {
  std::vector<uint8_t> bytes = lineTable();
  // advance_line 9 -> advance_line INT64_MAX (sleb ff ff ff ff ff ff ff ff ff 00).
  for (size_t i = 0; i + 2 < bytes.size(); ++i)
    if (bytes[i] == 3 && bytes[i + 1] == 9 && bytes[i + 2] == 1) {
      const std::vector<uint8_t> huge = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
      bytes.erase(bytes.begin() + static_cast<ptrdiff_t>(i) + 1);
      bytes.insert(bytes.begin() + static_cast<ptrdiff_t>(i) + 1, huge.begin(), huge.end());
      bytes[0] = static_cast<uint8_t>(bytes[0] + huge.size() - 1);  // the unit length
      break;
    }
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_TRUE(tables[0].problems.empty()) << tables[0].problems.front();
  ASSERT_FALSE(tables[0].rows.empty());
  EXPECT_EQ(tables[0].rows[0].line, 0u);  // 1 + (2^63 - 1) = 1 + 0xffffffff = 0, modulo 2^32
}

TEST(CubinLineProgram, EveryTruncationDecodesWithoutReadingPastTheEnd) {
  const std::vector<uint8_t> whole = lineTable();
  for (size_t n = 0; n < whole.size(); ++n) {
    std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(n));
    cut.shrink_to_fit();
    std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(cut);
    if (n == 0) {
      EXPECT_TRUE(tables.empty());
      continue;
    }
    ASSERT_FALSE(tables.empty());
    EXPECT_FALSE(tables[0].problems.empty()) << n << " bytes";
  }
}

TEST(CubinLineProgram, UnknownVersionIsSaidNotGuessed) {
  std::vector<uint8_t> bytes = lineTable();
  bytes[4] = 7;
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(bytes);
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_FALSE(tables[0].problems.empty());
  EXPECT_NE(tables[0].problems[0].find("version 7"), std::string::npos);
  EXPECT_TRUE(tables[0].rows.empty());
}

std::vector<uint8_t> regMap() {
  std::vector<uint8_t> b;
  putString(b, "_Z6kernelPf");
  put(b, 2, 4);
  put(b, 0, 4), putString(b, "%r5"), put(b, 5u << 24 | 7, 4), put(b, 0x10, 4), put(b, 0x40, 4);
  put(b, 1, 4), putString(b, "%rd1"), put(b, 6u << 24 | 0x18, 4), put(b, 0x20, 4), put(b, 0x30, 4);
  putString(b, "_Z1fv");
  put(b, 1, 4);
  put(b, 0, 4), putString(b, "%val_f32_0"), put(b, 2u << 24 | 1, 4), put(b, 0, 4), put(b, 8, 4);
  return b;
}

TEST(CubinRegMap, DecodesFunctionsAndEntries) {
  std::vector<uint8_t> bytes = regMap();
  cubin::RegMap map = cubin::decodeRegMap(bytes);
  EXPECT_TRUE(map.problem.empty()) << map.problem;
  ASSERT_EQ(map.functions.size(), 2u);
  EXPECT_EQ(map.entryCount(), 3u);
  const cubin::RegMapEntry& r5 = map.functions[0].entries[0];
  EXPECT_EQ(map.functions[0].name, "_Z6kernelPf");
  EXPECT_EQ(r5.reg, "%r5");
  EXPECT_EQ(cubin::sassLocation(r5.location), "R7");
  EXPECT_EQ(r5.start, 0x10u);
  EXPECT_EQ(r5.end, 0x40u);
  EXPECT_EQ(cubin::sassLocation(map.functions[0].entries[1].location), "[local+0x18]");
  EXPECT_EQ(map.functions[0].entries[1].piece, 1u);
  EXPECT_TRUE(r5.usableByCudaGdb());
  EXPECT_FALSE(map.functions[1].entries[0].usableByCudaGdb());  // 10 bytes: cuda-gdb skips it
}

TEST(CubinRegMap, SpellsEveryClassAsCudaGdbNamesIt) {
  EXPECT_EQ(cubin::sassLocation(5u << 24 | 255), "RZ");
  EXPECT_EQ(cubin::sassLocation(4u << 24 | 9), "R4.hi");
  EXPECT_EQ(cubin::sassLocation(2u << 24 | 0), "P0");
  EXPECT_EQ(cubin::sassLocation(11u << 24 | 4), "UR4");
  EXPECT_EQ(cubin::sassLocation(11u << 24 | 255), "URZ");
  EXPECT_EQ(cubin::sassLocation(9u << 24 | 1), "UP1");
  EXPECT_EQ(cubin::sassLocation(7u << 24 | 1u << 16 | 8), "[R1+0x8]");
  EXPECT_EQ(cubin::sassLocation(13u << 24 | 3), "class 13 0x3");
  EXPECT_EQ(cubin::className(5), "full");
}

TEST(CubinRegMap, EntryRunningPastTheSectionIsAProblemNotARead) {
  const std::vector<uint8_t> whole = regMap();
  const size_t firstRecord = whole.size() - (6 + 4 + 4 + 11 + 12);  // where "_Z1fv" starts: a whole map ends there
  for (size_t n = 1; n < whole.size(); ++n) {
    std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(n));
    cut.shrink_to_fit();
    cubin::RegMap map = cubin::decodeRegMap(cut);
    EXPECT_EQ(map.problem.empty(), n == firstRecord) << n << " bytes: " << map.problem;
  }
  std::vector<uint8_t> huge;
  putString(huge, "f");
  put(huge, 0xffffffffu, 4);  // a count the section cannot hold
  cubin::RegMap map = cubin::decodeRegMap(huge);
  EXPECT_NE(map.problem.find("runs past the section's end"), std::string::npos) << map.problem;
}

}  // namespace
