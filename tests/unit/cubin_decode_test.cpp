// The cubin decoders on bytes built here: the line program with NVIDIA's
// inlined-call extension, the register map, the SASS spellings; and every
// truncation of them decoded without a read past the end (a problem said).
#include <gtest/gtest.h>

#include "ptxdwarf/cubin/line_program.h"
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

// A version 2 table as ptxas writes one: two files, the extension's u32, and
// a program with an inlined call: rows 1 (line 10), 2 (line 20, inlined
// `g` called from row 1), 3 (line 30, inlined `h` called from row 2).
std::vector<uint8_t> lineTable() {
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
  std::vector<uint8_t> program = {0, 9, 2};
  put(program, 0, 8);                            // set_address 0
  program.insert(program.end(), {3, 9, 1});      // advance_line 9, copy: row 1, line 10
  program.insert(program.end(), {0, 3, 0x90, 1, 0});   // inlined_call context 1, name +0
  program.insert(program.end(), {2, 0x10, 3, 10, 1});  // +0x10, line 20, copy: row 2
  program.insert(program.end(), {0, 3, 0x90, 2, 2});   // context 2, name +2
  program.insert(program.end(), {2, 0x10, 3, 10, 4, 2, 1});  // +0x10, line 30, file 2, copy: row 3
  program.insert(program.end(), {3, 0, 1});            // a repeat of row 3: numbered 3 too
  program.insert(program.end(), {2, 0x10, 0, 1, 1});   // end_sequence at 0x30
  std::vector<uint8_t> t;
  put(t, 2 + 4 + header.size() + program.size(), 4);
  put(t, 2, 2);
  put(t, header.size(), 4);
  t.insert(t.end(), header.begin(), header.end());
  t.insert(t.end(), program.begin(), program.end());
  return t;
}

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

  const std::string str("xxg\0h\0", 6);  // names at base 2: "g" at +0, "h" at +2
  std::span<const uint8_t> strBytes(reinterpret_cast<const uint8_t*>(str.data()), str.size());
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
