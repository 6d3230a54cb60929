#include "ptxdwarf/read/expression.h"

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/leb128.h"

namespace ptxdwarf::read {

namespace {

// Reads one operand of `kind`; returns false when the bytes run out or the
// operand layout is unknown.
bool readOperand(ByteReader& r, dw::OperandKind kind, const ExpressionContext& ctx, Operation& op,
                 int slot) {
  using K = dw::OperandKind;
  uint64_t& v = op.operands[slot];
  uint64_t at = r.offset();
  switch (kind) {
    case K::none: return true;
    case K::u8: v = r.u8(); break;
    case K::s8: v = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(r.u8()))); break;
    case K::u16: v = r.u16(); break;
    case K::s16: v = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(r.u16()))); break;
    case K::u32: v = r.u32(); break;
    case K::s32: v = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(r.u32()))); break;
    case K::u64:
    case K::s64: v = r.u64(); break;
    case K::addr: v = r.fixed(ctx.addressSize); break;
    case K::ref_addr: v = r.fixed(ctx.offsetSize); break;
    case K::uleb: v = r.uleb(); break;
    case K::sleb: v = static_cast<uint64_t>(r.sleb()); break;
    case K::block:
    case K::expr:  // a nested expression, kept as bytes (DW_OP_entry_value)
    case K::block1: {
      uint64_t n = kind == K::block1 ? r.u8() : r.uleb();
      v = n;
      op.block = r.bytes(n);
      break;
    }
    case K::unknown: return false;
  }
  if (!r.ok()) return false;
  if (ctx.section && (kind == K::addr || kind == K::ref_addr || kind == K::u32 || kind == K::u64)) {
    uint64_t size = r.offset() - at;
    if (const Relocation* rel = ctx.section->relocationAt(ctx.sectionOffset + at, static_cast<uint8_t>(size)))
      op.reloc = rel;
  }
  return true;
}

}  // namespace

OperationReader::OperationReader(std::span<const uint8_t> bytes, const ExpressionContext& ctx)
    : bytes_(bytes), ctx_(ctx) {}

bool OperationReader::next(Operation& op) {
  if (failed() || at_ >= bytes_.size()) return false;
  ByteReader r(bytes_, at_);
  op = Operation{};
  op.offset = at_;
  op.op = r.u8();
  const dw::OpInfo* info = dw::opInfo(op.op);
  if (!info || !readOperand(r, info->a, ctx_, op, 0) || !readOperand(r, info->b, ctx_, op, 1)) {
    failure_ = !info                                   ? Failure::unknownOpcode
               : info->a == dw::OperandKind::unknown ? Failure::unknownLayout
                                                       : Failure::truncated;
    failedOp_ = op.op;
    errorOffset_ = op.offset;
    return false;
  }
  at_ = r.offset();
  return true;
}

std::string OperationReader::error() const {
  switch (failure_) {
    case Failure::none: return {};
    case Failure::unknownOpcode: return "unknown opcode " + hex(failedOp_, 2);
    case Failure::unknownLayout: return std::string(dw::opInfo(failedOp_)->name) + ": operand layout unknown";
    case Failure::truncated:
      return std::string(dw::opInfo(failedOp_)->name) + ": operand runs past the end of the expression";
  }
  return {};
}

Expression decodeExpression(std::span<const uint8_t> bytes, const ExpressionContext& ctx) {
  Expression e;
  OperationReader reader(bytes, ctx);
  for (Operation op; reader.next(op);) e.ops.push_back(op);
  if (reader.failed()) {
    e.ok = false;
    e.errorOffset = reader.errorOffset();
    e.error = reader.error();
  }
  return e;
}

}  // namespace ptxdwarf::read
