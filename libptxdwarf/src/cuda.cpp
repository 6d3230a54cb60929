#include "ptxdwarf/cuda.h"

#include <bit>

namespace ptxdwarf::cuda {

namespace {
struct ClassInfo {
  std::string_view name, description;
};
constexpr ClassInfo kClasses[] = {
    {"", ""},
    {"ADDR_code_space", "Code storage"},
    {"ADDR_reg_space", "Register storage"},
    {"ADDR_sreg_space", "Special register storage"},
    {"ADDR_const_space", "Constant storage"},
    {"ADDR_global_space", "Global storage"},
    {"ADDR_local_space", "Local storage"},
    {"ADDR_param_space", "Parameter storage"},
    {"ADDR_shared_space", "Shared storage"},
    {"ADDR_surf_space", "Surface storage"},
    {"ADDR_tex_space", "Texture storage"},
    {"ADDR_tex_sampler_space", "Texture sampler storage"},
    {"ADDR_generic_space", "Generic-address storage"},
};
bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '%';
}
}  // namespace

std::string_view addressClassName(uint64_t value) {
  return value < std::size(kClasses) ? kClasses[value].name : std::string_view{};
}

std::string_view addressClassDescription(uint64_t value) {
  return value < std::size(kClasses) ? kClasses[value].description : std::string_view{};
}

std::optional<uint64_t> packRegister(std::string_view name) {
  if (name.size() < 2 || name.size() > 8 || name[0] != '%') return std::nullopt;
  uint64_t v = 0;
  for (char c : name) {
    if (!isNameChar(c)) return std::nullopt;
    v = (v << 8) | static_cast<uint8_t>(c);
  }
  return v;
}

std::optional<RegisterName> unpackRegisterName(uint64_t value) {
  // The name's bytes, most significant first, after the leading zero bytes.
  const int bytes = (64 - std::countl_zero(value) + 7) / 8;
  if (bytes < 2) return std::nullopt;
  RegisterName name;
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    const char c = static_cast<char>((value >> shift) & 0xff);
    if (!isNameChar(c)) return std::nullopt;  // a zero byte inside, too
    name.bytes_[name.size_++] = c;
  }
  if (name.bytes_[0] != '%') return std::nullopt;
  return name;
}

std::optional<std::string> unpackRegister(uint64_t value) {
  const std::optional<RegisterName> name = unpackRegisterName(value);
  if (!name) return std::nullopt;
  return std::string(name->view());
}

std::string_view ptxasFormProblem(uint16_t form, uint16_t version) {
  switch (form) {
    case 0x17:  // DW_FORM_sec_offset
    case 0x18:  // DW_FORM_exprloc
    case 0x20:  // DW_FORM_ref_sig8
      return "ptxas 13 cannot read this form: it stops with \"Error in get_form_value default\" (exit 1, no line)";
    case 0x10:  // DW_FORM_ref_addr
      if (version >= 3)
        return "ptxas 13 reads DW_FORM_ref_addr as 8 bytes (the DWARF 2 rule), not the 4 of DWARF 3 and 4, and "
               "misreads what follows (\"Attempted to Dereference Out of Bounds\" at a unit's end)";
      return {};
    default:
      return {};
  }
}

}  // namespace ptxdwarf::cuda
