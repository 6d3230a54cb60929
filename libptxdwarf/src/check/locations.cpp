// Rules about locations and declarations: location expressions decode, name
// registers the function declares and symbols of the state space their
// DW_AT_address_class says; DW_AT_decl_file/call_file name a .file and
// DW_AT_stmt_list the line table ptxas builds.
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "checker.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/read/expression.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

// Lists share tails: each expression is checked once per address class it
// is held against, not once per attribute naming it. The class an entry is
// first checked with is kept in a flat vector by entry, a byte each (tens
// of thousands of entries in a large nvcc -G file: a set of them took
// megabytes, eight bytes each 400 KB); the rare further classes, classes
// outside a byte's codes, and entries outside Dwarf::locEntries, in a set.
// A class of -1: none (not DW_AT_location, or no DW_AT_address_class).
class ExpressionsChecked {
 public:
  explicit ExpressionsChecked(const read::Dwarf& dwarf) : dwarf_(dwarf) {}

  // Whether entry `e` is held against class `cls` for the first time.
  bool first(const read::LocEntryRef& e, int64_t cls) {
    const size_t index = dwarf_.locEntryIndex(e);
    const uint8_t code = classCode(cls);
    if (code == kOtherClass || index == SIZE_MAX) return moreClassesChecked_.emplace(&e, cls).second;
    if (firstClassChecked_.empty()) firstClassChecked_.assign(dwarf_.allLocEntries().size(), kNotYet);
    uint8_t& first = firstClassChecked_[index];
    if (first == kNotYet) {
      first = code;
      return true;
    }
    return first != code && moreClassesChecked_.emplace(&e, cls).second;
  }

 private:
  static constexpr uint8_t kNotYet = 0, kOtherClass = UINT8_MAX;  // the codes of classes -1..252 lie between
  static uint8_t classCode(int64_t cls) { return cls >= -1 && cls < kOtherClass - 2 ? uint8_t(cls + 2) : kOtherClass; }

  const read::Dwarf& dwarf_;
  std::vector<uint8_t> firstClassChecked_;
  std::set<std::pair<const read::LocEntryRef*, int64_t>> moreClassesChecked_;
};

std::string className(uint64_t v) {
  std::string_view n = cuda::addressClassName(v);
  return std::to_string(v) + (n.empty() ? "" : " " + std::string(n));
}

}  // namespace

void Checker::locations() {
  ExpressionsChecked checked(dwarf_);
  for (const read::Die& die : dwarf_.dies) {
    if (die.isNull()) continue;
    const read::AttrRange attrs = dwarf_.attributes(die);
    std::optional<read::AttrValue> cls;  // DW_AT_address_class, decoded at the first location
    bool clsRead = false;
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      if (!read::isLocationAttribute(it.name())) continue;
      const read::AttrValue v = *it;
      if (!clsRead) {
        cls = dwarf_.attribute(die, DW_AT_address_class);
        clsRead = true;
      }
      if (v.isBlock()) {
        checkExpression(die, v.block(), dwarf_.info, v.value, dwarf_.unitOf(die).addressSize,
                        v.name == DW_AT_location ? cls : std::nullopt);
      } else if (v.reloc) {
        const std::optional<uint64_t> offset = dwarf_.offsetIn(".debug_loc", v.value, v.reloc);
        const read::LocList* list = offset ? dwarf_.locListAt(*offset) : nullptr;
        if (!list) continue;
        const std::optional<read::AttrValue> classHere = v.name == DW_AT_location ? cls : std::nullopt;
        const int64_t classValue = classHere ? static_cast<int64_t>(classHere->value) : -1;
        for (size_t k = 0; k < list->entries.size(); ++k) {
          const read::LocEntry e = list->entries[k];
          if (e.kind != read::LocEntry::range || !checked.first(list->entries.refs()[k], classValue)) continue;
          checkExpression(die, e.expr, dwarf_.loc, e.exprOffset, list->addressSize, classHere);
        }
      }
    }
  }
}

void Checker::checkExpression(const read::Die& die, std::span<const uint8_t> bytes, const SectionImage* sec,
                              uint64_t at, uint8_t addressSize, const std::optional<read::AttrValue>& addressClass) {
  // The operations before one that does not decode are checked too: each
  // stands on its own.
  read::OperationReader ops(bytes, {addressSize, 4, sec, at});
  for (read::Operation op; ops.next(op);) {
    uint64_t opAt = at + op.offset;
    if (op.op == DW_OP_regx || op.op == DW_OP_bregx) checkRegister(die, op.operands[0], sec, opAt, addressClass);
    if (op.op == DW_OP_addr && op.reloc && addressClass) checkSpace(die, *op.reloc, *addressClass);
  }
  if (ops.failed()) error(sec, at + ops.errorOffset(), "expression", "location expression: " + ops.error(), &die);
}

void Checker::checkRegister(const read::Die& die, uint64_t packed, const SectionImage* sec, uint64_t at,
                            const std::optional<read::AttrValue>& addressClass) {
  const std::optional<cuda::RegisterName> name = cuda::unpackRegisterName(packed);
  if (!name) {
    error(sec, at, "register-name",
          "DW_OP_regx operand " + hex(packed, 8) + " is not a packed PTX register name ('%' and at most 8 bytes)", &die);
    return;
  }
  const std::string_view reg = name->view();
  if (const ptx::Function* f = enclosingFunction(die); f && !module_.declaresRegister(*f, reg))
    error(sec, at, "register-name", "register " + std::string(reg) + " is not declared in " + f->name, &die);
  if (addressClass && addressClass->value != cuda::ADDR_reg_space && sec == dwarf_.info)
    error(dwarf_.info, addressClass->offset, "address-class",
          "located in register " + std::string(reg) + " but DW_AT_address_class is " + className(addressClass->value) +
              " (expected 2 ADDR_reg_space)", &die);
}

void Checker::checkSpace(const read::Die& die, const Relocation& r, const read::AttrValue& addressClass) {
  const ptx::Variable* var = nullptr;
  if (const ptx::Function* f = enclosingFunction(die))
    var = module_.findVariable(r.symbol, static_cast<int32_t>(f - module_.functions.data()));
  if (!var) var = module_.findVariable(r.symbol);
  if (!var) var = module_.findParameter(r.symbol);
  if (!var) return;  // undefined symbols are the symbol-defined rule's business
  uint8_t expected = 0;
  switch (var->space) {
    case ptx::StateSpace::global: expected = cuda::ADDR_global_space; break;
    case ptx::StateSpace::shared: expected = cuda::ADDR_shared_space; break;
    case ptx::StateSpace::const_: expected = cuda::ADDR_const_space; break;
    case ptx::StateSpace::local: expected = cuda::ADDR_local_space; break;
    case ptx::StateSpace::param: expected = cuda::ADDR_param_space; break;
    case ptx::StateSpace::tex: expected = cuda::ADDR_tex_space; break;
    case ptx::StateSpace::surf: expected = cuda::ADDR_surf_space; break;
    default: return;
  }
  if (addressClass.value == expected) return;
  // cuda-gdb (gdb/cuda/cuda-tdep.c, cuda_read_memory_partial) reads a
  // class-5 variable from global memory with no thread in focus, and a
  // class-12 one through the focused thread's generic window, which maps
  // global memory at the same addresses: a .global variable's address is a
  // valid generic address (LLVM 22 gives address-space-0 globals class
  // 12 on purpose). The other state spaces' addresses are window offsets,
  // which read as generic addresses name other memory.
  if (addressClass.value == cuda::ADDR_generic_space && var->space == ptx::StateSpace::global) {
    report(Severity::note, dwarf_.info, addressClass.offset, "address-class",
           "DW_AT_address_class is " + className(addressClass.value) + " for '" + std::string(r.symbol) +
               "', declared .global: a valid generic address; cuda-gdb reads it only with a thread in focus, "
               "where with 5 ADDR_global_space it reads it without one",
           &die);
    return;
  }
  error(dwarf_.info, addressClass.offset, "address-class",
        "DW_AT_address_class is " + className(addressClass.value) + " but '" + std::string(r.symbol) + "' is declared " +
            std::string(ptx::stateSpaceName(var->space)) + " (expected " + className(expected) + ")", &die);
}

void Checker::declFiles() {
  for (const read::Die& die : dwarf_.dies) {
    if (die.isNull()) continue;
    const read::AttrRange attrs = dwarf_.attributes(die);
    // The first DW_AT_stmt_list, as attribute() would find it, from the
    // same walk (a lookup of its own for each DIE was 4 M instructions of
    // a check of a 20 MB nvcc -G file, for the one DIE that has it).
    std::optional<read::AttrValue> stmtList;
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      if (it.name() == DW_AT_stmt_list && !stmtList) stmtList = *it;
      if (it.name() != DW_AT_decl_file && it.name() != DW_AT_call_file) continue;
      const read::AttrValue v = *it;
      if (!v.isConstant() || v.value == 0) continue;
      if (!module_.findFile(static_cast<unsigned>(v.value)) || v.value > UINT32_MAX)
        error(dwarf_.info, v.offset, "decl-file",
              std::string(attributeName(v.name)) + " " + std::to_string(v.value) + " has no `.file " +
                  std::to_string(v.value) + "` in the PTX", &die);
    }
    if (const std::optional<read::AttrValue>& s = stmtList) {
      const std::optional<read::SectionOffset> line = s->reloc ? dwarf_.resolve(*s->reloc) : std::nullopt;
      if (!line || line->section != ".debug_line" || line->offset != 0)
        error(dwarf_.info, s->offset, "stmt-list",
              "DW_AT_stmt_list must be `.b32 .debug_line` (ptxas builds the line table), not " +
                  (s->reloc ? s->reloc->expression() : std::to_string(s->value)), &die);
    }
  }
}

}  // namespace ptxdwarf::check
