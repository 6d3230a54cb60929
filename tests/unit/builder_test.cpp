// The producer API: the Chapter 6 unit built through the builder must encode
// to exactly the example's bytes and relocations; the encoder's own rules
// (abbreviation interning, forms, references, lists) get tests of their own.
#include <gtest/gtest.h>


#include "corpus.h"
#include "write/unit_store.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/check/check.h"

using namespace ptxdwarf;
using namespace ptxdwarf::write;
using namespace ptxdwarf::dw;

namespace {

std::string describe(const Relocation& r) {
  return std::to_string(r.offset) + "/" + std::to_string(r.size) + " " + r.expression();
}

std::vector<std::string> relocations(const SectionImage& s) {
  std::vector<std::string> out;
  for (const Relocation& r : s.relocations) out.push_back(describe(r));
  return out;
}

const SectionImage* find(const std::vector<SectionImage>& v, std::string_view name) {
  for (const SectionImage& s : v)
    if (s.name == name) return &s;
  return nullptr;
}

// The Chapter 6 program, as a producer would describe it: types are declared
// first (detached) and placed where the example has them.
Builder chapter6() {
  Builder b;
  b.compileUnit({.producer = "lgenfe: EDG 4.9", .language = DW_LANG_C_plus_plus, .name = "call1.cu",
                 .compDir = "/home/mmurphy/test"});
  DieId intType = b.baseType("int", DW_ATE_signed, 4, kDetached);
  DieId voidType = b.unspecifiedType("void", kDetached);
  DieId intPtr = b.pointerType(intType, cuda::ADDR_generic_space, kDetached);
  DieId foo = b.subprogram({.name = "_Z3fooii", .linkageName = "_Z3fooii", .declFile = 1, .declLine = 1,
                            .type = intType, .lowPc = SymbolRef{"func_begin0"}, .highPc = SymbolRef{"func_end0"}});
  b.formalParameter(foo, {.name = "i", .declFile = 1, .declLine = 1, .type = intType, .location = Location::reg("%r1")});
  b.formalParameter(foo, {.name = "j", .declFile = 1, .declLine = 1, .type = intType, .location = Location::reg("%r2")});
  b.unit().attach(b.root(), intType);
  DieId test = b.subprogram({.name = "_Z4testPi", .linkageName = "_Z4testPi", .declFile = 1, .declLine = 6,
                             .type = voidType, .lowPc = SymbolRef{"func_begin1"}, .highPc = SymbolRef{"func_end1"}});
  b.formalParameter(test, {.name = "p", .declFile = 1, .declLine = 6, .type = intPtr,
                           .location = Location::symbol({"_Z4testPi_param_0"}, ptx::StateSpace::param)});
  b.unit().attach(b.root(), voidType);
  b.unit().attach(b.root(), intPtr);
  return b;
}

}  // namespace

TEST(Builder, ReproducesTheChapter6ExampleByteForByte) {
  Builder b = chapter6();
  Diagnostics diags;
  // The example's pubnames length convention, selected (DWARF's is the default).
  std::vector<SectionImage> built = encode(b.unit(), {.pubnamesLength = UnitLengthConvention::unitLengthField}, diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.items[0].message;
  ptx::ReadResult fixture = ptx::read(ptxdwarf::testsupport::readFixture("chapter6.ptx"), "chapter6.ptx");
  ASSERT_TRUE(fixture.ok());
  for (const char* name : {".debug_info", ".debug_abbrev", ".debug_pubnames"}) {
    const SectionImage* want = fixture.module.section(name);
    const SectionImage* got = find(built, name);
    ASSERT_NE(want, nullptr) << name;
    ASSERT_NE(got, nullptr) << name;
    EXPECT_EQ(got->bytes, want->bytes) << name;
    EXPECT_EQ(relocations(*got), relocations(*want)) << name;
  }
  EXPECT_EQ(find(built, ".debug_loc"), nullptr);  // no lists, no section
  EXPECT_EQ(find(built, ".debug_aranges"), nullptr);
}

TEST(Builder, AddressClassFollowsTheStateSpace) {
  EXPECT_EQ(addressClassOf(ptx::StateSpace::global), 5);
  EXPECT_EQ(addressClassOf(ptx::StateSpace::shared), 8);
  EXPECT_EQ(addressClassOf(ptx::StateSpace::const_), 4);
  EXPECT_EQ(addressClassOf(ptx::StateSpace::local), 6);
  EXPECT_EQ(addressClassOf(ptx::StateSpace::param), 7);
  EXPECT_EQ(addressClassOf(ptx::StateSpace::reg), 2);
  EXPECT_EQ(addressClassOf(ptx::StateSpace::generic), 12);
  EXPECT_EQ(Location::symbol({"buf"}, ptx::StateSpace::shared).addressClass(), cuda::ADDR_shared_space);
  EXPECT_EQ(Location::reg("%rd10").addressClass(), cuda::ADDR_reg_space);
  EXPECT_EQ(Location::reg("%rd10").expr().bytes(),
            (std::vector<uint8_t>{0x90, 0xb0, 0xe2, 0x90, 0x93, 0xd7, 0x04}));  // regx 0x2572643130
}

TEST(Builder, RefusesRegisterNamesCudaGdbCannotRead) {
  EXPECT_THROW(Location::reg("r1"), BuildError);
  EXPECT_THROW(Location::reg("%verylong1"), BuildError);
  try {
    Location::reg("r1");
  } catch (const BuildError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot use 'r1' as a DW_OP_regx register: cuda-gdb needs a PTX register name starting with '%', at "
              "most 8 bytes of [A-Za-z0-9_$%]");
  }
  Unit u;
  EXPECT_THROW(u.add(7, DW_TAG_variable), BuildError);
}

TEST(Encoder, InternsAbbreviationsAndResolvesForwardReferences) {
  Builder b({.version = 4, .addressSize = 8, .policy = FormPolicy::compact});
  b.compileUnit({.producer = "p", .name = "a.cu", .lowPc = std::nullopt, .stmtList = false});
  DieId later = kNoDie;
  std::vector<DieId> vars;
  for (int k = 0; k < 3; ++k) vars.push_back(b.variable(b.root(), {.name = "v" + std::to_string(k), .declFile = 1,
                                                                    .declLine = 300u + k}));
  later = b.baseType("int", DW_ATE_signed, 4);
  for (DieId v : vars) b.unit().set(v, DW_AT_type, Value::reference(later));
  Diagnostics diags;
  std::vector<SectionImage> built = encode(b.unit(), {.pubnames = false}, diags);
  ASSERT_FALSE(diags.hasErrors());
  read::Dwarf dwarf = read::decode(built);
  ASSERT_TRUE(dwarf.diagnostics.items.empty()) << dwarf.diagnostics.items[0].message;
  ASSERT_EQ(dwarf.abbrevTables.size(), 1u);
  EXPECT_EQ(dwarf.abbrevTables[0].abbrevs.size(), 3u);  // CU, variable (shared by all three), base type
  const read::Die* v0 = nullptr;
  for (const read::Die& d : dwarf.dies)
    if (d.tag == DW_TAG_variable && dwarf.name(d) == "v0") v0 = &d;
  ASSERT_NE(v0, nullptr);
  std::optional<read::AttrValue> line = dwarf.attribute(*v0, DW_AT_decl_line);
  EXPECT_EQ(line->form, DW_FORM_data2);  // compact: smallest data form for 300
  EXPECT_EQ(line->value, 300u);
  std::optional<read::AttrValue> type = dwarf.attribute(*v0, DW_AT_type);
  ASSERT_NE(dwarf.dieAt(type->value), nullptr);
  EXPECT_EQ(dwarf.name(*dwarf.dieAt(type->value)), "int");
}

TEST(Encoder, LocationListsAndAranges) {
  Builder b;
  b.compileUnit({.producer = "p", .name = "a.cu"});
  DieId intType = b.baseType("int", DW_ATE_signed, 4);
  DieId k = b.subprogram({.name = "k", .linkageName = "k", .type = kNoDie, .lowPc = SymbolRef{"$L__func_begin0"},
                          .highPc = SymbolRef{"$L__func_end0"}});
  b.variable(k, {.name = "x", .type = intType,
                 .location = Location::list({{{"$L__tmp0"}, {"$L__tmp1"}, Location::reg("%r1")},
                                             {{"$L__tmp1"}, {"$L__func_end0"}, Location::reg("%r15")}})});
  Diagnostics diags;
  std::vector<SectionImage> built = encode(b.unit(), {.aranges = true}, diags);
  ASSERT_FALSE(diags.hasErrors());
  const SectionImage* loc = find(built, ".debug_loc");
  ASSERT_NE(loc, nullptr);
  EXPECT_EQ(relocations(*loc), (std::vector<std::string>{"0/8 $L__tmp0", "8/8 $L__tmp1", "23/8 $L__tmp1",
                                                          "31/8 $L__func_end0"}));
  EXPECT_EQ(loc->size(), 2u * (16 + 2) + 5 + 6 + 16);
  const SectionImage* aranges = find(built, ".debug_aranges");
  ASSERT_NE(aranges, nullptr);
  EXPECT_EQ(relocations(*aranges),
            (std::vector<std::string>{"6/4 .debug_info", "16/8 $L__func_begin0", "24/8 $L__func_end0"}));
  read::Dwarf dwarf = read::decode(built);
  ASSERT_TRUE(dwarf.diagnostics.items.empty()) << dwarf.diagnostics.items[0].message;
  ASSERT_EQ(dwarf.locLists.size(), 1u);
  EXPECT_EQ(dwarf.locLists[0].entries.size(), 3u);  // two ranges and the end
  ASSERT_EQ(dwarf.arangeSets.size(), 1u);
  EXPECT_EQ(dwarf.arangeSets[0].ranges.size(), 1u);
  const read::Die* x = nullptr;
  for (const read::Die& d : dwarf.dies)
    if (dwarf.name(d) == "x") x = &d;
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(dwarf.attribute(*x, DW_AT_location)->reloc->expression(), ".debug_loc");
  EXPECT_EQ(dwarf.attribute(*x, DW_AT_address_class)->value, cuda::ADDR_reg_space);
}

TEST(Encoder, PinnedFormThatCannotHoldTheValueIsAnError) {
  Unit u;
  u.set(u.root(), DW_AT_byte_size, Value::unsignedValue(300, DW_FORM_data1));
  Diagnostics diags;
  encode(u, {}, diags);
  ASSERT_TRUE(diags.hasErrors());
  EXPECT_EQ(diags.items[0].message, "DW_AT_byte_size of DIE 0 (DW_TAG_compile_unit): its value does not fit DW_FORM_data1");
}

TEST(Encoder, SiblingsPointPastTheSubtree) {
  Builder b;
  b.compileUnit({.name = "a.cu"});
  DieId s = b.subprogram({.name = "f", .frameBaseCfa = false});
  b.variable(s, {.name = "x"});
  b.unspecifiedType("void");
  Diagnostics diags;
  std::vector<SectionImage> built = encode(b.unit(), {.siblings = true}, diags);
  read::Dwarf dwarf = read::decode(built);
  const read::Die* f = nullptr;
  const read::Die* v = nullptr;
  for (const read::Die& d : dwarf.dies) {
    if (dwarf.name(d) == "f") f = &d;
    if (dwarf.name(d) == "void") v = &d;
  }
  ASSERT_TRUE(f && v);
  EXPECT_EQ(dwarf.attribute(*f, DW_AT_sibling)->value, v->offset);
}

TEST(Encoder, DeepTreeUsesNoRecursion) {
  Unit u;
  DieId parent = u.root();
  for (int k = 0; k < 100000; ++k) parent = u.add(parent, DW_TAG_lexical_block);
  Diagnostics diags;
  std::vector<SectionImage> built = encode(u, {.pubnames = false}, diags);
  ASSERT_FALSE(diags.hasErrors());
  read::Dwarf dwarf = read::decode(built);
  EXPECT_TRUE(dwarf.diagnostics.items.empty());
  EXPECT_EQ(dwarf.dies.size(), 2u * 100001 - 1);  // every DIE but the leaf closes a children list
}

TEST(Builder, DepotOffsetsBecomeAnOperationPtxasKeeps) {
  // ptxas rewrites DW_OP_addr __local_depotN to DW_OP_fbreg and drops an addend.
  Location l = Location::symbol({"__local_depot1", 12}, ptx::StateSpace::local);
  EXPECT_EQ(l.expr().bytes(), (std::vector<uint8_t>{0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x23, 12}));
  ASSERT_EQ(l.expr().fixups().size(), 1u);
  EXPECT_EQ(l.expr().fixups()[0].symbol.addend, 0);
  EXPECT_EQ(l.addressClass(), cuda::ADDR_local_space);
  // Other symbols keep their addend in the relocation.
  Location s = Location::symbol({"tile", 4}, ptx::StateSpace::shared);
  EXPECT_EQ(s.expr().fixups()[0].symbol.addend, 4);
}

// Issue 14, item 2: ptxas 13 cannot read DW_FORM_exprloc, DW_FORM_sec_offset or
// DW_FORM_ref_sig8, and reads DW_FORM_ref_addr as 8 bytes in DWARF 3 and 4
// (tools/faults/probe_ptxas_forms.py). A DWARF 4 unit's expressions are blocks;
// what has no form ptxas reads is refused where the producer asks for it.
TEST(Builder, DwarfFourExpressionsUseBlockForms) {
  Builder b({.version = 4, .addressSize = 8, .policy = FormPolicy::compact});
  b.compileUnit({.producer = "p", .name = "a.cu", .stmtList = false});
  DieId intType = b.baseType("int", DW_ATE_signed, 4);
  DieId pair = b.aggregate(DW_TAG_structure_type, "Pair", 8);
  b.member(pair, {.name = "a", .type = intType, .offset = 4});
  DieId k = b.subprogram({.name = "k", .linkageName = "k", .lowPc = SymbolRef{"k_begin"}, .highPc = SymbolRef{"k_end"}});
  b.variable(k, {.name = "x", .type = intType, .location = Location::reg("%r1")});
  Diagnostics diags;
  std::vector<SectionImage> built = encode(b.unit(), {}, diags);
  ASSERT_FALSE(diags.hasErrors());
  read::Dwarf dwarf = read::decode(built);
  ASSERT_EQ(dwarf.units.size(), 1u);
  EXPECT_EQ(dwarf.units[0].version, 4);
  size_t blocks = 0;
  for (const read::AbbrevTable& t : dwarf.abbrevTables)
    for (const read::AttrSpec& s : t.specs) {
      EXPECT_TRUE(cuda::ptxasFormProblem(s.form, 4).empty()) << formName(s.form);
      blocks += s.form == DW_FORM_block1;
    }
  EXPECT_EQ(blocks, 3u);  // frame base, member location, variable location
  EXPECT_EQ(chooseForm(DW_AT_location, Value::expression(Expr().regx("%r1")), {.version = 4}), DW_FORM_block1);
}

TEST(Builder, RefusesFormsPtxasCannotRead) {
  Builder v4({.version = 4});
  try {
    v4.compileUnit({.name = "a.cu"});  // DW_AT_stmt_list: DW_FORM_sec_offset in DWARF 4
    ADD_FAILURE() << "no BuildError";
  } catch (const BuildError& e) {
    EXPECT_EQ(std::string(e.what()),
              "DW_AT_stmt_list of DIE 0 (DW_TAG_compile_unit) in a DWARF 4 unit needs DW_FORM_sec_offset, and ptxas "
              "13 cannot read this form: it stops with \"Error in get_form_value default\" (exit 1, no line); build "
              "DWARF 2 or 3, where it is DW_FORM_data4");
  }
  DieId t = v4.baseType("int", DW_ATE_signed, 4);
  EXPECT_THROW(v4.unit().set(t, DW_AT_location, Value::expression(Expr().regx("%r1"), DW_FORM_exprloc)), BuildError);
  EXPECT_THROW(v4.unit().set(t, DW_AT_signature, Value::unsignedValue(1, DW_FORM_ref_sig8)), BuildError);
  Builder v3({.version = 3});
  DieId a = v3.baseType("int", DW_ATE_signed, 4);
  DieId p = v3.pointerType(kNoDie);
  EXPECT_THROW(v3.unit().set(p, DW_AT_type, Value::reference(a, DW_FORM_ref_addr)), BuildError);
  Builder v2;  // DWARF 2: ref_addr is address-sized, as ptxas reads it
  DieId a2 = v2.baseType("int", DW_ATE_signed, 4);
  EXPECT_NO_THROW(v2.unit().set(v2.pointerType(kNoDie), DW_AT_type, Value::reference(a2, DW_FORM_ref_addr)));
}

// Issue 14, item 6: the default pubnames debug_info_length is what DWARF says
// (the unit's size); the Chapter 6 convention stays selectable (above).
TEST(Encoder, PubnamesLengthIsTheUnitSizeByDefault) {
  Builder b = chapter6();
  Diagnostics diags;
  std::vector<SectionImage> built = encode(b.unit(), {}, diags);
  ASSERT_FALSE(diags.hasErrors());
  read::Dwarf dwarf = read::decode(built);
  ASSERT_EQ(dwarf.pubnameSets.size(), 1u);
  EXPECT_EQ(dwarf.units[0].length, 262u);
  EXPECT_EQ(dwarf.pubnameSets[0].infoLength, 266u);
}

// Issue 14, item 5: encode() results are looked up by name, as the C API's
// ptxdwarf_sections_find does.
TEST(Encoder, FindSectionByName) {
  Builder b = chapter6();
  Diagnostics diags;
  std::vector<SectionImage> built = encode(b.unit(), {}, diags);
  const SectionImage* abbrev = findSection(built, ".debug_abbrev");
  ASSERT_NE(abbrev, nullptr);
  EXPECT_EQ(abbrev->name, ".debug_abbrev");
  EXPECT_EQ(abbrev->size(), 86u);
  EXPECT_EQ(findSection(built, ".debug_line"), nullptr);
  EXPECT_EQ(findSection(built, "debug_abbrev"), nullptr);  // names keep their dot
}

// Issue 14, item 1: nvcc -G writes sibling lexical blocks whose label ranges
// overlap (CUB code); LLVM's verifier reports them. check says so, at the
// later block's low_pc, as a note; disjoint and nested blocks are clean.
TEST(CheckScopes, OverlappingSiblingBlocksAreReported) {
  const std::string code = ".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
                           ".reg .b32 %r<3>;\nk_begin:\n$L1:\n\tmov.b32 %r1, 1;\n$L2:\n\tmov.b32 %r1, 2;\n$L3:\n"
                           "\tmov.b32 %r1, 3;\n$L4:\n\tret;\nk_end:\n}\n";
  auto checkBlocks = [&](std::vector<std::pair<const char*, const char*>> blocks) {
    Builder b;
    b.compileUnit({.name = "k.cu", .stmtList = false});
    DieId k = b.subprogram({.name = "k", .linkageName = "k", .lowPc = SymbolRef{"k_begin"},
                            .highPc = SymbolRef{"k_end"}});
    DieId parent = k;
    for (auto [lo, hi] : blocks) {
      DieId block = b.lexicalBlock(parent, {lo}, {hi});
      if (std::string(lo) == "$L2" && std::string(hi) == "$L3") parent = block;  // nested below
    }
    Diagnostics diags;
    std::string text = code + write::writeSections(encode(b.unit(), {}, diags), {.version = {7, 5, true}}, diags);
    EXPECT_FALSE(diags.hasErrors());
    ptx::ReadResult r = ptx::read(text, "k.ptx");
    EXPECT_TRUE(r.ok());
    read::Dwarf dwarf = read::decode(r.module.sections);
    std::vector<std::string> found;
    for (const Diagnostic& d : check::run(r.module, dwarf).items)
      if (d.rule == "scope-overlap") found.push_back(std::string(severityName(d.severity)) + ": " + d.message);
    return found;
  };
  std::vector<std::string> overlap = checkBlocks({{"$L1", "$L3"}, {"$L2", "$L4"}});
  ASSERT_EQ(overlap.size(), 1u);
  EXPECT_EQ(overlap[0],
            "note: [$L2, $L4) (lines 10-14) starts inside its sibling DW_TAG_lexical_block at 0x00000032 [$L1, $L3) "
            "(lines 8-12); LLVM's verifier reports \"DIEs have overlapping address ranges\" (in DW_TAG_lexical_block "
            "at 0x00000043)");
  EXPECT_TRUE(checkBlocks({{"$L1", "$L2"}, {"$L2", "$L4"}}).empty());  // adjacent, not overlapping
  EXPECT_TRUE(checkBlocks({{"$L2", "$L3"}, {"$L2", "$L3"}}).empty());  // the second nested in the first
}

// ---- the unit's attribute table ----

namespace {

// name=value of each attribute of `die`, in order, read back through the views.
std::vector<std::string> attributesOf(const Unit& u, DieId die) {
  std::vector<std::string> out;
  for (const AttributeView a : u.attributes(die)) {
    std::string v;
    switch (a.kind()) {
      case Value::Kind::string:
        v = std::string(a.str());
        break;
      case Value::Kind::address:
        v = std::string(a.symbol()) + "+" + std::to_string(a.addend());
        break;
      case Value::Kind::expression:
        v = std::to_string(a.bytes().size()) + " bytes";
        break;
      default:
        v = std::to_string(a.u());
        break;
    }
    out.push_back(std::string(attributeName(a.name())) + "=" + v);
  }
  return out;
}

}  // namespace

TEST(Unit, AttributesSetOnAnEarlierDieStayInTheOrderOfFirstSet) {
  Unit u;
  DieId a = u.add(u.root(), DW_TAG_variable), b = u.add(u.root(), DW_TAG_variable);
  u.setString(a, DW_AT_name, "a");
  u.setString(b, DW_AT_name, "b");
  u.setUnsigned(a, DW_AT_decl_line, 7);                                // after b's: a's attributes move behind b's
  u.setString(a, DW_AT_name, "a long name, kept outside the record");  // replaced where it was
  u.setUnsigned(b, DW_AT_decl_line, 9);
  u.append(b, DW_AT_decl_line, Value::unsignedValue(10));  // append keeps both
  EXPECT_EQ(attributesOf(u, a),
            (std::vector<std::string>{"DW_AT_name=a long name, kept outside the record", "DW_AT_decl_line=7"}));
  EXPECT_EQ(attributesOf(u, b), (std::vector<std::string>{"DW_AT_name=b", "DW_AT_decl_line=9", "DW_AT_decl_line=10"}));
  ASSERT_TRUE(u.find(b, DW_AT_decl_line));
  EXPECT_EQ(u.find(b, DW_AT_decl_line)->u(), 9u);  // the first of that name
  EXPECT_FALSE(u.find(a, DW_AT_type));
  // The encoder writes what the views show: decode the sections again.
  Diagnostics diags;
  std::vector<SectionImage> images = encode(u, {}, diags);
  ASSERT_FALSE(diags.hasErrors());
  read::Dwarf d = read::decode(images);
  ASSERT_EQ(d.dies.size(), 4u);  // the unit, a, b and the NULL closing the children
  ASSERT_EQ(d.attributes(d.dies[1]).size(), 2u);
  EXPECT_EQ(d.attributes(d.dies[1])[1].value, 7u);
  ASSERT_EQ(d.attributes(d.dies[2]).size(), 3u);
  EXPECT_EQ(d.attributes(d.dies[2])[2].value, 10u);
}

TEST(Unit, ValuesKeptOutsideTheRecordComeBackWhole) {
  Unit u;
  DieId v = u.add(u.root(), DW_TAG_variable);
  Expr e;
  e.addr(SymbolRef{"some_global", 16}).plusUconst(300);  // a symbolic operand: kept outside
  u.setExpression(v, DW_AT_location, e);
  u.setAddress(v, DW_AT_low_pc, {"$L__begin", 4});
  u.set(v, DW_AT_const_value, Value::block({1, 2, 3, 4, 5, 6, 7, 8, 9}));  // 9 bytes: outside
  Value back = u.find(v, DW_AT_location)->value();
  EXPECT_EQ(back.expr.bytes(), e.bytes());
  ASSERT_EQ(back.expr.fixups().size(), 1u);
  EXPECT_EQ(back.expr.fixups()[0].symbol.name, "some_global");
  EXPECT_EQ(back.expr.fixups()[0].symbol.addend, 16);
  EXPECT_EQ(u.find(v, DW_AT_low_pc)->symbol(), "$L__begin");
  EXPECT_EQ(u.find(v, DW_AT_low_pc)->addend(), 4);
  EXPECT_EQ(u.find(v, DW_AT_const_value)->bytes().size(), 9u);
  EXPECT_EQ(u.find(v, DW_AT_const_value)->bytes()[8], 9);
}

namespace {

// The same program with its register variables built through variable()
// and a Location::reg, or through registerVariable() (an encoded DIE).
std::vector<SectionImage> registerProgram(UnitOptions options, bool encoded, bool siblings) {
  Builder b(options);
  b.compileUnit({.producer = "t", .name = "k.ptx", .stmtList = options.version < 4});
  DieId u32 = b.baseType("unsigned int", DW_ATE_unsigned, 4);
  DieId sp = b.subprogram({.name = "k", .linkageName = "k", .lowPc = SymbolRef{"$b"}, .highPc = SymbolRef{"$e"}});
  DieId block = b.lexicalBlock(sp, {"$b"}, {"$e"});
  struct Reg {
    const char* name;
    DieId scope;
    unsigned file, line;
    DieId type;
  };
  const Reg regs[] = {{"%r1", sp, 1, 7, u32},          {"%rd12345", sp, 1, 70000, u32}, {"%p", block, 0, 0, u32},
                      {"%f9", block, 1, 3, kNoDie},     {"%SPL", sp, 2, 4000000000u, u32}};
  for (const Reg& r : regs) {
    if (encoded)
      b.registerVariable(r.scope, {.reg = r.name, .declFile = r.file, .declLine = r.line, .type = r.type});
    else
      b.variable(r.scope, {.name = r.name,
                           .declFile = r.file,
                           .declLine = r.line,
                           .type = r.type,
                           .location = Location::reg(r.name, options.addressSize)});
  }
  b.variable(sp, {.name = "after", .type = u32, .location = Location::reg("%r2")});
  Diagnostics diags;
  std::vector<SectionImage> out = encode(b.unit(), {.siblings = siblings}, diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.items[0].message;
  return out;
}

}  // namespace

TEST(Builder, RegisterVariableEncodesExactlyAsAVariableWithARegisterLocation) {
  for (FormPolicy policy : {FormPolicy::chapter6, FormPolicy::compact})
    for (uint16_t version : {2, 3, 4})
      for (bool siblings : {false, true}) {
        UnitOptions o{.version = version, .policy = policy};
        std::vector<SectionImage> plain = registerProgram(o, false, siblings), encoded = registerProgram(o, true, siblings);
        ASSERT_EQ(plain.size(), encoded.size());
        for (size_t i = 0; i < plain.size(); ++i) {
          EXPECT_EQ(plain[i].name, encoded[i].name);
          EXPECT_EQ(plain[i].bytes, encoded[i].bytes) << plain[i].name << " version " << version;
          EXPECT_EQ(relocations(plain[i]), relocations(encoded[i]));
        }
      }
}

TEST(Unit, EncodedDiesAreCheckedAgainstTheirShape) {
  Unit u;
  DieId t = u.add(u.root(), DW_TAG_base_type);
  const AttributeSpec specs[] = {{DW_AT_name, DW_FORM_string}, {DW_AT_type, DW_FORM_ref4}, {DW_AT_count, DW_FORM_udata}};
  uint32_t shape = u.shape(DW_TAG_variable, specs);
  EXPECT_EQ(u.shape(DW_TAG_variable, specs), shape);  // interned
  const uint8_t good[] = {'x', 0, static_cast<uint8_t>(t), 0, 0, 0, 0x81, 0x01};
  DieId v = u.addEncoded(u.root(), shape, good);
  std::vector<Unit::EncodedValue> values = u.encodedValues(v);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].bytes.size(), 2u);
  EXPECT_EQ(values[2].name, DW_AT_count);
  EXPECT_EQ(values[2].bytes.size(), 2u);
  EXPECT_EQ(u.attributes(v).begin(), u.attributes(v).end());  // no records
  EXPECT_FALSE(u.find(v, DW_AT_name));

  const uint8_t shortBytes[] = {'x', 0, static_cast<uint8_t>(t), 0, 0};
  EXPECT_THROW(u.addEncoded(u.root(), shape, shortBytes), BuildError);
  const uint8_t extra[] = {'x', 0, static_cast<uint8_t>(t), 0, 0, 0, 1, 9};
  EXPECT_THROW(u.addEncoded(u.root(), shape, extra), BuildError);
  const uint8_t badRef[] = {'x', 0, 99, 0, 0, 0, 1};
  EXPECT_THROW(u.addEncoded(u.root(), shape, badRef), BuildError);
  EXPECT_THROW(u.addEncoded(u.root(), shape + 7, good), BuildError);
  const AttributeSpec addr[] = {{DW_AT_low_pc, DW_FORM_addr}};
  EXPECT_THROW(u.shape(DW_TAG_variable, addr), BuildError);  // a relocated form is not encodable
  EXPECT_THROW(u.setUnsigned(v, DW_AT_decl_line, 3), BuildError);
}

TEST(Encoder, AnEncodedReferenceToADetachedDieIsAnError) {
  Unit u;
  DieId detached = u.add(kDetached, DW_TAG_base_type);
  u.setString(detached, DW_AT_name, "int");
  const AttributeSpec specs[] = {{DW_AT_type, DW_FORM_ref4}};
  const uint8_t bytes[] = {static_cast<uint8_t>(detached), 0, 0, 0};
  u.addEncoded(u.root(), u.shape(DW_TAG_variable, specs), bytes);
  Diagnostics diags;
  encode(u, {}, diags);
  ASSERT_TRUE(diags.hasErrors());
  EXPECT_NE(diags.items[0].message.find("never attached"), std::string::npos) << diags.items[0].message;
}

// The encoder finds an encoded DIE's references without a walk where the
// shape allows (none, one at a fixed offset, one after a leading name) and
// by walking otherwise: each way, the bytes are those of the same DIE built
// from attribute records.
TEST(Encoder, EncodedReferencesLandWhereRecordsPutThem) {
  struct Value {
    uint16_t name, form;
    std::vector<uint8_t> bytes;  // a ref4's bytes: the index of the target among the types
  };
  const std::vector<std::vector<Value>> shapes = {
      {{DW_AT_type, DW_FORM_ref4, {1}}, {DW_AT_byte_size, DW_FORM_data1, {4}}},                          // fixed
      {{DW_AT_count, DW_FORM_udata, {0x80, 1}}, {DW_AT_type, DW_FORM_ref4, {0}}, {DW_AT_sibling, DW_FORM_ref4, {1}}},  // walk
      {{DW_AT_name, DW_FORM_string, {'v', 0}}, {DW_AT_type, DW_FORM_ref4, {1}}},                          // after a name
      {{DW_AT_byte_size, DW_FORM_data2, {8, 0}}},                                                         // none
  };
  // Each shape three times: as attribute records, as encoded DIEs, as one run.
  enum class Mode { records, encoded, run };
  auto build = [&](Mode mode) {
    Unit u;
    const DieId types[] = {u.add(u.root(), DW_TAG_base_type), u.add(u.root(), DW_TAG_base_type)};
    for (DieId t : types) u.setString(t, DW_AT_name, "t");
    for (const std::vector<Value>& shape : shapes) {
      if (mode != Mode::records) {
        std::vector<AttributeSpec> specs;
        std::vector<uint8_t> bytes;
        for (const Value& v : shape) {
          specs.push_back({v.name, v.form});
          if (v.form == DW_FORM_ref4) {
            for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(types[v.bytes[0]] >> (8 * i)));
          } else {
            bytes.insert(bytes.end(), v.bytes.begin(), v.bytes.end());
          }
        }
        const uint32_t id = u.shape(DW_TAG_variable, specs);
        if (mode == Mode::encoded) {
          for (int k = 0; k < 3; ++k) u.addEncoded(u.root(), id, bytes);
        } else {
          const DieId run = u.addEncodedRun(u.root(), id);
          for (int k = 0; k < 3; ++k) u.appendToRun(run, bytes);
          EXPECT_EQ(u.die(run).count, 3u);
          EXPECT_EQ(u.encodedValues(run).size(), 3 * shape.size());
        }
        continue;
      }
      for (int k = 0; k < 3; ++k) {
        DieId d = u.add(u.root(), DW_TAG_variable);
        for (const Value& v : shape) {
          if (v.form == DW_FORM_ref4)
            u.setReference(d, v.name, types[v.bytes[0]]);
          else if (v.form == DW_FORM_string)
            u.setString(d, v.name, "v");
          else
            u.setUnsigned(d, v.name, v.form == DW_FORM_udata ? 128 : v.bytes[0], v.form);
        }
      }
    }
    Diagnostics diags;
    std::vector<SectionImage> out = encode(u, {}, diags);
    EXPECT_FALSE(diags.hasErrors());
    return out;
  };
  std::vector<SectionImage> records = build(Mode::records);
  for (Mode mode : {Mode::encoded, Mode::run}) {
    std::vector<SectionImage> encoded = build(mode);
    ASSERT_EQ(records.size(), encoded.size());
    for (size_t i = 0; i < records.size(); ++i)
      EXPECT_EQ(records[i].bytes, encoded[i].bytes) << records[i].name << (mode == Mode::run ? " (run)" : "");
  }
}

// A run is one record for many leaves: it takes no children, grows only
// while it is the last DIE added encoded, is checked as addEncoded checks,
// and is nothing in the output while empty. A reference to it is to its
// first DIE.
TEST(Unit, RunsHoldLeavesOfOneShapeBackToBack) {
  const AttributeSpec specs[] = {{DW_AT_name, DW_FORM_string}, {DW_AT_byte_size, DW_FORM_data1}};
  auto build = [&](bool asRun, bool withEmptyRun) {
    Unit u;
    const uint32_t shape = u.shape(DW_TAG_variable, specs);
    const uint8_t a[] = {'a', 0, 4}, bc[] = {'b', 'c', 0, 8};
    DieId first = kNoDie;
    if (withEmptyRun) u.addEncodedRun(u.root(), shape);
    if (asRun) {
      first = u.addEncodedRun(u.root(), shape);
      u.appendToRun(first, a);
      u.appendToRun(first, bc);
    } else {
      first = u.addEncoded(u.root(), shape, a);
      u.addEncoded(u.root(), shape, bc);
    }
    DieId user = u.add(u.root(), DW_TAG_pointer_type);
    u.setReference(user, DW_AT_type, first);
    Diagnostics diags;
    std::vector<SectionImage> out = encode(u, {}, diags);
    EXPECT_FALSE(diags.hasErrors());
    return out;
  };
  const std::vector<SectionImage> one = build(false, false);
  for (bool empty : {false, true}) {
    const std::vector<SectionImage> run = build(true, empty);
    ASSERT_EQ(one.size(), run.size());
    for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i].bytes, run[i].bytes) << one[i].name << empty;
  }

  Unit u;
  const uint32_t shape = u.shape(DW_TAG_variable, specs);
  const DieId run = u.addEncodedRun(u.root(), shape);
  const uint8_t good[] = {'x', 0, 1}, bad[] = {'x', 0};
  u.appendToRun(run, good);
  EXPECT_THROW(u.appendToRun(run, bad), BuildError);  // the bytes end before DW_AT_byte_size
  EXPECT_THROW(u.add(run, DW_TAG_variable), BuildError);
  const DieId loose = u.add(kDetached, DW_TAG_variable);
  EXPECT_THROW(u.attach(run, loose), BuildError);
  EXPECT_THROW(u.appendToRun(u.root(), good), BuildError);  // not a run
  u.addEncoded(u.root(), shape, good);
  EXPECT_THROW(u.appendToRun(run, good), BuildError);  // no longer the last encoded DIE
  EXPECT_EQ(u.die(run).count, 1u);
}

// A unit of tens of thousands of DIEs is written in parts on several
// threads; the sections (bytes and relocations) are those of one thread.
TEST(Encoder, ALargeUnitWrittenInPartsIsTheSameAsInOne) {
  Builder b({.policy = FormPolicy::compact});
  b.compileUnit({.name = "k.ptx", .stmtList = true});
  const DieId u32 = b.baseType("unsigned int", DW_ATE_unsigned, 4);
  std::vector<std::string> labels;
  for (int f = 0; f < 3000; ++f) labels.push_back("$f" + std::to_string(f));
  for (int f = 0; f < 3000; ++f) {
    const std::string name = "k" + std::to_string(f);
    const DieId sp = b.subprogram({.name = name, .linkageName = name, .declFile = 1, .declLine = unsigned(f),
                                   .lowPc = SymbolRef{labels[size_t(f)]}, .highPc = SymbolRef{labels[size_t(f)], 64}});
    b.formalParameter(sp, {.name = name + "_param_0", .type = u32,
                           .location = Location::symbol({name + "_param_0"}, ptx::StateSpace::param, 8)});
    b.registerVariables(sp, {.stem = "%r", .count = uint32_t(f % 40), .declFile = 1, .declLine = 7, .type = u32});
    if (f % 3 == 0) b.registerVariable(sp, {.reg = "%p1", .declFile = 1, .declLine = 8, .type = u32});
  }
  std::vector<SectionImage> sections[3];
  for (unsigned threads : {1u, 2u, 3u}) {
    Diagnostics diags;
    sections[threads - 1] = encode(b.unit(), {.threads = threads}, diags);
    ASSERT_FALSE(diags.hasErrors());
  }
  ASSERT_GE(b.unit().dieCount(), 50000u);  // what makes a unit large
  ASSERT_LT(b.unit().size(), 20000u);      // in far fewer records
  for (int k = 1; k < 3; ++k) {
    ASSERT_EQ(sections[0].size(), sections[k].size());
    for (size_t i = 0; i < sections[0].size(); ++i) {
      const SectionImage &a = sections[0][i], &c = sections[k][i];
      EXPECT_EQ(a.bytes, c.bytes) << a.name;
      ASSERT_EQ(a.relocations.size(), c.relocations.size()) << a.name;
      for (size_t r = 0; r < a.relocations.size(); ++r) {
        EXPECT_EQ(a.relocations[r].offset, c.relocations[r].offset);
        EXPECT_EQ(a.relocations[r].expression(), c.relocations[r].expression());
      }
    }
  }
}

// A range is kept as its first register's DIE and a count (Unit::addRegisterRun)
// and made one DIE after another as it is written: across the counts where a
// name gains a digit and its packed name a ULEB byte, with and without a
// type and a declaration line, and on one thread or in parts on several.
TEST(Builder, RegisterRangesEncodeAsTheirRegistersOneByOne) {
  for (uint32_t count : {1u, 10u, 11u, 101u, 1000u, 12345u})
    for (FormPolicy policy : {FormPolicy::chapter6, FormPolicy::compact})
      for (bool typed : {true, false})
        for (unsigned declFile : {1u, 0u}) {
          auto build = [&](bool range, unsigned threads) {
            Builder b({.policy = policy});
            b.compileUnit({.name = "k.ptx"});
            DieId t = typed ? b.baseType("unsigned int", DW_ATE_unsigned, 4) : kNoDie;
            DieId sp = b.subprogram({.name = "k", .linkageName = "k"});
            const unsigned line = declFile ? 300 : 0;
            if (range) {
              b.registerVariables(sp, {.stem = "%rd", .count = count, .declFile = declFile, .declLine = line, .type = t});
              EXPECT_EQ(b.unit().dieCount(), count + 2 + (typed ? 1 : 0));
            } else {
              for (uint32_t k = 0; k < count; ++k)
                b.registerVariable(sp,
                                   {.reg = "%rd" + std::to_string(k), .declFile = declFile, .declLine = line, .type = t});
            }
            b.registerVariable(sp, {.reg = "%p1", .declFile = declFile, .declLine = line, .type = t});  // after the run
            Diagnostics diags;
            std::vector<SectionImage> sections = encode(b.unit(), {.threads = threads}, diags);
            EXPECT_FALSE(diags.hasErrors());
            return sections;
          };
          std::vector<SectionImage> one = build(false, 1);
          for (unsigned threads : {1u, 3u}) {
            std::vector<SectionImage> range = build(true, threads);
            ASSERT_EQ(one.size(), range.size());
            for (size_t i = 0; i < one.size(); ++i)
              EXPECT_EQ(one[i].bytes, range[i].bytes) << count << " " << typed << " " << declFile << " " << threads;
          }
        }
  Builder b;
  DieId sp = b.subprogram({.name = "k", .linkageName = "k"});
  b.registerVariables(sp, {.stem = "%abcdef", .count = 10});  // %abcdef9: 8 bytes
  EXPECT_THROW(b.registerVariables(sp, {.stem = "%abcdef", .count = 11}), BuildError);  // %abcdef10: 9
  EXPECT_THROW(b.registerVariables(sp, {.stem = "r", .count = 2}), BuildError);          // no '%'
}

// A register run is checked when it is added: a first DIE whose name or
// location is not what its registers are made from is refused.
TEST(Unit, ARegisterRunIsCheckedAgainstItsFirstDie) {
  Unit u;
  const AttributeSpec specs[] = {{DW_AT_name, DW_FORM_string}, {DW_AT_location, DW_FORM_block1}};
  const uint32_t shape = u.shape(DW_TAG_variable, specs);
  const uint64_t stem = *cuda::packRegister("%r");
  std::vector<uint8_t> good = {'%', 'r', '0', 0, 0, DW_OP_regx};
  encodeUleb(stem << 8 | '0', [&](uint8_t b) { good.push_back(b); });
  good[4] = static_cast<uint8_t>(good.size() - 5);
  const DieId run = u.addRegisterRun(u.root(), shape, good, 2, stem, 120);
  EXPECT_EQ(u.die(run).count, 120u);
  EXPECT_EQ(u.dieCount(), 121u);
  size_t dies = 0;
  std::vector<uint8_t> last;
  UnitStore::forEachEncodedDie(u, run, [&](std::span<const uint8_t> bytes) {
    ++dies;
    last.assign(bytes.begin(), bytes.end());
  });
  EXPECT_EQ(dies, 120u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(last.data())), "%r119");
  std::vector<uint8_t> badName = good;
  badName[2] = '1';  // %r1: not the first register
  EXPECT_THROW(u.addRegisterRun(u.root(), shape, badName, 2, stem, 3), BuildError);
  std::vector<uint8_t> otherStem = good;
  otherStem[1] = 'q';  // %q0, its operand %r0's
  EXPECT_THROW(u.addRegisterRun(u.root(), shape, otherStem, 2, stem, 3), BuildError);
  std::vector<uint8_t> badLocation = good;
  badLocation.back() ^= 1;  // another register's packed name
  EXPECT_THROW(u.addRegisterRun(u.root(), shape, badLocation, 2, stem, 3), BuildError);
  EXPECT_THROW(u.addRegisterRun(u.root(), shape, good, 2, stem, 1000001), BuildError);  // %r1000000: 9 bytes
}
