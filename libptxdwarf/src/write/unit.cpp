#include "ptxdwarf/write/unit.h"

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/work.h"

namespace ptxdwarf::write {

using namespace dw;

// ---- Expr -------------------------------------------------------------------

Expr& Expr::op(uint8_t opcode) { return u8(opcode); }
Expr& Expr::u8(uint8_t v) {
  bytes_.push_back(v);
  return *this;
}
Expr& Expr::u16(uint16_t v) {
  for (int i = 0; i < 2; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return *this;
}
Expr& Expr::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return *this;
}
Expr& Expr::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return *this;
}
Expr& Expr::uleb(uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    bytes_.push_back(v ? (b | 0x80) : b);
  } while (v);
  return *this;
}
Expr& Expr::sleb(int64_t v) {
  for (;;) {
    uint8_t b = v & 0x7f;
    v >>= 7;
    bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
    bytes_.push_back(done ? b : (b | 0x80));
    if (done) return *this;
  }
}

namespace {
uint64_t packedOrThrow(std::string_view reg) {
  std::optional<uint64_t> v = cuda::packRegister(reg);
  if (!v) {
    throw BuildError("cannot use '" + std::string(reg) +
                     "' as a DW_OP_regx register: cuda-gdb needs a PTX register name starting with '%', "
                     "at most 8 bytes of [A-Za-z0-9_$%]");
  }
  return *v;
}
}  // namespace

Expr& Expr::regx(std::string_view ptxRegister) { return op(DW_OP_regx).uleb(packedOrThrow(ptxRegister)); }
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
  Location l;
  l.kind_ = Kind::expression;
  l.expr_ = Expr(addressSize);
  l.expr_.regx(ptxRegister);
  l.addressClass_ = cuda::ADDR_reg_space;
  return l;
}

Location Location::symbol(SymbolRef symbol, ptx::StateSpace space, uint8_t addressSize) {
  Location l;
  l.kind_ = Kind::expression;
  l.expr_ = Expr(addressSize);
  if (symbol.name.starts_with("__local_depot") && symbol.addend != 0) {
    // ptxas rewrites `DW_OP_addr __local_depotN` into DW_OP_fbreg and drops an
    // addend silently; an offset into the depot must follow as an operation.
    if (symbol.addend < 0) throw BuildError("negative offset into " + symbol.name);
    int64_t offset = symbol.addend;
    symbol.addend = 0;
    l.expr_.addr(std::move(symbol)).plusUconst(static_cast<uint64_t>(offset));
  } else {
    l.expr_.addr(std::move(symbol));
  }
  l.addressClass_ = addressClassOf(space);
  return l;
}

Location Location::frameOffset(int64_t offset, uint8_t addressClass) {
  Location l;
  l.kind_ = Kind::expression;
  l.expr_.fbreg(offset);
  l.addressClass_ = addressClass;
  return l;
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

Value Value::unsignedValue(uint64_t v, uint16_t form) {
  Value x;
  x.kind = Kind::unsigned_;
  x.u = v;
  x.form = form;
  return x;
}
Value Value::signedValue(int64_t v, uint16_t form) {
  Value x;
  x.kind = Kind::signed_;
  x.s = v;
  x.form = form;
  return x;
}
Value Value::flag(bool v, uint16_t form) {
  Value x;
  x.kind = Kind::flag;
  x.u = v;
  x.form = form;
  return x;
}
Value Value::string(std::string_view s, uint16_t form) {
  if (s.find('\0') != std::string_view::npos) throw BuildError("DWARF strings cannot contain NUL bytes");
  Value x;
  x.kind = Kind::string;
  x.str = std::string(s);
  x.form = form;
  return x;
}
Value Value::reference(DieId die, uint16_t form) {
  Value x;
  x.kind = Kind::reference;
  x.ref = die;
  x.form = form;
  return x;
}
Value Value::address(SymbolRef symbol, uint16_t form) {
  Value x;
  x.kind = Kind::address;
  x.symbol = std::move(symbol);
  x.form = form;
  return x;
}
Value Value::sectionOffset(SymbolRef symbol, uint16_t form) {
  Value x;
  x.kind = Kind::sectionOffset;
  x.symbol = std::move(symbol);
  x.form = form;
  return x;
}
Value Value::block(std::vector<uint8_t> bytes, uint16_t form) {
  Value x;
  x.kind = Kind::block;
  for (uint8_t b : bytes) x.expr.u8(b);
  x.form = form;
  return x;
}
Value Value::expression(Expr expr, uint16_t form) {
  Value x;
  x.kind = Kind::expression;
  x.expr = std::move(expr);
  x.form = form;
  return x;
}

// ---- Unit -------------------------------------------------------------------

Unit::Unit(uint16_t rootTag, UnitOptions options) : options_(options) {
  if (options.version < 2 || options.version > 4)
    throw BuildError("DWARF version " + std::to_string(options.version) + " is not supported (2, 3 or 4)");
  if (options.addressSize != 4 && options.addressSize != 8)
    throw BuildError("address size must be 4 or 8, not " + std::to_string(options.addressSize));
  dies_.push_back(Die{rootTag, kNoDie, {}, {}, false});
}

void Unit::check(DieId id) const {
  if (id >= dies_.size())
    throw BuildError("DIE id " + std::to_string(id) + " does not belong to this unit (it has " +
                     std::to_string(dies_.size()) + " DIEs)");
}

DieId Unit::add(DieId parent, uint16_t tag) {
  if (parent != kDetached) check(parent);
  if (tag == 0) throw BuildError("tag 0 is reserved for NULL entries");
  DieId id = static_cast<DieId>(dies_.size());
  dies_.push_back(Die{tag, kNoDie, {}, {}, false});
  if (parent != kDetached) attach(parent, id);
  return id;
}

void Unit::attach(DieId parent, DieId child) {
  check(parent);
  check(child);
  if (child == root()) throw BuildError("the unit DIE cannot be a child");
  if (dies_[child].parent != kNoDie)
    throw BuildError("DIE " + std::to_string(child) + " is already in the tree");
  // Only a subtree can hold `parent`: a childless DIE (every DIE as it is
  // created) needs no walk up the ancestors, which made building a deep
  // tree one DIE at a time quadratic.
  work::step(work::attachWalk);
  if (parent == child) throw BuildError("attaching DIE " + std::to_string(child) + " under itself");
  if (!dies_[child].children.empty()) {
    for (DieId p = parent; p != kNoDie; p = dies_[p].parent) {
      work::step(work::attachWalk);
      if (p == child) throw BuildError("attaching DIE " + std::to_string(child) + " under itself");
    }
  }
  dies_[child].parent = parent;
  dies_[parent].children.push_back(child);
}

void Unit::checkValue(DieId id, uint16_t name, const Value& value) const {
  check(id);
  if (name == 0) throw BuildError("attribute 0 is reserved");
  if (value.kind == Value::Kind::reference && value.ref != kNoDie) check(value.ref);
  if (value.kind == Value::Kind::locationList && value.list >= lists_.size())
    throw BuildError("location list " + std::to_string(value.list) + " does not exist");
}

void Unit::set(DieId id, uint16_t name, Value value) {
  checkValue(id, name, value);
  checkPtxasReads(id, name, value);
  for (Attribute& a : dies_[id].attributes) {
    if (a.name == name) {
      a.value = std::move(value);
      return;
    }
  }
  dies_[id].attributes.push_back({name, std::move(value)});
}

void Unit::append(DieId id, uint16_t name, Value value) {
  checkValue(id, name, value);
  dies_[id].attributes.push_back({name, std::move(value)});
}

// A producer's attribute must be in a form ptxas reads: the output is for
// ptxas. (append() keeps what re-encoded input has; check reports that.)
void Unit::checkPtxasReads(DieId id, uint16_t name, const Value& value) const {
  uint16_t form = chooseForm(name, value, options_);
  std::string_view problem = cuda::ptxasFormProblem(form, options_.version);
  if (problem.empty()) return;
  std::string what = std::string(attributeName(name)) + " of DIE " + std::to_string(id) + " (" +
                     std::string(tagName(dies_[id].tag)) + ") in a DWARF " + std::to_string(options_.version) + " unit";
  if (!value.form && (value.kind == Value::Kind::sectionOffset || value.kind == Value::Kind::locationList))
    throw BuildError(what + " needs DW_FORM_sec_offset, and " + std::string(problem) +
                     "; build DWARF 2 or 3, where it is DW_FORM_data4");
  throw BuildError(what + ": " + std::string(formName(form)) + ": " + std::string(problem));
}

uint32_t Unit::addLocationList(std::vector<Location::ListEntry> entries) {
  lists_.push_back(std::move(entries));
  return static_cast<uint32_t>(lists_.size() - 1);
}

}  // namespace ptxdwarf::write
