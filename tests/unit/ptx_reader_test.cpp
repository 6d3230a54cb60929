// The PTX reader: section images (bytes, relocations, labels, source map),
// the module index, and a diagnostic at the right line and column for every
// kind of malformed input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>


#include "corpus.h"
#include "ptxdwarf/ptx/module.h"
#include "work.h"

using namespace ptxdwarf;
using namespace ptxdwarf::ptx;

namespace {

std::vector<uint8_t> bytesOf(const ReadResult& r, std::string_view section) {
  const SectionImage* s = r.module.section(section);
  return s ? s->bytes : std::vector<uint8_t>{};
}

ReadResult readOk(std::string_view text) {
  ReadResult r = read(text, "t.ptx");
  EXPECT_TRUE(r.ok()) << (r.diagnostics.items.empty() ? "" : r.diagnostics.items[0].format("t.ptx"));
  return r;
}

// One error expected: returns "line:col: message".
std::string firstError(std::string_view text) {
  ReadResult r = read(text, "t.ptx");
  if (r.ok()) return "no error";
  const Diagnostic& d = r.diagnostics.items.at(0);
  return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
}

std::string section(std::string_view body) {
  return ".version 7.5\n.target sm_75\n.address_size 64\n.section .debug_str {\n" + std::string(body) + "\n}\n";
}

}  // namespace

TEST(PtxReader, Chapter6SectionsAndRelocations) {
  ReadResult r = readOk(ptxdwarf::testsupport::readFixture("chapter6.ptx"));
  const Module& m = r.module;
  ASSERT_EQ(m.sections.size(), 3u);
  const SectionImage* info = m.section(".debug_info");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->size(), 266u);  // 4-byte length field + 262
  EXPECT_EQ(info->bytes[0], 6);   // 262 little-endian
  EXPECT_EQ(info->bytes[1], 1);
  ASSERT_EQ(info->relocations.size(), 7u);
  EXPECT_EQ(info->relocations[0].offset, 6u);
  EXPECT_EQ(info->relocations[0].size, 4);
  EXPECT_EQ(info->relocations[0].symbol, ".debug_abbrev");
  EXPECT_EQ(info->relocations[1].symbol, ".debug_line");
  EXPECT_EQ(info->relocations[2].symbol, "func_begin0");
  EXPECT_EQ(info->relocations[2].size, 8);
  EXPECT_EQ(info->relocations[6].symbol, "_Z4testPi_param_0");
  for (const Relocation& rel : info->relocations)
    for (unsigned i = 0; i < rel.size; ++i) EXPECT_EQ(info->bytes[rel.offset + i], 0) << rel.symbol;
  EXPECT_EQ(m.section(".debug_abbrev")->size(), 86u);
  EXPECT_EQ(m.section(".debug_pubnames")->size(), 45u);
  // Source map: byte 6 comes from `.b32 .debug_abbrev` on line 55, column 6.
  SourceLoc at = info->locate(6);
  EXPECT_EQ(at.line, 55u);
  EXPECT_EQ(at.col, 6u);
  // Bytes 10, 11, 12 are the operands `8, 1, 108` of line 56.
  EXPECT_EQ(info->locate(11).line, 56u);
  EXPECT_EQ(info->locate(10).col, 5u);
  EXPECT_EQ(info->locate(11).col, 8u);
  EXPECT_EQ(info->locate(12).col, 11u);
}

TEST(PtxReader, Chapter6Module) {
  ReadResult r = readOk(ptxdwarf::testsupport::readFixture("chapter6.ptx"));
  const Module& m = r.module;
  EXPECT_EQ(m.version.major, 4u);
  EXPECT_EQ(m.version.minor, 2u);
  EXPECT_TRUE(m.debug);
  EXPECT_EQ(m.targets, (std::vector<std::string>{"sm_20", "debug"}));
  EXPECT_EQ(m.addressSize, 64u);
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_EQ(m.files[0].index, 1u);
  EXPECT_EQ(m.files[0].path, "call_example.cu");
  EXPECT_EQ(m.locs.size(), 5u);
  EXPECT_EQ(m.locs[4].line, 9u);
  EXPECT_EQ(m.locs[4].col, 2u);
  EXPECT_EQ(m.locs[4].function, 1);
  ASSERT_EQ(m.functions.size(), 2u);
  const Function& foo = m.functions[0];
  EXPECT_EQ(foo.name, "_Z3fooi");
  EXPECT_FALSE(foo.isEntry);
  EXPECT_EQ(foo.linkage, Linkage::visible);
  ASSERT_EQ(m.returnsOf(foo).size(), 1u);
  EXPECT_EQ(m.returnsOf(foo)[0].name, "func_retval0");
  ASSERT_EQ(m.paramsOf(foo).size(), 2u);
  EXPECT_EQ(m.paramsOf(foo)[1].name, "_Z3fooi_param_1");
  EXPECT_EQ(m.paramsOf(foo)[1].type, ".b32");
  EXPECT_EQ(m.paramsOf(foo)[1].space, StateSpace::param);
  EXPECT_TRUE(m.declaresRegister(foo, "%r3"));
  EXPECT_FALSE(m.declaresRegister(foo, "%r4"));
  EXPECT_FALSE(m.declaresRegister(foo, "%rd1"));
  const Function& test = m.functions[1];
  EXPECT_TRUE(test.isEntry);
  EXPECT_TRUE(m.declaresRegister(test, "%rd1"));
  EXPECT_FALSE(m.declaresRegister(test, "%rd2"));
  // Labels and the function each lies in.
  ASSERT_NE(m.findLabel("func_end1"), nullptr);
  EXPECT_EQ(m.functionOf(*m.findLabel("func_end1")), 1);
  EXPECT_EQ(m.functionOf(*m.findLabel("func_begin0")), 0);
  // `.param .b32 param0;` inside the body is a function-scope variable.
  const Variable* p0 = m.findVariable("param0", 1);
  ASSERT_NE(p0, nullptr);
  EXPECT_EQ(p0->space, StateSpace::param);
  EXPECT_TRUE(m.definesSymbol("_Z4testPi_param_0"));
  EXPECT_TRUE(m.definesSymbol(".debug_abbrev"));
  EXPECT_FALSE(m.definesSymbol("func_begin2"));
}

// An instruction is skipped to its ';' sixteen bytes a step: whatever the
// distance to the ';', a newline, a string, a comment or a brace inside it,
// each instruction is counted once at its own line and column.
// A register is declared by a plain declaration of its whole name or by a
// range `%x<N>` whose prefix it starts with, followed by a decimal index
// below N without leading zeros: prefixes that end in digits, that are a
// prefix of another declaration's, and indexes too long for any count.
// A label keeps no function: the one whose label range holds it is found
// from the ranges, with a guess or without. Every label of every body, in a
// file of several functions.
TEST(PtxReader, EveryLabelIsInTheFunctionWhoseRangeHoldsIt) {
  ReadResult r = readOk(ptxdwarf::testsupport::readFixture("producers/nvcc_G_locals_main.ptx"));
  const Module& m = r.module;
  size_t labels = 0, declarations = 0;
  for (size_t f = 0; f < m.functions.size(); ++f) {
    declarations += !m.functions[f].hasBody;
    for (uint32_t l = m.functions[f].firstLabel; l < m.functions[f].endLabel; ++l, ++labels) {
      const int32_t holder = static_cast<int32_t>(f);
      EXPECT_EQ(m.functionOf(m.labels[l]), holder) << m.labels[l].name;
      // A guess is taken only where it holds the label.
      for (int32_t guess : {holder, holder - 1, holder + 1, 0, -1, static_cast<int32_t>(m.functions.size()) + 5})
        EXPECT_EQ(m.functionOf(m.labels[l], guess), holder) << m.labels[l].name << " guessing " << guess;
    }
  }
  EXPECT_EQ(labels, m.labels.size());
  EXPECT_GT(m.functions.size() - declarations, 1u);
}

TEST(PtxReader, DeclaresRegisterByNameOrRange) {
  const ReadResult r = readOk(
      ".version 7.5\n.target sm_75\n.address_size 64\n.func f()\n{\n"
      "  .reg .b32 %r<10>;\n  .reg .b64 %rd<3>;\n  .reg .b32 %x1<2>;\n  .reg .pred %p;\n  .reg .b32 %pq<1>;\n"
      "  .reg .b32 %SPL, inner;\n  ret;\n}\n");
  const Function& f = r.module.functions.at(0);
  const ptx::Module& m = r.module;
  for (std::string_view yes : {"%r0", "%r9", "%rd0", "%rd2", "%x10", "%x11", "%p", "%pq0", "%SPL", "inner"})
    EXPECT_TRUE(m.declaresRegister(f, yes)) << yes;
  for (std::string_view no : {"%r10", "%r", "%r01", "%r00", "%rd3", "%rd", "%x1", "%x12", "%x2", "%p0", "%pq",
                              "%pq1", "%SP", "%SPLX", "inne", "%r+1", "%r-1", "%r1x", "%r99999999999999999999",
                              "%r18446744073709551616", ""})
    EXPECT_FALSE(m.declaresRegister(f, no)) << no;
}

TEST(PtxReader, InstructionsEndWhereverTheirStopsFall) {
  std::string body;
  std::vector<std::pair<uint32_t, uint32_t>> expected;  // line, col of each instruction
  uint32_t line = 6;  // the body's first line (after .version, .target, .address_size, .func, '{')
  for (size_t pad = 0; pad < 40; ++pad) {
    const std::string operand = "%r" + std::string(pad, '1');
    const std::vector<std::string> forms = {
        "mov.u32 " + operand + ", 0;",                          // the ';' at every distance
        "mov.u32 " + operand + ",\n    1;",                     // a newline inside
        "st.u32 [" + operand + "], {%r1}; // " + operand,       // braces, then a comment
        "mov.u32 " + operand + " /* ; */, 2;",                  // a ';' in a block comment
        "call.uni " + operand + ", (\"" + operand + ";\");"};  // a ';' in a string
    for (const std::string& f : forms) {
      body += "  " + f + "\n";
      expected.emplace_back(line, 3);
      line += static_cast<uint32_t>(std::count(f.begin(), f.end(), '\n')) + 1;
    }
  }
  const ReadResult r = readOk(".version 7.5\n.target sm_75\n.address_size 64\n.func f()\n{\n" + body + "}\n");
  ASSERT_EQ(r.module.instructions.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.module.instructions[i].line, expected[i].first) << i;
    EXPECT_EQ(r.module.instructions[i].col, expected[i].second) << i;
  }
}

// The name index keeps a name defined once in its slot and chains the rest:
// each way a name can be shared finds what the scan of the vectors would.
TEST(PtxReader, NameIndexSharedNames) {
  const ReadResult r = readOk(R"(.version 7.5
.target sm_75
.address_size 64
.extern .shared .align 4 .b8 buf[];
.extern .func (.param .b32 r) twice (.param .b32 a);
.extern .func (.param .b32 r) twice (.param .b32 a);
.func (.param .b32 r) twice (.param .b32 a)
{
  .local .b32 x;
dup:
  ret;
}
.extern .shared .align 4 .b8 buf[];
.visible .entry k (.param .u64 k_p)
{
  .reg .b32 %r<2>;
  .local .b32 x;
  {
  .param .b32 param0;
  }
  {
  .param .b32 param0;
  }
dup:
twice:
  ret;
}
.section .debug_str {
dup:
  .b8 0
}
)");
  const Module& m = r.module;
  // A function declared twice and then defined: the definition wins.
  ASSERT_NE(m.findFunction("twice"), nullptr);
  EXPECT_TRUE(m.findFunction("twice")->hasBody);
  EXPECT_EQ(m.findFunction("twice"), &m.functions[2]);
  // The same name as a label of another function: each lookup finds its kind.
  ASSERT_NE(m.findLabel("twice"), nullptr);
  EXPECT_EQ(m.functionOf(*m.findLabel("twice")), 3);
  // A label name in two functions and a section: the first label.
  ASSERT_NE(m.findLabel("dup"), nullptr);
  EXPECT_EQ(m.functionOf(*m.findLabel("dup")), 2);
  EXPECT_TRUE(m.definesSymbol("dup"));
  // Locals of the same name in two functions; a module-scope declaration twice.
  ASSERT_NE(m.findVariable("x", 2), nullptr);
  EXPECT_EQ(m.findVariable("x", 2)->function, 2);
  EXPECT_EQ(m.findVariable("x", 3)->function, 3);
  EXPECT_EQ(m.findVariable("x"), nullptr);  // no module-scope x
  ASSERT_NE(m.findVariable("buf", 3), nullptr);
  EXPECT_EQ(m.findVariable("buf", 3)->function, -1);
  EXPECT_EQ(m.findVariable("buf", 3)->loc.line, 4u);  // the first declaration
  EXPECT_EQ(m.findVariable("param0", 3)->loc.line, 19u);
  // Parameters: where their functions' ranges say.
  ASSERT_NE(m.findParameter("k_p"), nullptr);
  EXPECT_EQ(m.findParameter("a"), &m.paramsOf(m.functions[0])[0]);
  EXPECT_TRUE(m.definesSymbol(".debug_str"));
  EXPECT_FALSE(m.definesSymbol("nothing"));
  EXPECT_EQ(m.findFunction("dup"), nullptr);
  EXPECT_EQ(m.findLabel("k_p"), nullptr);
}

TEST(PtxReader, OperandSyntax) {
  ReadResult r = readOk(section(
      ".b8 0x1F, 0X2a, 0b101, 0B11, 017, 00, 255U, 0xffU\n"
      ".b8 -1, - 2, -128\n"
      ".b16 0x1234, -1\n"
      ".b32 4294967295, -2147483648\n"
      ".b64 -1"));
  std::vector<uint8_t> expected = {0x1f, 0x2a, 5, 3, 15, 0, 255, 255, 255, 254, 128, 0x34, 0x12, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x80};
  for (int i = 0; i < 8; ++i) expected.push_back(0xff);
  EXPECT_EQ(bytesOf(r, ".debug_str"), expected);
}

// nvcc's and LLVM's `.b8 N` a line is read by a fast path
// (Cursor::byteLines); every line here is read again with a block comment
// after its operand, which the fast path leaves to the general one: the
// bytes and the source map must not differ.
TEST(PtxReader, ByteLinesReadAsTheGeneralPathReadsThem) {
  // Each line and what follows its operand.
  const std::vector<std::pair<std::string, std::string>> lines = {
      {".b8 0", ""},      {"\t.b8\t255", ""}, {".b8 7", "  "},   {"  .b8 10", ""},    {".b8 012", ""},
      {".b8 00", ""},     {".b8 100", ""},    {".b8 0x1F", ""},  {".b8 1, 2", ""},    {".b8 99", ""},
      {".b16 258", ""},   {".b8 3", ""},      {".b8 4", " // DW_AT_name"},               {".b8 5", "//"},
      {".b8 25", ""},     {".b8 200", ""},    {".b8 6", "\r"},
      {"l1: .b8 9", ""},  {".b8 10", ""}};  // a run that starts after a label, at column 6
  std::string fast, general;
  for (const auto& [line, rest] : lines) {
    fast += line + rest + "\n";
    general += line + " /* general */" + rest + "\n";
  }
  ReadResult a = readOk(section(fast)), b = readOk(section(general));
  const std::vector<uint8_t> expected = {0, 255, 7, 10, 10, 0, 100, 0x1f, 1, 2, 99, 2, 1, 3, 4, 5, 25, 200, 6, 9, 10};
  EXPECT_EQ(bytesOf(a, ".debug_str"), expected);
  EXPECT_EQ(bytesOf(b, ".debug_str"), expected);
  const SectionImage& sa = *a.module.section(".debug_str");
  const SectionImage& sb = *b.module.section(".debug_str");
  EXPECT_EQ(sa.sourceMap.size(), sb.sourceMap.size());
  for (uint64_t offset = 0; offset < expected.size(); ++offset) {
    EXPECT_EQ(sa.locate(offset).line, sb.locate(offset).line) << offset;
    EXPECT_EQ(sa.locate(offset).col, sb.locate(offset).col) << offset;
  }
  EXPECT_EQ(sa.locate(1).line, 6u);  // `\t.b8\t255`: the value's column
  EXPECT_EQ(sa.locate(1).col, 6u);
  EXPECT_EQ(sa.locate(3).col, 7u);  // `  .b8 10`
  EXPECT_EQ(sa.locate(19).col, 9u);  // `l1: .b8 9`
  EXPECT_EQ(sa.locate(20).line, 23u);
  EXPECT_EQ(sa.locate(20).col, 5u);
  ASSERT_EQ(sa.labels.size(), 1u);
  EXPECT_EQ(sa.labels[0].offset, 19u);
  // What the fast path declines is still checked by the general one.
  EXPECT_EQ(firstError(section(".b8 7\n.b8 256")), "6:5: value out of range for type .b8: 256");
  EXPECT_EQ(firstError(section(".b8 7\n.b8 1000")), "6:5: value out of range for type .b8: 1000");
  EXPECT_EQ(firstError(section(".b8 7\n.b8 09")), "6:5: invalid number in .b8 operand");
}

namespace {
// What a section read with the fast paths holds, against the same lines
// read by the general path: bytes, source map, relocations and warnings.
void expectSameSection(const ReadResult& a, const ReadResult& b) {
  const SectionImage& sa = *a.module.section(".debug_str");
  const SectionImage& sb = *b.module.section(".debug_str");
  EXPECT_EQ(sa.bytes, sb.bytes);
  EXPECT_EQ(sa.sourceMap.size(), sb.sourceMap.size());
  for (uint64_t offset = 0; offset < sa.bytes.size(); ++offset) {
    EXPECT_EQ(sa.locate(offset).line, sb.locate(offset).line) << offset;
    EXPECT_EQ(sa.locate(offset).col, sb.locate(offset).col) << offset;
  }
  ASSERT_EQ(sa.relocations.size(), sb.relocations.size());
  for (size_t i = 0; i < sa.relocations.size(); ++i) {
    EXPECT_EQ(sa.relocations[i].offset, sb.relocations[i].offset) << i;
    EXPECT_EQ(sa.relocations[i].size, sb.relocations[i].size) << i;
    EXPECT_EQ(sa.relocations[i].expression(), sb.relocations[i].expression()) << i;
  }
  ASSERT_EQ(a.diagnostics.items.size(), b.diagnostics.items.size());
  for (size_t i = 0; i < a.diagnostics.items.size(); ++i)
    EXPECT_EQ(a.diagnostics.items[i].format("t.ptx"), b.diagnostics.items[i].format("t.ptx"));
}
}  // namespace

// The other debug-section lines -- nvcc's `.b8 108,103,101`, `.b32 957421`,
// `.b64 $L__tmp3`, this library's packed and dense styles, LLVM's commented
// lines -- are read by a fast path too (Cursor::plainDataLine). Each line
// here is read again with a block comment before what follows its operands
// (its `//` comment, if any), which the fast path leaves to the general one:
// bytes, source map, relocations and warnings must not differ, for the
// lines it takes and for those it declines.
TEST(PtxReader, DataLinesReadAsTheGeneralPathReadsThem) {
  // Each line and what follows its operands.
  std::vector<std::pair<std::string, std::string>> lines = {
      {".b8 108,103,101,110,0", ""},   // nvcc's string
      {".b32 957421", ""},             // a unit length
      {".b32 0,4294967295", ""},       // the largest constant ptxas keeps whole
      {".b64 4294967295", ""},         // ... and its high half zero
      {".b64 0", ""},
      {".b16 65535,1,0", ""},
      {".b64 $L__tmp3", ""},           // a label address
      {".b64 $L__tmp3", ""},           // the same name again (kept once)
      {".b32 sym_a,7,%sym_b", ""},     // symbols and constants on one line
      {".b8 237, 155, 14, 0", ""},     // the packed style: a blank after each comma
      {".b32 0x676c0108, 0X65666E65", ""},  // the dense style: hexadecimal, either case
      {".b8\t1 ,\t2 , 3", "  "},       // tabs and blanks anywhere between, and after
      {".b32 63", "   // Length of Unit"},  // LLVM's
      {".b8 4, 0", "\t// DW_AT_language"},  // the verbose style
      {".b32 .debug_abbrev", ""},      // a section name
      {".b64 a1, .debug_line,b2", ""},
      {".b8 0xff,0x0,0x00", ""},
      {".b16 0xffff", ""},
      {".b8 0x100", ""},               // declined: too wide (an error, below)
      {".b32 0x100000000", ""},        // declined: wider than ptxas keeps (a warning)
      {".b8 012,1", ""},               // declined: an octal literal
      {".b8 0x", ""},                  // declined: no digits (an error)
      {".b32 0x1fg", ""},              // declined
      {".b32 sym+4", ""},              // declined: an addend
      {".b32 sym + 4", ""},
      {".b64 $L__end-$L__begin", ""},  // declined: a label difference
      {".b64 -1", ""},                 // declined: negative
      {".b32 10U", ""},                // declined: a suffix
      {".b32 4294967296", ""},         // declined: wider than ptxas keeps (a warning)
      {"\t.b32 12", ""},               // indented
      {".b32 1 /* a */ , 2", ""},      // declined: a block comment
      {".b8 7", ""},                   // nvcc's one byte, between them
      {".b64 a1,b2", ""},
  };
  // Lines of more operands than the reader holds at once (32): the rest read on from the last one held.
  std::string longBytes = ".b8 1", longMixed = ".b64 s0";
  for (int i = 2; i <= 40; ++i) longBytes += ", " + std::to_string(i * 6);
  for (int i = 1; i <= 40; ++i) longMixed += i % 3 ? "," + std::to_string(i) : " ,\ts" + std::to_string(i);
  lines.insert(lines.end() - 1, {{longBytes, " // a long string"}, {longMixed, ""}});
  // The lines that are errors: each read alone below, an empty line in the section.
  const std::vector<std::string> errors = {".b8 0x100", ".b8 0x", ".b32 0x1fg"};
  std::string fast, general;
  for (const auto& [line, rest] : lines) {
    // Each line alone, after a line the fast path takes: the same first error, or none.
    EXPECT_EQ(firstError(section(".b8 7\n" + line + rest)), firstError(section(".b8 7\n" + line + " /* g */" + rest)))
        << line;
    if (std::find(errors.begin(), errors.end(), line) != errors.end()) {
      EXPECT_NE(firstError(section(line)), "no error") << line;
      fast += "\n";
      general += "\n";
      continue;
    }
    fast += line + rest + "\n";
    general += line + " /* general */" + rest + "\n";
  }
  ReadResult a = readOk(section(fast)), b = readOk(section(general));
  const SectionImage& sa = *a.module.section(".debug_str");
  const std::vector<uint8_t> head = {108, 103, 101, 110, 0, 0xed, 0x9b, 0x0e, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  ASSERT_GE(sa.bytes.size(), head.size());
  EXPECT_TRUE(std::equal(head.begin(), head.end(), sa.bytes.begin()));
  expectSameSection(a, b);
  EXPECT_EQ(sa.relocations[2].expression(), "sym_a");
  EXPECT_EQ(sa.relocations[3].expression(), "%sym_b");
  EXPECT_EQ(sa.relocations[3].offset, 63u);  // 5 + 4 + 8 + 8 + 8 + 6 + 8 + 8, then sym_a and 7
  EXPECT_EQ(sa.relocations.back().expression(), "b2");
  EXPECT_EQ(a.diagnostics.warningCount(), 2u);  // the wide constants
  EXPECT_EQ(sa.locate(63).line, 13u);  // `%sym_b`: its own column
  EXPECT_EQ(sa.locate(63).col, 14u);
  // The packed line: 237 at column 5, 14 at column 15.
  EXPECT_EQ(sa.locate(67).col, 5u);
  EXPECT_EQ(sa.locate(69).col, 15u);
  // What the fast path declines is still checked by the general one, at the operand.
  EXPECT_EQ(firstError(section(".b8 7\n.b8 1,256")), "6:7: value out of range for type .b8: 256");
  EXPECT_EQ(firstError(section(".b8 7\n.b8 1, 0x100")), "6:8: value out of range for type .b8: 256");
  EXPECT_EQ(firstError(section(".b8 7\n.b16 1,65536")), "6:8: value out of range for type .b16: 65536");
  EXPECT_EQ(firstError(section(".b8 7\n.b8 1,sym")).substr(0, 34), "6:7: symbolic operand in .b8: ptxa");
  EXPECT_EQ(firstError(section(".b8 7\n.b32 1,")), "7:1: expected an operand after .b32");
  EXPECT_EQ(firstError(section(".b8 7\n.b32 1, // no operand")), "7:1: expected an operand after .b32");
}

// Data lines made at random from the pieces the fast path looks at --
// literals in every base, at and past each width's limits, symbols with and
// without addends, signs, suffixes, blanks, tabs, commas, comments -- read
// with and without a block comment that sends them to the general path: the
// same section, or the same first error, each time.
TEST(PtxReader, RandomDataLinesReadAsTheGeneralPathReadsThem) {
  const std::vector<std::string> directives = {".b8", ".b16", ".b32", ".b64"};
  const std::vector<std::string> operands = {
      "0",    "1",     "9",      "10",          "255",  "256",        "65535",      "65536",   "4294967295",
      "4294967296",    "012",    "00",          "0x0",  "0xff",       "0x100",      "0xFFFF",  "0x10000",
      "0xffffffff",    "0x100000000",           "0x",   "0x1g",       "1U",         "-1",      "- 2",
      "sym",  "$L__tmp5",       "%r1",          ".debug_abbrev",      "sym+4",      "A-B",     "sym - 1",
      "1e3",  "0b101", "1.5",    "x1",          "_a$b"};
  const std::vector<std::string> separators = {",", ", ", " ,", "\t,\t", " , ", ",,", " "};
  const std::vector<std::string> ends = {"", " ", "\t", " // comment", "// c", ",", " /"};
  std::mt19937 random(20261126);
  auto pick = [&](const std::vector<std::string>& v) { return v[random() % v.size()]; };
  size_t taken = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string line = pick(directives) + (random() % 4 == 0 ? "\t" : " ") + (random() % 6 == 0 ? " " : "");
    const unsigned count = 1 + random() % 5;
    for (unsigned i = 0; i < count; ++i) line += (i ? pick(separators) : "") + pick(operands);
    const std::string end = pick(ends);
    const std::string fast = section(".b8 7\n" + line + end), general = section(".b8 7\n" + line + " /* g */" + end);
    ReadResult a = read(fast, "t.ptx"), b = read(general, "t.ptx");
    ASSERT_EQ(a.ok(), b.ok()) << line << end;
    if (!a.ok()) {  // an error in `end` stands further right by the comment's width in `general`
      const Diagnostic &da = a.diagnostics.items.at(0), &db = b.diagnostics.items.at(0);
      const bool inEnd = da.loc.line == 6 && da.loc.col > line.size();
      EXPECT_EQ(da.message, db.message) << line << end;
      EXPECT_EQ(da.loc.line, db.loc.line) << line << end;
      EXPECT_EQ(da.loc.col + (inEnd ? 8 : 0), db.loc.col) << line << end;
      continue;
    }
    SCOPED_TRACE(line + end);
    expectSameSection(a, b);
    ++taken;
  }
  EXPECT_GT(taken, 300u);  // enough lines that read to compare what they hold
}

// A run of `.b8 N` lines is stored 256 lines at a time: runs across that
// boundary keep every byte and every line.
TEST(PtxReader, ByteRunsLongerThanOneStore) {
  std::string text;
  for (unsigned i = 0; i < 700; ++i) text += ".b8 " + std::to_string(i % 256) + "\n";
  ReadResult r = readOk(section(text));
  const SectionImage& s = *r.module.section(".debug_str");
  ASSERT_EQ(s.bytes.size(), 700u);
  for (unsigned i = 0; i < 700; ++i) {
    EXPECT_EQ(s.bytes[i], i % 256) << i;
    EXPECT_EQ(s.locate(i).line, 5 + i) << i;
    EXPECT_EQ(s.locate(i).col, 5u) << i;
  }
}

namespace {
// A `.b8 N` line in one of the forms writers use, split where a block
// comment would send it to the general path: after its operand.
struct ByteLineForm {
  std::string name;
  std::string (*before)(unsigned value);  // up to the operand's end
  std::string after;                      // blanks and a comment, before the line's end
};
const std::vector<ByteLineForm>& byteLineForms() {
  static const std::vector<ByteLineForm> forms = {
      {"nvcc's", [](unsigned v) { return ".b8 " + std::to_string(v); }, ""},
      {"tab-indented", [](unsigned v) { return "\t.b8 " + std::to_string(v); }, ""},
      {"space-indented", [](unsigned v) { return "    .b8\t" + std::to_string(v); }, ""},
      {"trailing blanks", [](unsigned v) { return ".b8 " + std::to_string(v); }, " \t "},
      {"hexadecimal", [](unsigned v) {
         char hex[8];
         std::snprintf(hex, sizeof hex, v % 2 ? "0x%x" : "0X%02X", v);
         return ".b8 " + std::string(hex);
       }, ""},
      {"commented", [](unsigned v) { return ".b8 " + std::to_string(v); }, "// DW_AT_name"},
      {"LLVM's verbose", [](unsigned v) { return ".b8 " + std::to_string(v); }, "                 // Abbrev [3]"},
  };
  return forms;
}
}  // namespace

// Byte lines in every form and either line ending -- nvcc's, LLVM's, a PTX
// file written or checked out on Windows -- are read a run at a time: none
// falls to the general path (what made a CRLF file check 1.6x slower), and
// what they hold is what the general path makes of the same lines.
TEST(PtxReader, ByteRunsInEveryFormAndLineEndingReadALineAtATime) {
  for (const ByteLineForm& form : byteLineForms()) {
    for (const std::string eol : {"\n", "\r\n"}) {
      SCOPED_TRACE(form.name + (eol == "\n" ? "" : ", CRLF"));
      std::string fast, general;
      for (unsigned i = 0; i < 600; ++i) {  // longer than one store of a run (256)
        fast += form.before(i % 256) + form.after + eol;
        general += form.before(i % 256) + " /* g */" + form.after + eol;
      }
      work::reset();
      ReadResult a = readOk(section(fast));
      EXPECT_EQ(work::steps(work::sectionLinesByOperand), 0u);
      work::reset();
      ReadResult b = readOk(section(general));
      EXPECT_EQ(work::steps(work::sectionLinesByOperand), 600u);  // the counter counts what it should
      expectSameSection(a, b);
      const SectionImage& s = *a.module.section(".debug_str");
      ASSERT_EQ(s.bytes.size(), 600u);
      EXPECT_EQ(s.bytes[299], 299 % 256);
      EXPECT_EQ(s.locate(299).line, 5u + 299);
    }
  }
  // nvcc's other lines with CRLF: a line at a time too.
  work::reset();
  ReadResult r = readOk(section(".b32 957421\r\n.b8 108,103,0\r\n.b64 $L__tmp3\r\n.b8 0\r\n.b8 7 // c\r\n"));
  EXPECT_EQ(work::steps(work::sectionLinesByOperand), 0u);
  EXPECT_EQ(bytesOf(r, ".debug_str"),
            (std::vector<uint8_t>{0xed, 0x9b, 0x0e, 0, 108, 103, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}));
  // Indented data lines (the packed and dense styles indented): a line at a time.
  work::reset();
  ReadResult indented = readOk(section("\t.b32 0x676c0108, 5\n  .b8 1, 2, 3\r\n\t.b16 0x1234 // c\n\t.b8 9\n\t.b8 8\n"));
  EXPECT_EQ(work::steps(work::sectionLinesByOperand), 0u);
  EXPECT_EQ(bytesOf(indented, ".debug_str"),
            (std::vector<uint8_t>{0x08, 0x01, 0x6c, 0x67, 5, 0, 0, 0, 1, 2, 3, 0x34, 0x12, 9, 8}));
  EXPECT_EQ(indented.module.section(".debug_str")->locate(4).col, 19u);  // `5`, after the tab and the hex
}

// Sections of byte lines whose form and line ending change from line to
// line, between nvcc's other lines, labels, comments and blank lines, read
// with and without a block comment after each operand: the same bytes,
// source map and relocations. A run's operands after its first stand at one
// column; a line at another column starts a new run.
TEST(PtxReader, RandomByteRunsReadAsTheGeneralPathReadsThem) {
  const std::vector<std::string> others = {".b32 957421", ".b8 108,103,101", ".b64 $L__tmp3", "l1:", "// a comment",
                                           "", "\t", ".b16 0x1234 // c", "  .b32 7"};
  std::mt19937 random(20261127);
  for (int round = 0; round < 300; ++round) {
    std::string fast, general;
    size_t form = random() % byteLineForms().size();
    const unsigned lines = 1 + random() % 400;
    for (unsigned i = 0; i < lines; ++i) {
      const std::string eol = random() % 3 ? "\n" : "\r\n";
      if (random() % 10 == 0) {  // another line
        const std::string& other = others[random() % others.size()];
        fast += other + eol;
        general += other + eol;
        continue;
      }
      if (random() % 8 == 0) form = random() % byteLineForms().size();  // runs of one form, mostly
      const ByteLineForm& f = byteLineForms()[form];
      const unsigned value = random() % 256;
      fast += f.before(value) + f.after + eol;
      general += f.before(value) + " /* g */" + f.after + eol;
    }
    SCOPED_TRACE(fast);
    expectSameSection(readOk(section(fast)), readOk(section(general)));
  }
}

// What the byte-line fast paths decline in each form, the general path reads
// and reports, at the operand.
TEST(PtxReader, ByteLinesOfEveryFormAreCheckedAtTheOperand) {
  EXPECT_EQ(firstError(section(".b8 7\r\n.b8 256\r\n")), "6:5: value out of range for type .b8: 256");
  EXPECT_EQ(firstError(section(".b8 7\n\t.b8 0x100\n")), "6:6: value out of range for type .b8: 256");
  EXPECT_EQ(firstError(section(".b8 7\n.b8 09 // c\r\n")), "6:5: invalid number in .b8 operand");
  EXPECT_EQ(firstError(section(".b8 7\n.b8 0x\r\n")), "6:5: invalid number in .b8 operand");
  // A CR that does not end a line is a blank to ptxas: the general path reads it.
  ReadResult r = readOk(section(".b8 7\n.b8 5\r \n.b8\r6\n"));
  EXPECT_EQ(bytesOf(r, ".debug_str"), (std::vector<uint8_t>{7, 5, 6}));
}

TEST(PtxReader, SymbolicOperands) {
  ReadResult r = readOk(section(
      ".b32 .debug_abbrev\n.b64 $L__func_begin0+16\n.b32 .debug_loc+138, sym-4\n.b64 $L__end-$L__begin\n"
      "inside: .b8 1\n.b32 inside"));
  const SectionImage& s = *r.module.section(".debug_str");
  ASSERT_EQ(s.relocations.size(), 6u);
  EXPECT_EQ(s.relocations[1].symbol, "$L__func_begin0");
  EXPECT_EQ(s.relocations[1].addend(), 16);
  EXPECT_EQ(s.relocations[1].offset, 4u);
  EXPECT_EQ(s.relocations[2].expression(), ".debug_loc+138");
  EXPECT_EQ(s.relocations[3].expression(), "sym-4");
  EXPECT_EQ(s.relocations[4].symbol, "$L__end");
  EXPECT_EQ(s.relocations[4].minus(), "$L__begin");
  EXPECT_EQ(s.relocations[4].expression(), "$L__end-$L__begin");
  EXPECT_EQ(s.relocations[4].size, 8);
  ASSERT_EQ(s.labels.size(), 1u);
  EXPECT_EQ(s.labels[0].name, "inside");
  EXPECT_EQ(s.labels[0].offset, 28u);
  EXPECT_EQ(s.size(), 33u);
}

TEST(PtxReader, LayoutVariants) {
  // `{` on the next line, CRLF, comments everywhere, several directives per
  // line, blocks of one name concatenated, empty blocks.
  std::string text =
      ".version 7.5\r\n.target sm_75 // c\r\n.address_size 64\r\n"
      ".section .debug_abbrev\r\n{\r\n.b8 1 /* } .section */ , 2 .b8 3 // }\r\n.b16 0x0504 ; .b8 6\r\n}\r\n"
      ".section .debug_info { }\r\n"
      "/* .section .debug_abbrev { .b8 99 } */\r\n"
      ".section\t.debug_abbrev {\r\n.b8 7\r\n}\r\n";
  ReadResult r = readOk(text);
  EXPECT_EQ(bytesOf(r, ".debug_abbrev"), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7}));
  ASSERT_NE(r.module.section(".debug_info"), nullptr);
  EXPECT_EQ(r.module.section(".debug_info")->size(), 0u);
  EXPECT_EQ(r.module.section(".debug_abbrev")->locate(6).line, 12u);
}

// Labels of every length from 1 to 24 bytes (each length's last bytes are
// hashed by a different load) are each found, and names one byte off in any
// position, or a byte longer or shorter, are not.
TEST(PtxReader, NameIndexFindsNamesOfEveryLength) {
  std::string body;
  std::vector<std::string> names;
  for (size_t n = 1; n <= 24; ++n) {
    std::string name = "L";
    for (size_t k = 1; k < n; ++k) name += static_cast<char>('a' + (n * 7 + k * 3) % 26);
    names.push_back(name);
    body += name + ":\n  ret;\n";
  }
  const ReadResult r = readOk(".version 7.5\n.target sm_75\n.address_size 64\n.func f()\n{\n" + body + "}\n");
  const Module& m = r.module;
  for (size_t i = 0; i < names.size(); ++i) {
    const Label* l = m.findLabel(names[i]);
    ASSERT_NE(l, nullptr) << names[i];
    EXPECT_EQ(l->name, names[i]);
    for (size_t k = 0; k < names[i].size(); ++k) {
      std::string off = names[i];
      off[k] = off[k] == 'z' ? 'y' : static_cast<char>(off[k] + 1);
      if (std::find(names.begin(), names.end(), off) == names.end()) {
        EXPECT_EQ(m.findLabel(off), nullptr) << off;
      }
    }
    EXPECT_EQ(m.findLabel(names[i] + "q"), nullptr) << names[i];
    const std::string shorter = names[i].substr(0, names[i].size() - 1);
    if (std::find(names.begin(), names.end(), shorter) == names.end()) {
      EXPECT_EQ(m.findLabel(shorter), nullptr) << shorter;
    }
  }
}

TEST(PtxReader, ModuleIndex) {
  ReadResult r = readOk(
      ".version 8.0\n.target sm_90, debug\n.address_size 64\n"
      ".file 1 \"/src/a.cu\", 1700000000, 1234\n.file 2 \"inc.h\"\n"
      ".global .align 4 .b8 g[16] = {1, 2, 3};\n.const .align 8 .f64 c[2][3];\n"
      ".extern .shared .align 16 .b8 dyn[];\n.visible .global .texref tex0;\n"
      ".weak .func (.param .b64 r) f(.param .u64 .ptr .global .align 8 p, .reg .b32 x) .noreturn;\n"
      ".visible .entry k(.param .align 8 .b8 k_param_0[24]) .maxntid 128, 1, 1\n{\n"
      "  .reg .pred %p<3>;\n  .reg .b64 %SP, %SPL;\n  .local .align 4 .b8 __local_depot0[12];\n"
      "  .shared .align 4 .b8 k_sh[64];\n"
      "  mov.b64 %SP, {%r1, \"}\"};\n"
      "$L__BB0_1:\n  @%p1 bra $L__BB0_1;\n  { .reg .b32 inner; }\n"
      "  .loc 1 10 5, function_name $L__info_string0, inlined_at 1 20 3\n"
      "  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      "  ret;\n}\n");
  const Module& m = r.module;
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.files[0].timestamp, 1700000000u);
  EXPECT_EQ(m.files[0].size, 1234u);
  EXPECT_FALSE(m.files[1].timestamp.has_value());
  const Variable* g = m.findVariable("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->space, StateSpace::global);
  EXPECT_EQ(g->align, 4u);
  EXPECT_EQ(std::vector<uint64_t>(m.dimsOf(*g).begin(), m.dimsOf(*g).end()), (std::vector<uint64_t>{16}));
  auto dimsOf = [&m](const Variable* v) {
    const std::span<const uint64_t> d = m.dimsOf(*v);
    return std::vector<uint64_t>(d.begin(), d.end());
  };
  EXPECT_EQ(dimsOf(m.findVariable("c")), (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(m.findVariable("dyn")->linkage, Linkage::extern_);
  EXPECT_EQ(dimsOf(m.findVariable("dyn")), (std::vector<uint64_t>{0}));
  EXPECT_EQ(m.findVariable("tex0")->type, ".texref");
  const Function* f = m.findFunction("f");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->hasBody);
  EXPECT_EQ(f->linkage, Linkage::weak);
  ASSERT_EQ(m.paramsOf(*f).size(), 2u);
  EXPECT_EQ(m.paramsOf(*f)[0].align, 0u);  // .align after .ptr describes the pointee
  EXPECT_EQ(m.paramsOf(*f)[1].space, StateSpace::reg);
  const Function* k = m.findFunction("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(dimsOf(&m.paramsOf(*k)[0]), (std::vector<uint64_t>{24}));
  EXPECT_TRUE(m.declaresRegister(*k, "%p2"));
  EXPECT_TRUE(m.declaresRegister(*k, "%SPL"));
  EXPECT_TRUE(m.declaresRegister(*k, "inner"));
  EXPECT_FALSE(m.declaresRegister(*k, "%p3"));
  EXPECT_FALSE(m.declaresRegister(*k, "%p01"));
  EXPECT_EQ(m.findVariable("__local_depot0", 1)->space, StateSpace::local);
  EXPECT_EQ(m.findVariable("k_sh", 1)->space, StateSpace::shared);
  ASSERT_NE(m.findLabel("$L__BB0_1"), nullptr);
  ASSERT_NE(m.findLabel("prototype_0"), nullptr);
  ASSERT_EQ(m.locs.size(), 1u);
  EXPECT_EQ(m.locs[0].line, 10u);
  EXPECT_EQ(m.locs[0].col, 5u);
}

TEST(PtxReaderErrors, ValueOutOfRange) {
  EXPECT_EQ(firstError(section(".b8 1, 256")), "5:8: value out of range for type .b8: 256");
  EXPECT_EQ(firstError(section(".b8 -129")), "5:5: value out of range for type .b8: -129");
  EXPECT_EQ(firstError(section(".b16 65536")), "5:6: value out of range for type .b16: 65536");
  EXPECT_EQ(firstError(section(".b8 0777")), "5:5: value out of range for type .b8: 511");
  EXPECT_EQ(firstError(section(".b64 99999999999999999999")),
            "5:6: constant overflow: 99999999999999999999 does not fit in 64 bits");
}

// ptxas 13 keeps the low 32 bits of a non-negative .b32/.b64 constant and
// every bit of a negative one (tests/corpus/extract_test.cpp assembles these
// and compares): the bytes are ptxas's, the lost bits a warning.
TEST(PtxReader, WideConstantsAreWrittenAsPtxasWritesThem) {
  ReadResult r = read(section(".b64 0x1122334455667788\n.b32 0x112233445566\n.b64 -4294967297\n.b64 4294967295"), "w.ptx");
  ASSERT_TRUE(r.ok()) << r.diagnostics.items[0].message;
  const SectionImage* s = r.module.section(".debug_str");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->bytes, (std::vector<uint8_t>{0x88, 0x77, 0x66, 0x55, 0, 0, 0, 0,                   // low 32 bits
                                            0x66, 0x55, 0x44, 0x33,                               // low 32 bits
                                            0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff,       // all 64
                                            0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}));                // fits
  ASSERT_EQ(r.diagnostics.items.size(), 2u);
  EXPECT_EQ(r.diagnostics.items[0].rule, "wide-constant");
  EXPECT_EQ(r.diagnostics.items[0].loc.line, 5u);
  EXPECT_NE(r.diagnostics.items[0].message.find("writes 0x55667788"), std::string::npos)
      << r.diagnostics.items[0].message;
  EXPECT_EQ(r.diagnostics.items[1].loc.line, 6u);
  EXPECT_NE(r.diagnostics.items[1].message.find("writes 0x33445566"), std::string::npos);
}

TEST(PtxReaderErrors, BadOperands) {
  EXPECT_EQ(firstError(section(".b8 09")), "5:5: invalid number in .b8 operand");
  EXPECT_EQ(firstError(section(".b8 0x")), "5:5: invalid number in .b8 operand");
  EXPECT_EQ(firstError(section(".b8 1U2")), "5:5: invalid number in .b8 operand");
  EXPECT_EQ(firstError(section(".b8 1,")), "6:1: expected an operand after .b8");
  EXPECT_EQ(firstError(section(".b32 'a'")), "5:6: unexpected ''' in an operand of .b32");
  EXPECT_EQ(firstError(section(".b32 sym+")), "5:10: expected a number after '+'");
  EXPECT_EQ(firstError(section(".b8 sym")),
            "5:5: symbolic operand in .b8: ptxas accepts symbols only in .b32 and .b64 (\"Illegal type for dwarf data\")");
}

TEST(PtxReaderErrors, StructureErrors) {
  EXPECT_EQ(firstError(section(".b8 1\n.byte 2")),
            "6:1: unknown directive '.byte' inside section .debug_str (expected .b8, .b16, .b32 or .b64)");
  EXPECT_EQ(firstError(".version 7.5\n.section .debug_info {\n.b8 1\n"),
            "2:22: unterminated section .debug_info: expected '}'");
  EXPECT_EQ(firstError(".version 7.5\n/* never closed\n.b8 1\n"), "2:1: unterminated /* comment");
  EXPECT_EQ(firstError(".version 7.5\n.section .debug_info\n.b8 1\n"),
            "3:1: expected '{' to open section .debug_info");
  EXPECT_EQ(firstError(".version 7.5\n.entry k()\n{\n ret;\n"), "3:1: unterminated function body of k");
  EXPECT_EQ(firstError(".version 7.5\n.file 1 \"a.cu\n"), "2:9: unterminated string");
  EXPECT_EQ(firstError(std::string(".version 7.5\n.tar\0get", 21)), "2:5: NUL byte in the input: this is not PTX text");
  EXPECT_EQ(firstError("\x7f" "ELF\x02\x01"), "1:1: expected a directive at module scope");
}
