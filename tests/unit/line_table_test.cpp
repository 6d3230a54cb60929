// Code positions (instructions, labels, `{ }` blocks), `.loc` with
// function_name/inlined_at, and the line table built from them.
#include <gtest/gtest.h>

#include "ptxdwarf/demangle.h"
#include "ptxdwarf/ptx/lines.h"
#include "ptxdwarf/ptx/module.h"
#include "position_encodings.h"

using namespace ptxdwarf;
using namespace ptxdwarf::ptx;

namespace {

constexpr std::string_view kKernel =
    ".version 8.0\n"                                  // 1
    ".target sm_90, debug\n"                          // 2
    ".address_size 64\n"                              // 3
    ".file 1 \"/src/k.cu\"\n"                         // 4
    ".file 2 \"/src/inc/h.h\", 1700000000, 120\n"     // 5
    ".file 3 \"rel.cu\"\n"                            // 6
    ".visible .entry k(.param .u64 p)\n"              // 7
    "{\n"                                             // 8
    "  .reg .pred %p<2>;\n"                           // 9
    "  .reg .b32 %r<4>;\n"                            // 10
    "  .loc 1 10 3\n"                                 // 11
    "  mov.u32 %r1, 1;\n"                             // 12
    "$L__top: add.s32 %r1, %r1, 1;\n"                 // 13
    "  {\n"                                           // 14
    "    .reg .b32 %t;\n"                             // 15
    "    .loc 2 4 5, function_name $L__s0, inlined_at 1 10 3\n"  // 16
    "    mov.u32 %t, 2;\n"                            // 17
    "    .loc 2 8 1, function_name $L__s1, inlined_at 2 4 5\n"   // 18
    "    @%p1 bra $L__top;\n"                         // 19
    "  }\n"                                           // 20
    "$L__end:\n"                                      // 21
    "  ret;\n"                                        // 22
    "$L__after:\n"                                    // 23
    "}\n"                                             // 24
    ".section .debug_str\n"                           // 25
    "{\n"                                             // 26
    "$L__s0:\n"                                       // 27
    ".b8 95,90,51,102,111,111,105,0\n"                // 28  _Z3fooi
    "$L__s1:\n"                                       // 29
    ".b8 98,97,114,0\n"                               // 30  bar
    "}\n";

TEST(CodePositions, InstructionsLabelsAndBlocks) {
  ReadResult r = read(kKernel, "k.ptx");
  ASSERT_TRUE(r.ok()) << r.diagnostics.items[0].message;
  const Module& m = r.module;
  ASSERT_EQ(m.instructions.size(), 5u);
  const std::pair<uint32_t, uint32_t> expected[] = {{12, 3}, {13, 10}, {17, 5}, {19, 5}, {22, 3}};
  for (size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_EQ(m.instructions[i].line, expected[i].first) << i;
    EXPECT_EQ(m.instructions[i].col, expected[i].second) << i;
  }
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].firstInstruction, 0u);
  EXPECT_EQ(m.functions[0].endInstruction, 5u);

  // A label stands for the next instruction; one at the end for the function's end.
  ASSERT_EQ(m.labels.size(), 3u);
  EXPECT_EQ(m.labels[0].name, "$L__top");
  EXPECT_EQ(m.labels[0].instruction, 1u);
  EXPECT_EQ(m.labels[1].instruction, 4u);  // $L__end -> ret
  EXPECT_EQ(m.labels[2].instruction, 5u);  // $L__after: nothing follows

  // The `{ }` block: its instructions and its register.
  ASSERT_EQ(m.blocks.size(), 1u);
  EXPECT_EQ(m.blocks[0].function, 0);
  EXPECT_EQ(m.blocks[0].parent, -1);
  EXPECT_EQ(m.blocks[0].firstInstruction, 2u);
  EXPECT_EQ(m.blocks[0].endInstruction, 4u);
  EXPECT_EQ(m.blocks[0].open.line, 14u);
  EXPECT_EQ(m.blocks[0].close.line, 20u);
  const auto regs = m.registersOf(m.functions[0]);
  ASSERT_EQ(regs.size(), 3u);
  EXPECT_EQ(regs[0].block, -1);
  EXPECT_EQ(regs[1].block, -1);
  EXPECT_EQ(regs[2].name, "%t");
  EXPECT_EQ(regs[2].block, 0);
}

// The compact positions give back what was pushed, by index, by iterating
// from anywhere, and after joining: over group boundaries (64), with
// lines that step back (a caller may append out of order), steps past the
// one-byte form and columns past it.
TEST(CodePositions, CompactPositionsGiveBackWhatWasPushed) {
  std::vector<Instruction> pushed;
  uint32_t line = 1;
  for (uint32_t i = 0; i < 1000; ++i) {
    line = i % 97 == 5 ? line - 3 : line + (i % 13 == 0 ? 40 : i % 5);
    pushed.push_back({line, i % 17 == 0 ? 70000 + i : 2 + i % 20});
  }
  pushed.push_back({UINT32_MAX, UINT32_MAX});
  InstructionPositions positions;
  for (const Instruction& i : pushed) InstructionPositionsEncoding::push_back(positions, i);
  ASSERT_EQ(positions.size(), pushed.size());
  EXPECT_EQ(positions.back(), pushed.back());
  for (size_t i = 0; i < pushed.size(); ++i) ASSERT_EQ(positions[i], pushed[i]) << i;
  for (size_t from : {size_t{0}, size_t{63}, size_t{64}, size_t{65}, size_t{500}, pushed.size() - 1}) {
    size_t i = from;
    for (auto it = positions.at(from); it != positions.end(); ++it, ++i) {
      ASSERT_EQ(it.index(), i);
      ASSERT_EQ(*it, pushed[i]) << from << " " << i;
    }
    EXPECT_EQ(i, pushed.size());
  }
  EXPECT_EQ(positions.at(pushed.size()), positions.end());

  // One encoding for one sequence of positions.
  InstructionPositions again;
  for (const Instruction& i : pushed) InstructionPositionsEncoding::push_back(again, i);
  EXPECT_EQ(again, positions);
  InstructionPositionsEncoding::push_back(again, {1, 1});
  EXPECT_FALSE(again == positions);
}

// The usual instruction of nvcc and clang output -- a tab-indented line a
// few lines after the one before -- takes a byte and a share of a checkpoint.
TEST(CodePositions, UsualInstructionsTakeAByteAndABit) {
  InstructionPositions positions;
  for (uint32_t i = 0; i < 64000; ++i) InstructionPositionsEncoding::push_back(positions, {10 + 3 * i + i % 2, 2});
  EXPECT_LE(positions.encodedBytes(), positions.size() * 5 / 4);
  EXPECT_EQ(positions[63999].line, 10u + 3 * 63999 + 1);
}

TEST(CodePositions, NestedBlocks) {
  ReadResult r = read(".version 8.0\n.target sm_90\n.entry k()\n{\n{\n.reg .b32 %a;\n{\n.reg .b32 %b;\nret;\n}\n}\n}\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.module.blocks.size(), 2u);
  EXPECT_EQ(r.module.blocks[1].parent, 0);
  EXPECT_EQ(r.module.blocks[1].firstInstruction, 0u);
  EXPECT_EQ(r.module.blocks[1].endInstruction, 1u);
  EXPECT_EQ(r.module.registersOf(r.module.functions[0])[1].block, 1);
}

TEST(LocDirective, InlinedOperands) {
  ReadResult r = read(kKernel, "k.ptx");
  ASSERT_TRUE(r.ok());
  const Module& m = r.module;
  ASSERT_EQ(m.locs.size(), 3u);
  EXPECT_FALSE(m.locs[0].isInlined());
  EXPECT_EQ(m.locs[0].instruction, 0u);
  EXPECT_EQ(m.locs[1].instruction, 2u);
  EXPECT_EQ(m.locs[2].instruction, 3u);
  ASSERT_TRUE(m.locs[1].isInlined());
  const LocInlining& inlining = m.inliningOf(m.locs[1]);
  EXPECT_EQ(m.locFunctionNames[inlining.functionName], "$L__s0");
  EXPECT_EQ(inlining.inlinedAt, (SourcePosition{1, 10, 3}));
  EXPECT_EQ(inlining.functionNameLoc.line, 16u);
  EXPECT_EQ(inlining.functionNameLoc.col, 17u);
  EXPECT_EQ(inlining.inlinedAtLoc.col, 39u);
  EXPECT_EQ(m.locFunctionNames.size(), 2u);
  EXPECT_EQ(m.locInlinings.size(), 2u);  // the inlined records' only
  EXPECT_EQ(m.locs[2].inlining, 1u);
}

// ptxas: function_name and inlined_at come together, in this order.
TEST(LocDirective, MalformedTailsAreSyntaxErrors) {
  const std::string head = ".version 8.0\n.target sm_90\n.entry k()\n{\n.loc 1 2 3\nret;\n";
  struct Case {
    std::string loc, message;
    uint32_t col;
  } cases[] = {
      {".loc 1 4 1, inlined_at 1 2 3", "expected 'function_name' after ',' in .loc", 13},
      {".loc 1 4 1, function_name $L__s0", "expected ', inlined_at FILE LINE COL' after function_name", 33},
      {".loc 1 4 1, function_name $L__s0, 1 2 3", "expected 'inlined_at' after function_name", 35},
      {".loc 1 4 1, function_name , inlined_at 1 2 3", "expected a label after function_name", 27},
      {".loc 4294967297 1 1", "a file number out of range", 6},
      {".loc 1 99999999999 1", "a line number out of range", 8},
  };
  for (const Case& c : cases) {
    ReadResult r = read(head + c.loc + "\nret;\n}\n", "x.ptx");
    ASSERT_FALSE(r.ok()) << c.loc;
    EXPECT_NE(r.diagnostics.items[0].message.find(c.message), std::string::npos)
        << c.loc << ": " << r.diagnostics.items[0].message;
    EXPECT_EQ(r.diagnostics.items[0].loc.line, 7u) << c.loc;
    EXPECT_EQ(r.diagnostics.items[0].loc.col, c.col) << c.loc;
  }
  ReadResult big = read(".version 8.0\n.target sm_90\n.file 4294967297 \"a.cu\"\n", "x.ptx");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.diagnostics.items[0].message.find("a file number out of range"), std::string::npos);
}

// clang emits `.file N "dir" "name"` for DWARF 5 outside CUDA mode (clang
// -target nvptx64-nvidia-cuda on C): ptxas stops at the second string with a
// bare syntax error; the reader says what it is, where it starts.
TEST(FileDirective, TwoStringsAreNamedAsTheOtherAssemblersForm) {
  ReadResult r = read(".version 7.5\n.target sm_75\n.address_size 64\n.file\t1 \"/tmp/dir\" \"a.c\"\n", "x.ptx");
  ASSERT_FALSE(r.ok());
  const Diagnostic& d = r.diagnostics.items[0];
  EXPECT_NE(d.message.find("a second string in .file"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("ptxas rejects"), std::string::npos) << d.message;
  EXPECT_EQ(d.loc.line, 4u);
  EXPECT_EQ(d.loc.col, 20u);
  // One path, with or without the timestamp and size, still reads.
  EXPECT_TRUE(read(".version 7.5\n.target sm_75\n.file 1 \"/tmp/dir/a.c\", 0, 0\n", "x.ptx").ok());
}

TEST(LineTable, FilesSplitAsPtxasSplitsThem) {
  ReadResult r = read(kKernel, "k.ptx");
  ASSERT_TRUE(r.ok());
  LineTable t = buildLineTable(r.module);
  ASSERT_EQ(t.includeDirectories, (std::vector<std::string>{"/src", "/src/inc"}));
  ASSERT_EQ(t.files.size(), 3u);
  EXPECT_EQ(t.files[0].name, "k.cu");
  EXPECT_EQ(t.files[0].directory, 1u);
  EXPECT_EQ(t.files[1].name, "h.h");
  EXPECT_EQ(t.files[1].directory, 2u);
  EXPECT_EQ(t.files[1].modificationTime, 1700000000u);
  EXPECT_EQ(t.files[1].length, 120u);
  EXPECT_EQ(t.files[2].name, "rel.cu");
  EXPECT_EQ(t.files[2].directory, 0u);
  EXPECT_EQ(pathOf(t, t.files[1]), "/src/inc/h.h");
  EXPECT_EQ(pathOf(t, *t.file(3)), "rel.cu");
  EXPECT_EQ(t.file(4), nullptr);
}

TEST(LineTable, InlineStacksResolveThroughEarlierLocations) {
  ReadResult r = read(kKernel, "k.ptx");
  ASSERT_TRUE(r.ok());
  LineTable t = buildLineTable(r.module);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].caller, kNoIndex);
  EXPECT_EQ(t.rows[1].caller, 0u);  // inlined_at 1 10 3: the first .loc
  EXPECT_EQ(t.rows[2].caller, 1u);  // inlined_at 2 4 5: the second
  EXPECT_EQ(t.inlineStack(2), (std::vector<uint32_t>{2, 1, 0}));
  EXPECT_EQ(t.inlineStack(2, 2), (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(t.rows[0].inlineDepth, 0u);  // not inlined
  EXPECT_EQ(t.rows[1].inlineDepth, 1u);
  EXPECT_EQ(t.rows[2].inlineDepth, 2u);  // the frames a debugger shows: bar, then foo
  ASSERT_EQ(t.functionNames.size(), 2u);
  EXPECT_EQ(t.functionNames[0], "_Z3fooi");
  EXPECT_EQ(t.functionNames[1], "bar");
  EXPECT_EQ(demangle(*t.functionNames[0]), "foo(int)");
  EXPECT_EQ(demangle("bar"), "bar");
}

TEST(LineTable, TheMostRecentUseOfALocationIsTheCaller) {
  // 1 5 0 is used twice; the inlined row names the second use.
  ReadResult r = read(".version 8.0\n.target sm_90\n.file 1 \"a.cu\"\n.entry k()\n{\n.loc 1 5 0\nret;\n"
                      ".loc 1 6 0\nret;\n.loc 1 5 0\nret;\n.loc 1 9 0, function_name $L__x, inlined_at 1 5 0\nret;\n"
                      ".loc 1 9 0, function_name $L__x, inlined_at 1 7 0\nret;\n}\n");
  ASSERT_TRUE(r.ok());
  LineTable t = buildLineTable(r.module);
  EXPECT_EQ(t.rows[3].caller, 2u);
  EXPECT_EQ(t.rows[4].caller, kNoIndex);  // 1 7 0 was never used
  EXPECT_FALSE(t.functionNames[0].has_value());  // no .debug_str at all
}

TEST(LineTable, FunctionNameMustStartAString) {
  ReadResult r = read(".version 8.0\n.target sm_90\n.section .debug_str\n{\n$L__a:\n.b8 97,98\n$L__b:\n.b8 99,0\n"
                      "$L__c:\n.b8 100\n}\n");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(debugStringAt(r.module, "$L__b").has_value());  // inside "abc"
  EXPECT_EQ(debugStringAt(r.module, "$L__a"), "abc");
  EXPECT_FALSE(debugStringAt(r.module, "$L__c").has_value());  // unterminated
  EXPECT_FALSE(debugStringAt(r.module, "$L__none").has_value());
}

}  // namespace
