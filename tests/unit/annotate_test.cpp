// write::annotate: debug information for PTX that has none, read back with
// our own reader and decoder (tests/corpus/annotate_test.cpp assembles the
// results with ptxas and reads the cubins with llvm-dwarfdump).
#include "ptxdwarf/write/annotate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "corpus.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "work.h"

using namespace ptxdwarf;
using ptxdwarf::testsupport::readFixture;

namespace {

// What annotate adds, taken out again: `.file`/`.loc` lines, its labels and
// the `, debug` on `.target`. What is left is the input, then the sections.
std::string removeAdded(const std::string& out) {
  std::string result;
  for (size_t pos = 0; pos < out.size();) {
    size_t end = out.find('\n', pos);
    end = end == std::string::npos ? out.size() : end + 1;
    std::string_view line(out.data() + pos, end - pos);
    if (!line.starts_with(".file\t1 \"") && !line.starts_with("\t.loc\t1 ") && !line.starts_with("$__ptxdwarf"))
      result.append(line);
    pos = end;
  }
  size_t debug = result.find(", debug");
  if (debug != std::string::npos) result.erase(debug, 7);
  return result;
}

struct Result {
  std::string in;
  ptx::ReadResult inRead;
  write::Annotated a;
  ptx::ReadResult outRead;
  read::Dwarf dwarf;
};

Result annotateText(std::string in, const write::AnnotateOptions& options = {}) {
  Result r;
  r.in = std::move(in);
  r.inRead = ptx::read(r.in, "k.ptx");
  r.a = write::annotate(r.in, r.inRead.module, options);
  if (r.a.written()) {
    r.outRead = ptx::read(r.a.ptx, "out.ptx");
    r.dwarf = read::decode(r.outRead.module.sections);
  }
  return r;
}

// The names of the DIEs with `tag` under the DIE at `parent` (direct children).
std::vector<std::string> childNames(const read::Dwarf& d, uint32_t parent, uint16_t tag) {
  std::vector<std::string> out;
  for (uint32_t k = 0; k < d.dies.size(); ++k)
    if (d.dies[k].parent == parent && d.dies[k].tag == tag) out.emplace_back(d.name(d.dies[k]));
  return out;
}

uint32_t dieNamed(const read::Dwarf& d, uint16_t tag, std::string_view name) {
  for (uint32_t k = 0; k < d.dies.size(); ++k)
    if (d.dies[k].tag == tag && d.name(d.dies[k]) == name) return k;
  return UINT32_MAX;
}

}  // namespace

class AnnotateDsl : public testing::Test {
 protected:
  static void SetUpTestSuite() { r_ = new Result(annotateText(readFixture("annotate/dsl.ptx"))); }
  static void TearDownTestSuite() { delete r_; }
  void SetUp() override {
    ASSERT_FALSE(r_->in.empty()) << "fixtures/annotate/dsl.ptx not found";
    ASSERT_TRUE(r_->a.written()) << (r_->a.diagnostics.items.empty() ? "" : r_->a.diagnostics.items[0].message);
    ASSERT_TRUE(r_->outRead.ok());
  }
  static inline Result* r_ = nullptr;
};

TEST_F(AnnotateDsl, EveryOtherByteIsTheInput) {
  std::string rest = removeAdded(r_->a.ptx);
  ASSERT_TRUE(rest.starts_with(r_->in)) << rest;
  EXPECT_TRUE(rest.substr(r_->in.size()).starts_with("\n\t.section\t.debug_info\n")) << rest.substr(r_->in.size(), 80);
}

TEST_F(AnnotateDsl, TheInputIsTheSource) {
  const ptx::Module& out = r_->outRead.module;
  ASSERT_EQ(out.files.size(), 1u);
  EXPECT_EQ(out.files[0].index, 1u);
  EXPECT_EQ(out.files[0].path, "k.ptx");
  EXPECT_TRUE(out.debug);  // `.target sm_80, debug`
  // One .loc per input line holding an instruction, naming that line, before it.
  std::set<uint32_t> instructionLines;
  for (const ptx::Instruction& i : r_->inRead.module.instructions) instructionLines.insert(i.line);
  std::set<uint32_t> named;
  for (const ptx::LocRecord& l : out.locs) {
    EXPECT_EQ(l.file, 1u);
    EXPECT_TRUE(instructionLines.count(l.line)) << "line " << l.line;
    named.insert(l.line);
    // The instruction the .loc applies to is the one of that input line.
    ASSERT_LT(l.instruction, out.instructions.size());
  }
  EXPECT_EQ(named, instructionLines);
  EXPECT_EQ(out.locs.size(), instructionLines.size());  // the line holding two instructions has one
  EXPECT_EQ(r_->a.stats.locs, instructionLines.size());
}

TEST_F(AnnotateDsl, DescribesFunctionsParametersRegistersAndVariables) {
  const read::Dwarf& d = r_->dwarf;
  ASSERT_FALSE(d.diagnostics.hasErrors());
  ASSERT_FALSE(d.dies.empty());
  const read::Die& cu = d.dies[0];
  EXPECT_EQ(d.name(cu), "k.ptx");
  std::optional<read::AttrValue> lang = d.attribute(cu, dw::DW_AT_language);
  ASSERT_TRUE(lang.has_value());
  EXPECT_EQ(lang->value, dw::DW_LANG_Mips_Assembler);

  uint32_t kernel = dieNamed(d, dw::DW_TAG_subprogram, "E_4_32");
  ASSERT_NE(kernel, UINT32_MAX);
  EXPECT_EQ(d.linkageName(d.dies[kernel]), "E_4_32");
  EXPECT_EQ(childNames(d, kernel, dw::DW_TAG_formal_parameter), (std::vector<std::string>{"data0", "data1", "n"}));
  // Ranges expanded; the 10-byte %val_f32_0 cannot be packed: no variable.
  EXPECT_EQ(childNames(d, kernel, dw::DW_TAG_variable),
            (std::vector<std::string>{"%p0", "%p1", "%r0", "%r1", "%r2", "%r3", "%f0", "%f1", "%f2", "%rd0", "%rd1",
                                      "%rd2", "%rd3", "%rd4", "%lidx0", "partial"}));
  EXPECT_EQ(childNames(d, 0, dw::DW_TAG_variable), (std::vector<std::string>{"table"}));
  std::vector<std::string> blocks = childNames(d, kernel, dw::DW_TAG_lexical_block);
  ASSERT_EQ(blocks.size(), 1u);
  uint32_t block = UINT32_MAX;
  for (uint32_t k = 0; k < d.dies.size(); ++k)
    if (d.dies[k].tag == dw::DW_TAG_lexical_block) block = k;
  EXPECT_EQ(childNames(d, block, dw::DW_TAG_variable), (std::vector<std::string>{"%acc"}));

  EXPECT_EQ(r_->a.stats.subprograms, 1u);
  EXPECT_EQ(r_->a.stats.parameters, 3u);
  EXPECT_EQ(r_->a.stats.registerVariables, 16u);  // 15 in the body, %acc in the block
  EXPECT_EQ(r_->a.stats.skippedRegisters, 1u);
  EXPECT_EQ(r_->a.stats.variables, 2u);
}

TEST_F(AnnotateDsl, LongRegisterNamesAreWarnedAboutByName) {
  std::vector<std::string> warnings;
  for (const Diagnostic& d : r_->a.diagnostics.items) {
    EXPECT_EQ(d.severity, Severity::warning);
    warnings.push_back(d.message);
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("register %val_f32_0 gets no variable"), std::string::npos) << warnings[0];
  EXPECT_EQ(r_->a.diagnostics.items[0].loc.line, 23u);  // its .reg line in the input
}

TEST_F(AnnotateDsl, CheckFindsNoErrors) {
  Diagnostics found = check::run(r_->outRead.module, r_->dwarf);
  for (const Diagnostic& d : found.items)
    if (d.severity == Severity::error) ADD_FAILURE() << d.format("out.ptx");
}

TEST(Annotate, RefusesFilesWithDebugInformation) {
  Result withInfo = annotateText(readFixture("chapter6.ptx"));
  EXPECT_FALSE(withInfo.a.written());
  ASSERT_EQ(withInfo.a.diagnostics.errorCount(), 1u);
  EXPECT_NE(withInfo.a.diagnostics.items[0].message.find("already has .debug_info"), std::string::npos);

  std::string lineinfo =
      ".version 7.5\n.target sm_80\n.address_size 64\n.file 1 \"a.cu\"\n.visible .entry k()\n{\n\t.loc 1 3 "
      "1\n\tret;\n}\n";
  Result withLines = annotateText(lineinfo);
  EXPECT_FALSE(withLines.a.written());
  ASSERT_EQ(withLines.a.diagnostics.errorCount(), 1u);
  EXPECT_EQ(withLines.a.diagnostics.items[0].loc.line, 4u);
  EXPECT_NE(withLines.a.diagnostics.items[0].message.find("--keep-lines"), std::string::npos);

  // --keep-lines: the .file/.loc stay as they are; the DWARF is added.
  Result kept = annotateText(lineinfo, {.keepLines = true});
  ASSERT_TRUE(kept.a.written());
  EXPECT_TRUE(kept.a.ptx.starts_with(".version 7.5\n.target sm_80\n.address_size 64\n.file 1 \"a.cu\"\n"));
  EXPECT_EQ(kept.outRead.module.locs.size(), 1u);
  EXPECT_EQ(kept.a.stats.locs, 0u);
  EXPECT_NE(dieNamed(kept.dwarf, dw::DW_TAG_subprogram, "k"), UINT32_MAX);
}

TEST(Annotate, KeepsCrlfLineEndings) {
  std::string in =
      ".version 7.5\r\n.target sm_80\r\n.address_size 64\r\n\r\n.visible .entry k()\r\n{\r\n\tret;\r\n}\r\n";
  Result r = annotateText(in);
  ASSERT_TRUE(r.a.written());
  EXPECT_NE(r.a.ptx.find(".target sm_80, debug\r\n.address_size 64\r\n.file\t1 \"k.ptx\"\r\n\r\n"), std::string::npos)
      << r.a.ptx;
  EXPECT_NE(r.a.ptx.find("\t.loc\t1 7 2\r\n\tret;\r\n"), std::string::npos) << r.a.ptx;
  for (size_t k = 0; k < r.a.ptx.size(); ++k)
    if (r.a.ptx[k] == '\n') {
      ASSERT_EQ(r.a.ptx[k - 1], '\r') << "at " << k;
    }
}

TEST(Annotate, RenamesLongRegistersThroughTheirFunction) {
  std::string in =
      ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_p)\n{\n"
      "\t.reg .f32 %val_f32_0;\n\t.reg .b32 %lidx_long_<12>;\n\t.reg .b32 temp_param_reg;\n"
      "\tmov.f32 %val_f32_0, 0f3F800000; // %val_f32_0 stays in this comment\n"
      "\tmov.u32 %lidx_long_11, %tid.x;\n\tmov.u32 temp_param_reg, %lidx_long_11;\n\tret;\n}\n";
  Result r = annotateText(in, {.renameRegisters = true});
  ASSERT_TRUE(r.a.written());
  EXPECT_EQ(r.a.stats.renamedRegisters, 3u);
  EXPECT_EQ(r.a.stats.skippedRegisters, 0u);
  EXPECT_EQ(r.a.diagnostics.items.size(), 0u);
  const std::string& t = r.a.ptx;
  EXPECT_NE(t.find("\t.reg .f32 %_a;\n\t.reg .b32 %_b<12>;\n\t.reg .b32 %_c;\n"), std::string::npos) << t;
  EXPECT_NE(t.find("\tmov.f32 %_a, 0f3F800000; // %val_f32_0 stays in this comment\n"), std::string::npos) << t;
  EXPECT_NE(t.find("\tmov.u32 %_b11, %tid.x;\n"), std::string::npos) << t;
  EXPECT_NE(t.find("\tmov.u32 %_c, %_b11;\n"), std::string::npos) << t;
  ASSERT_TRUE(r.outRead.ok());
  uint32_t k = dieNamed(r.dwarf, dw::DW_TAG_subprogram, "k");
  std::vector<std::string> vars = childNames(r.dwarf, k, dw::DW_TAG_variable);
  ASSERT_EQ(vars.size(), 14u);
  EXPECT_EQ(vars[0], "%_a");
  EXPECT_EQ(vars[1], "%_b0");
  EXPECT_EQ(vars[12], "%_b11");
  EXPECT_EQ(vars[13], "%_c");
}

// nvcc -O3 declares `temp_param_reg` in every call sequence: one warning at
// its first declaration, counting the rest, instead of one per declaration.
TEST(Annotate, ARepeatedUnpackableNameIsWarnedAboutOnce) {
  std::string in = ".version 7.5\n.target sm_80\n.address_size 64\n";
  for (const char* f : {"f", "g", "h"})
    in += std::string(".visible .func ") + f + "()\n{\n\t.reg .b32 temp_param_reg;\n\t{\n\t.reg .b32 temp_param_reg;\n"
          "\tmov.u32 temp_param_reg, 1;\n\t}\n\tret;\n}\n";
  in += ".visible .func k()\n{\n\t.reg .f32 %val_f32_0;\n\tmov.f32 %val_f32_0, 0f3F800000;\n\tret;\n}\n";
  Result r = annotateText(in);
  ASSERT_TRUE(r.a.written());
  EXPECT_EQ(r.a.stats.skippedRegisters, 7u);
  ASSERT_EQ(r.a.diagnostics.items.size(), 2u);
  const Diagnostic& temp = r.a.diagnostics.items[0];
  EXPECT_EQ(temp.loc.line, 6u);  // the first declaration
  EXPECT_NE(temp.message.find("register temp_param_reg gets no variable"), std::string::npos) << temp.message;
  EXPECT_NE(temp.message.find("(and at 5 more declarations of temp_param_reg)"), std::string::npos) << temp.message;
  const Diagnostic& once = r.a.diagnostics.items[1];
  EXPECT_NE(once.message.find("register %val_f32_0 gets no variable"), std::string::npos) << once.message;
  EXPECT_EQ(once.message.find("more declaration"), std::string::npos) << once.message;
}

// --replace: the Chapter 6 example's own debug sections and .file/.loc go,
// annotate's come instead.
TEST(Annotate, ReplacesDebugInformationWhenAsked) {
  Result r = annotateText(readFixture("chapter6.ptx"), {.sourceName = "chapter6.ptx", .replace = true});
  ASSERT_TRUE(r.a.written()) << (r.a.diagnostics.items.empty() ? "" : r.a.diagnostics.items[0].message);
  ASSERT_TRUE(r.outRead.ok());
  const ptx::Module& out = r.outRead.module;
  ASSERT_EQ(out.files.size(), 1u);
  EXPECT_EQ(out.files[0].path, "chapter6.ptx");
  std::set<uint32_t> lines;
  for (const ptx::Instruction& i : r.inRead.module.instructions) lines.insert(i.line);
  EXPECT_EQ(out.locs.size(), lines.size());
  for (const ptx::LocRecord& l : out.locs) EXPECT_TRUE(lines.count(l.line)) << l.line;
  EXPECT_EQ(r.a.ptx.find("call_example.cu"), std::string::npos);  // the old .file is gone
  EXPECT_EQ(r.a.ptx.find("lgenfe"), std::string::npos);           // and the old compile unit
  ASSERT_EQ(r.dwarf.units.size(), 1u);
  EXPECT_NE(dieNamed(r.dwarf, dw::DW_TAG_subprogram, "_Z3fooi"), UINT32_MAX);
  for (const Diagnostic& d : check::run(out, r.dwarf).items)
    if (d.severity == Severity::error) ADD_FAILURE() << d.format("out.ptx");
}

// The streaming form (what `ptxdump annotate -o` uses) hands over exactly the
// text the string form returns, in pieces, and nothing for a refused file.
TEST(Annotate, StreamsTheSameTextInPieces) {
  for (const char* fixture : {"annotate/dsl.ptx", "chapter6.ptx"}) {
    const std::string in = readFixture(fixture);
    ptx::ReadResult r = ptx::read(in, "k.ptx");
    for (bool rename : {false, true}) {
      const write::AnnotateOptions options{.renameRegisters = rename, .replace = true};
      write::Annotated whole = write::annotate(in, r.module, options);
      ASSERT_TRUE(whole.written()) << fixture;
      std::string streamed;
      size_t pieces = 0;
      write::Annotated parts = write::annotate(in, r.module, options, [&](std::string_view piece) {
        streamed.append(piece);
        ++pieces;
      });
      EXPECT_TRUE(parts.written());
      EXPECT_TRUE(parts.ptx.empty());
      EXPECT_GT(pieces, 1u);  // the edited text, then the sections
      EXPECT_EQ(streamed, whole.ptx) << fixture;
      EXPECT_EQ(parts.stats.registerVariables, whole.stats.registerVariables);
    }
    // Without --replace chapter6.ptx is refused: nothing reaches the sink.
    size_t handed = 0;
    write::Annotated refused = write::annotate(in, r.module, {}, [&](std::string_view) { ++handed; });
    EXPECT_EQ(refused.written(), std::string(fixture) == "annotate/dsl.ptx");
    if (!refused.written()) {
      EXPECT_EQ(handed, 0u);
    }
  }
}

namespace {

// Functions of registers (a range, long names, a name cuda-gdb cannot read),
// `{ }` blocks and module variables: enough instructions (over 20,000) that
// annotate builds the DWARF on a second thread when it may.
std::string largeModule() {
  std::string text = ".version 7.5\n.target sm_80\n.address_size 64\n.global .align 4 .b8 g[16];\n";
  for (int f = 0; f < 60; ++f) {
    const std::string n = std::to_string(f);
    text += ".visible .entry k" + n + "(.param .u64 p" + n + ")\n{\n\t.reg .b32 %r<40>;\n\t.reg .f32 %long_name_" +
            n + ";\n\t.reg .b32 temp_param_reg;\n";
    for (int i = 0; i < 400; ++i) {
      if (i % 100 == 0) text += "\t{\n\t.reg .b32 %in<2>;\n\tmov.u32 %in1, " + std::to_string(i) + ";\n\t}\n";
      text += "\tadd.s32 %r" + std::to_string(i % 40) + ", %r" + std::to_string((i + 1) % 40) + ", 1;\n";
    }
    text += "\tmov.f32 %long_name_" + n + ", 0f00000000;\n\tret;\n}\n";
  }
  return text;
}

}  // namespace

TEST(Annotate, ASecondThreadWritesWhatOneThreadWrites) {
  const std::string in = largeModule();
  ptx::ReadResult r = ptx::read(in, "large.ptx");
  ASSERT_TRUE(r.ok());
  ASSERT_GT(r.module.instructions.size(), 20000u);
  for (bool rename : {false, true}) {
    write::AnnotateOptions one{.renameRegisters = rename, .threads = 1}, two{.renameRegisters = rename, .threads = 2};
    work::reset();
    write::Annotated a = write::annotate(in, r.module, one);
    const uint64_t placementsOnOne = work::steps(work::annotatePlacement);
    work::reset();
    write::Annotated b = write::annotate(in, r.module, two);
    ASSERT_TRUE(a.written() && b.written());
    EXPECT_EQ(a.ptx, b.ptx);
    EXPECT_EQ(work::steps(work::annotatePlacement), placementsOnOne);  // the caller sees the builder's work too
    EXPECT_EQ(a.stats.registerVariables, b.stats.registerVariables);
    EXPECT_EQ(a.stats.locs, b.stats.locs);
    EXPECT_EQ(a.stats.renamedRegisters, b.stats.renamedRegisters);
    ASSERT_EQ(a.diagnostics.items.size(), b.diagnostics.items.size());
    for (size_t i = 0; i < a.diagnostics.items.size(); ++i)
      EXPECT_EQ(a.diagnostics.items[i].message, b.diagnostics.items[i].message);
    // %r<40>, two per block, and with renaming %long_name_N and temp_param_reg too
    EXPECT_EQ(a.stats.registerVariables, 60u * (40 + 2 * 4 + (rename ? 2 : 0)));
  }
}

// A range whose later names outgrow 8 bytes: the names that fit get
// variables, the ones that do not share one warning.
TEST(Annotate, ARangeGivesVariablesToTheNamesThatFit) {
  const std::string in =
      ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %abcdef<12>;\n"
      "\tmov.u32 %abcdef11, 1;\n\tret;\n}\n";
  ptx::ReadResult r = ptx::read(in, "k.ptx");
  ASSERT_TRUE(r.ok());
  write::Annotated a = write::annotate(in, r.module);
  ASSERT_TRUE(a.written());
  EXPECT_EQ(a.stats.registerVariables, 10u);  // %abcdef0 .. %abcdef9
  EXPECT_EQ(a.stats.skippedRegisters, 2u);
  ASSERT_EQ(a.diagnostics.items.size(), 1u);  // one for the range's tail, however long
  EXPECT_NE(a.diagnostics.items[0].message.find("registers %abcdef10 .. %abcdef11 of %abcdef<12> get no variables"),
            std::string::npos)
      << a.diagnostics.items[0].message;
  EXPECT_EQ(a.diagnostics.items[0].loc.line, 6u);

  // Four billion registers declared in a line: the hundred whose names fit get variables
  // (%abcde0 .. %abcde99), the rest one warning, in time linear in what is written.
  const std::string huge =
      ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %abcde<4000000000>;\n"
      "\tret;\n}\n";
  ptx::ReadResult h = ptx::read(huge, "h.ptx");
  ASSERT_TRUE(h.ok());
  write::Annotated b = write::annotate(huge, h.module);
  ASSERT_TRUE(b.written());
  EXPECT_EQ(b.stats.registerVariables, 100u);
  EXPECT_EQ(b.stats.skippedRegisters, 3999999900u);
  ASSERT_EQ(b.diagnostics.items.size(), 1u);
  EXPECT_NE(b.diagnostics.items[0].message.find("registers %abcde100 .. %abcde3999999999 of %abcde<4000000000>"),
            std::string::npos);
}
