// The DWARF name table: numeric values from the standard, spellings as
// llvm-dwarfdump 14 prints them, and the operand encodings a decoder relies on.
#include "ptxdwarf/dwarf.h"

#include <gtest/gtest.h>

namespace dw = ptxdwarf::dw;
using dw::OperandKind;

TEST(DwarfNames, EnumValuesAreTheStandardOnes) {
  EXPECT_EQ(dw::DW_TAG_compile_unit, 0x11);
  EXPECT_EQ(dw::DW_TAG_subprogram, 0x2e);
  EXPECT_EQ(dw::DW_TAG_formal_parameter, 0x05);
  EXPECT_EQ(dw::DW_TAG_variable, 0x34);
  EXPECT_EQ(dw::DW_TAG_base_type, 0x24);
  EXPECT_EQ(dw::DW_TAG_GNU_call_site, 0x4109);
  EXPECT_EQ(dw::DW_AT_name, 0x03);
  EXPECT_EQ(dw::DW_AT_language, 0x13);
  EXPECT_EQ(dw::DW_AT_address_class, 0x33);
  EXPECT_EQ(dw::DW_AT_linkage_name, 0x6e);
  EXPECT_EQ(dw::DW_AT_MIPS_linkage_name, 0x2007);
  EXPECT_EQ(dw::DW_FORM_addr, 0x01);
  EXPECT_EQ(dw::DW_FORM_string, 0x08);
  EXPECT_EQ(dw::DW_FORM_data1, 0x0b);
  EXPECT_EQ(dw::DW_FORM_ref4, 0x13);
  EXPECT_EQ(dw::DW_FORM_exprloc, 0x18);
  EXPECT_EQ(dw::DW_FORM_ref_sig8, 0x20);
  EXPECT_EQ(dw::DW_OP_addr, 0x03);
  EXPECT_EQ(dw::DW_OP_lit0, 0x30);
  EXPECT_EQ(dw::DW_OP_reg31, 0x6f);
  EXPECT_EQ(dw::DW_OP_breg0, 0x70);
  EXPECT_EQ(dw::DW_OP_regx, 0x90);
  EXPECT_EQ(dw::DW_OP_call_frame_cfa, 0x9c);
  EXPECT_EQ(dw::DW_OP_stack_value, 0x9f);
  EXPECT_EQ(dw::DW_OP_GNU_push_tls_address, 0xe0);
  EXPECT_EQ(dw::DW_LANG_C_plus_plus, 0x0004);
  EXPECT_EQ(dw::DW_LANG_C99, 0x000c);
  EXPECT_EQ(dw::DW_LANG_UPC, 0x0012);
  EXPECT_EQ(dw::DW_LANG_C_plus_plus_11, 0x001a);
  EXPECT_EQ(dw::DW_LANG_C11, 0x001d);
  EXPECT_EQ(dw::DW_LANG_C_plus_plus_14, 0x0021);
  EXPECT_EQ(dw::DW_LANG_Mips_Assembler, 0x8001);
  EXPECT_EQ(dw::DW_ATE_signed, 0x05);
  EXPECT_EQ(dw::DW_ATE_UTF, 0x10);
  EXPECT_EQ(dw::DW_INL_declared_inlined, 0x03);
  EXPECT_EQ(dw::DW_CHILDREN_yes, 0x01);
}

TEST(DwarfNames, NamesAreSpelledLikeLlvmDwarfdump) {
  EXPECT_EQ(dw::tagName(0x11), "DW_TAG_compile_unit");
  EXPECT_EQ(dw::tagName(0x05), "DW_TAG_formal_parameter");
  EXPECT_EQ(dw::tagName(0x0f), "DW_TAG_pointer_type");
  EXPECT_EQ(dw::tagName(0x4106), "DW_TAG_GNU_template_template_param");
  EXPECT_EQ(dw::attributeName(0x2007), "DW_AT_MIPS_linkage_name");
  EXPECT_EQ(dw::attributeName(0x3f), "DW_AT_external");
  EXPECT_EQ(dw::attributeName(0x2116), "DW_AT_GNU_all_tail_call_sites");
  EXPECT_EQ(dw::attributeName(0x3fe6), "DW_AT_APPLE_runtime_class");
  EXPECT_EQ(dw::formName(0x0c), "DW_FORM_flag");
  EXPECT_EQ(dw::formName(0x19), "DW_FORM_flag_present");
  EXPECT_EQ(dw::formName(0x1f01), "DW_FORM_GNU_addr_index");
  EXPECT_EQ(dw::opName(0x91), "DW_OP_fbreg");
  EXPECT_EQ(dw::opName(0x9c), "DW_OP_call_frame_cfa");
  EXPECT_EQ(dw::opName(0x4f), "DW_OP_lit31");
  EXPECT_EQ(dw::opName(0x8f), "DW_OP_breg31");
  EXPECT_EQ(dw::opName(0xf3), "DW_OP_GNU_entry_value");
  EXPECT_EQ(dw::languageName(0x0004), "DW_LANG_C_plus_plus");
  EXPECT_EQ(dw::languageName(0x8001), "DW_LANG_Mips_Assembler");
  EXPECT_EQ(dw::encodingName(0x05), "DW_ATE_signed");
  EXPECT_EQ(dw::encodingName(0x08), "DW_ATE_unsigned_char");
  EXPECT_EQ(dw::accessibilityName(1), "DW_ACCESS_public");
  EXPECT_EQ(dw::visibilityName(3), "DW_VIS_qualified");
  EXPECT_EQ(dw::virtualityName(2), "DW_VIRTUALITY_pure_virtual");
  EXPECT_EQ(dw::identifierCaseName(0), "DW_ID_case_sensitive");
  EXPECT_EQ(dw::callingConventionName(1), "DW_CC_normal");
  EXPECT_EQ(dw::callingConventionName(0xc1), "DW_CC_LLVM_Win64");
  EXPECT_EQ(dw::inlineName(1), "DW_INL_inlined");
  EXPECT_EQ(dw::orderingName(1), "DW_ORD_col_major");
  EXPECT_EQ(dw::discriminantName(1), "DW_DSC_range");
  EXPECT_EQ(dw::decimalSignName(5), "DW_DS_trailing_separate");
  EXPECT_EQ(dw::endianityName(2), "DW_END_little");
  EXPECT_EQ(dw::defaultedName(1), "DW_DEFAULTED_in_class");
}

TEST(DwarfNames, UnknownValuesHaveNoName) {
  EXPECT_TRUE(dw::tagName(0x0006).empty());  // a hole in the DWARF 2 tag space
  EXPECT_TRUE(dw::tagName(0x10011).empty());  // must not alias 0x11
  EXPECT_TRUE(dw::attributeName(0x00).empty());
  EXPECT_TRUE(dw::attributeName(0x04).empty());
  EXPECT_TRUE(dw::formName(0x02).empty());  // reserved in DWARF 2
  EXPECT_TRUE(dw::opName(0x00).empty());
  EXPECT_TRUE(dw::opName(0x07).empty());
  EXPECT_TRUE(dw::opName(0x103).empty());  // wider than a byte: not DW_OP_addr
  EXPECT_TRUE(dw::languageName(0).empty());
  EXPECT_TRUE(dw::languageName(0xffff).empty());
  EXPECT_TRUE(dw::encodingName(0).empty());
  EXPECT_TRUE(dw::accessibilityName(0).empty());
  EXPECT_TRUE(dw::inlineName(4).empty());
  EXPECT_EQ(dw::opInfo(0x00), nullptr);
  EXPECT_EQ(dw::opInfo(0xff), nullptr);
}

TEST(DwarfNames, OpInfoGivesOperandEncodings) {
  auto expectOp = [](uint8_t op, std::string_view name, OperandKind a, OperandKind b) {
    const dw::OpInfo* info = dw::opInfo(op);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->name, name);
    EXPECT_EQ(info->a, a) << name;
    EXPECT_EQ(info->b, b) << name;
  };
  expectOp(dw::DW_OP_addr, "DW_OP_addr", OperandKind::addr, OperandKind::none);
  expectOp(dw::DW_OP_deref, "DW_OP_deref", OperandKind::none, OperandKind::none);
  expectOp(dw::DW_OP_const1s, "DW_OP_const1s", OperandKind::s8, OperandKind::none);
  expectOp(dw::DW_OP_const2u, "DW_OP_const2u", OperandKind::u16, OperandKind::none);
  expectOp(dw::DW_OP_const8s, "DW_OP_const8s", OperandKind::s64, OperandKind::none);
  expectOp(dw::DW_OP_consts, "DW_OP_consts", OperandKind::sleb, OperandKind::none);
  expectOp(dw::DW_OP_pick, "DW_OP_pick", OperandKind::u8, OperandKind::none);
  expectOp(dw::DW_OP_plus_uconst, "DW_OP_plus_uconst", OperandKind::uleb, OperandKind::none);
  expectOp(dw::DW_OP_skip, "DW_OP_skip", OperandKind::s16, OperandKind::none);
  expectOp(dw::DW_OP_bra, "DW_OP_bra", OperandKind::s16, OperandKind::none);
  expectOp(dw::DW_OP_lit7, "DW_OP_lit7", OperandKind::none, OperandKind::none);
  expectOp(dw::DW_OP_reg5, "DW_OP_reg5", OperandKind::none, OperandKind::none);
  expectOp(dw::DW_OP_breg12, "DW_OP_breg12", OperandKind::sleb, OperandKind::none);
  expectOp(dw::DW_OP_regx, "DW_OP_regx", OperandKind::uleb, OperandKind::none);
  expectOp(dw::DW_OP_fbreg, "DW_OP_fbreg", OperandKind::sleb, OperandKind::none);
  expectOp(dw::DW_OP_bregx, "DW_OP_bregx", OperandKind::uleb, OperandKind::sleb);
  expectOp(dw::DW_OP_piece, "DW_OP_piece", OperandKind::uleb, OperandKind::none);
  expectOp(dw::DW_OP_deref_size, "DW_OP_deref_size", OperandKind::u8, OperandKind::none);
  expectOp(dw::DW_OP_call2, "DW_OP_call2", OperandKind::u16, OperandKind::none);
  expectOp(dw::DW_OP_call4, "DW_OP_call4", OperandKind::u32, OperandKind::none);
  expectOp(dw::DW_OP_call_ref, "DW_OP_call_ref", OperandKind::ref_addr, OperandKind::none);
  expectOp(dw::DW_OP_bit_piece, "DW_OP_bit_piece", OperandKind::uleb, OperandKind::uleb);
  expectOp(dw::DW_OP_implicit_value, "DW_OP_implicit_value", OperandKind::block,
           OperandKind::none);
  expectOp(dw::DW_OP_stack_value, "DW_OP_stack_value", OperandKind::none, OperandKind::none);
  expectOp(dw::DW_OP_GNU_push_tls_address, "DW_OP_GNU_push_tls_address", OperandKind::none,
           OperandKind::none);
  expectOp(dw::DW_OP_GNU_entry_value, "DW_OP_GNU_entry_value", OperandKind::expr,
           OperandKind::none);
  expectOp(dw::DW_OP_entry_value, "DW_OP_entry_value", OperandKind::expr, OperandKind::none);
}

TEST(DwarfNames, EveryOpcodeOfDwarf2To4IsInTheTable) {
  // DWARF 2-4 assign 0x03, 0x06 and every opcode from 0x08 to 0x9f; 0x04, 0x05
  // and 0x07 were never assigned.
  for (unsigned op = 0x08; op <= 0x9f; ++op)
    EXPECT_NE(dw::opInfo(static_cast<uint8_t>(op)), nullptr) << std::hex << op;
  EXPECT_NE(dw::opInfo(0x03), nullptr);
  EXPECT_NE(dw::opInfo(0x06), nullptr);
  EXPECT_EQ(dw::opInfo(0x04), nullptr);
  EXPECT_EQ(dw::opInfo(0x05), nullptr);
  EXPECT_EQ(dw::opInfo(0x07), nullptr);
}

TEST(DwarfNames, AttributeValueNameFollowsLlvm14) {
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_language, 0x0004), "DW_LANG_C_plus_plus");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_language, 0x000c), "DW_LANG_C99");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_encoding, 0x05), "DW_ATE_signed");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_encoding, 0x04), "DW_ATE_float");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_inline, 0x03), "DW_INL_declared_inlined");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_inline, 0x00), "DW_INL_not_inlined");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_accessibility, 1), "DW_ACCESS_public");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_virtuality, 1), "DW_VIRTUALITY_virtual");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_visibility, 1), "DW_VIS_local");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_identifier_case, 3), "DW_ID_case_insensitive");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_calling_convention, 3), "DW_CC_nocall");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_ordering, 0), "DW_ORD_row_major");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_decimal_sign, 1), "DW_DS_unsigned");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_endianity, 1), "DW_END_big");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_defaulted, 2), "DW_DEFAULTED_out_of_class");
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_APPLE_runtime_class, 0x10), "DW_LANG_ObjC");

  // Attributes llvm-dwarfdump 14 prints as numbers.
  EXPECT_TRUE(dw::attributeValueName(dw::DW_AT_byte_size, 4).empty());
  EXPECT_TRUE(dw::attributeValueName(dw::DW_AT_decl_line, 4).empty());
  EXPECT_TRUE(dw::attributeValueName(dw::DW_AT_address_class, 1).empty());
  EXPECT_TRUE(dw::attributeValueName(dw::DW_AT_discr_list, 0).empty());
  // An unknown value of a mapped attribute has no name either.
  EXPECT_TRUE(dw::attributeValueName(dw::DW_AT_language, 0x9999).empty());
  EXPECT_TRUE(dw::attributeValueName(dw::DW_AT_encoding, 0x00).empty());
  // LLVM 14 truncates the value to 32 bits before the lookup.
  EXPECT_EQ(dw::attributeValueName(dw::DW_AT_language, 0x1'0000'0004ull), "DW_LANG_C_plus_plus");
}
