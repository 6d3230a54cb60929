// Acceptance: a realistic program whose PTX is written here by hand and whose
// DWARF is built through the producer API only (write::Builder, encode,
// writeSections) assembles with `ptxas -g`, and the cubin reads back exactly:
// the DIEs that were built (tags, names, nesting), every attribute with its
// value, the location list, .debug_pubnames and .debug_aranges, through LLVM's
// DebugInfo and through libdwarf (the `ptxdump verify` oracle views, fed the
// cubin's sections, which ptxas has already relocated).
//
// The program, as its CUDA source would read (prog.cu; decl lines refer to it):
//    1  struct Pair { int a; float f; int flags : 3; };
//    2  __constant__ float coef[4];
//    3  __device__ int total;
//    4  __device__ int add(int a, int b) {
//    5    int c = a + b;
//    6    return c;
//    7  }
//    8  __global__ void kernel(int *out, float *in) {
//    9    __shared__ float tile[32];
//   10    Pair s; int arr[8];
//   11    int i = threadIdx.x;
//   12    tile[i] = in[i] * coef[0];
//   13    {
//   14      int t = add(s.a, arr[i & 7]);
//   15      i = t + 1;
//   16      total = t; out[i] = t;
//   17    }
//   18  }
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "corpus.h"
#include "missing_tool.h"
#include "elf.h"
#include "oracle.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "tools.h"

using namespace ptxdwarf;
using namespace ptxdwarf::dw;
using namespace ptxdwarf::testsupport;
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------
// The PTX code of the program (everything but the debug sections).

constexpr const char* kPtxCode = R"PTX(//
// prog.cu, written by hand: the code of the program; the .debug_* sections
// that follow it come from ptxdwarf's builder.
//
.version 7.5
.target sm_80
.address_size 64

.const .align 4 .b8 coef[16];
.visible .global .align 4 .u32 total;
.shared .align 4 .b8 tile[128];

.file 1 "prog.cu"

.visible .func (.param .b32 func_retval0) _Z3addii(
	.param .b32 _Z3addii_param_0,
	.param .b32 _Z3addii_param_1
)
{
	.reg .b32 	%r<5>;

$L__func_begin0:
	.loc	1 4 0
	ld.param.u32 	%r1, [_Z3addii_param_0];
	ld.param.u32 	%r2, [_Z3addii_param_1];
	.loc	1 5 3
	add.s32 	%r3, %r1, %r2;
	.loc	1 6 3
	mov.b32 	%r4, %r3;
	st.param.b32 	[func_retval0+0], %r4;
	ret;
$L__func_end0:

}

.visible .entry _Z6kernelPiPf(
	.param .u64 _Z6kernelPiPf_param_0,
	.param .u64 _Z6kernelPiPf_param_1
)
{
	.local .align 4 .b8 	__local_depot1[44];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<10>;
	.reg .f32 	%f<4>;

$L__func_begin1:
	.loc	1 8 0
	mov.u64 	%SPL, __local_depot1;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u64 	%rd1, [_Z6kernelPiPf_param_0];
	ld.param.u64 	%rd2, [_Z6kernelPiPf_param_1];
	.loc	1 11 3
	mov.u32 	%r1, %tid.x;
$L__tmp0:
	.loc	1 12 3
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.f32 	%f1, [%rd4];
	ld.const.f32 	%f2, [coef];
	mul.f32 	%f3, %f1, %f2;
	mov.u32 	%r2, tile;
	shl.b32 	%r3, %r1, 2;
	add.s32 	%r4, %r2, %r3;
	st.shared.f32 	[%r4], %f3;
$L__tmp1:
	.loc	1 14 5
	ld.local.u32 	%r6, [%SPL+0];
	and.b32 	%r7, %r1, 7;
	mul.wide.u32 	%rd5, %r7, 4;
	add.s64 	%rd6, %SPL, 12;
	add.s64 	%rd7, %rd6, %rd5;
	ld.local.u32 	%r8, [%rd7];
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0+0], %r6;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r8;
	.param .b32 retval0;
	call.uni (retval0), _Z3addii, (param0, param1);
	ld.param.b32 	%r9, [retval0+0];
	} // callseq 0
	.loc	1 15 5
	add.s32 	%r5, %r9, 1;
$L__tmp2:
	.loc	1 16 5
	st.global.u32 	[total], %r9;
	mul.wide.s32 	%rd8, %r5, 4;
	add.s64 	%rd9, %rd1, %rd8;
	st.u32 	[%rd9], %r9;
$L__tmp3:
	.loc	1 18 1
	ret;
$L__func_end1:

}
)PTX";

// ---------------------------------------------------------------------------
// Its DWARF, through the builder API only.

write::Builder buildProgram() {
  using write::DieId;
  using write::Location;
  using write::SymbolRef;
  write::Builder b;
  b.compileUnit({.producer = "ptxdwarf builder test",
                 .language = DW_LANG_C_plus_plus,
                 .name = "prog.cu",
                 .compDir = "/src/prog"});
  DieId intType = b.baseType("int", DW_ATE_signed, 4);
  DieId floatType = b.baseType("float", DW_ATE_float, 4);
  DieId ulongType = b.baseType("unsigned long", DW_ATE_unsigned, 8);

  DieId pair = b.aggregate(DW_TAG_structure_type, "Pair", 12);
  b.member(pair, {.name = "a", .type = intType, .offset = 0, .declFile = 1, .declLine = 1});
  b.member(pair, {.name = "f", .type = floatType, .offset = 4, .declFile = 1, .declLine = 1});
  // DWARF 2 bit field: 3 bits at the low end of a 4-byte int (bit offset from the MSB: 32 - 3).
  b.member(pair, {.name = "flags",
                  .type = intType,
                  .offset = 8,
                  .declFile = 1,
                  .declLine = 1,
                  .byteSize = 4,
                  .bitSize = 3,
                  .bitOffset = 29});

  DieId intGlobalPtr = b.pointerType(intType, cuda::ADDR_global_space);
  DieId floatPtr = b.pointerType(floatType);  // generic by default
  DieId float4 = b.arrayType(floatType);
  b.subrange(float4, 4, ulongType);
  DieId float32 = b.arrayType(floatType);
  b.subrange(float32, 32, ulongType);
  DieId int8 = b.arrayType(intType);
  b.subrange(int8, 8, ulongType);

  b.variable(b.root(), {.name = "coef",
                        .declFile = 1,
                        .declLine = 2,
                        .type = float4,
                        .location = Location::symbol({"coef"}, ptx::StateSpace::const_),
                        .external = true});
  b.variable(b.root(), {.name = "total",
                        .declFile = 1,
                        .declLine = 3,
                        .type = intType,
                        .location = Location::symbol({"total"}, ptx::StateSpace::global),
                        .external = true});

  DieId add = b.subprogram({.name = "add",
                            .linkageName = "_Z3addii",
                            .declFile = 1,
                            .declLine = 4,
                            .type = intType,
                            .lowPc = SymbolRef{"$L__func_begin0"},
                            .highPc = SymbolRef{"$L__func_end0"}});
  b.formalParameter(add,
                    {.name = "a", .declFile = 1, .declLine = 4, .type = intType, .location = Location::reg("%r1")});
  b.formalParameter(add,
                    {.name = "b", .declFile = 1, .declLine = 4, .type = intType, .location = Location::reg("%r2")});
  b.variable(add, {.name = "c", .declFile = 1, .declLine = 5, .type = intType, .location = Location::reg("%r3")});

  DieId kernel = b.subprogram({.name = "kernel",
                               .linkageName = "_Z6kernelPiPf",
                               .declFile = 1,
                               .declLine = 8,
                               .lowPc = SymbolRef{"$L__func_begin1"},
                               .highPc = SymbolRef{"$L__func_end1"}});
  b.formalParameter(kernel, {.name = "out",
                             .declFile = 1,
                             .declLine = 8,
                             .type = intGlobalPtr,
                             .location = Location::symbol({"_Z6kernelPiPf_param_0"}, ptx::StateSpace::param)});
  b.formalParameter(kernel, {.name = "in",
                             .declFile = 1,
                             .declLine = 8,
                             .type = floatPtr,
                             .location = Location::symbol({"_Z6kernelPiPf_param_1"}, ptx::StateSpace::param)});
  b.variable(kernel, {.name = "tile",
                      .declFile = 1,
                      .declLine = 9,
                      .type = float32,
                      .location = Location::symbol({"tile"}, ptx::StateSpace::shared)});
  b.variable(kernel, {.name = "s",
                      .declFile = 1,
                      .declLine = 10,
                      .type = pair,
                      .location = Location::symbol({"__local_depot1"}, ptx::StateSpace::local)});
  // Past the depot's start, as nvcc writes it: DW_OP_addr __local_depot1, DW_OP_plus_uconst 12.
  // (Not Location::symbol({"__local_depot1", 12}, ...): ptxas rewrites the DW_OP_addr and drops the addend.)
  b.variable(kernel, {.name = "arr",
                      .declFile = 1,
                      .declLine = 10,
                      .type = int8,
                      .location = Location::expression(write::Expr().addr({"__local_depot1"}).plusUconst(12),
                                                       cuda::ADDR_local_space)});
  b.variable(kernel, {.name = "i",
                      .declFile = 1,
                      .declLine = 11,
                      .type = intType,
                      .location = Location::list({{{"$L__tmp0"}, {"$L__tmp2"}, Location::reg("%r1")},
                                                  {{"$L__tmp2"}, {"$L__func_end1"}, Location::reg("%r5")}})});
  DieId block = b.lexicalBlock(kernel, {"$L__tmp1"}, {"$L__tmp3"});
  b.variable(block, {.name = "t", .declFile = 1, .declLine = 14, .type = intType, .location = Location::reg("%r9")});
  return b;
}

// ---------------------------------------------------------------------------
// Independent encodings of what the builder should have written.

uint64_t packedName(std::string_view reg) {  // "%r1" -> 0x257231, computed here, not by the library
  uint64_t v = 0;
  for (unsigned char c : reg) v = (v << 8) | c;
  return v;
}

std::vector<uint8_t> uleb(uint64_t v) {
  std::vector<uint8_t> out;
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    out.push_back(v ? byte | 0x80 : byte);
  } while (v);
  return out;
}

std::vector<uint8_t> regx(std::string_view reg) {
  std::vector<uint8_t> out{0x90};  // DW_OP_regx
  std::vector<uint8_t> operand = uleb(packedName(reg));
  out.insert(out.end(), operand.begin(), operand.end());
  return out;
}

// ---------------------------------------------------------------------------
// The expected DIE tree: what was built, as a reader of the cubin should see it.

struct ExpectedAttr {
  enum Kind { number, string, flag, typeRef, exprBytes, addrExpr, depotExpr, address, loclist } kind;
  uint16_t name;
  uint64_t n = 0;          // number / flag / depot offset
  std::string s;           // string / type name
  std::vector<uint8_t> b;  // expression bytes
};
ExpectedAttr num(uint16_t at, uint64_t v) { return {ExpectedAttr::number, at, v}; }
ExpectedAttr str(uint16_t at, std::string v) { return {ExpectedAttr::string, at, 0, std::move(v)}; }
ExpectedAttr flag(uint16_t at) { return {ExpectedAttr::flag, at, 1}; }
ExpectedAttr type(std::string t) { return {ExpectedAttr::typeRef, DW_AT_type, 0, std::move(t)}; }
ExpectedAttr expr(uint16_t at, std::vector<uint8_t> bytes) {
  return {ExpectedAttr::exprBytes, at, 0, {}, std::move(bytes)};
}
ExpectedAttr loc(std::vector<uint8_t> bytes) { return expr(DW_AT_location, std::move(bytes)); }
ExpectedAttr locReg(std::string_view reg) { return loc(regx(reg)); }
// DW_OP_addr <symbol>, relocated by ptxas to the symbol's address in its space.
ExpectedAttr locAddr() { return {ExpectedAttr::addrExpr, DW_AT_location}; }
// DW_OP_addr __local_depotN, which ptxas rewrites to DW_OP_fbreg <frame offset> + DW_OP_nop padding
// (9 bytes in all), and then `rest` as written.
ExpectedAttr locDepot(std::vector<uint8_t> rest = {}) {
  return {ExpectedAttr::depotExpr, DW_AT_location, 0, {}, std::move(rest)};
}
ExpectedAttr addr(uint16_t at) { return {ExpectedAttr::address, at}; }
ExpectedAttr locList() { return {ExpectedAttr::loclist, DW_AT_location}; }
ExpectedAttr cls(uint64_t c) { return num(DW_AT_address_class, c); }
ExpectedAttr file1() { return num(DW_AT_decl_file, 1); }
ExpectedAttr line(uint64_t l) { return num(DW_AT_decl_line, l); }

struct ExpectedDie {
  uint32_t depth;
  uint16_t tag;
  std::vector<ExpectedAttr> attrs;  // exactly these, in this order
};

std::vector<ExpectedDie> expectedTree() {
  using E = ExpectedDie;
  const std::vector<uint8_t> cfa{DW_OP_call_frame_cfa};
  auto plus = [](uint8_t k) { return std::vector<uint8_t>{DW_OP_plus_uconst, k}; };
  return {
      E{0,
        DW_TAG_compile_unit,
        {str(DW_AT_producer, "ptxdwarf builder test"), num(DW_AT_language, DW_LANG_C_plus_plus),
         str(DW_AT_name, "prog.cu"), addr(DW_AT_low_pc), num(DW_AT_stmt_list, 0), str(DW_AT_comp_dir, "/src/prog")}},
      E{1, DW_TAG_base_type, {str(DW_AT_name, "int"), num(DW_AT_encoding, DW_ATE_signed), num(DW_AT_byte_size, 4)}},
      E{1, DW_TAG_base_type, {str(DW_AT_name, "float"), num(DW_AT_encoding, DW_ATE_float), num(DW_AT_byte_size, 4)}},
      E{1,
        DW_TAG_base_type,
        {str(DW_AT_name, "unsigned long"), num(DW_AT_encoding, DW_ATE_unsigned), num(DW_AT_byte_size, 8)}},
      E{1, DW_TAG_structure_type, {str(DW_AT_name, "Pair"), num(DW_AT_byte_size, 12)}},
      E{2,
        DW_TAG_member,
        {str(DW_AT_name, "a"), type("int"), file1(), line(1), expr(DW_AT_data_member_location, plus(0))}},
      E{2,
        DW_TAG_member,
        {str(DW_AT_name, "f"), type("float"), file1(), line(1), expr(DW_AT_data_member_location, plus(4))}},
      E{2,
        DW_TAG_member,
        {str(DW_AT_name, "flags"), type("int"), file1(), line(1), num(DW_AT_byte_size, 4), num(DW_AT_bit_size, 3),
         num(DW_AT_bit_offset, 29), expr(DW_AT_data_member_location, plus(8))}},
      E{1, DW_TAG_pointer_type, {type("int"), cls(cuda::ADDR_global_space)}},
      E{1, DW_TAG_pointer_type, {type("float"), cls(cuda::ADDR_generic_space)}},
      E{1, DW_TAG_array_type, {type("float")}},
      E{2, DW_TAG_subrange_type, {type("unsigned long"), num(DW_AT_count, 4)}},
      E{1, DW_TAG_array_type, {type("float")}},
      E{2, DW_TAG_subrange_type, {type("unsigned long"), num(DW_AT_count, 32)}},
      E{1, DW_TAG_array_type, {type("int")}},
      E{2, DW_TAG_subrange_type, {type("unsigned long"), num(DW_AT_count, 8)}},
      E{1,
        DW_TAG_variable,
        {str(DW_AT_name, "coef"), file1(), line(2), type("float[4]"), flag(DW_AT_external), locAddr(),
         cls(cuda::ADDR_const_space)}},
      E{1,
        DW_TAG_variable,
        {str(DW_AT_name, "total"), file1(), line(3), type("int"), flag(DW_AT_external), locAddr(),
         cls(cuda::ADDR_global_space)}},
      E{1,
        DW_TAG_subprogram,
        {str(DW_AT_MIPS_linkage_name, "_Z3addii"), str(DW_AT_name, "add"), file1(), line(4), type("int"),
         flag(DW_AT_external), addr(DW_AT_low_pc), addr(DW_AT_high_pc), expr(DW_AT_frame_base, cfa)}},
      E{2,
        DW_TAG_formal_parameter,
        {str(DW_AT_name, "a"), file1(), line(4), type("int"), locReg("%r1"), cls(cuda::ADDR_reg_space)}},
      E{2,
        DW_TAG_formal_parameter,
        {str(DW_AT_name, "b"), file1(), line(4), type("int"), locReg("%r2"), cls(cuda::ADDR_reg_space)}},
      E{2,
        DW_TAG_variable,
        {str(DW_AT_name, "c"), file1(), line(5), type("int"), locReg("%r3"), cls(cuda::ADDR_reg_space)}},
      E{1,
        DW_TAG_subprogram,
        {str(DW_AT_MIPS_linkage_name, "_Z6kernelPiPf"), str(DW_AT_name, "kernel"), file1(), line(8),
         flag(DW_AT_external), addr(DW_AT_low_pc), addr(DW_AT_high_pc), expr(DW_AT_frame_base, cfa)}},
      E{2,
        DW_TAG_formal_parameter,
        {str(DW_AT_name, "out"), file1(), line(8), type("int*"), locAddr(), cls(cuda::ADDR_param_space)}},
      E{2,
        DW_TAG_formal_parameter,
        {str(DW_AT_name, "in"), file1(), line(8), type("float*"), locAddr(), cls(cuda::ADDR_param_space)}},
      E{2,
        DW_TAG_variable,
        {str(DW_AT_name, "tile"), file1(), line(9), type("float[32]"), locAddr(), cls(cuda::ADDR_shared_space)}},
      E{2,
        DW_TAG_variable,
        {str(DW_AT_name, "s"), file1(), line(10), type("Pair"), locDepot(), cls(cuda::ADDR_local_space)}},
      E{2,
        DW_TAG_variable,
        {str(DW_AT_name, "arr"), file1(), line(10), type("int[8]"), locDepot({DW_OP_plus_uconst, 12}),
         cls(cuda::ADDR_local_space)}},
      E{2,
        DW_TAG_variable,
        {str(DW_AT_name, "i"), file1(), line(11), type("int"), locList(), cls(cuda::ADDR_reg_space)}},
      E{2, DW_TAG_lexical_block, {addr(DW_AT_low_pc), addr(DW_AT_high_pc)}},
      E{3,
        DW_TAG_variable,
        {str(DW_AT_name, "t"), file1(), line(14), type("int"), locReg("%r9"), cls(cuda::ADDR_reg_space)}},
  };
}

// ---------------------------------------------------------------------------
// Reading the views.

const ptxdump::OracleAttr* attrOf(const ptxdump::OracleDie& d, uint16_t name) {
  for (const ptxdump::OracleAttr& a : d.attrs)
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<const ptxdump::OracleDie*> realDies(const ptxdump::OracleView& v) {
  std::vector<const ptxdump::OracleDie*> out;
  for (const ptxdump::OracleDie& d : v.dies)
    if (d.tag != 0) out.push_back(&d);
  return out;
}

const ptxdump::OracleDie* dieAt(const ptxdump::OracleView& v, uint64_t offset) {
  for (const ptxdump::OracleDie& d : v.dies)
    if (d.offset == offset && d.tag != 0) return &d;
  return nullptr;
}

const ptxdump::OracleDie* named(const ptxdump::OracleView& v, uint16_t tag, std::string_view name) {
  for (const ptxdump::OracleDie& d : v.dies) {
    const ptxdump::OracleAttr* n = attrOf(d, DW_AT_name);
    if (d.tag == tag && n && n->string == name) return &d;
  }
  return nullptr;
}

// "int", "int*", "float[32]", "Pair": a type DIE described from the view alone.
std::string typeName(const ptxdump::OracleView& v, uint64_t offset, int depth = 0) {
  const ptxdump::OracleDie* d = dieAt(v, offset);
  if (!d || depth > 8) return "<bad reference>";
  const ptxdump::OracleAttr* t = attrOf(*d, DW_AT_type);
  std::string base = t ? typeName(v, t->u64, depth + 1) : "void";
  switch (d->tag) {
    case DW_TAG_pointer_type:
      return base + "*";
    case DW_TAG_array_type: {
      std::string dims;
      auto it = std::find_if(v.dies.begin(), v.dies.end(), [&](const ptxdump::OracleDie& x) { return &x == d; });
      for (++it; it != v.dies.end() && it->depth > d->depth && it->tag != 0; ++it)
        if (it->tag == DW_TAG_subrange_type && it->depth == d->depth + 1) {
          const ptxdump::OracleAttr* count = attrOf(*it, DW_AT_count);
          dims += "[" + (count ? std::to_string(count->u64) : std::string("?")) + "]";
        }
      return base + dims;
    }
    default: {
      const ptxdump::OracleAttr* n = attrOf(*d, DW_AT_name);
      return n ? n->string : "<unnamed " + std::string(tagName(d->tag)) + ">";
    }
  }
}

std::string hexBytes(const std::vector<uint8_t>& b) {
  std::string s;
  char buf[4];
  for (uint8_t x : b) {
    std::snprintf(buf, sizeof buf, "%02x", x);
    s += s.empty() ? "" : " ";
    s += buf;
  }
  return s;
}

// Every DIE of the view against the expected tree: same count, order, depth,
// tag, attribute names (in order) and values.
void expectTree(const ptxdump::OracleView& v, const std::vector<ExpectedDie>& want) {
  SCOPED_TRACE("oracle " + v.oracle);
  std::vector<const ptxdump::OracleDie*> dies = realDies(v);
  ASSERT_EQ(dies.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    const ptxdump::OracleDie& d = *dies[k];
    const ExpectedDie& w = want[k];
    const ptxdump::OracleAttr* nameAttr = attrOf(d, DW_AT_name);
    SCOPED_TRACE("DIE #" + std::to_string(k) + " at 0x" +
                 [&] {
                   char buf[16];
                   std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(d.offset));
                   return std::string(buf);
                 }() +
                 " " + std::string(tagName(d.tag)) + (nameAttr ? " \"" + nameAttr->string + "\"" : ""));
    EXPECT_EQ(tagName(d.tag), tagName(w.tag));
    EXPECT_EQ(d.depth, w.depth);
    std::vector<std::string_view> gotNames, wantNames;
    for (const ptxdump::OracleAttr& a : d.attrs) gotNames.push_back(attributeName(a.name));
    for (const ExpectedAttr& a : w.attrs) wantNames.push_back(attributeName(a.name));
    EXPECT_EQ(gotNames, wantNames);
    for (const ExpectedAttr& e : w.attrs) {
      const ptxdump::OracleAttr* a = attrOf(d, e.name);
      if (!a) continue;  // reported above
      SCOPED_TRACE(std::string(attributeName(e.name)) + " (" + std::string(formName(a->form)) + ")");
      EXPECT_TRUE(a->valueKnown);
      switch (e.kind) {
        case ExpectedAttr::number:
          EXPECT_EQ(a->kind, ptxdump::AttrKind::constant);
          EXPECT_EQ(a->u64, e.n);
          break;
        case ExpectedAttr::flag:
          EXPECT_EQ(a->kind, ptxdump::AttrKind::flag);
          EXPECT_EQ(a->u64, e.n);
          break;
        case ExpectedAttr::string:
          EXPECT_EQ(a->kind, ptxdump::AttrKind::string);
          EXPECT_EQ(a->string, e.s);
          break;
        case ExpectedAttr::typeRef:
          EXPECT_EQ(a->kind, ptxdump::AttrKind::reference);
          EXPECT_EQ(typeName(v, a->u64), e.s);
          break;
        case ExpectedAttr::exprBytes:
          EXPECT_EQ(a->kind, ptxdump::AttrKind::block);
          EXPECT_EQ(hexBytes(a->bytes), hexBytes(e.b));
          break;
        case ExpectedAttr::addrExpr:  // DW_OP_addr and an 8-byte operand ptxas filled in
          EXPECT_EQ(a->kind, ptxdump::AttrKind::block);
          ASSERT_EQ(a->bytes.size(), 9u) << hexBytes(a->bytes);
          EXPECT_EQ(a->bytes[0], DW_OP_addr) << hexBytes(a->bytes);
          break;
        case ExpectedAttr::depotExpr: {
          EXPECT_EQ(a->kind, ptxdump::AttrKind::block);
          ASSERT_GE(a->bytes.size(), 2u);
          std::vector<uint8_t> want{DW_OP_fbreg};
          for (size_t k = 1; k < a->bytes.size() && want.size() < 9; ++k) {  // the SLEB128 frame offset
            want.push_back(a->bytes[k]);
            if (!(a->bytes[k] & 0x80)) break;
          }
          want.resize(9, DW_OP_nop);
          want.insert(want.end(), e.b.begin(), e.b.end());
          EXPECT_EQ(hexBytes(a->bytes), hexBytes(want));
          break;
        }
        case ExpectedAttr::address:
          EXPECT_EQ(a->kind, ptxdump::AttrKind::address);
          break;
        case ExpectedAttr::loclist:
          EXPECT_EQ(a->kind, ptxdump::AttrKind::constant);
          EXPECT_EQ(formName(a->form), "DW_FORM_data4");
          break;
      }
    }
  }
}

uint64_t addressOf(const ptxdump::OracleDie& d, uint16_t at) {
  const ptxdump::OracleAttr* a = attrOf(d, at);
  return a ? a->u64 : UINT64_MAX;
}

struct Assembled {
  std::string ptx;
  std::string ptxPath;
  std::string cubinPath;
  std::map<std::string, std::vector<uint8_t>> elf;
  std::vector<SectionImage> debugSections;  // the cubin's .debug_* sections, relocated by ptxas
  std::vector<SectionImage> built;          // what the encoder produced
  std::string ptxasStderr;
};

}  // namespace

class BuilderProgram : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::optional<std::string> ptxas = findTool("ptxas");
    if (!ptxas) {
      skip_ = "ptxas not found";
      return;
    }
    a_ = std::make_unique<Assembled>();
    write::Builder b = buildProgram();
    Diagnostics diags;
    a_->built = write::encode(b.unit(), {.pubnames = true, .aranges = true}, diags);
    for (const Diagnostic& d : diags.items) error_ += d.format("encode") + "\n";
    if (diags.hasErrors()) return;
    a_->ptx = kPtxCode;
    write::WriteOptions wo;
    wo.style = write::Style::packed;
    wo.version = {.major = 7, .minor = 5, .present = true};
    if (!write::writeSections(a_->ptx, a_->built, wo, diags)) {
      for (const Diagnostic& d : diags.items) error_ += d.format("writeSections") + "\n";
      return;
    }
    fs::path dir = fs::path(workDir()) / "builder_program";
    std::error_code ec;
    fs::create_directories(dir, ec);
    // One pair of files per process: ctest runs each test of this suite in a
    // process of its own, in parallel, and each assembles the program.
    const std::string stem = "prog." + std::to_string(getpid());
    std::string ptxPath = (dir / (stem + ".ptx")).string();
    a_->cubinPath = (dir / (stem + ".cubin")).string();
    a_->ptxPath = ptxPath;
    std::string err;
    if (!writeFile(ptxPath, a_->ptx, &err)) {
      error_ = "cannot write " + ptxPath + ": " + err;
      return;
    }
    std::vector<std::string> argv{*ptxas, "-arch=sm_80", "-g", ptxPath, "-o", a_->cubinPath};
    CommandResult r = runCommand(argv);
    a_->ptxasStderr = r.err;
    if (!r.ok()) {
      error_ = formatCommand(argv) + " failed: " + r.summary();
      return;
    }
    std::optional<std::map<std::string, std::vector<uint8_t>>> elf = readElfSections(a_->cubinPath, &err);
    if (!elf) {
      error_ = "cannot read " + a_->cubinPath + ": " + err;
      return;
    }
    a_->elf = std::move(*elf);
    for (const auto& [name, bytes] : a_->elf)
      if (name.starts_with(".debug_")) {
        SectionImage s;
        s.name = name;
        s.bytes = bytes;
        a_->debugSections.push_back(std::move(s));
      }
  }
  static void TearDownTestSuite() {
    if (a_) {
      std::error_code ec;
      fs::remove(a_->ptxPath, ec);
      fs::remove(a_->cubinPath, ec);
    }
    a_.reset();
  }

  void SetUp() override {
    if (!skip_.empty()) PTXDWARF_MISSING_TOOL(skip_);
    ASSERT_TRUE(error_.empty()) << error_;
  }

  // The oracle views of the cubin's sections; skips the test when ptxdump was built without that oracle.
  static const ptxdump::OracleView* view(bool llvm) {
    static std::optional<ptxdump::OracleView> l, d;
    static bool done = false;
    if (!done) {
      std::string err;
      l = ptxdump::llvmView(a_->debugSections, &err);
      d = ptxdump::libdwarfView(a_->debugSections, &err);
      done = true;
    }
    return llvm ? (l ? &*l : nullptr) : (d ? &*d : nullptr);
  }

  static inline std::unique_ptr<Assembled> a_;
  static inline std::string skip_, error_;
};

TEST_F(BuilderProgram, PtxasAssemblesItAndKeepsEverySection) {
  EXPECT_EQ(a_->ptxasStderr, "");
  for (const char* name : {".debug_info", ".debug_abbrev", ".debug_loc", ".debug_pubnames", ".debug_aranges"}) {
    SCOPED_TRACE(name);
    auto built =
        std::find_if(a_->built.begin(), a_->built.end(), [&](const SectionImage& s) { return s.name == name; });
    ASSERT_NE(built, a_->built.end());
    ASSERT_TRUE(a_->elf.count(name));
    // ptxas copies the bytes, filling in relocated operands: same size, and the
    // same bytes wherever no relocation (and no depot rewrite) lies.
    const std::vector<uint8_t>& got = a_->elf.at(name);
    ASSERT_EQ(got.size(), built->bytes.size());
    if (std::string_view(name) == ".debug_abbrev") {
      EXPECT_EQ(got, built->bytes);
    }
  }
  EXPECT_TRUE(a_->elf.count(".debug_line"));  // ptxas makes it from .file/.loc
}

TEST_F(BuilderProgram, LlvmReadsExactlyTheBuiltTree) {
  if (!ptxdump::haveLlvmOracle()) GTEST_SKIP() << "built without the LLVM oracle";
  const ptxdump::OracleView& v = *view(true);
  ASSERT_EQ(v.units.size(), 1u);
  EXPECT_EQ(v.units[0].version, 2);
  EXPECT_EQ(v.units[0].addressSize, 8);
  EXPECT_EQ(v.units[0].length + 4, a_->elf.at(".debug_info").size());
  expectTree(v, expectedTree());
}

TEST_F(BuilderProgram, LibdwarfReadsExactlyTheBuiltTree) {
  if (!ptxdump::haveLibdwarfOracle()) GTEST_SKIP() << "built without the libdwarf oracle";
  expectTree(*view(false), expectedTree());
}

TEST_F(BuilderProgram, CodeRangesAreOrderedLikeTheirLabels) {
  if (!ptxdump::haveLlvmOracle() || !ptxdump::haveLibdwarfOracle()) GTEST_SKIP() << "built without the oracles";
  ASSERT_TRUE(a_->elf.count(".text._Z6kernelPiPf"));
  ASSERT_TRUE(a_->elf.count(".text._Z3addii"));
  for (const ptxdump::OracleView* pv : {view(true), view(false)}) {
    const ptxdump::OracleView& v = *pv;
    SCOPED_TRACE("oracle " + v.oracle);
    const ptxdump::OracleDie* add = named(v, DW_TAG_subprogram, "add");
    const ptxdump::OracleDie* kernel = named(v, DW_TAG_subprogram, "kernel");
    ASSERT_TRUE(add && kernel);
    // Each function's code starts at 0 in its own .text section of the cubin,
    // and ends within it (ptxas may pad the section after the last instruction).
    EXPECT_EQ(addressOf(*add, DW_AT_low_pc), 0u);
    EXPECT_EQ(addressOf(*kernel, DW_AT_low_pc), 0u);
    uint64_t addEnd = addressOf(*add, DW_AT_high_pc), kernelEnd = addressOf(*kernel, DW_AT_high_pc);
    EXPECT_GT(addEnd, 0u);
    EXPECT_LE(addEnd, a_->elf.at(".text._Z3addii").size());
    EXPECT_LE(kernelEnd, a_->elf.at(".text._Z6kernelPiPf").size());

    // The lexical block [$L__tmp1, $L__tmp3) and the list of `i`:
    // [$L__tmp0, $L__tmp2) in %r1, [$L__tmp2, $L__func_end1) in %r5.
    const ptxdump::OracleDie* block = nullptr;
    for (const ptxdump::OracleDie& d : v.dies)
      if (d.tag == DW_TAG_lexical_block) block = &d;
    ASSERT_NE(block, nullptr);
    uint64_t tmp1 = addressOf(*block, DW_AT_low_pc), tmp3 = addressOf(*block, DW_AT_high_pc);
    const ptxdump::OracleDie* i = named(v, DW_TAG_variable, "i");
    ASSERT_NE(i, nullptr);
    uint64_t listOffset = attrOf(*i, DW_AT_location)->u64;
    EXPECT_EQ(listOffset, 0u);  // the unit's only list
    ASSERT_EQ(v.loclists.size(), 1u);
    const ptxdump::OracleLocList& list = v.loclists[0];
    EXPECT_EQ(list.offset, listOffset);
    ASSERT_EQ(list.entries.size(), v.hasLocEnd ? 3u : 2u);
    const ptxdump::OracleLocEntry &r1 = list.entries[0], &r5 = list.entries[1];
    EXPECT_EQ(r1.kind, ptxdump::OracleLocEntry::range);
    EXPECT_EQ(r5.kind, ptxdump::OracleLocEntry::range);
    if (v.hasLocEnd) {
      EXPECT_EQ(list.entries[2].kind, ptxdump::OracleLocEntry::endOfList);
    }
    if (v.hasLocExprBytes) {
      EXPECT_EQ(hexBytes(r1.expr), hexBytes(regx("%r1")));
      EXPECT_EQ(hexBytes(r5.expr), hexBytes(regx("%r5")));
    }
    uint64_t tmp0 = r1.begin, tmp2 = r1.end;
    EXPECT_EQ(r5.begin, tmp2);
    EXPECT_EQ(r5.end, kernelEnd);  // $L__func_end1, like the kernel's DW_AT_high_pc
    EXPECT_LT(tmp0, tmp1);
    EXPECT_LT(tmp1, tmp2);
    EXPECT_LT(tmp2, tmp3);
    EXPECT_LT(tmp3, kernelEnd);
  }
  // The .debug_loc bytes: begin, end, length, regx; twice; then the 16-byte end of list.
  EXPECT_EQ(a_->elf.at(".debug_loc").size(), 2 * (16 + 2) + regx("%r1").size() + regx("%r5").size() + 16);
}

// ptxas fills in DW_OP_addr of a .param symbol with its offset in the parameter
// bank: the kernel's two .u64 parameters are 8 bytes apart.
TEST_F(BuilderProgram, ParameterAddressesAreTheirOffsetsInTheParameterSpace) {
  if (!ptxdump::haveLlvmOracle()) GTEST_SKIP() << "built without the LLVM oracle";
  const ptxdump::OracleView& v = *view(true);
  auto operand = [&](const char* name) -> uint64_t {
    const ptxdump::OracleDie* d = named(v, DW_TAG_formal_parameter, name);
    if (!d || !attrOf(*d, DW_AT_location) || attrOf(*d, DW_AT_location)->bytes.size() != 9) return 0;
    uint64_t x = 0;
    for (int k = 8; k >= 1; --k) x = (x << 8) | attrOf(*d, DW_AT_location)->bytes[k];
    return x;
  };
  EXPECT_EQ(operand("in") - operand("out"), 8u);
}

TEST_F(BuilderProgram, PubnamesNameTheExternalSubprogramsAndVariables) {
  if (!ptxdump::haveLlvmOracle() || !ptxdump::haveLibdwarfOracle()) GTEST_SKIP() << "built without the oracles";
  for (const ptxdump::OracleView* v : {view(true), view(false)}) {
    SCOPED_TRACE("oracle " + v->oracle);
    std::vector<std::pair<std::string, uint64_t>> got, want;
    for (const ptxdump::OraclePubname& p : v->pubnames) got.emplace_back(p.name, p.dieOffset);
    // In DIE order: the external variables and subprograms directly under the unit.
    for (auto [tag, name] : {std::pair<uint16_t, const char*>{DW_TAG_variable, "coef"},
                             {DW_TAG_variable, "total"},
                             {DW_TAG_subprogram, "add"},
                             {DW_TAG_subprogram, "kernel"}}) {
      const ptxdump::OracleDie* d = named(*v, tag, name);
      ASSERT_NE(d, nullptr) << name;
      want.emplace_back(name, d->offset);
    }
    EXPECT_EQ(got, want);
    if (v->hasNameSetHeaders) {
      ASSERT_EQ(v->nameSets.size(), 1u);
      EXPECT_EQ(v->nameSets[0].version, 2);
      EXPECT_EQ(v->nameSets[0].infoOffset, 0u);
      // The builder's default, as DWARF says: the unit's size (one unit: the whole section).
      EXPECT_EQ(v->nameSets[0].infoLength, a_->elf.at(".debug_info").size());
    }
  }
}

TEST_F(BuilderProgram, ArangesHaveOneRangePerSubprogramWithItsCodeLength) {
  if (!ptxdump::haveLlvmOracle() || !ptxdump::haveLibdwarfOracle()) GTEST_SKIP() << "built without the oracles";
  const ptxdump::OracleView& l = *view(true);
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> want;  // info offset, address, length
  for (const char* name : {"add", "kernel"}) {
    const ptxdump::OracleDie* d = named(l, DW_TAG_subprogram, name);
    ASSERT_NE(d, nullptr) << name;
    uint64_t lo = addressOf(*d, DW_AT_low_pc), hi = addressOf(*d, DW_AT_high_pc);
    ASSERT_GT(hi, lo) << name;
    want.emplace_back(0, lo, hi - lo);
  }
  for (const ptxdump::OracleView* v : {&l, view(false)}) {
    SCOPED_TRACE("oracle " + v->oracle);
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> got;
    for (const ptxdump::OracleRange& r : v->ranges) got.emplace_back(r.infoOffset, r.address, r.length);
    EXPECT_EQ(got, want);
    if (v->hasArangeSetHeaders) {
      ASSERT_EQ(v->arangeSets.size(), 1u);
      EXPECT_EQ(v->arangeSets[0].version, 2);
      EXPECT_EQ(v->arangeSets[0].infoOffset, 0u);
      EXPECT_EQ(v->arangeSets[0].addressSize, 8);
      EXPECT_EQ(v->arangeSets[0].segmentSize, 0);
    }
  }
}

TEST_F(BuilderProgram, OraclesReportNothing) {
  if (!ptxdump::haveLlvmOracle() || !ptxdump::haveLibdwarfOracle()) GTEST_SKIP() << "built without the oracles";
  for (const ptxdump::OracleView* v : {view(true), view(false)}) {
    std::vector<std::string> messages;
    for (const std::string& m : v->messages)
      if (m.find("overlapping") == std::string::npos) messages.push_back(m);  // every function starts at 0
    EXPECT_EQ(messages, std::vector<std::string>{}) << v->oracle;
  }
}
