// DWARF constants and their names, all generated from the one table in
// dwarf.def. Names are spelled exactly as llvm-dwarfdump 14 prints them.
//
// The enums are unscoped (dw::DW_TAG_compile_unit, not dw::Tag::compile_unit)
// so code reads like the standard. The CUDA address classes (DW_AT_address_class
// values) are NVIDIA's, not DWARF's, and live elsewhere.
//
// Do not include this header and libdwarf's <dwarf.h> in the same translation
// unit: libdwarf defines the same DW_* identifiers as macros.
#pragma once

#include <cstdint>
#include <string_view>

namespace ptxdwarf::dw {

enum Tag : uint16_t {
#define PTXDWARF_DW_TAG(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Attribute : uint16_t {
#define PTXDWARF_DW_AT(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Form : uint16_t {
#define PTXDWARF_DW_FORM(name, value, class) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Op : uint8_t {
#define PTXDWARF_DW_OP(name, value, a, b) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Lang : uint16_t {
#define PTXDWARF_DW_LANG(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Ate : uint8_t {
#define PTXDWARF_DW_ATE(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Access : uint8_t {
#define PTXDWARF_DW_ACCESS(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Visibility : uint8_t {
#define PTXDWARF_DW_VIS(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Virtuality : uint8_t {
#define PTXDWARF_DW_VIRTUALITY(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum IdentifierCase : uint8_t {
#define PTXDWARF_DW_ID(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum CallingConvention : uint8_t {
#define PTXDWARF_DW_CC(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Inline : uint8_t {
#define PTXDWARF_DW_INL(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Ordering : uint8_t {
#define PTXDWARF_DW_ORD(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Discriminant : uint8_t {
#define PTXDWARF_DW_DSC(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum DecimalSign : uint8_t {
#define PTXDWARF_DW_DS(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Endianity : uint8_t {
#define PTXDWARF_DW_END(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

enum Defaulted : uint8_t {
#define PTXDWARF_DW_DEFAULTED(name, value) name = value,
#include "ptxdwarf/dwarf.def"
};

// What a form's value is (DWARF 4 section 7.5.4; LLVM's DWARFFormValue::FormClass),
// the class column of dwarf.def. DW_FORM_data4/data8 are constants here; a
// DWARF 2 or 3 producer also uses them for section offsets, which only the
// attribute tells (a DW_AT_location of class constant names a location list).
enum class FormClass : uint8_t {
  unknown,  // a form dwarf.def does not list
  address,
  block,
  constant,
  exprloc,
  flag,
  indirect,  // the form is in the value (DW_FORM_indirect)
  reference,
  sec_offset,
  string,
};

constexpr FormClass formClass(uint64_t form) {
  switch (form) {
#define PTXDWARF_DW_FORM(name, value, class) \
  case value:                                \
    return FormClass::class;
#include "ptxdwarf/dwarf.def"
    default:
      return FormClass::unknown;
  }
}

// Form classes as llvm-dwarfdump's printer uses them: the unsigned constants
// (dataN, udata and the flags), and those with sdata.
constexpr bool isUnsignedConstantForm(uint16_t form) {
  const FormClass c = formClass(form);
  return (c == FormClass::constant && form != DW_FORM_sdata) || c == FormClass::flag;
}
constexpr bool isConstantForm(uint16_t form) {
  const FormClass c = formClass(form);
  return c == FormClass::constant || c == FormClass::flag;
}
constexpr bool isReferenceForm(uint16_t form) {
  return form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 || form == DW_FORM_ref8 ||
         form == DW_FORM_ref_udata || form == DW_FORM_ref_addr;
}

// Whether a value of attribute `attr` in `form` is a location expression, as
// llvm-dwarfdump decodes one: DW_FORM_exprloc, or a block of an attribute
// that may hold an expression (DW_AT_location, DW_AT_data_member_location, ...).
bool holdsLocationExpression(uint16_t attr, uint16_t form);

// The byte after an abbreviation's tag.
enum Children : uint8_t { DW_CHILDREN_no = 0x00, DW_CHILDREN_yes = 0x01 };

// Names of values; an empty view for a value the table does not know (the
// caller decides how to print it: llvm-dwarfdump 14 prints unknown tags,
// attributes and forms as e.g. "DW_TAG_unknown_4090", "DW_AT_unknown_3ff0",
// "DW_FORM_unknown_7f": lowercase hex, no 0x).
std::string_view tagName(uint64_t value);
std::string_view attributeName(uint64_t value);
std::string_view formName(uint64_t value);
std::string_view opName(uint64_t value);
std::string_view languageName(uint64_t value);           // DW_LANG_*
std::string_view encodingName(uint64_t value);           // DW_ATE_*
std::string_view accessibilityName(uint64_t value);      // DW_ACCESS_*
std::string_view visibilityName(uint64_t value);         // DW_VIS_*
std::string_view virtualityName(uint64_t value);         // DW_VIRTUALITY_*
std::string_view identifierCaseName(uint64_t value);     // DW_ID_*
std::string_view callingConventionName(uint64_t value);  // DW_CC_*
std::string_view inlineName(uint64_t value);             // DW_INL_*
std::string_view orderingName(uint64_t value);           // DW_ORD_*
std::string_view discriminantName(uint64_t value);       // DW_DSC_*
std::string_view decimalSignName(uint64_t value);        // DW_DS_*
std::string_view endianityName(uint64_t value);          // DW_END_*
std::string_view defaultedName(uint64_t value);          // DW_DEFAULTED_*

// How one operand of a DW_OP is encoded after the opcode byte.
enum class OperandKind : uint8_t {
  none,      // no operand in this slot
  u8, s8, u16, s16, u32, s32, u64, s64,  // fixed size, target byte order
  addr,      // the unit's address size
  uleb,
  sleb,
  block,     // ULEB128 length, then that many bytes (implicit_value)
  expr,      // ULEB128 length, then a nested expression of that many bytes
             // (entry_value, GNU_entry_value)
  block1,    // 1-byte length, then that many bytes (DW_OP_const_type's 2nd)
  ref_addr,  // offset-sized: 4 bytes in 32-bit DWARF (call_ref, implicit_pointer)
  unknown,   // vendor op with an unpublished layout: decoding cannot continue
};

// Two operand slots cover every op in the table (bregx: uleb, sleb;
// bit_piece: uleb, uleb; const_type: uleb, block1).
struct OpInfo {
  std::string_view name;
  OperandKind a = OperandKind::none;
  OperandKind b = OperandKind::none;
};

// The table row of an opcode, or nullptr for an opcode the table does not know.
const OpInfo* opInfo(uint8_t op);

// The symbolic text llvm-dwarfdump 14 prints in place of a constant-class
// attribute value, or empty when it prints the number instead. Same mapping as
// LLVM 14's llvm::dwarf::AttributeValueString:
//   DW_AT_accessibility -> DW_ACCESS_*   DW_AT_virtuality -> DW_VIRTUALITY_*
//   DW_AT_language -> DW_LANG_*          DW_AT_encoding -> DW_ATE_*
//   DW_AT_decimal_sign -> DW_DS_*        DW_AT_endianity -> DW_END_*
//   DW_AT_visibility -> DW_VIS_*         DW_AT_identifier_case -> DW_ID_*
//   DW_AT_calling_convention -> DW_CC_*  DW_AT_inline -> DW_INL_*
//   DW_AT_ordering -> DW_ORD_*           DW_AT_APPLE_runtime_class -> DW_LANG_*
//   DW_AT_defaulted -> DW_DEFAULTED_*
// Every other attribute (including DW_AT_address_class) gets no name here.
// When the value of a mapped attribute is unknown, llvm-dwarfdump 14 does not
// invent a name (no "DW_LANG_unknown_..."): it falls back to dumping the raw
// form value, e.g. "(0x9999)" for a DW_FORM_data2 DW_AT_language.
std::string_view attributeValueName(uint64_t attr, uint64_t value);

}  // namespace ptxdwarf::dw
