#include "ptxdwarf/read/expression.h"

#include "ptxdwarf/dwarf.h"
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

Expression decodeExpression(std::span<const uint8_t> bytes, const ExpressionContext& ctx) {
  Expression e;
  ByteReader r(bytes);
  while (!r.atEnd()) {
    Operation op;
    op.offset = r.offset();
    op.op = r.u8();
    const dw::OpInfo* info = dw::opInfo(op.op);
    if (!info) {
      e.ok = false;
      e.errorOffset = op.offset;
      e.error = "unknown opcode 0x" + [](uint8_t b) {
        const char* d = "0123456789abcdef";
        return std::string{d[b >> 4], d[b & 15]};
      }(op.op);
      return e;
    }
    if (!readOperand(r, info->a, ctx, op, 0) || !readOperand(r, info->b, ctx, op, 1)) {
      e.ok = false;
      e.errorOffset = op.offset;
      e.error = std::string(info->name) + (info->a == dw::OperandKind::unknown
                                               ? ": operand layout unknown"
                                               : ": operand runs past the end of the expression");
      return e;
    }
    e.ops.push_back(op);
  }
  return e;
}

}  // namespace ptxdwarf::read
