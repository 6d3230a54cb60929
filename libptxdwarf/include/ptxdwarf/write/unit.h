// The producer's model: a compile unit as an arena of DIEs addressed by ids.
// References may point forward (they are ids, resolved when encoding), forms
// are chosen by a policy unless pinned, and abbreviations are never the
// caller's business: the encoder derives and de-duplicates them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::write {

// Misuse of the builder (an unpackable register name, an id from another
// unit, ...). The message says what was wrong and with which value.
class BuildError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

using DieId = uint32_t;
inline constexpr DieId kNoDie = UINT32_MAX;
// As a parent: create the DIE outside the tree, to be placed later with
// Unit::attach (declare a type first, put it where the output wants it).
inline constexpr DieId kDetached = UINT32_MAX - 1;

// A PTX symbol or label, plus an addend: written as `.b64 name+addend`.
struct SymbolRef {
  std::string name{};
  int64_t addend = 0;
};

// The bytes of a DWARF expression; operands may be symbolic (DW_OP_addr sym).
class Expr {
 public:
  struct Fixup {
    uint32_t offset{};  // of the operand in bytes()
    uint8_t size{};
    SymbolRef symbol{};
  };

  explicit Expr(uint8_t addressSize = 8) : addressSize_(addressSize) {}

  Expr& op(uint8_t opcode);
  Expr& u8(uint8_t v);
  Expr& u16(uint16_t v);
  Expr& u32(uint32_t v);
  Expr& u64(uint64_t v);
  Expr& uleb(uint64_t v);
  Expr& sleb(int64_t v);
  // DW_OP_regx with a PTX register name packed as cuda-gdb expects ("%r1" -> 0x257231).
  Expr& regx(std::string_view ptxRegister);
  // DW_OP_bregx with a packed register name and an offset.
  Expr& bregx(std::string_view ptxRegister, int64_t offset);
  Expr& addr(SymbolRef symbol);  // DW_OP_addr sym (address-sized, relocated)
  Expr& addr(uint64_t address);
  // A symbolic operand of `size` bytes (zero bytes plus a relocation).
  Expr& symbolic(SymbolRef symbol, uint8_t size);
  Expr& fbreg(int64_t offset);
  Expr& plusUconst(uint64_t v);
  Expr& callFrameCfa();

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  const std::vector<Fixup>& fixups() const { return fixups_; }
  uint8_t addressSize() const { return addressSize_; }
  bool empty() const { return bytes_.empty(); }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<Fixup> fixups_;
  uint8_t addressSize_;
};

struct LocationRange;

// Where a variable lives, in PTX terms; the DW_AT_address_class follows from it.
class Location {
 public:
  enum class Kind : uint8_t { none, expression, list };
  struct ListEntry {
    SymbolRef begin{}, end{};  // PTX labels bounding the range
    Expr expr{};
  };

  Location() = default;
  // A PTX register: DW_OP_regx <packed name>, ADDR_reg_space.
  static Location reg(std::string_view ptxRegister, uint8_t addressSize = 8);
  // A symbol in a state space: DW_OP_addr sym and the space's class (.global 5,
  // .shared 8, .const 4, .local 6, .param 7, ...).
  static Location symbol(SymbolRef symbol, ptx::StateSpace space, uint8_t addressSize = 8);
  // An offset from the frame base (DW_OP_fbreg), by default in .local memory.
  static Location frameOffset(int64_t offset, uint8_t addressClass = cuda::ADDR_local_space);
  // Any expression, with an explicit class (0: no DW_AT_address_class).
  static Location expression(Expr expr, uint8_t addressClass);
  // A location list; every range's location must be an expression. The list's
  // class is its ranges' class when they agree (0 otherwise).
  static Location list(const std::vector<LocationRange>& ranges);

  Kind kind() const { return kind_; }
  const Expr& expr() const { return expr_; }
  uint8_t addressClass() const { return addressClass_; }
  const std::vector<ListEntry>& entries() const { return entries_; }

 private:
  Kind kind_ = Kind::none;
  Expr expr_;
  uint8_t addressClass_ = 0;
  std::vector<ListEntry> entries_;
};

struct LocationRange {
  SymbolRef begin{}, end{};
  Location location{};
};

// The DW_AT_address_class code of a PTX state space (none -> 0).
uint8_t addressClassOf(ptx::StateSpace space);

// An attribute value. `form` 0 lets the policy choose.
struct Value {
  enum class Kind : uint8_t {
    unsigned_, signed_, flag, string, reference, address, sectionOffset, block, expression, locationList
  };
  Kind kind = Kind::unsigned_;
  uint64_t u = 0;
  int64_t s = 0;
  std::string str{};
  DieId ref = kNoDie;
  SymbolRef symbol{};  // address / sectionOffset
  Expr expr{};         // block / expression
  uint32_t list = 0;  // locationList: index into Unit::locationLists()
  uint16_t form = 0;

  static Value unsignedValue(uint64_t v, uint16_t form = 0);
  static Value signedValue(int64_t v, uint16_t form = 0);
  static Value flag(bool v, uint16_t form = 0);
  static Value string(std::string_view s, uint16_t form = 0);
  static Value reference(DieId die, uint16_t form = 0);
  static Value address(SymbolRef symbol, uint16_t form = 0);
  static Value sectionOffset(SymbolRef symbol, uint16_t form = 0);
  static Value block(std::vector<uint8_t> bytes, uint16_t form = 0);
  static Value expression(Expr expr, uint16_t form = 0);
};

struct Attribute {
  uint16_t name{};
  Value value{};
};

struct Die {
  uint16_t tag = 0;
  DieId parent = kNoDie;
  std::vector<DieId> children{};
  std::vector<Attribute> attributes{};
  bool forceChildren = false;  // DW_CHILDREN_yes even with no children
};

enum class FormPolicy : uint8_t {
  chapter6,  // the guide's example: data4 decl file/line, ref4, inline strings, data1 classes
  compact,   // smallest data form that fits each constant
};

struct UnitOptions {
  // DWARF 2, 3 or 4. ptxas 13 reads no DWARF 4 section-offset form, so a
  // DWARF 4 unit cannot hold DW_AT_stmt_list or location lists (Unit::set
  // throws); its expressions are written as blocks.
  uint16_t version = 2;
  uint8_t addressSize = 8;
  FormPolicy policy = FormPolicy::chapter6;
};

class Unit {
 public:
  explicit Unit(uint16_t rootTag = 0x11 /* DW_TAG_compile_unit */, UnitOptions options = {});

  DieId root() const { return 0; }
  // A new DIE, last among `parent`'s children (or detached, see kDetached).
  DieId add(DieId parent, uint16_t tag);
  // Places a detached DIE last among `parent`'s children.
  void attach(DieId parent, DieId child);
  // Sets (or replaces) an attribute; attributes keep the order of first set.
  // Throws BuildError for a value whose form ptxas cannot read
  // (cuda::ptxasFormProblem): a section offset in a DWARF 4 unit, a pinned
  // DW_FORM_exprloc/sec_offset/ref_sig8, DW_FORM_ref_addr in DWARF 3 or 4.
  void set(DieId die, uint16_t name, Value value);
  // Appends an attribute even when the DIE has one of that name already
  // (re-encoding input that repeats an attribute keeps both).
  void append(DieId die, uint16_t name, Value value);
  const Die& die(DieId id) const { return dies_.at(id); }
  Die& die(DieId id) { return dies_.at(id); }
  size_t size() const { return dies_.size(); }
  const UnitOptions& options() const { return options_; }

  // The .debug_pubnames entries. By default the encoder derives them (external
  // subprograms and variables directly under the unit DIE, by DW_AT_name); a
  // producer that wants other entries lists them here.
  struct Pubname {
    DieId die{};
    std::string name{};
  };
  void setPubnames(std::vector<Pubname> entries) {
    pubnames_ = std::move(entries);
    explicitPubnames_ = true;
  }
  const std::vector<Pubname>* explicitPubnames() const { return explicitPubnames_ ? &pubnames_ : nullptr; }

  // Location lists referenced by Value::Kind::locationList.
  uint32_t addLocationList(std::vector<Location::ListEntry> entries);
  const std::vector<std::vector<Location::ListEntry>>& locationLists() const { return lists_; }

 private:
  void check(DieId id) const;
  void checkValue(DieId id, uint16_t name, const Value& value) const;
  void checkPtxasReads(DieId id, uint16_t name, const Value& value) const;
  UnitOptions options_;
  std::vector<Die> dies_;
  std::vector<std::vector<Location::ListEntry>> lists_;
  std::vector<Pubname> pubnames_;
  bool explicitPubnames_ = false;
};

}  // namespace ptxdwarf::write
