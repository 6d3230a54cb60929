// The producer's line information: the file table, the .loc emitter, labels,
// and Program::assemble (the complete module, read back by our own reader).
#include "ptxdwarf/write/line_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ptxdwarf/check/assembled.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/program.h"

using namespace ptxdwarf;
using namespace ptxdwarf::write;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

template <class F>
std::string buildErrorOf(F&& f) {
  try {
    f();
  } catch (const BuildError& e) {
    return e.what();
  }
  return "(no BuildError)";
}

}  // namespace

TEST(FileTable, InternsPathsAndNumbersThemFromOne) {
  FileTable t;
  EXPECT_EQ(t.add("/src/a.cu"), 1u);
  EXPECT_EQ(t.add("/src/b.h", 1700000000, 123), 2u);
  EXPECT_EQ(t.add("/src/a.cu"), 1u);
  EXPECT_EQ(t.add("/src/b.h"), 2u);  // no timestamp given: the recorded one stays
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.find("/src/b.h"), 2u);
  EXPECT_EQ(t.find("/src/c.h"), std::nullopt);
  EXPECT_EQ(t.file(2).timestamp, 1700000000u);
  std::string out;
  t.write(out);
  EXPECT_EQ(out, ".file\t1 \"/src/a.cu\"\n.file\t2 \"/src/b.h\", 1700000000, 123\n");
}

TEST(FileTable, SizeWithoutTimestampWritesTimestampZero) {
  FileTable t;
  t.add("x.cu", std::nullopt, 42);
  std::string out;
  t.write(out);
  EXPECT_EQ(out, ".file\t1 \"x.cu\", 0, 42\n");
}

TEST(FileTable, RefusesConflictsAndUnwritablePaths) {
  FileTable t;
  t.add("/src/a.cu", 5);
  EXPECT_EQ(buildErrorOf([&] { t.add("/src/a.cu", 6); }), "file '/src/a.cu' (id 1) already has timestamp 5, not 6");
  EXPECT_EQ(t.add("/src/a.cu", 5, 9), 1u);  // adding what was not known is fine
  EXPECT_EQ(t.file(1).size, 9u);
  EXPECT_NE(buildErrorOf([&] { t.add("a\"b.cu"); }).find("cannot be written in a PTX .file string"), std::string::npos);
  EXPECT_NE(buildErrorOf([&] { t.add("a\nb.cu"); }).find("control character"), std::string::npos);
  EXPECT_EQ(buildErrorOf([&] { t.add(""); }), "a .file path cannot be empty");
  EXPECT_EQ(buildErrorOf([&] { (void)t.file(2); }), "file id 2 is not in the file table (it has 1 files, ids 1..1)");
  EXPECT_EQ(t.size(), 1u);
}

TEST(Labels, NumbersEachKindAsNvccDoes) {
  Labels l;
  Labels::Function f0 = l.function(), f1 = l.function();
  EXPECT_EQ(f0.begin, "$L__func_begin0");
  EXPECT_EQ(f0.end, "$L__func_end0");
  EXPECT_EQ(f1.begin, "$L__func_begin1");
  EXPECT_EQ(l.temporary(), "$L__tmp0");
  EXPECT_EQ(l.temporary(), "$L__tmp1");
  EXPECT_EQ(l.string(), "$L__info_string0");
  Labels mine("$my__");
  EXPECT_EQ(mine.temporary(), "$my__tmp0");
}

class Emitter : public testing::Test {
 protected:
  FileTable files;
  Labels labels;
  unsigned main = files.add("/src/main.cu"), helper = files.add("/src/helper.h");
};

TEST_F(Emitter, DropsRepeatedLocations) {
  LineEmitter e(files, labels);
  std::string out;
  EXPECT_EQ(e.loc(out, {main, 5, 3}), 1u);
  EXPECT_EQ(e.loc(out, {main, 5, 3}), 0u);
  EXPECT_EQ(e.loc(out, {main, 5, 4}), 1u);  // another column is another location
  EXPECT_EQ(e.loc(out, {main, 5, 3}), 1u);  // not the previous one: written again
  EXPECT_EQ(lines(out), (std::vector<std::string>{"\t.loc\t1 5 3", "\t.loc\t1 5 4", "\t.loc\t1 5 3"}));
  e.beginFunction();  // a new function's first location is always written
  EXPECT_EQ(e.loc(out, {main, 5, 3}), 1u);
}

TEST_F(Emitter, WritesTheCallSiteFirstWhenNoLocUsedIt) {
  LineEmitter e(files, labels);
  std::string out;
  std::vector<InlinedCall> stack{{"_Z6helperi", {main, 7, 9}}};
  EXPECT_EQ(e.loc(out, {helper, 3, 5}, stack), 2u);
  EXPECT_EQ(e.loc(out, {helper, 4, 5}, stack), 1u);  // the call site is used now
  EXPECT_EQ(e.loc(out, {helper, 4, 5}, stack), 0u);
  EXPECT_EQ(lines(out), (std::vector<std::string>{
                            "\t.loc\t1 7 9",
                            "\t.loc\t2 3 5, function_name $L__info_string0, inlined_at 1 7 9",
                            "\t.loc\t2 4 5, function_name $L__info_string0, inlined_at 1 7 9",
                        }));
  // The same position outside the inlined code is another location.
  EXPECT_EQ(e.loc(out, {helper, 4, 5}), 1u);
  EXPECT_EQ(lines(out).back(), "\t.loc\t2 4 5");
}

TEST_F(Emitter, NoExtraLineWhenTheCallerAlreadyWroteTheCallSite) {
  LineEmitter e(files, labels);
  std::string out;
  e.loc(out, {main, 7, 9});
  std::vector<InlinedCall> stack{{"_Z6helperi", {main, 7, 9}}};
  EXPECT_EQ(e.loc(out, {helper, 3, 5}, stack), 1u);
  // A new function forgets the call sites used: they are written again.
  e.beginFunction();
  EXPECT_EQ(e.loc(out, {helper, 3, 5}, stack), 2u);
}

TEST_F(Emitter, NestedInliningResolvesToTheFullStack) {
  LineEmitter e(files, labels);
  std::string out;
  // kernel (main.cu) calls outer() at 1 10 3; outer (helper.h:20) calls inner() at 2 21 7; inner's code at 2 5 1.
  std::vector<InlinedCall> stack{{"outer", {main, 10, 3}}, {"inner", {helper, 21, 7}}};
  EXPECT_EQ(e.loc(out, {helper, 5, 1}, stack), 3u);
  EXPECT_EQ(lines(out), (std::vector<std::string>{
                            "\t.loc\t1 10 3",
                            "\t.loc\t2 21 7, function_name $L__info_string0, inlined_at 1 10 3",
                            "\t.loc\t2 5 1, function_name $L__info_string1, inlined_at 2 21 7",
                        }));
  const SectionImage& s = e.strings();
  EXPECT_EQ(s.name, ".debug_str");
  EXPECT_EQ(std::string(s.bytes.begin(), s.bytes.end()), std::string("outer\0inner\0", 12));
  ASSERT_EQ(s.labels.size(), 2u);
  EXPECT_EQ(s.labels[0].name, "$L__info_string0");
  EXPECT_EQ(s.labels[0].offset, 0u);
  EXPECT_EQ(s.labels[1].name, "$L__info_string1");
  EXPECT_EQ(s.labels[1].offset, 6u);

  // The same call site reached through another caller: a different context,
  // so the call site is written again in that context before inner's code.
  std::vector<InlinedCall> other{{"other", {main, 30, 3}}, {"inner", {helper, 21, 7}}};
  out.clear();
  EXPECT_EQ(e.loc(out, {helper, 5, 1}, other), 3u);
  EXPECT_EQ(lines(out), (std::vector<std::string>{
                            "\t.loc\t1 30 3",
                            "\t.loc\t2 21 7, function_name $L__info_string2, inlined_at 1 30 3",
                            "\t.loc\t2 5 1, function_name $L__info_string1, inlined_at 2 21 7",
                        }));
  EXPECT_EQ(e.strings().labels.size(), 3u);  // "inner" keeps its one string
}

TEST_F(Emitter, RefusesInlinedCodeBelowVersion72) {
  LineEmitter e(files, labels, {.version = {7, 1, true}});
  std::string out;
  std::vector<InlinedCall> stack{{"_Z6helperi", {main, 7, 9}}};
  EXPECT_EQ(buildErrorOf([&] {
              e.loc(out, {helper, 3, 5}, stack);
            }),
            "`.loc ... function_name, inlined_at` (inlined code of '_Z6helperi') needs PTX .version 7.2 or later; "
            "this module is 7.1 (raise the version, or set LineOptions::flattenInlined to write the innermost "
            "location alone)");
  EXPECT_EQ(out, "");
  EXPECT_EQ(e.loc(out, {helper, 3, 5}), 1u);  // plain locations are fine
}

TEST_F(Emitter, FlattensInlinedCodeOnRequest) {
  LineEmitter e(files, labels, {.version = {7, 0, true}, .flattenInlined = true});
  std::string out;
  std::vector<InlinedCall> stack{{"_Z6helperi", {main, 7, 9}}};
  EXPECT_EQ(e.loc(out, {helper, 3, 5}, stack), 1u);
  EXPECT_EQ(out, "\t.loc\t2 3 5\n");
  EXPECT_TRUE(e.strings().bytes.empty());
}

TEST_F(Emitter, RefusesFilesTheTableDoesNotHave) {
  LineEmitter e(files, labels);
  std::string out;
  EXPECT_EQ(buildErrorOf([&] {
              e.loc(out, {3, 1, 1});
            }),
            ".loc 3 1 1 names file id 3, which is not in the file table (it has 2 files)");
  std::vector<InlinedCall> stack{{"f", {0, 7, 9}}};
  EXPECT_EQ(buildErrorOf([&] {
              e.loc(out, {main, 1, 1}, stack);
            }),
            "inlined_at 0 7 9 names file id 0, which is not in the file table (it has 2 files)");
  EXPECT_EQ(out, "");
}

// ---- Program ---------------------------------------------------------------------

namespace {

// A kernel with a location per instruction and a subprogram describing it.
struct SmallProgram {
  Program p;
  Builder b;
  unsigned main = 0;
  SmallProgram() {
    main = p.files().add("/src/small/main.cu");
    p.code() +=
        ".visible .entry _Z1kPi(\n\t.param .u64 _Z1kPi_param_0\n)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n";
    Labels::Function f = p.beginFunction();
    p.loc({main, 3, 5});
    p.code() += "\tld.param.u64 %rd1, [_Z1kPi_param_0];\n";
    p.loc({main, 3, 5});
    p.code() += "\tmov.u32 %r1, %tid.x;\n";
    p.loc({main, 4, 1});
    p.code() += "\tst.global.u32 [%rd1], %r1;\n\tret;\n";
    p.endFunction();
    p.code() += "}\n";
    b.compileUnit({.producer = "test", .name = "main.cu", .compDir = "/src/small"});
    b.subprogram({.name = "k",
                  .linkageName = "_Z1kPi",
                  .declFile = main,
                  .declLine = 2,
                  .lowPc = SymbolRef{f.begin},
                  .highPc = SymbolRef{f.end}});
  }
};

}  // namespace

TEST(Program, AssemblesHeaderFilesCodeAndSectionsInThatOrder) {
  SmallProgram s;
  Assembled m = s.p.assemble(&s.b.unit());
  ASSERT_TRUE(m.written()) << (m.diagnostics.items.empty() ? "" : m.diagnostics.items[0].message);
  EXPECT_EQ(m.diagnostics.items.size(), 0u);
  std::vector<std::string> l = lines(m.ptx);
  ASSERT_GE(l.size(), 6u);
  EXPECT_EQ(l[0], ".version 7.5");
  EXPECT_EQ(l[1], ".target sm_80");
  EXPECT_EQ(l[2], ".address_size 64");
  EXPECT_EQ(l[4], ".file\t1 \"/src/small/main.cu\"");
  EXPECT_TRUE(m.ptx.ends_with("\n"));
  size_t code = m.ptx.find(".visible .entry"), info = m.ptx.find(".section\t.debug_info");
  ASSERT_NE(info, std::string::npos) << m.ptx;
  EXPECT_LT(code, info);

  // Read back: the .file table, one .loc per distinct location, the labels.
  ptx::ReadResult r = ptx::read(m.ptx, "small.ptx");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.module.files.size(), 1u);
  EXPECT_EQ(r.module.files[0].index, 1u);
  EXPECT_EQ(r.module.files[0].path, "/src/small/main.cu");
  std::vector<std::tuple<unsigned, unsigned, unsigned, int32_t>> locs;
  for (const ptx::LocRecord& x : r.module.locs) locs.emplace_back(x.file, x.line, x.col, x.function);
  EXPECT_EQ(locs, (std::vector<std::tuple<unsigned, unsigned, unsigned, int32_t>>{{1, 3, 5, 0}, {1, 4, 1, 0}}));
  EXPECT_NE(r.module.findLabel("$L__func_begin0"), nullptr);
  EXPECT_NE(r.module.findLabel("$L__func_end0"), nullptr);
  EXPECT_NE(r.module.section(".debug_abbrev"), nullptr);
  EXPECT_EQ(r.module.section(".debug_str"), nullptr);  // nothing inlined
}

TEST(Program, RunsCheckOnTheResultWhenAsked) {
  SmallProgram s;
  Assembled clean = check::assembleAndCheck(s.p, &s.b.unit());
  ASSERT_TRUE(clean.written());
  EXPECT_FALSE(clean.diagnostics.hasErrors());
  // Notes only (the encoder's pubnames length convention is reported as one).
  for (const Diagnostic& d : clean.diagnostics.items)
    if (d.severity != Severity::note) ADD_FAILURE() << d.format("clean");

  // A low_pc label the code does not define: check finds it at its PTX line.
  s.b.subprogram({.name = "ghost", .linkageName = "_Z1kPi", .lowPc = SymbolRef{"$L__nowhere"}});
  Assembled bad = check::assembleAndCheck(s.p, &s.b.unit(), {.filename = "small.ptx"});
  ASSERT_TRUE(bad.written());
  bool found = false;
  for (const Diagnostic& d : bad.diagnostics.items)
    if (d.rule == "symbol-defined" && d.message.find("$L__nowhere") != std::string::npos) {
      found = true;
      EXPECT_GT(d.loc.line, 0u);
    }
  EXPECT_TRUE(found);
}

TEST(Program, RefusesDeclFilesOutsideTheFileTable) {
  SmallProgram s;
  s.b.variable(s.b.root(), {.name = "x", .declFile = 2, .declLine = 1});
  Assembled m = s.p.assemble(&s.b.unit());
  EXPECT_FALSE(m.written());
  ASSERT_EQ(m.diagnostics.items.size(), 1u);
  EXPECT_EQ(m.diagnostics.items[0].message,
            "DW_AT_decl_file 2 of DIE 2 (unit 0) is not in the file table (it has 1 files)");
  EXPECT_EQ(m.diagnostics.items[0].rule, "assemble");
}

TEST(Program, RefusesDeclFilesOutsideTheFileTableOfEncodedDies) {
  SmallProgram s;
  s.b.registerVariable(s.b.root(), {.reg = "%r1", .declFile = 3, .declLine = 1});
  Assembled m = s.p.assemble(&s.b.unit());
  EXPECT_FALSE(m.written());
  ASSERT_EQ(m.diagnostics.items.size(), 1u);
  EXPECT_EQ(m.diagnostics.items[0].message,
            "DW_AT_decl_file 3 of DIE 2 (unit 0) is not in the file table (it has 1 files)");
}

TEST(Program, RefusesHeaderDirectivesInTheCode) {
  Program p;
  p.code() += "// .version in a comment is fine\n  .file 1 \"x.cu\"\n";
  Assembled m = p.assemble(nullptr);
  EXPECT_FALSE(m.written());
  ASSERT_EQ(m.diagnostics.items.size(), 1u);
  EXPECT_EQ(m.diagnostics.items[0].message,
            "line 2 of the code writes `.file`, which assemble() writes from the program's options and file table");
}

TEST(Program, InlinedStringsGoIntoDebugStrAfterTheCode) {
  Program p;
  unsigned main = p.files().add("/src/main.cu"), helper = p.files().add("/src/helper.h");
  p.code() += ".visible .entry k()\n{\n";
  p.beginFunction();
  std::vector<InlinedCall> stack{{"_Z6helperv", {main, 7, 9}}};
  p.loc({helper, 3, 5}, stack);
  p.code() += "\tret;\n";
  p.endFunction();
  p.code() += "}\n";
  Assembled m = check::assembleAndCheck(p, nullptr);
  ASSERT_TRUE(m.written());
  ptx::ReadResult r = ptx::read(m.ptx);
  ASSERT_TRUE(r.ok());
  const SectionImage* str = r.module.section(".debug_str");
  ASSERT_NE(str, nullptr);
  EXPECT_EQ(std::string(str->bytes.begin(), str->bytes.end()), std::string("_Z6helperv\0", 11));
  ASSERT_NE(str->findLabel("$L__info_string0"), nullptr);
  EXPECT_EQ(str->findLabel("$L__info_string0")->offset, 0u);
  EXPECT_LT(m.ptx.find("ret;"), m.ptx.find(".section\t.debug_str"));
  EXPECT_EQ(r.module.locs.size(), 2u);
}

TEST(Program, ValidatesItsOptions) {
  EXPECT_EQ(buildErrorOf([] { Program p({.addressSize = 16}); }), ".address_size must be 32 or 64, not 16");
  Program p;
  EXPECT_EQ(buildErrorOf([&] { p.endFunction(); }), "endFunction() without beginFunction()");
}
