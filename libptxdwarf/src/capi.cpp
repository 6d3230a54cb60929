// The C API (ptxdwarf/ptxdwarf.h) over the C++ producer API. Every entry point
// that returns a status runs its body through guard(), which turns every
// exception into a status and a thread-local message: nothing is thrown
// across the C boundary.
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "ptxdwarf/check/assembled.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/ptxdwarf.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/section.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/write/annotate.h"
#include "ptxdwarf/write/remap.h"
#include "ptxdwarf/write/strip.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/program.h"
#include "ptxdwarf/write/ptx_writer.h"

using namespace ptxdwarf;

struct ptxdwarf_unit {
  write::Builder builder;
};

struct ptxdwarf_expr {
  bool isList = false;
  write::Expr expr;
  uint8_t addressClass = 0;
  std::vector<write::LocationRange> ranges;  // isList

  write::Location location() const {
    return isList ? write::Location::list(ranges) : write::Location::expression(expr, addressClass);
  }
};

struct ptxdwarf_sections {
  std::vector<SectionImage> images;
};

// The C enums mirror the C++ ones; these keep them from drifting apart.
static_assert(int{PTXDWARF_ADDR_REG_SPACE} == int{cuda::ADDR_reg_space} &&
              int{PTXDWARF_ADDR_GENERIC_SPACE} == int{cuda::ADDR_generic_space});
static_assert(int{PTXDWARF_DW_TAG_compile_unit} == int{dw::DW_TAG_compile_unit} &&
              int{PTXDWARF_DW_AT_MIPS_linkage_name} == int{dw::DW_AT_MIPS_linkage_name});
static_assert(int{PTXDWARF_DW_OP_regx} == int{dw::DW_OP_regx} &&
              int{PTXDWARF_DW_LANG_C_plus_plus} == int{dw::DW_LANG_C_plus_plus});
static_assert(sizeof(ptxdwarf_die) == sizeof(write::DieId) && PTXDWARF_NO_DIE == write::kNoDie &&
              PTXDWARF_DETACHED == write::kDetached);

namespace {

thread_local std::string lastError;
thread_local bool lastErrorLost = false;  // the message itself could not be stored

// A failure with its status, thrown inside guard() only.
struct Failure {
  ptxdwarf_status status;
  std::string message;
};

[[noreturn]] void fail(ptxdwarf_status status, std::string message) { throw Failure{status, std::move(message)}; }

ptxdwarf_status setError(ptxdwarf_status status, const char* message) noexcept {
  try {
    lastError = message;
    lastErrorLost = false;
  } catch (...) {
    lastError.clear();
    lastErrorLost = true;
  }
  return status;
}

template <class F>
ptxdwarf_status guard(F&& body) noexcept {
  lastError.clear();
  lastErrorLost = false;
  try {
    body();
    return PTXDWARF_OK;
  } catch (const Failure& e) {
    return setError(e.status, e.message.c_str());
  } catch (const write::BuildError& e) {
    return setError(PTXDWARF_E_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return setError(PTXDWARF_E_NO_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    std::string m;
    try {
      m = std::string("internal error: ") + e.what();
    } catch (...) {
    }
    return setError(PTXDWARF_E_INTERNAL, m.empty() ? e.what() : m.c_str());
  } catch (...) {
    return setError(PTXDWARF_E_INTERNAL, "internal error: unknown exception");
  }
}

template <class T>
T& need(T* p, const char* what) {
  if (!p) fail(PTXDWARF_E_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return *p;
}

void needOut(const void* p, const char* what) {
  if (!p) fail(PTXDWARF_E_INVALID_ARGUMENT, std::string("the output pointer '") + what + "' is NULL");
}

std::string required(const char* s, const char* what) {
  if (!s) fail(PTXDWARF_E_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return s;
}

std::string optional(const char* s) { return s ? std::string(s) : std::string(); }

uint8_t addressSize(uint8_t size) {
  if (size == 0) return 8;
  if (size != 4 && size != 8)
    fail(PTXDWARF_E_INVALID_ARGUMENT, "address size must be 4 or 8 (0 for 8), not " + std::to_string(size));
  return size;
}

write::Unit& unitOf(ptxdwarf_unit* u) { return need(u, "the unit").builder.unit(); }

std::string dieError(write::DieId id, const write::Unit& unit, const char* role) {
  return std::string(role) + ": DIE id " + std::to_string(id) + " does not belong to this unit (it has " +
         std::to_string(unit.size()) + " DIEs)";
}

// A DIE that must exist.
write::DieId die(const write::Unit& unit, ptxdwarf_die id, const char* role) {
  if (id >= unit.size()) fail(PTXDWARF_E_BAD_DIE, dieError(id, unit, role));
  return id;
}
// A parent: an existing DIE or PTXDWARF_DETACHED.
write::DieId parent(const write::Unit& unit, ptxdwarf_die id) {
  return id == PTXDWARF_DETACHED ? write::kDetached : die(unit, id, "parent");
}
// An optional reference (a type): 0 and PTXDWARF_NO_DIE mean none.
write::DieId optionalDie(const write::Unit& unit, ptxdwarf_die id, const char* role) {
  return id == 0 || id == PTXDWARF_NO_DIE ? write::kNoDie : die(unit, id, role);
}

// Runs code that packs a register name: its BuildError is a bad register.
template <class F>
void withRegister(F&& f) {
  try {
    f();
  } catch (const write::BuildError& e) {
    fail(PTXDWARF_E_BAD_REGISTER, e.what());
  }
}

write::Expr& exprOf(ptxdwarf_expr* e) {
  ptxdwarf_expr& x = need(e, "the expression");
  if (x.isList) fail(PTXDWARF_E_INVALID_ARGUMENT, "cannot append operations to a location list");
  return x.expr;
}

ptxdwarf_expr* newExpr(write::Location location) {
  auto* x = new ptxdwarf_expr;
  x->expr = location.expr();
  x->addressClass = location.addressClass();
  return x;
}

// The value a caller stored in a C enum field or argument, read as the
// integer it is: C lets a caller store any int there (a `ptxdwarf_style` of
// 77), and loading such a value as the C++ enum type is undefined behaviour
// (UBSan's -fsanitize=enum stops on it). Every enum the API reads goes
// through here and is checked against its known values.
template <class E>
long long enumValue(const E& e) {
  static_assert(std::is_enum_v<E>);
  std::underlying_type_t<E> raw;
  std::memcpy(&raw, &e, sizeof raw);
  return static_cast<long long>(raw);
}

ptx::StateSpace space(const ptxdwarf_space& s) {
  switch (enumValue(s)) {
    case PTXDWARF_SPACE_NONE:
      return ptx::StateSpace::none;
    case PTXDWARF_SPACE_REG:
      return ptx::StateSpace::reg;
    case PTXDWARF_SPACE_SREG:
      return ptx::StateSpace::sreg;
    case PTXDWARF_SPACE_CONST:
      return ptx::StateSpace::const_;
    case PTXDWARF_SPACE_GLOBAL:
      return ptx::StateSpace::global;
    case PTXDWARF_SPACE_LOCAL:
      return ptx::StateSpace::local;
    case PTXDWARF_SPACE_PARAM:
      return ptx::StateSpace::param;
    case PTXDWARF_SPACE_SHARED:
      return ptx::StateSpace::shared;
    case PTXDWARF_SPACE_TEX:
      return ptx::StateSpace::tex;
    case PTXDWARF_SPACE_SURF:
      return ptx::StateSpace::surf;
    case PTXDWARF_SPACE_SAMPLER:
      return ptx::StateSpace::sampler;
    case PTXDWARF_SPACE_GENERIC:
      return ptx::StateSpace::generic;
  }
  fail(PTXDWARF_E_INVALID_ARGUMENT, "unknown state space " + std::to_string(enumValue(s)));
}

void setLocation(write::Unit& unit, write::DieId d, const ptxdwarf_expr& location) {
  write::Location l = location.location();
  if (l.kind() == write::Location::Kind::expression) {
    if (l.expr().empty()) fail(PTXDWARF_E_INVALID_ARGUMENT, "the location is an empty expression");
    unit.set(d, dw::DW_AT_location, write::Value::expression(l.expr()));
  } else {
    write::Value v;
    v.kind = write::Value::Kind::locationList;
    v.list = unit.addLocationList(l.entries());
    unit.set(d, dw::DW_AT_location, std::move(v));
  }
  if (l.addressClass()) unit.set(d, dw::DW_AT_address_class, write::Value::unsignedValue(l.addressClass()));
}

write::VariableDesc variableDesc(const write::Unit& unit, const ptxdwarf_variable_desc& d) {
  write::VariableDesc v;
  v.name = optional(d.name);
  v.declFile = d.decl_file;
  v.declLine = d.decl_line;
  v.type = optionalDie(unit, d.type, "type");
  if (d.location) {
    v.location = d.location->location();
    if (v.location.kind() == write::Location::Kind::expression && v.location.expr().empty())
      fail(PTXDWARF_E_INVALID_ARGUMENT, "the location is an empty expression");
  }
  v.external = d.external != 0;
  v.linkageName = optional(d.linkage_name);
  return v;
}

std::string joinErrors(const Diagnostics& diags, std::string_view file) {
  std::string out;
  size_t shown = 0;
  for (const Diagnostic& d : diags.items) {
    if (d.severity != Severity::error) continue;
    if (shown == 20) {
      out += "\n(" + std::to_string(diags.errorCount() - shown) + " more errors)";
      break;
    }
    if (!out.empty()) out += '\n';
    out += file.empty() ? d.message : d.format(file);
    if (file.empty() && !d.section.empty() && d.offset >= 0)
      out += " (" + d.section + "+" + std::to_string(d.offset) + ")";
    ++shown;
  }
  return out;
}

write::EncodeOptions encodeOptions(const ptxdwarf_encode_options* o) {
  write::EncodeOptions e;
  if (!o) return e;
  e.pubnames = !o->no_pubnames;
  e.aranges = o->aranges != 0;
  e.pubnamesLength = o->pubnames_length_chapter6 ? write::UnitLengthConvention::unitLengthField
                                                 : write::UnitLengthConvention::totalSize;
  e.siblings = o->siblings != 0;
  return e;
}

const SectionImage& sectionAt(const ptxdwarf_sections* s, size_t index) {
  const ptxdwarf_sections& x = need(s, "the sections");
  if (index >= x.images.size())
    fail(PTXDWARF_E_NOT_FOUND, "section index " + std::to_string(index) + " is out of range (there are " +
                                   std::to_string(x.images.size()) + ")");
  return x.images[index];
}

template <class F>
ptxdwarf_status addDie(ptxdwarf_unit* u, ptxdwarf_die* out, F&& make) {
  return guard([&] {
    write::Builder& b = need(u, "the unit").builder;
    needOut(out, "out");
    write::DieId id = make(b, b.unit());
    *out = id;
  });
}

write::Style styleOf(const ptxdwarf_style& style) {
  switch (enumValue(style)) {
    case PTXDWARF_STYLE_PACKED:
      return write::Style::packed;
    case PTXDWARF_STYLE_ONE_PER_LINE:
      return write::Style::onePerLine;
    case PTXDWARF_STYLE_VERBOSE:
      return write::Style::verbose;
    case PTXDWARF_STYLE_DENSE:
      return write::Style::dense;
  }
  fail(PTXDWARF_E_INVALID_ARGUMENT, "unknown style " + std::to_string(enumValue(style)));
}

}  // namespace

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

// ---- Units and DIEs -----------------------------------------------------------

ptxdwarf_status ptxdwarf_unit_create(uint16_t version, uint8_t address_size, ptxdwarf_form_policy policy,
                                     ptxdwarf_unit** out) {
  return guard([&] {
    needOut(out, "out");
    write::UnitOptions o;
    o.version = version ? version : 2;
    o.addressSize = addressSize(address_size);
    switch (enumValue(policy)) {
      case PTXDWARF_POLICY_CHAPTER6:
        o.policy = write::FormPolicy::chapter6;
        break;
      case PTXDWARF_POLICY_COMPACT:
        o.policy = write::FormPolicy::compact;
        break;
      default:
        fail(PTXDWARF_E_INVALID_ARGUMENT, "unknown form policy " + std::to_string(enumValue(policy)));
    }
    *out = new ptxdwarf_unit{write::Builder(o)};
  });
}

void ptxdwarf_unit_free(ptxdwarf_unit* unit) { delete unit; }

size_t ptxdwarf_unit_die_count(const ptxdwarf_unit* unit) { return unit ? unit->builder.unit().size() : 0; }

ptxdwarf_status ptxdwarf_add_die(ptxdwarf_unit* unit, ptxdwarf_die p, uint16_t tag, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder&, write::Unit& u) { return u.add(parent(u, p), tag); });
}

ptxdwarf_status ptxdwarf_attach(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die child) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    u.attach(die(u, p, "parent"), die(u, child, "child"));
  });
}

ptxdwarf_status ptxdwarf_force_children(ptxdwarf_unit* unit, ptxdwarf_die d, int force) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    u.forceChildren(die(u, d, "die"), force != 0);
  });
}

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

// ---- Semantic helpers ---------------------------------------------------------

ptxdwarf_status ptxdwarf_compile_unit(ptxdwarf_unit* unit, const ptxdwarf_compile_unit_desc* desc) {
  return guard([&] {
    write::Builder& b = need(unit, "the unit").builder;
    const ptxdwarf_compile_unit_desc& d = need(desc, "the compile unit description");
    write::CompileUnitDesc c;
    c.producer = optional(d.producer);
    c.language = d.language ? d.language : uint16_t{dw::DW_LANG_C_plus_plus};
    c.name = optional(d.name);
    if (d.omit_low_pc)
      c.lowPc = std::nullopt;
    else
      c.lowPc = write::SymbolRef{optional(d.low_pc)};
    c.stmtList = !d.omit_stmt_list;
    c.compDir = optional(d.comp_dir);
    b.compileUnit(c);
  });
}

ptxdwarf_status ptxdwarf_subprogram(ptxdwarf_unit* unit, ptxdwarf_die p, const ptxdwarf_subprogram_desc* desc,
                                    ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    const ptxdwarf_subprogram_desc& d = need(desc, "the subprogram description");
    write::SubprogramDesc s;
    s.name = optional(d.name);
    s.linkageName = optional(d.linkage_name);
    s.declFile = d.decl_file;
    s.declLine = d.decl_line;
    s.type = optionalDie(u, d.type, "type");
    s.external = !d.internal;
    if (d.low_pc) s.lowPc = write::SymbolRef{d.low_pc};
    if (d.high_pc) s.highPc = write::SymbolRef{d.high_pc};
    s.frameBaseCfa = !d.no_frame_base;
    s.linkageNameFirst = !d.linkage_name_after_name;
    if (d.linkage_attribute) s.linkageAttribute = d.linkage_attribute;
    return b.subprogram(s, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_formal_parameter(ptxdwarf_unit* unit, ptxdwarf_die subprogram,
                                          const ptxdwarf_variable_desc* desc, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    write::VariableDesc v = variableDesc(u, need(desc, "the parameter description"));
    return b.formalParameter(parent(u, subprogram), v);
  });
}

ptxdwarf_status ptxdwarf_variable(ptxdwarf_unit* unit, ptxdwarf_die scope, const ptxdwarf_variable_desc* desc,
                                  ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    write::VariableDesc v = variableDesc(u, need(desc, "the variable description"));
    return b.variable(parent(u, scope), v);
  });
}

ptxdwarf_status ptxdwarf_lexical_block(ptxdwarf_unit* unit, ptxdwarf_die scope, const char* begin_label,
                                       const char* end_label, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.lexicalBlock(parent(u, scope), {required(begin_label, "the begin label")},
                          {required(end_label, "the end label")});
  });
}

ptxdwarf_status ptxdwarf_inlined_subroutine(ptxdwarf_unit* unit, ptxdwarf_die scope, ptxdwarf_die origin,
                                            const char* begin_label, const char* end_label, unsigned call_file,
                                            unsigned call_line, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.inlinedSubroutine(parent(u, scope), die(u, origin, "origin"), {required(begin_label, "the begin label")},
                               {required(end_label, "the end label")}, call_file, call_line);
  });
}

ptxdwarf_status ptxdwarf_base_type(ptxdwarf_unit* unit, ptxdwarf_die p, const char* name, uint8_t encoding,
                                   uint64_t byte_size, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.baseType(required(name, "the type name"), encoding, byte_size, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_unspecified_type(ptxdwarf_unit* unit, ptxdwarf_die p, const char* name, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.unspecifiedType(required(name, "the type name"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_pointer_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die pointee, uint8_t address_class,
                                      ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.pointerType(optionalDie(u, pointee, "pointee"), address_class, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_reference_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die pointee, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.referenceType(optionalDie(u, pointee, "pointee"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_const_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die type, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.constType(optionalDie(u, type, "type"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_volatile_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die type, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.volatileType(optionalDie(u, type, "type"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_typedef(ptxdwarf_unit* unit, ptxdwarf_die p, const char* name, ptxdwarf_die type,
                                 ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.typedefType(required(name, "the typedef name"), optionalDie(u, type, "type"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_aggregate(ptxdwarf_unit* unit, ptxdwarf_die p, uint16_t tag, const char* name,
                                   uint64_t byte_size, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    if (tag != dw::DW_TAG_structure_type && tag != dw::DW_TAG_class_type && tag != dw::DW_TAG_union_type)
      fail(PTXDWARF_E_INVALID_ARGUMENT,
           "an aggregate's tag is DW_TAG_structure_type, DW_TAG_class_type or "
           "DW_TAG_union_type, not " +
               std::to_string(tag));
    return b.aggregate(tag, optional(name), byte_size, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_member(ptxdwarf_unit* unit, ptxdwarf_die aggregate, const char* name, ptxdwarf_die type,
                                uint64_t offset, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    write::MemberDesc m;
    m.name = optional(name);
    m.type = optionalDie(u, type, "type");
    m.offset = offset;
    return b.member(die(u, aggregate, "aggregate"), m);
  });
}

ptxdwarf_status ptxdwarf_array_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die element, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.arrayType(optionalDie(u, element, "element type"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_subrange(ptxdwarf_unit* unit, ptxdwarf_die array, uint64_t count, ptxdwarf_die index_type,
                                  ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.subrange(die(u, array, "array"), count, optionalDie(u, index_type, "index type"));
  });
}

ptxdwarf_status ptxdwarf_enumeration(ptxdwarf_unit* unit, ptxdwarf_die p, const char* name, uint64_t byte_size,
                                     ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.enumeration(optional(name), byte_size, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_enumerator(ptxdwarf_unit* unit, ptxdwarf_die enumeration, const char* name, int64_t value,
                                    ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.enumerator(die(u, enumeration, "enumeration"), required(name, "the enumerator name"), value);
  });
}

ptxdwarf_status ptxdwarf_subroutine_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die return_type,
                                         const ptxdwarf_die* parameters, size_t parameter_count, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    if (parameter_count && !parameters) fail(PTXDWARF_E_INVALID_ARGUMENT, "the parameter array is NULL");
    std::vector<write::DieId> params;
    for (size_t k = 0; k < parameter_count; ++k) params.push_back(die(u, parameters[k], "parameter type"));
    return b.subroutineType(optionalDie(u, return_type, "return type"), params, parent(u, p));
  });
}

// ---- Attributes -----------------------------------------------------------------

namespace {
template <class F>
ptxdwarf_status setAttr(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, F&& value) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    write::DieId id = die(u, d, "die");
    if (name == 0) fail(PTXDWARF_E_INVALID_ARGUMENT, "attribute 0 is reserved");
    u.set(id, name, value(u));
  });
}
}  // namespace

ptxdwarf_status ptxdwarf_set_attr_unsigned(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, uint64_t value,
                                           uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) { return write::Value::unsignedValue(value, form); });
}

ptxdwarf_status ptxdwarf_set_attr_signed(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, int64_t value,
                                         uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) { return write::Value::signedValue(value, form); });
}

ptxdwarf_status ptxdwarf_set_attr_flag(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, int value, uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) { return write::Value::flag(value != 0, form); });
}

ptxdwarf_status ptxdwarf_set_attr_string(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const char* value,
                                         uint16_t form) {
  return setAttr(unit, d, name,
                 [&](write::Unit&) { return write::Value::string(required(value, "the string"), form); });
}

ptxdwarf_status ptxdwarf_set_attr_reference(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, ptxdwarf_die target,
                                            uint16_t form) {
  return setAttr(unit, d, name,
                 [&](write::Unit& u) { return write::Value::reference(die(u, target, "reference target"), form); });
}

ptxdwarf_status ptxdwarf_set_attr_address(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const char* symbol,
                                          int64_t addend, uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) { return write::Value::address({optional(symbol), addend}, form); });
}

ptxdwarf_status ptxdwarf_set_attr_section_offset(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const char* symbol,
                                                 int64_t addend, uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) {
    std::string s = required(symbol, "the section symbol");
    if (s.empty()) fail(PTXDWARF_E_INVALID_ARGUMENT, "the section symbol is empty");
    return write::Value::sectionOffset({std::move(s), addend}, form);
  });
}

ptxdwarf_status ptxdwarf_set_attr_block(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const uint8_t* bytes,
                                        size_t size, uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) {
    if (size && !bytes) fail(PTXDWARF_E_INVALID_ARGUMENT, "the block's bytes are NULL");
    return write::Value::block(size ? std::vector<uint8_t>(bytes, bytes + size) : std::vector<uint8_t>{}, form);
  });
}

ptxdwarf_status ptxdwarf_set_attr_expr(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const ptxdwarf_expr* expr,
                                       uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) {
    const ptxdwarf_expr& x = need(expr, "the expression");
    if (x.isList) fail(PTXDWARF_E_INVALID_ARGUMENT, "a location list is not an expression (use ptxdwarf_set_location)");
    return write::Value::expression(x.expr, form);
  });
}

ptxdwarf_status ptxdwarf_set_location(ptxdwarf_unit* unit, ptxdwarf_die d, const ptxdwarf_expr* location) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    setLocation(u, die(u, d, "die"), need(location, "the location"));
  });
}

ptxdwarf_status ptxdwarf_set_pubnames(ptxdwarf_unit* unit, const ptxdwarf_die* dies, const char* const* names,
                                      size_t count) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    if (count && (!dies || !names)) fail(PTXDWARF_E_INVALID_ARGUMENT, "the pubnames arrays are NULL");
    std::vector<write::Unit::Pubname> entries;
    for (size_t k = 0; k < count; ++k)
      entries.push_back({die(u, dies[k], "pubname DIE"), required(names[k], "a pubname")});
    u.setPubnames(std::move(entries));
  });
}

// ---- Sections -------------------------------------------------------------------

ptxdwarf_status ptxdwarf_encode_units(const ptxdwarf_unit* const* units, size_t count,
                                      const ptxdwarf_encode_options* options, ptxdwarf_sections** out) {
  return guard([&] {
    needOut(out, "out");
    if (!units) fail(PTXDWARF_E_INVALID_ARGUMENT, "the unit array is NULL");
    std::vector<const write::Unit*> list;
    for (size_t k = 0; k < count; ++k) {
      if (!units[k]) fail(PTXDWARF_E_INVALID_ARGUMENT, "unit " + std::to_string(k) + " is NULL");
      list.push_back(&units[k]->builder.unit());
    }
    Diagnostics diags;
    auto s = std::make_unique<ptxdwarf_sections>();
    s->images = write::encode(std::span<const write::Unit* const>(list), encodeOptions(options), diags);
    if (diags.hasErrors()) fail(PTXDWARF_E_ENCODE, joinErrors(diags, {}));
    *out = s.release();
  });
}

ptxdwarf_status ptxdwarf_encode(const ptxdwarf_unit* unit, const ptxdwarf_encode_options* options,
                                ptxdwarf_sections** out) {
  if (!unit) return guard([] { fail(PTXDWARF_E_INVALID_ARGUMENT, "the unit is NULL"); });
  return ptxdwarf_encode_units(&unit, 1, options, out);
}

ptxdwarf_status ptxdwarf_read_ptx(const char* text, size_t length, const char* filename, ptxdwarf_sections** out) {
  return guard([&] {
    needOut(out, "out");
    if (!text && length) fail(PTXDWARF_E_INVALID_ARGUMENT, "the text is NULL");
    std::string file = filename ? filename : "<input>";
    ptx::ReadResult r = ptx::read(std::string_view(text ? text : "", length), file);
    if (!r.ok()) fail(PTXDWARF_E_PARSE, joinErrors(r.diagnostics, file));
    auto s = std::make_unique<ptxdwarf_sections>();
    s->images = std::move(r.module.sections);
    *out = s.release();
  });
}

void ptxdwarf_sections_free(ptxdwarf_sections* sections) { delete sections; }

size_t ptxdwarf_sections_count(const ptxdwarf_sections* sections) { return sections ? sections->images.size() : 0; }

ptxdwarf_status ptxdwarf_sections_get(const ptxdwarf_sections* sections, size_t index, ptxdwarf_section_info* out) {
  return guard([&] {
    const SectionImage& s = sectionAt(sections, index);
    needOut(out, "out");
    out->name = s.name.c_str();
    out->bytes = s.bytes.data();
    out->size = s.bytes.size();
    out->relocation_count = s.relocations.size();
  });
}

ptxdwarf_status ptxdwarf_sections_find(const ptxdwarf_sections* sections, const char* name, size_t* index) {
  return guard([&] {
    const ptxdwarf_sections& x = need(sections, "the sections");
    std::string n = required(name, "the section name");
    needOut(index, "index");
    for (size_t k = 0; k < x.images.size(); ++k) {
      if (x.images[k].name == n) {
        *index = k;
        return;
      }
    }
    fail(PTXDWARF_E_NOT_FOUND, "no section named '" + n + "'");
  });
}

ptxdwarf_status ptxdwarf_sections_relocation(const ptxdwarf_sections* sections, size_t section, size_t index,
                                             ptxdwarf_relocation* out) {
  return guard([&] {
    const SectionImage& s = sectionAt(sections, section);
    needOut(out, "out");
    if (index >= s.relocations.size())
      fail(PTXDWARF_E_NOT_FOUND, "relocation index " + std::to_string(index) + " is out of range (" + s.name + " has " +
                                     std::to_string(s.relocations.size()) + ")");
    const Relocation& r = s.relocations[index];
    out->offset = r.offset;
    out->size = r.size;
    // Names kept by a SectionImage are NUL-terminated (StringStore::keep).
    out->symbol = r.symbol.c_str();
    out->minus = r.minus().c_str();
    out->addend = r.addend();
  });
}

// ---- PTX text -----------------------------------------------------------------------

ptxdwarf_status ptxdwarf_render_ptx(const ptxdwarf_sections* sections, const ptxdwarf_render_options* options,
                                    char** out) {
  return guard([&] {
    const ptxdwarf_sections& x = need(sections, "the sections");
    needOut(out, "out");
    write::WriteOptions w;
    if (options) {
      w.style = styleOf(options->style);
      if (options->version_major || options->version_minor)
        w.version = ptx::Version{options->version_major, options->version_minor, true};
      if (options->bytes_per_line) w.bytesPerLine = options->bytes_per_line;
      w.crlf = options->crlf != 0;
    }
    read::Dwarf dwarf;  // the field boundaries the verbose style annotates
    if (w.style == write::Style::verbose) {
      dwarf = read::decode(x.images);
      w.dwarf = &dwarf;
    }
    Diagnostics diags;
    std::string text;
    if (!write::writeSections(text, x.images, w, diags)) fail(PTXDWARF_E_RENDER, joinErrors(diags, {}));
    char* buffer = static_cast<char*>(std::malloc(text.size() + 1));
    if (!buffer) throw std::bad_alloc();
    std::memcpy(buffer, text.c_str(), text.size() + 1);
    *out = buffer;
  });
}

void ptxdwarf_string_free(char* text) { std::free(text); }

// ---- Programs ---------------------------------------------------------------------

struct ptxdwarf_program {
  explicit ptxdwarf_program(write::ProgramOptions options) : program(std::move(options)) {}
  write::Program program;
  std::deque<std::string> names;  // label names handed out: they live as long as the program

  const char* keep(std::string name) { return names.emplace_back(std::move(name)).c_str(); }
};

struct ptxdwarf_diagnostics {
  Diagnostics diagnostics;
};

static_assert(int{PTXDWARF_SEVERITY_NOTE} == int(Severity::note) &&
              int{PTXDWARF_SEVERITY_WARNING} == int(Severity::warning) &&
              int{PTXDWARF_SEVERITY_ERROR} == int(Severity::error));

namespace {

write::ProgramOptions programOptions(const ptxdwarf_program_options* o) {
  write::ProgramOptions p;
  if (!o) return p;
  if (o->version_major || o->version_minor) p.version = ptx::Version{o->version_major, o->version_minor, true};
  if (o->target) p.target = o->target;
  if (o->address_size) p.addressSize = o->address_size;
  p.flattenInlined = o->flatten_inlined != 0;
  if (o->label_prefix) p.labelPrefix = o->label_prefix;
  return p;
}

write::Program& programOf(ptxdwarf_program* p) { return need(p, "the program").program; }

char* mallocCopy(std::string_view text) {
  char* buffer = static_cast<char*>(std::malloc(text.size() + 1));
  if (!buffer) throw std::bad_alloc();
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  return buffer;
}

const Diagnostic& diagnosticAt(const ptxdwarf_diagnostics* d, size_t index) {
  const ptxdwarf_diagnostics& x = need(d, "the diagnostics");
  if (index >= x.diagnostics.items.size())
    fail(PTXDWARF_E_NOT_FOUND, "diagnostic index " + std::to_string(index) + " is out of range (there are " +
                                   std::to_string(x.diagnostics.items.size()) + ")");
  return x.diagnostics.items[index];
}

}  // namespace

ptxdwarf_status ptxdwarf_program_create(const ptxdwarf_program_options* options, ptxdwarf_program** out) {
  return guard([&] {
    needOut(out, "out");
    *out = new ptxdwarf_program(programOptions(options));
  });
}

void ptxdwarf_program_free(ptxdwarf_program* program) { delete program; }

ptxdwarf_status ptxdwarf_program_add_file(ptxdwarf_program* program, const char* path, unsigned* id) {
  return guard([&] {
    write::Program& p = programOf(program);
    needOut(id, "id");
    *id = p.files().add(required(path, "the path"));
  });
}

ptxdwarf_status ptxdwarf_program_add_file_info(ptxdwarf_program* program, const char* path, uint64_t timestamp,
                                               uint64_t size, unsigned* id) {
  return guard([&] {
    write::Program& p = programOf(program);
    needOut(id, "id");
    *id = p.files().add(required(path, "the path"), timestamp, size);
  });
}

ptxdwarf_status ptxdwarf_program_code(ptxdwarf_program* program, const char* text) {
  return guard([&] { programOf(program).code() += required(text, "the text"); });
}

ptxdwarf_status ptxdwarf_program_begin_function(ptxdwarf_program* program, const char** begin_label,
                                                const char** end_label) {
  return guard([&] {
    write::Labels::Function f = programOf(program).beginFunction();
    const char* begin = program->keep(std::move(f.begin));
    const char* end = program->keep(std::move(f.end));
    if (begin_label) *begin_label = begin;
    if (end_label) *end_label = end;
  });
}

ptxdwarf_status ptxdwarf_program_end_function(ptxdwarf_program* program) {
  return guard([&] { programOf(program).endFunction(); });
}

ptxdwarf_status ptxdwarf_program_label(ptxdwarf_program* program, const char** name) {
  return guard([&] {
    write::Program& p = programOf(program);
    needOut(name, "name");
    *name = program->keep(p.label());
  });
}

ptxdwarf_status ptxdwarf_program_new_label(ptxdwarf_program* program, const char** name) {
  return guard([&] {
    write::Program& p = programOf(program);
    needOut(name, "name");
    *name = program->keep(p.labels().temporary());
  });
}

ptxdwarf_status ptxdwarf_program_place_label(ptxdwarf_program* program, const char* name) {
  return guard([&] {
    write::Program& p = programOf(program);
    p.place(required(name, "the label name"));
  });
}

ptxdwarf_status ptxdwarf_program_loc(ptxdwarf_program* program, unsigned file, unsigned line, unsigned column,
                                     const ptxdwarf_inlined_call* inlined, size_t depth, size_t* written) {
  return guard([&] {
    write::Program& p = programOf(program);
    if (depth && !inlined) fail(PTXDWARF_E_INVALID_ARGUMENT, "the inline stack is NULL");
    std::vector<write::InlinedCall> stack;
    for (size_t k = 0; k < depth; ++k)
      stack.push_back({required(inlined[k].function, "an inlined function name"),
                       {inlined[k].call_file, inlined[k].call_line, inlined[k].call_column}});
    size_t n = p.loc({file, line, column}, stack);
    if (written) *written = n;
  });
}

size_t ptxdwarf_diagnostics_count(const ptxdwarf_diagnostics* diagnostics) {
  return diagnostics ? diagnostics->diagnostics.items.size() : 0;
}

ptxdwarf_status ptxdwarf_diagnostics_get(const ptxdwarf_diagnostics* diagnostics, size_t index,
                                         ptxdwarf_diagnostic* out) {
  return guard([&] {
    const Diagnostic& d = diagnosticAt(diagnostics, index);
    needOut(out, "out");
    *out = ptxdwarf_diagnostic{static_cast<ptxdwarf_severity>(d.severity),
                               d.loc.line,
                               d.loc.col,
                               d.message.c_str(),
                               d.rule.c_str(),
                               d.section.c_str(),
                               d.offset};
  });
}

ptxdwarf_status ptxdwarf_diagnostics_format(const ptxdwarf_diagnostics* diagnostics, size_t index, const char* filename,
                                            char** out) {
  return guard([&] {
    const Diagnostic& d = diagnosticAt(diagnostics, index);
    needOut(out, "out");
    *out = mallocCopy(d.format(filename ? filename : "<assembled>"));
  });
}

void ptxdwarf_diagnostics_free(ptxdwarf_diagnostics* diagnostics) { delete diagnostics; }

ptxdwarf_status ptxdwarf_program_assemble(const ptxdwarf_program* program, const ptxdwarf_unit* const* units,
                                          size_t count, const ptxdwarf_assemble_options* options, char** ptx,
                                          ptxdwarf_diagnostics** diagnostics) {
  return guard([&] {
    const write::Program& p = need(program, "the program").program;
    needOut(ptx, "ptx");
    if (count && !units) fail(PTXDWARF_E_INVALID_ARGUMENT, "the unit array is NULL");
    std::vector<const write::Unit*> list;
    for (size_t k = 0; k < count; ++k) {
      if (!units[k]) fail(PTXDWARF_E_INVALID_ARGUMENT, "unit " + std::to_string(k) + " is NULL");
      list.push_back(&units[k]->builder.unit());
    }
    check::AssembleCheckOptions a;
    if (options) {
      a.assemble.style = styleOf(options->style);
      a.assemble.encode = encodeOptions(options->encode);
      if (options->filename) a.filename = options->filename;
    }
    const std::span<const write::Unit* const> unitList(list);
    write::Assembled m =
        options && options->check ? check::assembleAndCheck(p, unitList, a) : p.assemble(unitList, a.assemble);
    if (!m.written()) fail(PTXDWARF_E_ASSEMBLE, joinErrors(m.diagnostics, {}));
    auto found = std::make_unique<ptxdwarf_diagnostics>();
    found->diagnostics = std::move(m.diagnostics);
    char* text = mallocCopy(m.ptx);
    *ptx = text;
    if (diagnostics) *diagnostics = found.release();
  });
}

// ---- Annotate ------------------------------------------------------------------

ptxdwarf_status ptxdwarf_annotate(const char* text, size_t length, const char* filename,
                                  const ptxdwarf_annotate_options* options, char** out,
                                  ptxdwarf_diagnostics** diagnostics) {
  return guard([&] {
    needOut(out, "out");
    if (!text && length) fail(PTXDWARF_E_INVALID_ARGUMENT, "the text is NULL");
    std::string file = filename ? filename : "<input>";
    std::string_view input(text ? text : "", length);
    ptx::ReadResult r = ptx::read(input, file);
    if (!r.ok()) fail(PTXDWARF_E_PARSE, joinErrors(r.diagnostics, file));
    write::AnnotateOptions o;
    o.sourceName = options && options->source_name ? options->source_name : file;
    o.keepLines = options && options->keep_lines;
    o.renameRegisters = options && options->rename_registers;
    o.replace = options && options->replace;
    write::Annotated a = write::annotate(input, r.module, o);
    if (!a.written()) fail(PTXDWARF_E_ASSEMBLE, joinErrors(a.diagnostics, file));
    auto found = std::make_unique<ptxdwarf_diagnostics>();
    found->diagnostics = std::move(a.diagnostics);
    *out = mallocCopy(a.ptx);
    if (diagnostics) *diagnostics = found.release();
  });
}

// ---- Strip and remap --------------------------------------------------------

ptxdwarf_status ptxdwarf_strip(const char* text, size_t length, const char* filename, int mode, char** out) {
  return guard([&] {
    needOut(out, "out");
    if (!text && length) fail(PTXDWARF_E_INVALID_ARGUMENT, "the text is NULL");
    if (mode != PTXDWARF_STRIP_ALL && mode != PTXDWARF_STRIP_KEEP_LINES)
      fail(PTXDWARF_E_INVALID_ARGUMENT, "unknown strip mode " + std::to_string(mode));
    std::string file = filename ? filename : "<input>";
    std::string_view input(text ? text : "", length);
    ptx::ReadResult r = ptx::read(input, file);
    if (!r.ok()) fail(PTXDWARF_E_PARSE, joinErrors(r.diagnostics, file));
    write::Stripped s = write::strip(
        input, r.module, mode == PTXDWARF_STRIP_KEEP_LINES ? write::StripMode::keepLines : write::StripMode::all);
    if (!s.ok()) fail(PTXDWARF_E_ASSEMBLE, joinErrors(s.diagnostics, file));
    *out = mallocCopy(s.ptx);
  });
}

ptxdwarf_status ptxdwarf_remap_paths(const char* text, size_t length, const char* filename,
                                     const char* const* maps, size_t count, char** out) {
  return guard([&] {
    needOut(out, "out");
    if (!text && length) fail(PTXDWARF_E_INVALID_ARGUMENT, "the text is NULL");
    if (!maps && count) fail(PTXDWARF_E_INVALID_ARGUMENT, "the maps are NULL");
    std::vector<write::PathPrefixMap> parsed;
    for (size_t i = 0; i < count; ++i) {
      std::optional<write::PathPrefixMap> m = maps[i] ? write::parsePathPrefixMap(maps[i]) : std::nullopt;
      if (!m) fail(PTXDWARF_E_INVALID_ARGUMENT, "map " + std::to_string(i) + " is not OLD=NEW");
      parsed.push_back(std::move(*m));
    }
    std::string file = filename ? filename : "<input>";
    std::string_view input(text ? text : "", length);
    ptx::ReadResult r = ptx::read(input, file);
    if (!r.ok()) fail(PTXDWARF_E_PARSE, joinErrors(r.diagnostics, file));
    read::Dwarf dwarf = read::decode(r.module.sections);
    write::Remapped m = write::remapPaths(input, r.module, dwarf, parsed);
    if (!m.ok()) fail(PTXDWARF_E_ASSEMBLE, joinErrors(m.diagnostics, file));
    *out = mallocCopy(m.ptx);
  });
}

// ---- The debugger's view ----------------------------------------------------

struct ptxdwarf_module {
  ptx::ReadResult parsed;
  read::Dwarf dwarf;  // views into parsed.module's sections: the module stays where it is
};

struct ptxdwarf_lookup {
  view::LookupResult result;
};

ptxdwarf_status ptxdwarf_module_read(const char* text, size_t length, const char* filename, ptxdwarf_module** out) {
  return guard([&] {
    needOut(out, "out");
    if (!text && length) fail(PTXDWARF_E_INVALID_ARGUMENT, "the text is NULL");
    std::string file = filename ? filename : "<input>";
    auto m = std::make_unique<ptxdwarf_module>();
    m->parsed = ptx::read(std::string_view(text ? text : "", length), file);
    if (!m->parsed.ok()) fail(PTXDWARF_E_PARSE, joinErrors(m->parsed.diagnostics, file));
    m->dwarf = read::decode(m->parsed.module.sections);
    *out = m.release();
  });
}

void ptxdwarf_module_free(ptxdwarf_module* module) { delete module; }

ptxdwarf_status ptxdwarf_lookup_at(const ptxdwarf_module* module, const char* where, ptxdwarf_lookup** out) {
  return guard([&] {
    const ptxdwarf_module& m = need(module, "the module");
    std::string at = required(where, "the place");
    needOut(out, "out");
    auto l = std::make_unique<ptxdwarf_lookup>();
    l->result = view::lookup(m.parsed.module, m.dwarf, at);
    if (l->result.matches.empty()) fail(PTXDWARF_E_NOT_FOUND, l->result.error);
    *out = l.release();
  });
}

void ptxdwarf_lookup_free(ptxdwarf_lookup* lookup) { delete lookup; }

size_t ptxdwarf_lookup_match_count(const ptxdwarf_lookup* lookup) { return lookup ? lookup->result.matches.size() : 0; }

namespace {

const view::Match& matchAt(const ptxdwarf_lookup* lookup, size_t match) {
  const ptxdwarf_lookup& l = need(lookup, "the lookup");
  if (match >= l.result.matches.size())
    fail(PTXDWARF_E_NOT_FOUND, "match " + std::to_string(match) + " of " + std::to_string(l.result.matches.size()));
  return l.result.matches[match];
}

template <class T>
const T& itemAt(const std::vector<T>& items, size_t index, const char* what) {
  if (index >= items.size())
    fail(PTXDWARF_E_NOT_FOUND, std::string(what) + " " + std::to_string(index) + " of " + std::to_string(items.size()));
  return items[index];
}

}  // namespace

ptxdwarf_status ptxdwarf_lookup_match(const ptxdwarf_lookup* lookup, size_t match, ptxdwarf_match_info* out) {
  return guard([&] {
    const view::Match& m = matchAt(lookup, match);
    needOut(out, "out");
    *out = {m.function.c_str(), m.ptxLines.data(), m.ptxLines.size(), m.scopes.size(), m.variables.size()};
  });
}

ptxdwarf_status ptxdwarf_lookup_scope(const ptxdwarf_lookup* lookup, size_t match, size_t index,
                                      ptxdwarf_scope_info* out) {
  return guard([&] {
    const view::ScopeInfo& s = itemAt(matchAt(lookup, match).scopes, index, "scope");
    needOut(out, "out");
    *out = {s.tag, s.name.c_str(), s.die, s.callFile.c_str(), s.callLine};
  });
}

ptxdwarf_status ptxdwarf_lookup_variable(const ptxdwarf_lookup* lookup, size_t match, size_t index,
                                         ptxdwarf_variable_info* out) {
  return guard([&] {
    const view::VariableInfo& v = itemAt(matchAt(lookup, match).variables, index, "variable");
    needOut(out, "out");
    *out = {v.name.c_str(), v.parameter ? 1 : 0, v.type.c_str(), v.location.c_str(), v.available ? 1 : 0,
            v.addressClass, v.declLine, v.die};
  });
}
