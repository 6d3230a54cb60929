// CUDA-specific DWARF: the DW_AT_address_class codes of the PTX
// interoperability guide (ch. 5.2) and PTX register names packed into
// DW_OP_regx operands.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ptxdwarf::cuda {

enum AddressClass : uint8_t {
  ADDR_code_space = 1,
  ADDR_reg_space = 2,
  ADDR_sreg_space = 3,
  ADDR_const_space = 4,
  ADDR_global_space = 5,
  ADDR_local_space = 6,
  ADDR_param_space = 7,
  ADDR_shared_space = 8,
  ADDR_surf_space = 9,
  ADDR_tex_space = 10,
  ADDR_tex_sampler_space = 11,
  ADDR_generic_space = 12,
};

// "ADDR_reg_space" for 2; empty for values outside the table.
std::string_view addressClassName(uint64_t value);
// "Register storage" for 2 (the guide's description column).
std::string_view addressClassDescription(uint64_t value);

// A PTX register name as cuda-gdb expects it in DW_OP_regx: its ASCII bytes
// read as a big-endian number ("%r1" -> 0x257231). Needs a leading '%' and at
// most 8 bytes; returns nullopt otherwise.
std::optional<uint64_t> packRegister(std::string_view name);
// The inverse: the name when `value` is a packed printable name starting with
// '%', nullopt for an ordinary register number.
std::optional<std::string> unpackRegister(uint64_t value);

// unpackRegister's answer held by value (a name is at most 8 bytes), for a
// caller that checks many registers and keeps none: no string to make, copy
// and destroy for each (the checker looks at 64,000 in a large nvcc -G file).
class RegisterName {
 public:
  std::string_view view() const { return {bytes_, size_}; }

 private:
  friend std::optional<RegisterName> unpackRegisterName(uint64_t value);
  char bytes_[8] = {};
  uint8_t size_ = 0;
};
std::optional<RegisterName> unpackRegisterName(uint64_t value);

// Why ptxas cannot read attribute values of `form` in a unit of DWARF
// `version`; empty when it can. Measured with ptxas 13.0 -g on every form of
// DWARF 2, 3 and 4 (README, "DWARF forms ptxas reads"): DW_FORM_sec_offset,
// DW_FORM_exprloc and DW_FORM_ref_sig8 stop it with "Error in get_form_value
// default" (exit 1, no line) in any version; DW_FORM_ref_addr is read as
// address-sized (the DWARF 2 rule) also in DWARF 3 and 4, whose 4-byte
// operand it then overruns. Every other DWARF 2-4 form is read.
std::string_view ptxasFormProblem(uint16_t form, uint16_t version);

}  // namespace ptxdwarf::cuda
