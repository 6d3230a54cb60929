// The values a producer puts into a unit: DWARF expressions (Expr), variable
// locations (Location) and attribute values (Value).
#include "ptxdwarf/write/unit.h"

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"

namespace ptxdwarf::write {

using namespace dw;

// ---- Expr -------------------------------------------------------------------

Expr& Expr::op(uint8_t opcode) { return u8(opcode); }
Expr& Expr::u8(uint8_t v) {
  if (bytes_.capacity() == 0) bytes_.reserve(16);  // one allocation for a usual expression, not four
  bytes_.push_back(v);
  return *this;
}
Expr& Expr::u16(uint16_t v) {
  appendLittleEndian(bytes_, v, 2);
  return *this;
}
Expr& Expr::u32(uint32_t v) {
  appendLittleEndian(bytes_, v, 4);
  return *this;
}
Expr& Expr::u64(uint64_t v) {
  appendLittleEndian(bytes_, v, 8);
  return *this;
}
Expr& Expr::uleb(uint64_t v) {
  encodeUleb(v, [this](uint8_t b) { u8(b); });
  return *this;
}
Expr& Expr::sleb(int64_t v) {
  encodeSleb(v, [this](uint8_t b) { u8(b); });
  return *this;
}

std::string registerProblem(std::string_view reg) {
  if (cuda::packRegister(reg)) return {};
  return "cannot use '" + std::string(reg) +
         "' as a DW_OP_regx register: cuda-gdb needs a PTX register name starting with '%', "
         "at most 8 bytes of [A-Za-z0-9_$%]";
}

namespace {
uint64_t packedOrThrow(std::string_view reg) {
  std::optional<uint64_t> v = cuda::packRegister(reg);
  if (!v) throw BuildError(registerProblem(reg));
  return *v;
}
}  // namespace

Expr& Expr::regx(std::string_view ptxRegister) {
  // One append of the whole operation: annotate writes one per register.
  uint8_t op[11] = {DW_OP_regx};
  size_t n = 1;
  encodeUleb(packedOrThrow(ptxRegister), [&](uint8_t b) { op[n++] = b; });
  bytes_.insert(bytes_.end(), op, op + n);
  return *this;
}
Expr& Expr::bregx(std::string_view ptxRegister, int64_t offset) {
  return op(DW_OP_bregx).uleb(packedOrThrow(ptxRegister)).sleb(offset);
}
Expr& Expr::addr(SymbolRef symbol) {
  if (symbol.name.empty()) return addr(static_cast<uint64_t>(symbol.addend));
  op(DW_OP_addr);
  fixups_.push_back({static_cast<uint32_t>(bytes_.size()), addressSize_, std::move(symbol)});
  bytes_.insert(bytes_.end(), addressSize_, 0);
  return *this;
}
Expr& Expr::addr(uint64_t address) {
  op(DW_OP_addr);
  appendLittleEndian(bytes_, address, addressSize_);
  return *this;
}
Expr& Expr::symbolic(SymbolRef symbol, uint8_t size) {
  fixups_.push_back({static_cast<uint32_t>(bytes_.size()), size, std::move(symbol)});
  bytes_.insert(bytes_.end(), size, 0);
  return *this;
}
Expr& Expr::fbreg(int64_t offset) { return op(DW_OP_fbreg).sleb(offset); }
Expr& Expr::plusUconst(uint64_t v) { return op(DW_OP_plus_uconst).uleb(v); }
Expr& Expr::callFrameCfa() { return op(DW_OP_call_frame_cfa); }

// ---- Location ---------------------------------------------------------------

uint8_t addressClassOf(ptx::StateSpace space) {
  using S = ptx::StateSpace;
  switch (space) {
    case S::none: return 0;
    case S::reg: return cuda::ADDR_reg_space;
    case S::sreg: return cuda::ADDR_sreg_space;
    case S::const_: return cuda::ADDR_const_space;
    case S::global: return cuda::ADDR_global_space;
    case S::local: return cuda::ADDR_local_space;
    case S::param: return cuda::ADDR_param_space;
    case S::shared: return cuda::ADDR_shared_space;
    case S::tex: return cuda::ADDR_tex_space;
    case S::surf: return cuda::ADDR_surf_space;
    case S::sampler: return cuda::ADDR_tex_sampler_space;
    case S::generic: return cuda::ADDR_generic_space;
  }
  return 0;
}

Location Location::reg(std::string_view ptxRegister, uint8_t addressSize) {
  return expression(Expr(addressSize).regx(ptxRegister), cuda::ADDR_reg_space);
}

Location Location::symbol(SymbolRef symbol, ptx::StateSpace space, uint8_t addressSize) {
  Expr e(addressSize);
  if (symbol.name.starts_with("__local_depot") && symbol.addend != 0) {
    // ptxas rewrites `DW_OP_addr __local_depotN` into DW_OP_fbreg and drops an
    // addend silently; an offset into the depot must follow as an operation.
    if (symbol.addend < 0) throw BuildError("negative offset into " + symbol.name);
    int64_t offset = symbol.addend;
    symbol.addend = 0;
    e.addr(std::move(symbol)).plusUconst(static_cast<uint64_t>(offset));
  } else {
    e.addr(std::move(symbol));
  }
  return expression(std::move(e), addressClassOf(space));
}

Location Location::frameOffset(int64_t offset, uint8_t addressClass) {
  return expression(Expr().fbreg(offset), addressClass);
}

Location Location::expression(Expr expr, uint8_t addressClass) {
  Location l;
  l.kind_ = Kind::expression;
  l.expr_ = std::move(expr);
  l.addressClass_ = addressClass;
  return l;
}

Location Location::list(const std::vector<LocationRange>& ranges) {
  Location l;
  l.kind_ = Kind::list;
  bool first = true;
  for (const LocationRange& r : ranges) {
    if (r.location.kind() != Kind::expression)
      throw BuildError("every range of a location list needs an expression location");
    l.entries_.push_back({r.begin, r.end, r.location.expr()});
    if (first) l.addressClass_ = r.location.addressClass();
    else if (l.addressClass_ != r.location.addressClass()) l.addressClass_ = 0;
    first = false;
  }
  return l;
}

// ---- Value ------------------------------------------------------------------

Value Value::unsignedValue(uint64_t v, uint16_t form) { return {.kind = Kind::unsigned_, .u = v, .form = form}; }
Value Value::signedValue(int64_t v, uint16_t form) { return {.kind = Kind::signed_, .s = v, .form = form}; }
Value Value::flag(bool v, uint16_t form) { return {.kind = Kind::flag, .u = v, .form = form}; }
Value Value::string(std::string_view s, uint16_t form) {
  if (s.find('\0') != std::string_view::npos) throw BuildError("DWARF strings cannot contain NUL bytes");
  return {.kind = Kind::string, .str = std::string(s), .form = form};
}
Value Value::reference(DieId die, uint16_t form) { return {.kind = Kind::reference, .ref = die, .form = form}; }
Value Value::address(SymbolRef symbol, uint16_t form) {
  return {.kind = Kind::address, .symbol = std::move(symbol), .form = form};
}
Value Value::sectionOffset(SymbolRef symbol, uint16_t form) {
  return {.kind = Kind::sectionOffset, .symbol = std::move(symbol), .form = form};
}
Value Value::block(std::vector<uint8_t> bytes, uint16_t form) {
  Value x{.kind = Kind::block, .form = form};
  for (uint8_t b : bytes) x.expr.u8(b);
  return x;
}
Value Value::expression(Expr expr, uint16_t form) {
  return {.kind = Kind::expression, .expr = std::move(expr), .form = form};
}

}  // namespace ptxdwarf::write
