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

// The operations of an expression one at a time, for a caller that looks at
// each once and keeps none: no vector and, unless the bytes do not decode,
// no string (checking a large nvcc -G file's 64,000 expressions spent a
// quarter of its instructions making and freeing them). decodeExpression is
// this, collected.
class OperationReader {
 public:
  OperationReader(std::span<const uint8_t> bytes, const ExpressionContext& ctx);
  // The next operation into `op`; false at the end and where one does not
  // decode (then failed()).
  bool next(Operation& op);
  bool failed() const { return failure_ != Failure::none; }
  // Where the operation that did not decode starts, and why it did not.
  uint64_t errorOffset() const { return errorOffset_; }
  std::string error() const;

 private:
  enum class Failure : uint8_t { none, unknownOpcode, unknownLayout, truncated };
  std::span<const uint8_t> bytes_;
  ExpressionContext ctx_;
  uint64_t at_ = 0;
  Failure failure_ = Failure::none;
  uint8_t failedOp_ = 0;
  uint64_t errorOffset_ = 0;
};

}  // namespace ptxdwarf::read
