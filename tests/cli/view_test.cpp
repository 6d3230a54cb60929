// ptxdwarf::view: statistics (view/statistics.h) and type layouts
// (view/types.h), and how ptxdump prints them (ptxdwarf/print/views.h).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/view/types.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/print/views.h"

using namespace ptxdwarf;
using namespace ptxdwarf::dw;
using write::Builder;
using write::DieId;
using write::kNoDie;
using write::Location;
using write::SymbolRef;

namespace {

struct Loaded {
  ptx::ReadResult read;
  read::Dwarf dwarf;
};

// The Dwarf keeps pointers into the module's sections: keep both together.
std::unique_ptr<Loaded> load(const std::string& text) {
  auto l = std::make_unique<Loaded>();
  l->read = ptx::read(text, "test.ptx");
  l->dwarf = read::decode(l->read.module.sections);
  return l;
}

std::string fixture(const std::string& name) {
  std::ifstream f(std::string(PTXDWARF_FIXTURES) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A kernel of ten instructions: $L__tmp0 stands for the fifth.
constexpr const char* kKernel = R"(.version 8.0
.target sm_90, debug
.address_size 64
.file 1 "k.cu"
.visible .entry k(.param .u32 k_param_0)
{
.reg .b32 %r<4>;
$L__func_begin0:
 mov.u32 %r1, 1;
 mov.u32 %r1, 2;
 mov.u32 %r1, 3;
 mov.u32 %r1, 4;
$L__tmp0:
 mov.u32 %r2, 5;
 mov.u32 %r2, 6;
 mov.u32 %r2, 7;
 mov.u32 %r2, 8;
 mov.u32 %r2, 9;
 mov.u32 %r2, 10;
$L__func_end0:
}
)";

std::string withSections(const write::Unit& unit) {
  Diagnostics diags;
  std::vector<SectionImage> sections = write::encode(unit, {}, diags);
  EXPECT_FALSE(diags.hasErrors());
  return std::string(kKernel) + write::writeSections(sections, {}, diags);
}

// k(p) { x live in [begin, tmp0), y in [tmp0, end), z nowhere }.
Builder kernelUnit(bool cuLowPc) {
  Builder b;
  write::CompileUnitDesc cu{.producer = "p", .name = "k.cu"};
  if (!cuLowPc) cu.lowPc.reset();
  b.compileUnit(cu);
  DieId intType = b.baseType("int", DW_ATE_signed, 4);
  DieId k = b.subprogram({.name = "k",
                          .linkageName = "k",
                          .declFile = 1,
                          .declLine = 1,
                          .type = kNoDie,
                          .lowPc = SymbolRef{"$L__func_begin0"},
                          .highPc = SymbolRef{"$L__func_end0"}});
  b.formalParameter(k, {.name = "p",
                        .declFile = 1,
                        .declLine = 1,
                        .type = intType,
                        .location = Location::symbol({"k_param_0"}, ptx::StateSpace::param)});
  b.variable(k, {.name = "x",
                 .declFile = 1,
                 .declLine = 2,
                 .type = intType,
                 .location = Location::list({{{"$L__func_begin0"}, {"$L__tmp0"}, Location::reg("%r1")}})});
  b.variable(k, {.name = "y",
                 .declFile = 1,
                 .declLine = 3,
                 .type = intType,
                 .location = Location::list({{{"$L__tmp0"}, {"$L__func_end0"}, Location::reg("%r2")}})});
  b.variable(k, {.name = "z", .declFile = 1, .declLine = 4, .type = intType});
  return b;
}

TEST(Statistics, Chapter6CountsAreLlvmDwarfdumps) {
  // llvm-dwarfdump 14 --statistics on the cubin ptxas -g makes of chapter6.ptx.
  auto l = load(fixture("chapter6.ptx"));
  view::Statistics s = view::computeStatistics(l->read.module, l->dwarf);
  EXPECT_EQ(s.functions, 2u);
  EXPECT_EQ(s.functionsWithLocation, 2u);
  EXPECT_EQ(s.inlinedFunctions, 0u);
  EXPECT_EQ(s.uniqueSourceVariables, 3u);
  EXPECT_EQ(s.sourceVariables, 3u);
  EXPECT_EQ(s.sourceVariablesWithLocation, 3u);
  EXPECT_EQ(s.params, 3u);
  EXPECT_EQ(s.paramsWithSourceLocation, 3u);
  EXPECT_EQ(s.paramsWithType, 3u);
  EXPECT_EQ(s.paramsWithBinaryLocation, 3u);
  EXPECT_EQ(s.localVars, 0u);
  EXPECT_EQ(s.variableCoverage.processed, 3u);
  EXPECT_EQ(s.variableCoverage.buckets[view::kCoverageBuckets - 1], 3u);  // expressions cover their whole scope
  // Each function's scope is the instructions between its labels.
  uint64_t instructions = 0;
  for (const ptx::Function& f : l->read.module.functions) {
    const ptx::Label* begin = l->read.module.findLabel(f.name == "_Z3fooi" ? "func_begin0" : "func_begin1");
    const ptx::Label* end = l->read.module.findLabel(f.name == "_Z3fooi" ? "func_end0" : "func_end1");
    ASSERT_TRUE(begin && end);
    instructions += end->instruction - begin->instruction;
  }
  EXPECT_GT(instructions, 0u);
  EXPECT_EQ(s.instructionsWithinFunctions, instructions);
}

TEST(Statistics, CoverageIsMeasuredInPtxInstructions) {
  auto l = load(withSections(kernelUnit(true).unit()));
  ASSERT_TRUE(l->read.ok());
  view::Statistics s = view::computeStatistics(l->read.module, l->dwarf);
  EXPECT_EQ(s.instructionsWithinFunctions, 10u);
  EXPECT_EQ(s.params, 1u);
  EXPECT_EQ(s.localVars, 3u);
  EXPECT_EQ(s.localVarsWithBinaryLocation, 2u);  // z has none
  EXPECT_EQ(s.sourceVariables, 4u);
  EXPECT_EQ(s.sourceVariablesWithLocation, 3u);
  // x: 4 of 10 -> [40%,50%); y: 6 of 10 -> [60%,70%); z: 0%; p: 100%.
  const auto& v = s.variableCoverage.buckets;
  EXPECT_EQ(s.variableCoverage.processed, 4u);
  EXPECT_EQ(v[0], 1u);
  EXPECT_EQ(v[5], 1u);
  EXPECT_EQ(v[7], 1u);
  EXPECT_EQ(v[11], 1u);
  EXPECT_EQ(s.localVarCoverage.processed, 3u);
  EXPECT_EQ(s.paramCoverage.buckets[11], 1u);
  EXPECT_EQ(s.variables.inParentScope, 40u);
  EXPECT_EQ(s.variables.coveredInParentScope, 20u);
  EXPECT_EQ(s.localVarScopes.coveredInParentScope, 10u);
  EXPECT_EQ(s.coveredInAnyScope, 20u);

  std::string json;
  ptxdwarf::print::statisticsJson("test.ptx", s, json);
  EXPECT_NE(json.find("\n  \"#local vars with binary location\": 2,"), std::string::npos) << json;
  EXPECT_NE(json.find("\n  \"#variables with [40%,50%) of parent scope covered by DW_AT_location\": 1,"),
            std::string::npos);
  EXPECT_NE(json.find("\n  \"sum_all_variables(#instructions in parent scope)\": 40,"), std::string::npos);
}

TEST(Statistics, ListsWithoutABaseAddressAreNoLocationAsForLlvm) {
  // LLVM 14 reads a DWARF 2 list entry as an offset from the unit's low_pc and
  // fails the list when there is none: x and y count as without location.
  auto l = load(withSections(kernelUnit(false).unit()));
  view::Statistics s = view::computeStatistics(l->read.module, l->dwarf);
  EXPECT_EQ(s.localVars, 3u);
  EXPECT_EQ(s.localVarsWithBinaryLocation, 0u);
  EXPECT_EQ(s.variableCoverage.buckets[0], 3u);
}

const view::TypeLayout* findType(const std::vector<view::TypeLayout>& types, std::string_view name) {
  for (const view::TypeLayout& t : types)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(Types, MembersBitFieldsHolesAndPadding) {
  Builder b;
  b.compileUnit({.producer = "p", .name = "t.cu"});
  DieId charType = b.baseType("char", DW_ATE_signed_char, 1);
  DieId intType = b.baseType("unsigned int", DW_ATE_unsigned, 4);
  DieId doubleType = b.baseType("double", DW_ATE_float, 8);
  DieId base = b.aggregate(DW_TAG_structure_type, "Base", 8);
  b.member(base, {.name = "a", .type = intType, .offset = 0});
  b.member(base, {.name = "b", .type = charType, .offset = 4});
  DieId s = b.aggregate(DW_TAG_structure_type, "S", 32);
  b.member(s, {.name = "__b_4Base", .type = base, .offset = 0});  // nvcc's spelling of a base class
  b.member(s, {.name = "c", .type = charType, .offset = 8});
  // DWARF 2 bit fields: DW_AT_bit_offset counts from the storage unit's most significant bit.
  b.member(s, {.name = "lo", .type = intType, .offset = 12, .byteSize = 4, .bitSize = 3, .bitOffset = 29});
  b.member(s, {.name = "hi", .type = intType, .offset = 12, .byteSize = 4, .bitSize = 5, .bitOffset = 24});
  b.member(s, {.name = "d", .type = doubleType, .offset = 16});
  DieId arr = b.arrayType(charType);
  b.subrange(arr, 6);
  b.member(s, {.name = "name", .type = arr, .offset = 24});
  DieId u = b.aggregate(DW_TAG_union_type, "U", 8);
  b.member(u, {.name = "d", .type = doubleType, .offset = 0});
  b.member(u, {.name = "c", .type = charType, .offset = 0});
  b.typedefType("S_t", s);
  b.pointerType(s, cuda::ADDR_global_space);
  auto l = load(withSections(b.unit()));
  ASSERT_TRUE(l->read.ok());
  std::vector<view::TypeLayout> types = view::typeLayouts(l->dwarf);

  const view::TypeLayout* S = findType(types, "S");
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(S->size, 32u);
  ASSERT_EQ(S->members.size(), 6u);
  EXPECT_TRUE(S->members[0].isBase);
  EXPECT_EQ(S->members[0].size, 8u);
  EXPECT_EQ(S->members[1].holeAfterBits, 3u * 8);  // c at 8, the bit fields' unit at 12
  const view::MemberLayout& lo = S->members[2];
  EXPECT_EQ(lo.offset, 12u);
  EXPECT_EQ(lo.bitOffset, 0u);  // 32 - 29 - 3
  EXPECT_EQ(lo.bitSize, 3u);
  const view::MemberLayout& hi = S->members[3];
  EXPECT_EQ(hi.bitOffset, 3u);           // 32 - 24 - 5
  EXPECT_EQ(hi.holeAfterBits, 32u - 8);  // bits 8..31 of the unit unused
  EXPECT_EQ(S->members[5].size, 6u);
  EXPECT_EQ(S->members[5].type, "char[6]");
  EXPECT_EQ(S->paddingBits, 2u * 8);

  const view::TypeLayout* U = findType(types, "U");
  ASSERT_NE(U, nullptr);
  EXPECT_EQ(U->kind, view::TypeKind::union_);
  EXPECT_EQ(U->members[1].offset, 0u);
  EXPECT_EQ(U->members[0].holeAfterBits, 0u);

  const view::TypeLayout* T = findType(types, "S_t");
  ASSERT_NE(T, nullptr);
  EXPECT_EQ(T->kind, view::TypeKind::typedef_);
  EXPECT_EQ(T->size, 32u);
  EXPECT_EQ(T->target, "S");
  const view::TypeLayout* P = findType(types, "S *");
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->addressClass, cuda::ADDR_global_space);
  EXPECT_EQ(P->size, 8u);

  // pahole's layout.
  std::string text;
  ptxdwarf::print::typesText({*S}, text);
  EXPECT_NE(text.find("struct S {\n\tBase"), std::string::npos) << text;
  EXPECT_NE(text.find("<ancestor>;"), std::string::npos) << text;
  EXPECT_NE(text.find("\tunsigned int lo:3;"), std::string::npos) << text;
  EXPECT_NE(text.find("/*    12: 3     4 */"), std::string::npos) << text;
  EXPECT_NE(text.find("\tchar name[6];"), std::string::npos) << text;
  EXPECT_NE(text.find("\n\t/* XXX 3 bytes hole, try to pack */\n\n"), std::string::npos) << text;
  EXPECT_NE(text.find("/* XXX 3 bytes hole, try to pack */\n\n\tdouble d;"), std::string::npos) << text;
  EXPECT_NE(text.find("/* padding: 2 */"), std::string::npos) << text;
  std::string json;
  ptxdwarf::print::typesJson("t.ptx", {*S}, json);
  EXPECT_NE(json.find("{\"name\":\"S\",\"kind\":\"struct\",\"size\":32,"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"name\":\"lo\",\"type\":\"unsigned int\",\"offset\":12,\"size\":4,\"bit_size\":3,"
                      "\"bit_offset\":0,"),
            std::string::npos)
      << json;
}

TEST(Selection, ABadRegexIsReported) {
  ptxdwarf::print::DumpOptions o;
  o.regex = true;
  o.names = {"a(b"};
  std::string error;
  EXPECT_FALSE(ptxdwarf::print::validNamePatterns(o, error));
  EXPECT_NE(error.find("a(b"), std::string::npos);
  o.names = {"^_Z.*i$"};
  EXPECT_TRUE(ptxdwarf::print::validNamePatterns(o, error));
}

TEST(Selection, NameSelectsDiesWithParentsAndChildren) {
  auto l = load(fixture("chapter6.ptx"));
  ptxdwarf::print::DumpOptions o;
  o.names = {"_Z3fooii"};
  std::string out;
  ptxdwarf::print::dumpText(l->read.module, l->dwarf, o, out);
  EXPECT_EQ(out.find(".debug_info contents"), std::string::npos);
  EXPECT_NE(out.find("\n0x00000045: DW_TAG_subprogram\n              DW_AT_MIPS_linkage_name\t(\"_Z3fooii\")"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("DW_TAG_formal_parameter"), std::string::npos);
  o.showChildren = true;
  o.showParents = true;
  o.showForm = true;
  out.clear();
  ptxdwarf::print::dumpText(l->read.module, l->dwarf, o, out);
  EXPECT_NE(out.find("\n0x0000000b: DW_TAG_compile_unit\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n0x00000045:   DW_TAG_subprogram\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n0x00000077:     DW_TAG_formal_parameter\n"
                     "                  DW_AT_name [DW_FORM_string]\t(\"i\")"),
            std::string::npos)
      << out;
}

// ---- lookup --at SOURCE:LINE: the paths a debugger takes ----

// The PTX lines `where` matches in `text` (empty when nothing does; the error then).
std::vector<uint32_t> lookupLines(const std::string& text, std::string_view where, std::string* error = nullptr) {
  auto l = load(text);
  view::LookupResult r = view::lookup(l->read.module, l->dwarf, where);
  if (error) *error = r.error;
  std::vector<uint32_t> lines;
  for (const view::Match& m : r.matches) lines.insert(lines.end(), m.ptxLines.begin(), m.ptxLines.end());
  return lines;
}

TEST(Lookup, SourcePathsMatchAsGdbBreakMatchesThem) {
  // Chapter 6: `.file 1 "call_example.cu"`, DW_AT_comp_dir "/home/mmurphy/test"; `dump` prints
  // DW_AT_decl_file as "/home/mmurphy/test/call_example.cu".
  const std::string text = fixture("chapter6.ptx");
  const std::vector<uint32_t> line8 = lookupLines(text, "call_example.cu:8");
  ASSERT_EQ(line8, std::vector<uint32_t>{39});
  // The full name, and every tail of it that starts a path component.
  for (std::string_view at : {"/home/mmurphy/test/call_example.cu:8", "home/mmurphy/test/call_example.cu:8",
                              "mmurphy/test/call_example.cu:8", "test/call_example.cu:8"})
    EXPECT_EQ(lookupLines(text, at), line8) << at;
  // Not at a component boundary, an absolute path that is not the whole
  // name, another directory: no file.
  for (std::string_view at : {"est/call_example.cu:8", "/test/call_example.cu:8", "/home/mmurphy/call_example.cu:8",
                              "other/call_example.cu:8", "xcall_example.cu:8"}) {
    std::string error;
    EXPECT_TRUE(lookupLines(text, at, &error).empty()) << at;
    EXPECT_EQ(error, "no .file names '" + std::string(at.substr(0, at.rfind(':'))) + "'") << at;
  }
  // An absolute `.file` is its own full name: the unit's directory is not joined to it.
  std::string absolute = text;
  const std::string file = ".file 1 \"call_example.cu\"";
  absolute.replace(absolute.find(file), file.size(), ".file 1 \"/abs/dir/call_example.cu\"");
  EXPECT_EQ(lookupLines(absolute, "/abs/dir/call_example.cu:8"), line8);
  EXPECT_EQ(lookupLines(absolute, "dir/call_example.cu:8"), line8);
  EXPECT_TRUE(lookupLines(absolute, "/home/mmurphy/test/call_example.cu:8").empty());
  EXPECT_TRUE(lookupLines(absolute, "test/call_example.cu:8").empty());
}

// ---- types: values past what 64 bits count ----

// int; struct Far { int a at 0; int b at 2^64 - 16 } (size 2^64 - 8); struct
// Neg { int x at sdata -4 }; int[] with upper bound 2^64 - 1; int[] with
// upper bound 2^62 - 1 (2^64 bytes).
std::string hugeLayouts() {
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n";
  // 1: compile_unit, children, language data1; 2: base_type, name, byte_size data1;
  // 3: structure_type, children, name, byte_size data8; 4: member, name, type ref4, location data8;
  // 5: member, name, type ref4, location sdata; 6: array_type, children, type ref4; 7: subrange, upper_bound data8.
  text += ".section .debug_abbrev {\n.b8 1, 17, 1, 19, 11, 0, 0, 2, 36, 0, 3, 8, 11, 11, 0, 0, 3, 19, 1, 3, 8, 11, 7, "
          "0, 0, 4, 13, 0, 3, 8, 73, 19, 56, 7, 0, 0, 5, 13, 0, 3, 8, 73, 19, 56, 13, 0, 0, 6, 1, 1, 73, 19, 0, 0, 7, 33, "
          "0, 47, 7, 0, 0, 0\n}\n";
  text += ".section .debug_info {\n.b32 112\n.b8 2, 0\n.b32 0\n.b8 8\n"
          ".b8 1, 4\n"                                        // 11: the unit, C++
          ".b8 2, 105, 110, 116, 0, 4\n"                      // 13: int
          ".b8 3, 70, 97, 114, 0\n.b8 248, 255, 255, 255, 255, 255, 255, 255\n"  // 19: Far
          ".b8 4, 97, 0\n.b32 13\n.b64 0\n"                   // 32: a
          ".b8 4, 98, 0\n.b32 13\n.b8 240, 255, 255, 255, 255, 255, 255, 255\n"  // 47: b
          ".b8 0\n"
          ".b8 3, 78, 101, 103, 0\n.b64 8\n"                  // 63: Neg
          ".b8 5, 120, 0\n.b32 13\n.b8 124\n"                 // 76: x at -4
          ".b8 0\n"
          ".b8 6\n.b32 13\n.b8 7\n.b8 255, 255, 255, 255, 255, 255, 255, 255\n.b8 0\n"  // 85: int[2^64]
          ".b8 6\n.b32 13\n.b8 7\n.b8 255, 255, 255, 255, 255, 255, 255, 63\n.b8 0\n"  // 100: int[2^62]
          ".b8 0\n}\n";
  return text;
}

const view::TypeLayout* typeAt(const std::vector<view::TypeLayout>& types, uint64_t die) {
  for (const view::TypeLayout& t : types)
    if (t.die == die) return &t;
  return nullptr;
}

TEST(Types, ValuesPastSixtyFourBitsAreExactOrRefused) {
  auto l = load(hugeLayouts());
  ASSERT_TRUE(l->read.ok());
  ASSERT_FALSE(l->dwarf.diagnostics.hasErrors()) << l->dwarf.diagnostics.items[0].message;
  const std::vector<view::TypeLayout> types = view::typeLayouts(l->dwarf);

  // b's offset is exact; its bits (2^67 - 96) are not countable in 64:
  // no hole (it was 2305843009213693936 bytes, the true one's bits wrapped).
  const view::TypeLayout* far = typeAt(types, 19);
  ASSERT_NE(far, nullptr);
  ASSERT_EQ(far->members.size(), 2u);
  EXPECT_EQ(far->members[1].offset, 18446744073709551600u);
  EXPECT_TRUE(far->members[1].offsetKnown);
  EXPECT_EQ(far->size, 18446744073709551608u);
  EXPECT_EQ(far->members[0].holeAfterBits, 0u);
  EXPECT_EQ(far->paddingBits, 0u);
  EXPECT_EQ(far->problem, "member at DIE 0x0000002f: it ends at bit 147573952589676412832, past what 64 bits count");

  // A negative member offset is no offset (it printed as 0).
  const view::TypeLayout* neg = typeAt(types, 63);
  ASSERT_NE(neg, nullptr);
  ASSERT_EQ(neg->members.size(), 1u);
  EXPECT_FALSE(neg->members[0].offsetKnown);
  EXPECT_EQ(neg->problem, "member at DIE 0x0000004c: DW_AT_data_member_location is negative (-4)");
  EXPECT_EQ(neg->paddingBits, 0u);

  // Bounds [0, 2^64 - 1]: 2^64 elements, spelled exactly in the name; no
  // count 64 bits hold, so no size.
  const view::TypeLayout* all = typeAt(types, 85);
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->name, "int[18446744073709551616]");
  EXPECT_EQ(all->dimensions, std::vector<uint64_t>{0});
  EXPECT_FALSE(all->sizeKnown);
  EXPECT_EQ(all->problem,
            "dimension 1: bounds [0, 18446744073709551615] hold 18446744073709551616 elements, more than 64 bits count");
  // 2^62 ints: a count 64 bits hold, a size (2^64 bytes) they do not.
  const view::TypeLayout* quarter = typeAt(types, 100);
  ASSERT_NE(quarter, nullptr);
  EXPECT_EQ(quarter->name, "int[4611686018427387904]");
  EXPECT_EQ(quarter->dimensions, std::vector<uint64_t>{4611686018427387904u});
  EXPECT_FALSE(quarter->sizeKnown);
  EXPECT_EQ(quarter->problem, "its size, 18446744073709551616 bytes, is past what 64 bits count");
  EXPECT_EQ(view::typeSize(l->dwarf, l->dwarf.dieAt(100)), std::nullopt);

  // As printed: offsets exact or "?", and the problem said where the holes would be.
  std::string text;
  ptxdwarf::print::typesText({*far, *neg, *all}, text);
  EXPECT_NE(text.find("\tint b;" + std::string(49, ' ') + "/* 18446744073709551600     4 */\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("XXX"), std::string::npos) << text;
  EXPECT_NE(text.find("\t/* no holes or padding: member at DIE 0x0000002f: it ends at bit 147573952589676412832, past "
                      "what 64 bits count */\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\tint x;" + std::string(49, ' ') + "/*     ?     4 */\n"), std::string::npos) << text;
  EXPECT_NE(text.find("/* array */ int[18446744073709551616];\t/* size: ? */\n\t/* dimension 1: bounds"),
            std::string::npos)
      << text;
  std::string json;
  ptxdwarf::print::typesJson("t.ptx", {*neg}, json);
  EXPECT_NE(json.find("\"problem\":\"member at DIE 0x0000004c: DW_AT_data_member_location is negative (-4)\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\":\"x\",\"type\":\"int\",\"offset\":null,"), std::string::npos) << json;
}

}  // namespace
