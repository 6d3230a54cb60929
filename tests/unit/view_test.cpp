// ptxdwarf::view: statistics (view/statistics.h) and type layouts
// (view/types.h), and how ptxdump prints them (ptxdump/view_format.h).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "dump.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/view/types.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "view_format.h"

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
  ptxdump::appendStatisticsJson("test.ptx", s, json);
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
  ptxdump::appendTypesText({*S}, text);
  EXPECT_NE(text.find("struct S {\n\tBase"), std::string::npos) << text;
  EXPECT_NE(text.find("<ancestor>;"), std::string::npos) << text;
  EXPECT_NE(text.find("\tunsigned int lo:3;"), std::string::npos) << text;
  EXPECT_NE(text.find("/*    12: 3     4 */"), std::string::npos) << text;
  EXPECT_NE(text.find("\tchar name[6];"), std::string::npos) << text;
  EXPECT_NE(text.find("\n\t/* XXX 3 bytes hole, try to pack */\n\n"), std::string::npos) << text;
  EXPECT_NE(text.find("/* XXX 3 bytes hole, try to pack */\n\n\tdouble d;"), std::string::npos) << text;
  EXPECT_NE(text.find("/* padding: 2 */"), std::string::npos) << text;
  std::string json;
  ptxdump::appendTypesJson("t.ptx", {*S}, json);
  EXPECT_NE(json.find("{\"name\":\"S\",\"kind\":\"struct\",\"size\":32,"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"name\":\"lo\",\"type\":\"unsigned int\",\"offset\":12,\"size\":4,\"bit_size\":3,"
                      "\"bit_offset\":0,"),
            std::string::npos)
      << json;
}

TEST(Selection, ABadRegexIsReported) {
  ptxdump::DumpOptions o;
  o.regex = true;
  o.names = {"a(b"};
  std::string error;
  EXPECT_FALSE(ptxdump::validNamePatterns(o, error));
  EXPECT_NE(error.find("a(b"), std::string::npos);
  o.names = {"^_Z.*i$"};
  EXPECT_TRUE(ptxdump::validNamePatterns(o, error));
}

TEST(Selection, NameSelectsDiesWithParentsAndChildren) {
  auto l = load(fixture("chapter6.ptx"));
  ptxdump::DumpOptions o;
  o.names = {"_Z3fooii"};
  std::string out;
  ptxdump::dumpText(l->read.module, l->dwarf, o, out);
  EXPECT_EQ(out.find(".debug_info contents"), std::string::npos);
  EXPECT_NE(out.find("\n0x00000045: DW_TAG_subprogram\n              DW_AT_MIPS_linkage_name\t(\"_Z3fooii\")"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("DW_TAG_formal_parameter"), std::string::npos);
  o.showChildren = true;
  o.showParents = true;
  o.showForm = true;
  out.clear();
  ptxdump::dumpText(l->read.module, l->dwarf, o, out);
  EXPECT_NE(out.find("\n0x0000000b: DW_TAG_compile_unit\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n0x00000045:   DW_TAG_subprogram\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n0x00000077:     DW_TAG_formal_parameter\n"
                     "                  DW_AT_name [DW_FORM_string]\t(\"i\")"),
            std::string::npos)
      << out;
}

}  // namespace
