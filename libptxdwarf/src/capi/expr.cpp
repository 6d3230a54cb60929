// The C API: DWARF expressions and locations (write::Expr, write::Location).
#include "capi.h"

using namespace ptxdwarf;
using namespace ptxdwarf::capi;

// ---- Expressions and locations ----------------------------------------------

ptxdwarf_status ptxdwarf_expr_create(uint8_t address_size, ptxdwarf_expr** out) {
  return guard([&] {
    needOut(out, "out");
    auto* x = new ptxdwarf_expr;
    x->expr = write::Expr(addressSize(address_size));
    *out = x;
  });
}

void ptxdwarf_expr_free(ptxdwarf_expr* expr) { delete expr; }

ptxdwarf_status ptxdwarf_location_register(const char* ptx_register, uint8_t address_size, ptxdwarf_expr** out) {
  return guard([&] {
    needOut(out, "out");
    std::string name = required(ptx_register, "the register name");
    uint8_t size = addressSize(address_size);
    write::Location l;
    withRegister([&] { l = write::Location::reg(name, size); });
    *out = newExpr(std::move(l));
  });
}

ptxdwarf_status ptxdwarf_location_symbol(const char* symbol, int64_t addend, ptxdwarf_space s, uint8_t address_size,
                                         ptxdwarf_expr** out) {
  return guard([&] {
    needOut(out, "out");
    std::string name = required(symbol, "the symbol");
    if (name.empty()) fail(PTXDWARF_E_INVALID_ARGUMENT, "the symbol is empty");
    *out = newExpr(write::Location::symbol({name, addend}, space(s), addressSize(address_size)));
  });
}

ptxdwarf_status ptxdwarf_location_frame_offset(int64_t offset, uint8_t address_class, ptxdwarf_expr** out) {
  return guard([&] {
    needOut(out, "out");
    *out = newExpr(write::Location::frameOffset(offset, address_class));
  });
}

ptxdwarf_status ptxdwarf_location_list_create(ptxdwarf_expr** out) {
  return guard([&] {
    needOut(out, "out");
    auto* x = new ptxdwarf_expr;
    x->isList = true;
    *out = x;
  });
}

ptxdwarf_status ptxdwarf_location_list_add(ptxdwarf_expr* list, const char* begin_label, const char* end_label,
                                           const ptxdwarf_expr* location) {
  return guard([&] {
    ptxdwarf_expr& l = need(list, "the location list");
    if (!l.isList) fail(PTXDWARF_E_INVALID_ARGUMENT, "the expression is not a location list");
    const ptxdwarf_expr& e = need(location, "the location");
    if (e.isList) fail(PTXDWARF_E_INVALID_ARGUMENT, "a range's location must be an expression, not a list");
    if (e.expr.empty()) fail(PTXDWARF_E_INVALID_ARGUMENT, "a range's location is an empty expression");
    l.ranges.push_back({{required(begin_label, "the begin label")},
                        {required(end_label, "the end label")},
                        write::Location::expression(e.expr, e.addressClass)});
  });
}

ptxdwarf_status ptxdwarf_expr_op(ptxdwarf_expr* e, uint8_t opcode) {
  return guard([&] { exprOf(e).op(opcode); });
}
ptxdwarf_status ptxdwarf_expr_u8(ptxdwarf_expr* e, uint8_t v) {
  return guard([&] { exprOf(e).u8(v); });
}
ptxdwarf_status ptxdwarf_expr_u16(ptxdwarf_expr* e, uint16_t v) {
  return guard([&] { exprOf(e).u16(v); });
}
ptxdwarf_status ptxdwarf_expr_u32(ptxdwarf_expr* e, uint32_t v) {
  return guard([&] { exprOf(e).u32(v); });
}
ptxdwarf_status ptxdwarf_expr_u64(ptxdwarf_expr* e, uint64_t v) {
  return guard([&] { exprOf(e).u64(v); });
}
ptxdwarf_status ptxdwarf_expr_uleb(ptxdwarf_expr* e, uint64_t v) {
  return guard([&] { exprOf(e).uleb(v); });
}
ptxdwarf_status ptxdwarf_expr_sleb(ptxdwarf_expr* e, int64_t v) {
  return guard([&] { exprOf(e).sleb(v); });
}

ptxdwarf_status ptxdwarf_expr_regx(ptxdwarf_expr* e, const char* ptx_register) {
  return guard([&] {
    write::Expr& x = exprOf(e);
    std::string name = required(ptx_register, "the register name");
    withRegister([&] {
      write::Expr copy = x;  // unchanged on failure
      copy.regx(name);
      x = std::move(copy);
    });
  });
}

ptxdwarf_status ptxdwarf_expr_bregx(ptxdwarf_expr* e, const char* ptx_register, int64_t offset) {
  return guard([&] {
    write::Expr& x = exprOf(e);
    std::string name = required(ptx_register, "the register name");
    withRegister([&] {
      write::Expr copy = x;
      copy.bregx(name, offset);
      x = std::move(copy);
    });
  });
}

ptxdwarf_status ptxdwarf_expr_addr(ptxdwarf_expr* e, const char* symbol, int64_t addend) {
  return guard([&] {
    write::Expr& x = exprOf(e);
    if (symbol && *symbol)
      x.addr(write::SymbolRef{symbol, addend});
    else
      x.addr(static_cast<uint64_t>(addend));
  });
}

ptxdwarf_status ptxdwarf_expr_symbolic(ptxdwarf_expr* e, const char* symbol, int64_t addend, uint8_t size) {
  return guard([&] {
    write::Expr& x = exprOf(e);
    std::string name = required(symbol, "the symbol");
    if (name.empty()) fail(PTXDWARF_E_INVALID_ARGUMENT, "the symbol is empty");
    if (size != 4 && size != 8)
      fail(PTXDWARF_E_INVALID_ARGUMENT,
           "a symbolic operand is 4 or 8 bytes (.b32 or .b64), not " + std::to_string(size));
    x.symbolic({name, addend}, size);
  });
}

ptxdwarf_status ptxdwarf_expr_fbreg(ptxdwarf_expr* e, int64_t offset) {
  return guard([&] { exprOf(e).fbreg(offset); });
}
ptxdwarf_status ptxdwarf_expr_plus_uconst(ptxdwarf_expr* e, uint64_t v) {
  return guard([&] { exprOf(e).plusUconst(v); });
}
ptxdwarf_status ptxdwarf_expr_call_frame_cfa(ptxdwarf_expr* e) {
  return guard([&] { exprOf(e).callFrameCfa(); });
}

ptxdwarf_status ptxdwarf_expr_set_address_class(ptxdwarf_expr* e, uint8_t address_class) {
  return guard([&] {
    ptxdwarf_expr& x = need(e, "the expression");
    if (x.isList) fail(PTXDWARF_E_INVALID_ARGUMENT, "a location list takes its class from its ranges");
    x.addressClass = address_class;
  });
}

const uint8_t* ptxdwarf_expr_bytes(const ptxdwarf_expr* e, size_t* size) {
  if (!e || e->isList || e->expr.empty()) {
    if (size) *size = 0;
    return nullptr;
  }
  if (size) *size = e->expr.bytes().size();
  return e->expr.bytes().data();
}

uint8_t ptxdwarf_expr_address_class(const ptxdwarf_expr* e) {
  if (!e) return 0;
  try {
    return e->location().addressClass();
  } catch (...) {
    return 0;
  }
}

