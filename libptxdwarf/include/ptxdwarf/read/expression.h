// DWARF 2-4 location expressions, decoded with their operands; operands that
// were symbolic in the PTX (`DW_OP_addr` of `_Z4testPi_param_0`) keep the relocation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ptxdwarf/section.h"

namespace ptxdwarf::read {

struct Operation {
  uint64_t offset = 0;  // of the opcode, relative to the expression start
  uint8_t op = 0;
  uint64_t operands[2] = {0, 0};  // sleb operands stored as two's complement
  std::span<const uint8_t> block;  // DW_OP_implicit_value bytes
  const Relocation* reloc = nullptr;  // on the first operand (DW_OP_addr, call_ref)
};

struct Expression {
  std::vector<Operation> ops;
  bool ok = true;
  uint64_t errorOffset = 0;  // where decoding stopped, when !ok
  std::string error;
};

struct ExpressionContext {
  uint8_t addressSize = 8;
  uint8_t offsetSize = 4;  // DW_OP_call_ref operand size (32-bit DWARF)
  // The image the expression bytes live in and their offset there, so that
  // relocated operands can be found. Null when the bytes are not from a section.
  const SectionImage* section = nullptr;
  uint64_t sectionOffset = 0;
};

Expression decodeExpression(std::span<const uint8_t> bytes, const ExpressionContext& ctx);

}  // namespace ptxdwarf::read
