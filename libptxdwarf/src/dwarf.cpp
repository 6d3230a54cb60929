// Name lookups generated from dwarf.def: each function is a switch whose cases
// are the rows of one category, so the table in dwarf.def stays the only place
// a value or a spelling is written down. A duplicate value in a category is a
// compile error here (duplicate case label), which keeps the table honest.
#include "ptxdwarf/dwarf.h"

namespace ptxdwarf::dw {

// One lookup function per category. `value` is uint64_t so callers can pass a
// decoded ULEB128 straight in; values wider than the enum are simply unknown.
#define PTXDWARF_NAME_CASE(name, value) \
  case value:                           \
    return #name;

std::string_view tagName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_TAG PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view attributeName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_AT PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view formName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_FORM(name, value, class) PTXDWARF_NAME_CASE(name, value)
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view languageName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_LANG PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view encodingName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_ATE PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view accessibilityName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_ACCESS PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view visibilityName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_VIS PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view virtualityName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_VIRTUALITY PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view identifierCaseName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_ID PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view callingConventionName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_CC PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view inlineName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_INL PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view orderingName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_ORD PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view discriminantName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_DSC PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view decimalSignName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_DS PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view endianityName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_END PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

std::string_view defaultedName(uint64_t value) {
  switch (value) {
#define PTXDWARF_DW_DEFAULTED PTXDWARF_NAME_CASE
#include "ptxdwarf/dwarf.def"
  }
  return {};
}

#undef PTXDWARF_NAME_CASE

namespace {

// All 256 opcodes indexed directly; a row with an empty name is an unknown op.
struct OpTable {
  OpInfo rows[256] = {};

  constexpr OpTable() {
#define PTXDWARF_DW_OP(name, value, a, b) \
  rows[value] = OpInfo{#name, OperandKind::a, OperandKind::b};
#include "ptxdwarf/dwarf.def"
  }
};

constexpr OpTable kOps;

}  // namespace

const OpInfo* opInfo(uint8_t op) {
  const OpInfo& row = kOps.rows[op];
  return row.name.empty() ? nullptr : &row;
}

std::string_view opName(uint64_t value) {
  if (value > 0xff) return {};
  const OpInfo* info = opInfo(static_cast<uint8_t>(value));
  return info ? info->name : std::string_view{};
}

std::string_view attributeValueName(uint64_t attr, uint64_t value) {
  // LLVM 14 passes the value as `unsigned`, i.e. truncated to 32 bits, before
  // looking it up; do the same so an over-wide constant names identically.
  value = static_cast<uint32_t>(value);
  switch (attr) {
    case DW_AT_accessibility: return accessibilityName(value);
    case DW_AT_virtuality: return virtualityName(value);
    case DW_AT_language: return languageName(value);
    case DW_AT_encoding: return encodingName(value);
    case DW_AT_decimal_sign: return decimalSignName(value);
    case DW_AT_endianity: return endianityName(value);
    case DW_AT_visibility: return visibilityName(value);
    case DW_AT_identifier_case: return identifierCaseName(value);
    case DW_AT_calling_convention: return callingConventionName(value);
    case DW_AT_inline: return inlineName(value);
    case DW_AT_ordering: return orderingName(value);
    case DW_AT_APPLE_runtime_class: return languageName(value);
    case DW_AT_defaulted: return defaultedName(value);
  }
  return {};
}

namespace {

// The attributes llvm-dwarfdump decodes a block of as a location expression.
bool mayHoldLocationExpression(uint16_t attr) {
  switch (attr) {
    case DW_AT_location:
    case DW_AT_byte_size:
    case DW_AT_bit_offset:
    case DW_AT_bit_size:
    case DW_AT_string_length:
    case DW_AT_lower_bound:
    case DW_AT_return_addr:
    case DW_AT_bit_stride:
    case DW_AT_upper_bound:
    case DW_AT_count:
    case DW_AT_data_member_location:
    case DW_AT_frame_base:
    case DW_AT_segment:
    case DW_AT_static_link:
    case DW_AT_use_location:
    case DW_AT_vtable_elem_location:
    case DW_AT_allocated:
    case DW_AT_associated:
    case DW_AT_data_location:
    case DW_AT_byte_stride:
    case DW_AT_rank:
    case DW_AT_call_value:
    case DW_AT_call_origin:
    case DW_AT_call_target:
    case DW_AT_call_target_clobbered:
    case DW_AT_call_data_location:
    case DW_AT_call_data_value:
    case DW_AT_GNU_call_site_value:
    case DW_AT_GNU_call_site_target:
      return true;
    default:
      return false;
  }
}
}  // namespace

bool holdsLocationExpression(uint16_t attr, uint16_t form) {
  return form == DW_FORM_exprloc || (mayHoldLocationExpression(attr) && formClass(form) == FormClass::block);
}

}  // namespace ptxdwarf::dw
