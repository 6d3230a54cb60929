// The C API: statuses, the last error, and the C enums held to the C++ ones.
#include "capi.h"

using namespace ptxdwarf;
using namespace ptxdwarf::capi;

// The C enums mirror the C++ ones; these keep them from drifting apart.
static_assert(int{PTXDWARF_ADDR_REG_SPACE} == int{cuda::ADDR_reg_space} &&
              int{PTXDWARF_ADDR_GENERIC_SPACE} == int{cuda::ADDR_generic_space});
static_assert(int{PTXDWARF_DW_TAG_compile_unit} == int{dw::DW_TAG_compile_unit} &&
              int{PTXDWARF_DW_AT_MIPS_linkage_name} == int{dw::DW_AT_MIPS_linkage_name});
static_assert(int{PTXDWARF_DW_OP_regx} == int{dw::DW_OP_regx} &&
              int{PTXDWARF_DW_LANG_C_plus_plus} == int{dw::DW_LANG_C_plus_plus});
static_assert(sizeof(ptxdwarf_die) == sizeof(write::DieId) && PTXDWARF_NO_DIE == write::kNoDie &&
              PTXDWARF_DETACHED == write::kDetached);

static_assert(int{PTXDWARF_SEVERITY_NOTE} == int(Severity::note) &&
              int{PTXDWARF_SEVERITY_WARNING} == int(Severity::warning) &&
              int{PTXDWARF_SEVERITY_ERROR} == int(Severity::error));

// The definitions keep the C linkage of their declarations in ptxdwarf.h.

// ---- Status and errors ------------------------------------------------------

const char* ptxdwarf_last_error(void) {
  return lastErrorLost ? "out of memory (the error message was lost)" : lastError.c_str();
}

const char* ptxdwarf_status_name(ptxdwarf_status status) {
  switch (enumValue(status)) {
    case PTXDWARF_OK:
      return "PTXDWARF_OK";
    case PTXDWARF_E_INVALID_ARGUMENT:
      return "PTXDWARF_E_INVALID_ARGUMENT";
    case PTXDWARF_E_BAD_REGISTER:
      return "PTXDWARF_E_BAD_REGISTER";
    case PTXDWARF_E_BAD_DIE:
      return "PTXDWARF_E_BAD_DIE";
    case PTXDWARF_E_ENCODE:
      return "PTXDWARF_E_ENCODE";
    case PTXDWARF_E_PARSE:
      return "PTXDWARF_E_PARSE";
    case PTXDWARF_E_RENDER:
      return "PTXDWARF_E_RENDER";
    case PTXDWARF_E_NOT_FOUND:
      return "PTXDWARF_E_NOT_FOUND";
    case PTXDWARF_E_NO_MEMORY:
      return "PTXDWARF_E_NO_MEMORY";
    case PTXDWARF_E_INTERNAL:
      return "PTXDWARF_E_INTERNAL";
    case PTXDWARF_E_ASSEMBLE:
      return "PTXDWARF_E_ASSEMBLE";
  }
  return "PTXDWARF_E_UNKNOWN";
}

uint8_t ptxdwarf_address_class_of(ptxdwarf_space s) {
  try {
    return write::addressClassOf(space(s));
  } catch (...) {
    return 0;
  }
}
