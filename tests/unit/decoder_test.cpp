// The DWARF decoder on the Chapter 6 example and on hand-made malformed units.
#include <gtest/gtest.h>

#include <algorithm>


#include "corpus.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/read/expression.h"
#include "read/stages.h"

using namespace ptxdwarf;
using namespace ptxdwarf::dw;

namespace {

struct Decoded {
  ptx::ReadResult read;
  read::Dwarf dwarf;
};

std::unique_ptr<Decoded> decodeText(const std::string& text) {
  auto d = std::make_unique<Decoded>();
  d->read = ptx::read(text, "t.ptx");
  EXPECT_TRUE(d->read.ok());
  d->dwarf = read::decode(d->read.module.sections);
  return d;
}

// A module with the given .debug_abbrev and .debug_info bytes.
std::string sections(const std::vector<int>& abbrev, const std::vector<int>& info) {
  auto list = [](const std::vector<int>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i % 16 == 0 ? "\n.b8 " : ", ") + std::to_string(v[i]);
    return s;
  };
  return ".version 7.5\n.target sm_75\n.address_size 64\n.section .debug_abbrev {" + list(abbrev) +
         "\n}\n.section .debug_info {" + list(info) + "\n}\n";
}

std::vector<int> header(uint32_t length, int version = 2) {
  return {int(length & 0xff), int((length >> 8) & 0xff), int((length >> 16) & 0xff), int(length >> 24),
          version, 0, 0, 0, 0, 0, 8};
}

std::string firstError(const read::Dwarf& d) {
  if (d.diagnostics.items.empty()) return "no error";
  const Diagnostic& e = d.diagnostics.items[0];
  return e.section + "+" + std::to_string(e.offset) + ": " + e.message;
}

}  // namespace

TEST(Decoder, Chapter6Tree) {
  auto d = decodeText(ptxdwarf::testsupport::readFixture("chapter6.ptx"));
  const read::Dwarf& dw = d->dwarf;
  EXPECT_TRUE(dw.diagnostics.items.empty()) << firstError(dw);
  ASSERT_EQ(dw.units.size(), 1u);
  const read::Unit& u = dw.units[0];
  EXPECT_EQ(u.length, 262u);
  EXPECT_EQ(u.version, 2);
  EXPECT_EQ(u.addressSize, 8);
  ASSERT_NE(u.abbrevReloc, nullptr);
  EXPECT_EQ(u.abbrevReloc->symbol, ".debug_abbrev");
  std::vector<std::pair<uint64_t, std::string>> tree;
  for (const read::Die& die : dw.dies)
    if (!die.isNull()) tree.emplace_back(die.offset, std::string(die.depth * 2, ' ') + std::string(tagName(die.tag)));
  std::vector<std::pair<uint64_t, std::string>> expected = {
      {0x0b, "DW_TAG_compile_unit"},       {0x45, "  DW_TAG_subprogram"},
      {0x77, "    DW_TAG_formal_parameter"}, {0x8d, "    DW_TAG_formal_parameter"},
      {0xa4, "  DW_TAG_base_type"},        {0xae, "  DW_TAG_subprogram"},
      {0xe2, "    DW_TAG_formal_parameter"}, {0xfd, "  DW_TAG_unspecified_type"},
      {0x103, "  DW_TAG_pointer_type"}};
  EXPECT_EQ(tree, expected);

  const read::Die* foo = dw.dieAt(0x45);
  ASSERT_NE(foo, nullptr);
  EXPECT_EQ(dw.name(*foo), "_Z3fooii");
  EXPECT_EQ(dw.linkageName(*foo), "_Z3fooii");
  std::optional<read::AttrValue> low = dw.attribute(*foo, DW_AT_low_pc);
  ASSERT_TRUE(low.has_value());
  ASSERT_NE(low->reloc, nullptr);
  EXPECT_EQ(low->reloc->symbol, "func_begin0");
  std::optional<read::AttrValue> type = dw.attribute(*foo, DW_AT_type);
  ASSERT_TRUE(type.has_value());
  EXPECT_EQ(type->form, DW_FORM_ref4);
  EXPECT_EQ(type->value, 0xa4u);  // relative 164 plus unit offset 0
  EXPECT_EQ(dw.name(*dw.dieAt(type->value)), "int");

  const read::Die* i = dw.dieAt(0x77);
  std::optional<read::AttrValue> loc = dw.attribute(*i, DW_AT_location);
  ASSERT_TRUE(loc.has_value());
  read::Expression e = read::decodeExpression(loc->block(), {8, 4, dw.info, loc->value});
  ASSERT_TRUE(e.ok);
  ASSERT_EQ(e.ops.size(), 1u);
  EXPECT_EQ(e.ops[0].op, DW_OP_regx);
  EXPECT_EQ(cuda::unpackRegister(e.ops[0].operands[0]), "%r1");
  EXPECT_EQ(dw.attribute(*i, DW_AT_address_class)->value, cuda::ADDR_reg_space);

  const read::Die* p = dw.dieAt(0xe2);
  std::optional<read::AttrValue> ploc = dw.attribute(*p, DW_AT_location);
  read::Expression pe = read::decodeExpression(ploc->block(), {8, 4, dw.info, ploc->value});
  ASSERT_EQ(pe.ops.size(), 1u);
  EXPECT_EQ(pe.ops[0].op, DW_OP_addr);
  ASSERT_NE(pe.ops[0].reloc, nullptr);
  EXPECT_EQ(pe.ops[0].reloc->symbol, "_Z4testPi_param_0");
  EXPECT_EQ(dw.attribute(*p, DW_AT_address_class)->value, cuda::ADDR_param_space);
}

TEST(Decoder, Chapter6Pubnames) {
  auto d = decodeText(ptxdwarf::testsupport::readFixture("chapter6.ptx"));
  const read::Dwarf& dw = d->dwarf;
  ASSERT_EQ(dw.pubnameSets.size(), 1u);
  const read::NameSet& s = dw.pubnameSets[0];
  EXPECT_EQ(s.length, 41u);
  EXPECT_EQ(s.version, 2);
  EXPECT_EQ(s.infoLength, 262u);  // the example's convention: the unit_length field, not 266
  ASSERT_EQ(s.entries.size(), 2u);
  EXPECT_EQ(s.entries[0].dieOffset, 69u);
  EXPECT_EQ(s.entries[0].name, "_Z3fooii");
  EXPECT_EQ(s.entries[1].dieOffset, 174u);
  EXPECT_EQ(s.entries[1].name, "_Z4testPi");
}

TEST(Decoder, EveryFixedAndVariableForm) {
  // One DIE with data1/2/4/8, sdata, udata, string, flag, flag_present (v4), block1, exprloc, ref_udata, indirect.
  std::vector<int> abbrev = {1, 0x11, 0,  // compile_unit, no children
                             0x0b, 0x0b, 0x0d, 0x05, 0x02, 0x06, 0x03, 0x07, 0x3e, 0x0d, 0x3f, 0x0f,
                             0x03, 0x08, 0x27, 0x0c, 0x3c, 0x19, 0x02, 0x0a, 0x40, 0x18, 0x49, 0x15,
                             0x3a, 0x16, 0, 0, 0};
  std::vector<int> body = {1, 0x2a, 0x34, 0x12, 1, 0, 0, 0x80, 2, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x7f, 0xe5, 0x8e, 0x26,
                           'h', 'i', 0, 1, 2, 0x9c, 0x96, 1, 0x9c, 0x0b, 0x0f, 0x01};
  std::vector<int> h = header(static_cast<uint32_t>(7 + body.size()), 4);
  h.insert(h.end(), body.begin(), body.end());
  auto d = decodeText(sections(abbrev, h));
  const read::Dwarf& dw = d->dwarf;
  ASSERT_TRUE(dw.diagnostics.items.empty()) << firstError(dw);
  ASSERT_EQ(dw.dies.size(), 1u);
  auto a = dw.attributes(dw.dies[0]);
  ASSERT_EQ(a.size(), 13u);
  EXPECT_EQ(a[0].value, 0x2au);
  EXPECT_EQ(a[1].value, 0x1234u);
  EXPECT_EQ(a[2].value, 0x80000001u);
  EXPECT_EQ(a[3].value, 0x8000000000000002u);
  EXPECT_EQ(a[4].svalue(), -128);
  EXPECT_EQ(a[5].value, 624485u);
  EXPECT_EQ(a[6].string(), "hi");
  EXPECT_EQ(a[7].value, 1u);
  EXPECT_EQ(a[8].form, DW_FORM_flag_present);
  EXPECT_EQ(a[8].size, 0u);
  EXPECT_EQ(a[9].block().size(), 2u);
  EXPECT_EQ(a[9].block()[1], 0x96);
  EXPECT_EQ(a[10].block().size(), 1u);
  EXPECT_EQ(a[11].value, 0x0bu);  // ref_udata 11 -> absolute 0x0b
  EXPECT_TRUE(a[12].indirect);
  EXPECT_EQ(a[12].form, DW_FORM_udata);
  EXPECT_EQ(a[12].value, 1u);
}

static bool sameValue(const read::AttrValue& x, const read::AttrValue& y) {
  return x.name == y.name && x.form == y.form && x.value == y.value && x.reloc == y.reloc && x.offset == y.offset &&
         x.size == y.size && x.indirect == y.indirect && x.formCodeSize == y.formCodeSize && x.string() == y.string() &&
         x.block().data() == y.block().data() && x.block().size() == y.block().size();
}

// Every value AttrRange gives is the one the decoder's general path
// (readAttrValue) reads at its offset: AttrRange reads the common
// fixed-size forms itself. How many values were compared.
static size_t expectValuesReadAsTheGeneralPathReadsThem(const read::Dwarf& dw) {
  size_t compared = 0;
  for (const read::Die& die : dw.dies) {
    const read::AttrRange attrs = dw.attributes(die);
    const read::Unit& unit = dw.unitOf(die);
    for (size_t i = 0; i < attrs.size(); ++i) {
      read::AttrValue general;
      general.name = attrs.nameAt(i);
      ByteReader r(dw.info->data(), attrs.offsetAt(i));
      r.limit(unit.end);
      RelocationCursor relocs(*dw.info, die.firstReloc, die.offset + die.codeSize);
      read::AttrProblem problem;
      EXPECT_TRUE(read::readAttrValue(dw, unit, r, relocs, attrs.declaredFormAt(i), general, problem)) << problem.message;
      EXPECT_TRUE(sameValue(attrs[i], general)) << "DIE " << die.offset << " attribute " << i << " form "
                                                << attrs.declaredFormAt(i);
      ++compared;
    }
  }
  return compared;
}

// Values are decoded when read (AttrRange): in any order, through
// attribute() as through the range, each read gives the same value,
// relocation included.
static void expectAttributesDecodeAlike(const char* fixture) {
  SCOPED_TRACE(fixture);
  auto d = decodeText(ptxdwarf::testsupport::readFixture(fixture));
  const read::Dwarf& dw = d->dwarf;
  ASSERT_TRUE(dw.diagnostics.items.empty()) << firstError(dw);
  size_t values = 0, relocated = 0, walked = 0;
  for (size_t k = 0; k < dw.dies.size(); ++k) {
    const read::Die& die = dw.dies[k];
    const read::AttrRange attrs = dw.attributes(die);
    std::vector<read::AttrValue> forward(attrs.begin(), attrs.end());
    ASSERT_EQ(forward.size(), attrs.size());
    const read::Unit& unit = dw.unitOf(die);
    const read::AbbrevTable* table = dw.tableOf(unit);
    const size_t abbreviated = die.isNull() ? 0 : table->specsOf(table->abbrevs[die.abbrevIndex]).size();
    ASSERT_EQ(forward.size(), die.offset == unit.cutDie ? unit.cutAttributes : abbreviated);
    // Walking skips each value to the next: the attributes lie back to back
    // from the abbreviation code to the next DIE.
    size_t i = 0;
    for (auto it = attrs.begin(); it != attrs.end(); ++it, ++i) {
      EXPECT_EQ(it.offset(), forward[i].offset - forward[i].formCodeSize);
      EXPECT_EQ(it.name(), forward[i].name);
    }
    if (!forward.empty()) {
      EXPECT_EQ(forward.front().offset - forward.front().formCodeSize, die.offset + die.codeSize);
      if (k + 1 < dw.dies.size() && &dw.unitOf(dw.dies[k + 1]) == &unit) {
        EXPECT_EQ(forward.back().offset + forward.back().size, dw.dies[k + 1].offset) << "DIE " << die.offset;
        ++walked;
      }
    }
    for (size_t i = attrs.size(); i-- > 0;) {  // backwards: the relocation cursor starts over
      EXPECT_TRUE(sameValue(attrs[i], forward[i])) << "DIE " << die.offset << " attribute " << i;
      EXPECT_EQ(attrs.nameAt(i), forward[i].name);
      EXPECT_EQ(attrs.offsetAt(i), forward[i].offset - forward[i].formCodeSize);
      EXPECT_TRUE(dw.attribute(die, attrs.nameAt(i)).has_value());
      EXPECT_TRUE(dw.hasAttribute(die, attrs.nameAt(i)));
      ++values;
      relocated += forward[i].reloc != nullptr;
    }
  }
  EXPECT_GT(values, dw.dies.size());
  EXPECT_EQ(expectValuesReadAsTheGeneralPathReadsThem(dw), values);
  EXPECT_GT(walked, 4u);
  EXPECT_GE(relocated, 4u);  // low_pc, high_pc, ... name labels
  EXPECT_FALSE(dw.attribute(dw.dies[0], DW_AT_bit_size).has_value());
  EXPECT_FALSE(dw.hasAttribute(dw.dies[0], DW_AT_bit_size));
}

TEST(Decoder, AttributesDecodeAlikeInAnyOrder) {
  expectAttributesDecodeAlike("chapter6.ptx");
  expectAttributesDecodeAlike("producers/nvcc_G_locals_main.ptx");  // nvcc -G: hundreds of relocated values
}

// Every fixed-size form, relocated or not, in a unit that does not start
// the section (references are unit-relative), read through AttrRange as
// the decoder's general path reads it.
TEST(Decoder, FixedSizeFormsReadAsTheGeneralPathReadsThem) {
  // compile_unit with data1, ref1, flag, data2, ref2, data4, ref4, sec_offset, data8, ref8, addr, ref_sig8.
  const std::vector<int> abbrev = {1,    0x11, 0,    0x0b, 0x0b, 0x3e, 0x11, 0x3f, 0x0c, 0x0d, 0x05,
                                   0x49, 0x12, 0x02, 0x06, 0x4a, 0x13, 0x10, 0x17, 0x03, 0x07, 0x01,
                                   0x14, 0x11, 0x01, 0x69, 0x20, 0,    0,    0};
  // A unit's lines: its DIE's values as bytes, or (`symbols`) its data4,
  // sec_offset and data8 as symbolic operands, relocated values.
  auto unit = [](bool symbols) {
    auto bytes = [](std::initializer_list<int> list) {
      std::string s;
      for (int b : list) s += (s.empty() ? ".b8 " : ", ") + std::to_string(b);
      return s + "\n";
    };
    std::string lines = bytes({52 + 7, 0, 0, 0, 2, 0, 0, 0, 0, 0, 8});  // header: 52 bytes of DIE
    lines += bytes({1, 0x2a, 0x0b, 1, 0x34, 0x12, 0x0b, 0});
    lines += symbols ? ".b32 value_a\n" : bytes({1, 0, 0, 0x80});
    lines += bytes({0x0b, 0, 0, 0});
    lines += symbols ? ".b32 .debug_loc+8\n" : bytes({0x44, 0x33, 0x22, 0x11});
    lines += symbols ? ".b64 value_b\n" : bytes({2, 0, 0, 0, 0, 0, 0, 0x80});
    lines += bytes({0x0b, 0, 0, 0, 0, 0, 0, 0});
    lines += symbols ? ".b64 value_c\n" : bytes({0x10, 0, 0, 0, 0, 0, 0, 0});
    lines += symbols ? ".b64 value_d\n" : bytes({0x21, 0x43, 0, 0, 0, 0, 0, 0});  // a type signature
    return lines;
  };
  std::string text = sections(abbrev, {});
  text.replace(text.rfind(".section .debug_info {") + 22, 0, "\n" + unit(false) + unit(true));
  auto d = decodeText(text);
  const read::Dwarf& dw = d->dwarf;
  ASSERT_TRUE(dw.diagnostics.items.empty()) << firstError(dw);
  ASSERT_EQ(dw.units.size(), 2u);
  ASSERT_EQ(dw.dies.size(), 2u);
  EXPECT_EQ(expectValuesReadAsTheGeneralPathReadsThem(dw), 24u);
  const read::AttrRange plain = dw.attributes(dw.dies[0]), relocated = dw.attributes(dw.dies[1]);
  for (const read::AttrRange* a : {&plain, &relocated}) {
    const uint64_t base = dw.unitOf(a == &plain ? dw.dies[0] : dw.dies[1]).offset;
    SCOPED_TRACE(base);
    EXPECT_EQ((*a)[0].value, 0x2au);
    EXPECT_EQ((*a)[1].value, base + 0x0b);  // references are unit-relative
    EXPECT_EQ((*a)[2].value, 1u);
    EXPECT_EQ((*a)[3].value, 0x1234u);
    EXPECT_EQ((*a)[4].value, base + 0x0b);
    EXPECT_EQ((*a)[6].value, base + 0x0b);
    EXPECT_EQ((*a)[9].value, base + 0x0b);
  }
  EXPECT_EQ(dw.units[1].offset, 63u);
  EXPECT_EQ(plain[5].value, 0x80000001u);
  EXPECT_EQ(plain[7].value, 0x11223344u);
  EXPECT_EQ(plain[8].value, 0x8000000000000002u);
  EXPECT_EQ(plain[10].value, 0x10u);
  EXPECT_EQ(plain[11].value, 0x4321u);  // a signature, not unit-relative
  for (size_t i : {5u, 7u, 8u, 10u, 11u}) {
    EXPECT_EQ(plain[i].reloc, nullptr);
    ASSERT_NE(relocated[i].reloc, nullptr) << i;
  }
  EXPECT_EQ(relocated[5].reloc->symbol, "value_a");
  EXPECT_EQ(relocated[7].reloc->symbol, ".debug_loc");
  EXPECT_EQ(relocated[7].reloc->addend(), 8);
  EXPECT_EQ(relocated[8].reloc->symbol, "value_b");
  EXPECT_EQ(relocated[10].reloc->symbol, "value_c");
  EXPECT_EQ(relocated[11].reloc->symbol, "value_d");
}

TEST(DecoderErrors, UnitLengthPastSection) {
  std::vector<int> info = header(100);
  info.push_back(0);
  auto d = decodeText(sections({0}, info));
  EXPECT_EQ(firstError(d->dwarf),
            ".debug_info+0: unit length 0x00000064 runs past the end of .debug_info (unit ends at 0x00000068, "
            "section size 0x0000000c)");
  EXPECT_EQ(d->dwarf.diagnostics.items[0].loc.line, 8u);  // the `.b8` line of .debug_info
}

TEST(DecoderErrors, UnsupportedVersionAndUndefinedCode) {
  auto d = decodeText(sections({0}, header(7, 5)));
  EXPECT_EQ(firstError(d->dwarf), ".debug_info+4: unsupported DWARF version 5 (DWARF 2, 3 and 4 are supported)");
  std::vector<int> info = header(8);
  info.push_back(3);
  auto d2 = decodeText(sections({1, 0x11, 0, 0, 0, 0}, info));
  EXPECT_EQ(firstError(d2->dwarf),
            ".debug_info+11: abbreviation code 3 is not defined in the table at .debug_abbrev+0");
}

TEST(DecoderErrors, BlockAndStringPastUnitEnd) {
  std::vector<int> info = header(10);
  info.insert(info.end(), {1, 9, 1, 2});  // block1 of length 9 with 2 bytes left
  auto d = decodeText(sections({1, 0x11, 0, 0x02, 0x0a, 0, 0, 0}, info));
  EXPECT_EQ(firstError(d->dwarf), ".debug_info+12: DW_FORM_block1 length 9 runs past the end of the unit");
  std::vector<int> info2 = header(10);
  info2.insert(info2.end(), {1, 'a', 'b', 'c'});
  auto d2 = decodeText(sections({1, 0x11, 0, 0x03, 0x08, 0, 0, 0}, info2));
  EXPECT_EQ(firstError(d2->dwarf), ".debug_info+12: string attribute is not NUL-terminated inside the unit");
}

// A DIE keeps neither its unit nor its attribute count: the unit is the one
// whose bytes hold it, and the attributes its abbreviation's, except in the
// DIE a unit's decode stopped inside, which has those before the bad value.
TEST(DecoderErrors, ADieCutShortHasTheAttributesBeforeTheBadValue) {
  const std::vector<int> abbrev = {1, 0x11, 0, 0x03, 0x08, 0x0b, 0x0b, 0x13, 0x0a, 0, 0, 0};  // name, byte_size, block1
  std::vector<int> info = header(15);
  info.insert(info.end(), {1, 'a', 'b', 0, 7, 9, 1, 2});  // block1 of length 9 with 2 bytes left
  const std::vector<int> second = header(14);
  info.insert(info.end(), second.begin(), second.end());
  info.insert(info.end(), {1, 'c', 'd', 0, 5, 1, 42});
  auto d = decodeText(sections(abbrev, info));
  const read::Dwarf& dw = d->dwarf;
  EXPECT_EQ(firstError(dw), ".debug_info+16: DW_FORM_block1 length 9 runs past the end of the unit");
  ASSERT_EQ(dw.units.size(), 2u);
  ASSERT_EQ(dw.dies.size(), 2u);
  EXPECT_EQ(dw.units[0].cutDie, dw.dies[0].offset);
  EXPECT_EQ(dw.units[0].cutAttributes, 2u);
  EXPECT_EQ(dw.units[1].cutDie, read::kNone);
  EXPECT_EQ(&dw.unitOf(dw.dies[0]), &dw.units[0]);
  EXPECT_EQ(&dw.unitOf(dw.dies[1]), &dw.units[1]);
  EXPECT_EQ(dw.unitIndexOf(dw.dies[1]), 1u);
  const read::AttrRange cut = dw.attributes(dw.dies[0]);
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_EQ(cut[0].string(), "ab");
  EXPECT_EQ(cut[1].value, 7u);
  const read::AttrRange whole = dw.attributes(dw.dies[1]);
  ASSERT_EQ(whole.size(), 3u);
  EXPECT_EQ(whole[0].string(), "cd");
  EXPECT_EQ(whole[2].block().size(), 1u);
  EXPECT_FALSE(dw.attribute(dw.dies[0], DW_AT_language));
  EXPECT_TRUE(dw.attribute(dw.dies[1], DW_AT_language));
}

TEST(DecoderErrors, FixedSizeValuesPastUnitEnd) {
  // Values of a size the form gives are stepped over, not read: their bounds
  // are still checked, with the message a read gives.
  std::vector<int> info = header(9);
  info.insert(info.end(), {1, 0xaa, 0xbb});  // data4 with one byte left in the unit
  auto d = decodeText(sections({1, 0x11, 0, 0x11, 0x06, 0, 0, 0}, info));
  EXPECT_EQ(firstError(d->dwarf), ".debug_info+12: DW_FORM_data4 value runs past the end of the unit");
  std::vector<int> info2 = header(12);
  info2.insert(info2.end(), {1, 1, 2, 3, 4, 5});  // addr (8 bytes here) with four left
  auto d2 = decodeText(sections({1, 0x11, 0, 0x11, 0x01, 0, 0, 0}, info2));
  EXPECT_EQ(firstError(d2->dwarf), ".debug_info+12: DW_FORM_addr value runs past the end of the unit");
  std::vector<int> info3 = header(12);
  info3[10] = 3;  // an address size DWARF does not have: the header's error, before any value
  info3.insert(info3.end(), {1, 1, 2, 3, 4, 5});
  auto d3 = decodeText(sections({1, 0x11, 0, 0x11, 0x01, 0, 0, 0}, info3));
  EXPECT_EQ(firstError(d3->dwarf), ".debug_info+10: unsupported address size 3");
}

// A DIE's first relocation is the first at or after it, whether its values
// were read or stepped over (NULL entries have none to look up).
TEST(Decoder, EveryDieKnowsItsFirstRelocation) {
  auto d = decodeText(ptxdwarf::testsupport::readFixture("producers/nvcc_G_locals_main.ptx"));
  const read::Dwarf& dw = d->dwarf;
  const std::vector<Relocation>& relocs = dw.info->relocations;
  size_t relocated = 0;
  for (const read::Die& die : dw.dies) {
    if (die.isNull()) continue;
    const auto first = std::lower_bound(relocs.begin(), relocs.end(), die.offset,
                                        [](const Relocation& r, uint64_t o) { return r.offset < o; });
    EXPECT_EQ(die.firstReloc, static_cast<uint32_t>(first - relocs.begin())) << "DIE at " << die.offset;
    relocated += first != relocs.end() && first->offset < die.offset + 16;
  }
  EXPECT_GT(relocated, 10u);
}

TEST(DecoderErrors, OverlongLeb128) {
  std::vector<int> info = header(19);
  info.push_back(1);  // compile_unit with one DW_FORM_udata attribute: 11 bytes of LEB128
  for (int i = 0; i < 10; ++i) info.push_back(0x80);
  info.push_back(0);
  auto d = decodeText(sections({1, 0x11, 0, 0x0b, 0x0f, 0, 0, 0}, info));
  EXPECT_EQ(firstError(d->dwarf), ".debug_info+12: DW_FORM_udata value is a LEB128 longer than 10 bytes");
  EXPECT_EQ(d->dwarf.diagnostics.items[0].rule, "leb128");
}

TEST(DecoderErrors, ChildrenNotTerminated) {
  std::vector<int> info = header(9);
  info.insert(info.end(), {1, 2});  // CU with children, one child, no NULL
  auto d = decodeText(sections({1, 0x11, 1, 0, 0, 2, 0x24, 0, 0, 0, 0}, info));
  EXPECT_EQ(firstError(d->dwarf),
            ".debug_info+11: children of the DIE at 0x0000000b are not terminated by a NULL entry before the unit ends "
            "at 0x0000000d");
}

TEST(DecoderErrors, AbbrevTableNotTerminated) {
  std::vector<int> info = header(8);
  info.push_back(1);
  auto d = decodeText(sections({1, 0x11, 0, 0, 0}, info));
  EXPECT_EQ(firstError(d->dwarf),
            ".debug_abbrev+5: abbreviation table at offset 0 is not terminated (missing 0 code before the section "
            "ends)");
}

TEST(Decoder, DeepNestingUsesNoRecursion) {
  // 100 000 nested DIEs, each with children: the tree is decoded with an explicit stack.
  const int depth = 100000;
  std::vector<uint8_t> info = {0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 8};
  for (int i = 0; i < depth; ++i) info.push_back(1);
  for (int i = 0; i < depth; ++i) info.push_back(0);
  uint32_t length = static_cast<uint32_t>(info.size() - 4);
  for (int i = 0; i < 4; ++i) info[i] = static_cast<uint8_t>(length >> (8 * i));
  std::vector<SectionImage> secs(2);
  secs[0].name = ".debug_abbrev";
  secs[0].bytes = {1, 0x0b, 1, 0, 0, 0};
  secs[1].name = ".debug_info";
  secs[1].bytes = info;
  read::Dwarf dw = read::decode(secs);
  EXPECT_TRUE(dw.diagnostics.items.empty()) << firstError(dw);
  ASSERT_EQ(dw.dies.size(), 2u * depth);
  EXPECT_EQ(dw.dies[depth - 1].depth, static_cast<uint32_t>(depth - 1));
}

TEST(Expression, OperandsOfEveryKind) {
  std::vector<uint8_t> b = {0x90, 0xb1, 0xe4, 0x95, 0x01,  // regx %r1
                            0x92, 0x05, 0x7f,              // bregx 5 -1
                            0x91, 0x70,                    // fbreg -16
                            0x08, 0xff,                    // const1u 255
                            0x09, 0xff,                    // const1s -1
                            0x2f, 0xfd, 0xff,              // skip -3
                            0x9d, 0x08, 0x10,              // bit_piece 8 16
                            0x9e, 0x02, 0xaa, 0xbb,        // implicit_value 2 bytes
                            0x9c};                         // call_frame_cfa
  read::Expression e = read::decodeExpression(b, {8, 4, nullptr, 0});
  ASSERT_TRUE(e.ok) << e.error;
  ASSERT_EQ(e.ops.size(), 9u);
  EXPECT_EQ(e.ops[0].operands[0], 0x257231u);
  EXPECT_EQ(e.ops[1].operands[0], 5u);
  EXPECT_EQ(static_cast<int64_t>(e.ops[1].operands[1]), -1);
  EXPECT_EQ(static_cast<int64_t>(e.ops[2].operands[0]), -16);
  EXPECT_EQ(e.ops[3].operands[0], 255u);
  EXPECT_EQ(static_cast<int64_t>(e.ops[4].operands[0]), -1);
  EXPECT_EQ(static_cast<int64_t>(e.ops[5].operands[0]), -3);
  EXPECT_EQ(e.ops[6].operands[1], 16u);
  EXPECT_EQ(e.ops[7].block.size(), 2u);
  EXPECT_EQ(e.ops[8].op, DW_OP_call_frame_cfa);
  EXPECT_EQ(e.ops[8].offset, 24u);
}

TEST(Expression, TruncatedAndUnknown) {
  std::vector<uint8_t> t = {0x03, 1, 2, 3};  // DW_OP_addr needs 8 bytes
  read::Expression e = read::decodeExpression(t, {8, 4, nullptr, 0});
  EXPECT_FALSE(e.ok);
  EXPECT_EQ(e.error, "DW_OP_addr: operand runs past the end of the expression");
  std::vector<uint8_t> u = {0x9c, 0x01};
  read::Expression e2 = read::decodeExpression(u, {8, 4, nullptr, 0});
  EXPECT_FALSE(e2.ok);
  EXPECT_EQ(e2.errorOffset, 1u);
  EXPECT_EQ(e2.error, "unknown opcode 0x01");
}

// The reader hands out what decodeExpression collects, one operation at a
// time, and stops where decoding stops, with the same offset and message.
TEST(Expression, ReaderGivesWhatDecodeCollects) {
  const std::vector<std::vector<uint8_t>> cases = {
      {0x90, 0xb1, 0xe4, 0x95, 0x01, 0x92, 0x05, 0x7f, 0x9e, 0x02, 0xaa, 0xbb},  // regx, bregx, implicit_value
      {0x90, 0x05, 0x03, 1, 2, 3},                                              // regx, then a truncated addr
      {0x30, 0x9c, 0x01, 0x30},                                                 // an unknown opcode third
      {}};
  for (const std::vector<uint8_t>& bytes : cases) {
    const read::Expression whole = read::decodeExpression(bytes, {8, 4, nullptr, 0});
    read::OperationReader reader(bytes, {8, 4, nullptr, 0});
    size_t n = 0;
    for (read::Operation op; reader.next(op); ++n) {
      ASSERT_LT(n, whole.ops.size());
      EXPECT_EQ(op.offset, whole.ops[n].offset);
      EXPECT_EQ(op.op, whole.ops[n].op);
      EXPECT_EQ(op.operands[0], whole.ops[n].operands[0]);
      EXPECT_EQ(op.operands[1], whole.ops[n].operands[1]);
      EXPECT_EQ(op.block.size(), whole.ops[n].block.size());
    }
    EXPECT_EQ(n, whole.ops.size());
    EXPECT_EQ(reader.failed(), !whole.ok);
    EXPECT_EQ(reader.errorOffset(), whole.errorOffset);
    EXPECT_EQ(reader.error(), whole.error);
    read::Operation op;
    EXPECT_FALSE(reader.next(op)) << "a finished or failed reader stays so";
  }
  read::OperationReader truncated(cases[1], {8, 4, nullptr, 0});
  read::Operation op;
  ASSERT_TRUE(truncated.next(op));
  EXPECT_FALSE(truncated.next(op));
  EXPECT_EQ(truncated.errorOffset(), 2u);
  EXPECT_EQ(truncated.error(), "DW_OP_addr: operand runs past the end of the expression");
}

// A list keeps only where each entry starts (LocEntryRef); indexing and
// iterating decode the entry again from the section, relocations included:
// with 8-byte addresses and with a 32-bit unit's 4-byte ones.
static void expectEntriesOfEveryKind(unsigned a) {
  SCOPED_TRACE(a);
  const std::string w = a == 8 ? ".b64 " : ".b32 ";
  const std::string text =
      ".version 7.5\n.target sm_75\n.address_size " + std::to_string(8 * a) + "\n.section .debug_loc {\n" +
      w + "-1\n" + w + "$L__a\n" +  // 0: base address selection (-1: a wide constant would be cut to 32 bits)
      w + "$L__a+4\n" + w + "$L__b\n.b8 2, 0\n.b8 144, 5\n" +           // 2a: range, relocated, DW_OP_regx 5
      w + "16, 32\n.b8 1, 0, 48\n" +                                    // 4a + 4: range, constant, DW_OP_lit0
      w + "0, 0\n}\n";                                                   // 6a + 7: end of list
  const ptx::ReadResult r = ptx::read(text, "t.ptx");
  ASSERT_TRUE(r.ok());
  const SectionImage* loc = r.module.section(".debug_loc");
  ASSERT_NE(loc, nullptr);
  std::vector<read::LocEntryRef> storage;
  const read::LocList list = read::readLocList(*loc, 0, static_cast<uint8_t>(a), storage);
  EXPECT_TRUE(list.terminated);
  EXPECT_EQ(list.end, 8 * a + 7);
  ASSERT_EQ(list.entries.size(), 4u);

  const read::LocEntry base = list.entries[0];
  EXPECT_EQ(base.kind, read::LocEntry::baseAddress);
  EXPECT_EQ(base.offset, 0u);
  EXPECT_EQ(base.begin, a == 8 ? UINT64_MAX : 0xffffffffu);
  EXPECT_EQ(base.beginReloc, nullptr);
  ASSERT_NE(base.endReloc, nullptr);
  EXPECT_EQ(base.endReloc->symbol, "$L__a");

  const read::LocEntry relocated = list.entries[1];
  EXPECT_EQ(relocated.kind, read::LocEntry::range);
  EXPECT_EQ(relocated.offset, 2 * a);
  ASSERT_NE(relocated.beginReloc, nullptr);
  EXPECT_EQ(relocated.beginReloc->expression(), "$L__a+4");
  ASSERT_NE(relocated.endReloc, nullptr);
  EXPECT_EQ(relocated.endReloc->symbol, "$L__b");
  EXPECT_EQ(relocated.exprOffset, 4 * a + 2);
  EXPECT_EQ(std::vector<uint8_t>(relocated.expr.begin(), relocated.expr.end()), (std::vector<uint8_t>{144, 5}));

  const read::LocEntry constant = list.entries[2];
  EXPECT_EQ(constant.kind, read::LocEntry::range);
  EXPECT_EQ(constant.offset, 4 * a + 4);
  EXPECT_EQ(constant.begin, 16u);
  EXPECT_EQ(constant.end, 32u);
  EXPECT_EQ(constant.beginReloc, nullptr);
  EXPECT_EQ(constant.endReloc, nullptr);
  EXPECT_EQ(std::vector<uint8_t>(constant.expr.begin(), constant.expr.end()), (std::vector<uint8_t>{48}));

  EXPECT_EQ(list.entries.back().kind, read::LocEntry::endOfList);
  EXPECT_EQ(list.entries.back().offset, 6 * a + 7);

  // Iterating yields the same entries as indexing, and a list read from the
  // middle of this one finds the same relocations from its own start.
  size_t i = 0;
  for (const read::LocEntry& e : list.entries) {
    EXPECT_EQ(e.offset, list.entries[i].offset);
    EXPECT_EQ(e.beginReloc, list.entries[i].beginReloc);
    ++i;
  }
  EXPECT_EQ(i, 4u);
  const read::LocList tail = read::readLocList(*loc, 2 * a, static_cast<uint8_t>(a), storage);
  ASSERT_EQ(tail.entries.size(), 3u);
  EXPECT_EQ(tail.entries[0].beginReloc, relocated.beginReloc);
  EXPECT_EQ(tail.entries[0].endReloc, relocated.endReloc);
}

TEST(Decoder, LocationListEntriesDecodeFromTheSection) {
  static_assert(sizeof(read::LocEntryRef) == 8, "the point of the refs: 8 bytes an entry, not 72");
  expectEntriesOfEveryKind(8);
  expectEntriesOfEveryKind(4);
}

// The lists location attributes name, collected while .debug_info is read:
// constant and relocated offsets name lists, an offset past .debug_loc is an
// error at its value (in DIE order), and one relocated against another
// symbol names none.
TEST(Decoder, LocationListsNamedByConstantsAndRelocations) {
  const std::string text =
      ".version 7.5\n.target sm_75\n.address_size 64\n"
      ".section .debug_loc {\n"
      ".b64 16, 32\n.b8 1, 0, 48\n.b64 0, 0\n"  // 0: a range and the end
      ".b64 0, 0\n"                             // 35: the end alone
      "}\n"
      ".section .debug_abbrev {\n"
      ".b8 1, 17, 1, 0, 0\n"       // 1: DW_TAG_compile_unit, children
      ".b8 2, 52, 0, 2, 6, 0, 0\n"  // 2: DW_TAG_variable, DW_AT_location as data4
      ".b8 0\n}\n"
      ".section .debug_info {\n"
      ".b32 34\n.b8 2, 0\n.b32 0\n.b8 8\n"
      ".b8 1\n"
      ".b8 2\n.b32 0\n"               // value at 13: the list at 0
      ".b8 2\n.b32 9999\n"            // 18: past the section
      ".b8 2\n.b32 .debug_loc+35\n"   // 23: the list at 35
      ".b8 2\n.b32 .debug_loc+60\n"   // 28: past the section
      ".b8 2\n.b32 other+4\n"         // 33: no list
      ".b8 0\n}\n";
  auto d = decodeText(text);
  ASSERT_EQ(d->dwarf.diagnostics.items.size(), 2u) << firstError(d->dwarf);
  EXPECT_EQ(firstError(d->dwarf), ".debug_info+18: location list offset 9999 is outside .debug_loc (size 51)");
  EXPECT_EQ(d->dwarf.diagnostics.items[1].offset, 28u);
  EXPECT_EQ(d->dwarf.diagnostics.items[1].message, "location list offset 60 is outside .debug_loc (size 51)");
  ASSERT_EQ(d->dwarf.locLists.size(), 2u);
  EXPECT_EQ(d->dwarf.locLists[0].offset, 0u);
  EXPECT_EQ(d->dwarf.locLists[0].entries.size(), 2u);
  EXPECT_EQ(d->dwarf.locLists[1].offset, 35u);
  EXPECT_EQ(d->dwarf.locLists[1].entries.size(), 1u);
  // Without the lists asked for, none is decoded and no offset is judged.
  const read::Dwarf without = read::decode(d->read.module.sections, {.locationLists = false});
  EXPECT_TRUE(without.locLists.empty());
  EXPECT_TRUE(without.diagnostics.items.empty());
}

// dieAt looks only in the bucket of offsets the one asked for falls in: on
// DIEs of very uneven sizes -- runs of short ones, a few of thousands of
// bytes, NULL entries -- it finds the DIE at every offset of the section
// that starts one, and no DIE anywhere else or past the end (a binary
// search over all of them says which).
TEST(Decoder, DieAtOnUnevenDies) {
  const std::vector<int> abbrev = {1, 0x11, 1, 0x03, 0x08, 0, 0,   // compile_unit, children, name: string
                                   2, 0x34, 0, 0x03, 0x08, 0, 0,   // variable, name: string
                                   3, 0x13, 1, 0x03, 0x08, 0, 0,   // structure_type, children, name: string
                                   0};
  std::vector<int> body = {1, 'c', 0};
  for (int i = 0; i < 600; ++i) {
    const size_t length = i % 97 == 0 ? 3000 + i * 7 : (i % 5 == 4 ? 40 : 1);  // mostly short, a few huge
    const int code = i % 50 == 0 ? 3 : 2;
    body.push_back(code);
    for (size_t k = 0; k < length; ++k) body.push_back('a' + k % 26);
    body.push_back(0);
    if (code == 3) {  // a member, then the NULL closing the structure's children
      body.insert(body.end(), {2, 'm', 0, 0});
    }
  }
  body.push_back(0);  // the unit's children end
  std::vector<int> info = header(static_cast<uint32_t>(body.size() + 7));
  info.insert(info.end(), body.begin(), body.end());
  auto d = decodeText(sections(abbrev, info));
  const read::Dwarf& dw = d->dwarf;
  ASSERT_TRUE(dw.diagnostics.items.empty()) << firstError(dw);
  ASSERT_GT(dw.dies.size(), 600u);
  size_t found = 0;
  for (uint64_t offset = 0; offset < info.size() + 3; ++offset) {
    auto it = std::lower_bound(dw.dies.begin(), dw.dies.end(), offset,
                               [](const read::Die& die, uint64_t o) { return die.offset < o; });
    const read::Die* expected = it != dw.dies.end() && it->offset == offset && !it->isNull() ? &*it : nullptr;
    ASSERT_EQ(dw.dieAt(offset), expected) << offset;
    found += expected != nullptr;
  }
  EXPECT_EQ(found, 1u + 600u + 12u);  // the unit, the variables and structures, the structures' members
  EXPECT_FALSE(dw.dieBuckets.empty());
}

// A label defined inside a debug section stands for its offset there, as
// ptxas resolves it (LLVM 22 writes `.b32 $L__debug_loc0` with
// `$L__debug_loc0:` inside .debug_loc): every offset field the decoder
// reads -- a location list, DW_FORM_strp, the abbreviation offset -- goes
// through Dwarf::resolve.
TEST(Decoder, LabelsInDebugSectionsAreOffsetsThere) {
  const std::string text =
      ".version 7.5\n.target sm_75\n.address_size 64\n"
      ".section .debug_loc {\n"
      ".b64 0, 0\n"                                // 0: a list no one names
      "$L__debug_loc0:\n.b64 16, 32\n.b8 1, 0, 48\n.b64 0, 0\n"  // 16: the list
      "}\n"
      ".section .debug_str {\n.b8 120, 0\n$L__str:\n.b8 121, 122, 0\n}\n"
      ".section .debug_abbrev {\n"
      ".b8 0\n$L__abbrev:\n"                        // the unit's table starts at 1
      ".b8 1, 17, 1, 0, 0\n"
      ".b8 2, 52, 0, 2, 6, 3, 14, 0, 0\n"           // variable: location data4, name strp
      ".b8 0\n}\n"
      ".section .debug_info {\n"
      ".b32 27\n.b8 2, 0\n.b32 $L__abbrev\n.b8 8\n"
      ".b8 1\n"
      ".b8 2\n.b32 $L__debug_loc0\n.b32 $L__str\n"  // 12: the list at 16, "yz"
      ".b8 2\n.b32 $L__debug_loc0+19\n.b32 $L__str+1\n"  // 21: the list's end entry at 35, "z"
      ".b8 0\n}\n";
  auto d = decodeText(text);
  const read::Dwarf& dw = d->dwarf;
  ASSERT_EQ(dw.units.size(), 1u);
  EXPECT_EQ(dw.units[0].abbrevOffset, 1u);
  ASSERT_EQ(dw.locLists.size(), 2u) << firstError(dw);
  EXPECT_EQ(dw.locLists[0].offset, 16u);
  EXPECT_EQ(dw.locLists[0].entries.size(), 2u);
  EXPECT_EQ(dw.locLists[1].offset, 35u);
  std::vector<std::string> names;
  for (const read::Die& die : dw.dies)
    if (die.tag == DW_TAG_variable) names.emplace_back(dw.name(die));
  EXPECT_EQ(names, (std::vector<std::string>{"yz", "z"}));
  // resolve: a section's name, a label in a debug section, neither.
  const SectionImage* info = d->read.module.section(".debug_info");
  const Relocation* list = info->relocationAt(13, 4);
  ASSERT_NE(list, nullptr);
  auto at = dw.resolve(*list);
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->section, ".debug_loc");
  EXPECT_EQ(at->offset, 16u);
  EXPECT_EQ(dw.offsetIn(".debug_loc", 0, list), std::optional<uint64_t>(16));
  EXPECT_EQ(dw.offsetIn(".debug_str", 0, list), std::nullopt);
  EXPECT_EQ(dw.offsetIn(".debug_loc", 7, nullptr), std::optional<uint64_t>(7));
}

// DW_FORM_ref_addr written as `.b64 .debug_info+N` (LLVM 19 and 22 in a
// module of two units) names the DIE at N, in whatever unit; a reference
// relocated against anything else names none.
TEST(Decoder, SymbolicReferencesNameTheirDie) {
  const std::string text =
      ".version 7.5\n.target sm_75\n.address_size 64\n"
      ".section .debug_abbrev {\n"
      ".b8 1, 17, 1, 0, 0\n"
      ".b8 2, 36, 0, 3, 8, 0, 0\n"       // base_type, name string
      ".b8 3, 52, 0, 73, 16, 0, 0\n"     // variable, type ref_addr
      ".b8 0\n}\n"
      ".section .debug_info {\n"
      ".b32 14\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8\n"  // unit 0 at 0
      ".b8 1\n.b8 2, 105, 110, 116, 0\n.b8 0\n"          // 'int' at 12
      ".b32 27\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8\n"  // unit 1 at 18
      ".b8 1\n"
      ".b8 3\n.b64 .debug_info+12\n"                      // 30: to 'int' in unit 0
      ".b8 3\n.b64 $L__tmp0\n"                            // 39: not .debug_info
      ".b8 0\n}\n";
  auto d = decodeText(text);
  const read::Dwarf& dw = d->dwarf;
  ASSERT_EQ(dw.units.size(), 2u) << firstError(dw);
  std::vector<const read::Die*> vars;
  for (const read::Die& die : dw.dies)
    if (die.tag == DW_TAG_variable) vars.push_back(&die);
  ASSERT_EQ(vars.size(), 2u);
  const read::AttrValue first = *dw.attribute(*vars[0], DW_AT_type);
  EXPECT_EQ(dw.referenceTarget(first), std::optional<uint64_t>(12));
  ASSERT_NE(dw.referencedDie(first), nullptr);
  EXPECT_EQ(dw.name(*dw.referencedDie(first)), "int");
  EXPECT_EQ(first.value, 0u) << "the value keeps the field's bytes: the writer copies them";
  const read::AttrValue second = *dw.attribute(*vars[1], DW_AT_type);
  EXPECT_EQ(dw.referenceTarget(second), std::nullopt);
  EXPECT_EQ(dw.referencedDie(second), nullptr);
}

// LLVM's proposed multi-level line tables (`.loc_intermediate`,
// `.nv_intermediate_source_section`; ptxas 13.0: "Parsing error near
// '.loc_intermediate': syntax error") are named where they stand, not read
// on as unknown statements (which swallowed the next instruction, or ran to
// the end of the file inside the section's `{ ... }`).
TEST(Reader, ConstructsPtxasDoesNotAcceptAreNamed) {
  const std::string head = ".version 7.5\n.target sm_75, debug\n.address_size 64\n";
  const ptx::ReadResult inBody = ptx::read(
      head + ".visible .func f()\n{\n\t.loc 1 2 5\n\t.loc_intermediate 2 100 10\n\tret;\n}\n.file 1 \"a.cu\"\n", "t.ptx");
  ASSERT_FALSE(inBody.ok());
  const Diagnostic& a = inBody.diagnostics.items.at(0);
  EXPECT_EQ(a.loc.line, 7u);
  EXPECT_EQ(a.loc.col, 2u);
  EXPECT_NE(a.message.find("'.loc_intermediate'"), std::string::npos) << a.message;
  EXPECT_NE(a.message.find("ptxas 13.0"), std::string::npos) << a.message;
  const ptx::ReadResult section = ptx::read(
      head + ".nv_intermediate_source_section {\n  .code_block {\n    .source: <<<\nx\n>>>\n  }\n}\n", "t.ptx");
  ASSERT_FALSE(section.ok());
  const Diagnostic& b = section.diagnostics.items.at(0);
  EXPECT_EQ(b.loc.line, 4u);
  EXPECT_NE(b.message.find("'.nv_intermediate_source_section'"), std::string::npos) << b.message;
}
