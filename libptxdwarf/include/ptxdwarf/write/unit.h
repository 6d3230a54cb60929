// The producer's model: a compile unit as an arena of DIEs addressed by ids.
// References may point forward (they are ids, resolved when encoding), forms
// are chosen by a policy unless pinned, and abbreviations are never the
// caller's business: the encoder derives and de-duplicates them.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
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

// Why `ptxRegister` cannot be a DW_OP_regx operand cuda-gdb reads (the
// message Expr::regx throws); empty when it can.
std::string registerProblem(std::string_view ptxRegister);

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

struct Die {
  uint16_t tag = 0;
  bool forceChildren = false;  // DW_CHILDREN_yes even with no children
  bool run = false;            // an encoded run of `count` leaves (Unit::addEncodedRun)
  bool registerRun = false;    // made one DIE after another from the first's bytes (Unit::addRegisterRun)
  DieId parent = kNoDie;
  DieId firstChild = kNoDie, lastChild = kNoDie, nextSibling = kNoDie;
  // The DIE's attributes: attributeCount records of the unit's table from
  // firstAttribute on, in order.
  uint32_t firstAttribute = 0;
  uint32_t attributeCount = 0;
  uint32_t nameBits = 0;  // bit (name % 32) of each attribute name: most sets need no search for one
  // Nonzero for a DIE added encoded (Unit::addEncoded): its shape's id + 1,
  // and firstAttribute/attributeCount are its bytes in the unit's encoded arena.
  uint32_t shape = 0;
  // How many DIEs the record stands for: 1, or for a run the leaves of one
  // shape whose bytes lie back to back from firstAttribute.
  uint32_t count = 1;
  bool hasChildren() const { return firstChild != kNoDie; }
  bool isEncoded() const { return shape != 0; }
};

// One attribute of an encoded DIE's shape: its name and the form its value
// is written in (Unit::addEncoded).
struct AttributeSpec {
  uint16_t name = 0;
  uint16_t form = 0;
  bool operator==(const AttributeSpec&) const = default;
};

// The size of the value of `form` at the start of `bytes`, for the forms an
// encoded DIE may hold (data1/2/4/8, udata, sdata, flag, string, block1,
// ref4); 0 when the form is another or the bytes end first. Inline: the
// encoder walks every encoded DIE with it.
inline size_t encodedValueSize(uint16_t form, std::span<const uint8_t> bytes) {
  const size_t n = bytes.size();
  switch (form) {
    case 0x0b:  // DW_FORM_data1
    case 0x0c:  // DW_FORM_flag
      return n >= 1 ? 1 : 0;
    case 0x05:  // DW_FORM_data2
      return n >= 2 ? 2 : 0;
    case 0x06:  // DW_FORM_data4
    case 0x13:  // DW_FORM_ref4
      return n >= 4 ? 4 : 0;
    case 0x07:  // DW_FORM_data8
      return n >= 8 ? 8 : 0;
    case 0x0f:  // DW_FORM_udata
    case 0x0d:  // DW_FORM_sdata
      for (size_t i = 0; i < n && i < 10; ++i)
        if (!(bytes[i] & 0x80)) return i + 1;
      return 0;
    case 0x08:  // DW_FORM_string
      for (size_t i = 0; i < n; ++i)
        if (bytes[i] == 0) return i + 1;
      return 0;
    case 0x0a:  // DW_FORM_block1
      return n >= 1 && n >= 1 + size_t{bytes[0]} ? 1 + size_t{bytes[0]} : 0;
    default:
      return 0;
  }
}

// A symbolic operand of a stored expression (its name in the unit's strings).
struct StoredFixup {
  uint32_t offset = 0;  // of the operand in the expression's bytes
  uint8_t size = 0;
  uint32_t nameBegin = 0, nameSize = 0;
  int64_t addend = 0;
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

class Unit;

// One stored attribute, as the encoder reads it back.
class AttributeView {
 public:
  uint16_t name() const;
  Value::Kind kind() const;
  uint16_t form() const;                        // the pinned form; 0: the policy chooses
  uint64_t u() const;                           // unsigned_ / flag
  int64_t s() const;                            // signed_
  DieId ref() const;                            // reference
  uint32_t list() const;                        // locationList
  std::string_view str() const;                 // string
  std::string_view symbol() const;              // address / sectionOffset: the symbol's name
  int64_t addend() const;                       // address / sectionOffset
  std::span<const uint8_t> bytes() const;       // block / expression
  std::span<const StoredFixup> fixups() const;  // block / expression
  std::string_view fixupName(const StoredFixup& f) const;
  // The value as a Value again (for callers that want the owning type).
  Value value() const;

 private:
  friend class Unit;
  AttributeView(const Unit* unit, uint32_t index) : unit_(unit), index_(index) {}
  const Unit* unit_;
  uint32_t index_;
};

class Unit {
 public:
  explicit Unit(uint16_t rootTag = 0x11 /* DW_TAG_compile_unit */, UnitOptions options = {});
  Unit(const Unit&);
  Unit(Unit&&) noexcept;
  Unit& operator=(const Unit&);
  Unit& operator=(Unit&&) noexcept;
  ~Unit();

  DieId root() const { return 0; }
  // A new DIE, last among `parent`'s children (or detached, see kDetached).
  DieId add(DieId parent, uint16_t tag);
  // Places a detached DIE last among `parent`'s children.
  void attach(DieId parent, DieId child);
  // Sets (or replaces) an attribute; attributes keep the order of first set.
  // Throws BuildError for a value whose form ptxas cannot read
  // (cuda::ptxasFormProblem): a section offset in a DWARF 4 unit, a pinned
  // DW_FORM_exprloc/sec_offset/ref_sig8, DW_FORM_ref_addr in DWARF 3 or 4.
  void set(DieId die, uint16_t name, const Value& value);
  // The same as set(die, name, Value::...(...)) without building a Value:
  // what the builder calls once per attribute of every DIE.
  void setUnsigned(DieId die, uint16_t name, uint64_t v, uint16_t form = 0);
  void setFlag(DieId die, uint16_t name, bool v, uint16_t form = 0);
  void setString(DieId die, uint16_t name, std::string_view s, uint16_t form = 0);
  void setReference(DieId die, uint16_t name, DieId target, uint16_t form = 0);
  void setAddress(DieId die, uint16_t name, const SymbolRef& symbol, uint16_t form = 0);
  void setExpression(DieId die, uint16_t name, const Expr& expr, uint16_t form = 0);
  // Appends an attribute even when the DIE has one of that name already
  // (re-encoding input that repeats an attribute keeps both).
  void append(DieId die, uint16_t name, const Value& value);
  // DW_CHILDREN_yes even when the DIE has no children (re-encoded input).
  void forceChildren(DieId die, bool force = true);

  // DIEs made by the hundred thousand (Builder::registerVariable: one per PTX
  // register) are cheaper added encoded: the caller writes the attribute
  // values in the forms of a shape, each DW_FORM_ref4 holding the target's
  // DieId, and the encoder copies the bytes and writes the references'
  // offsets. No record per attribute, no form chosen per DIE; the DIE's
  // attributes cannot be set later, and attributes()/find() do not see them
  // (encodedValues() does). `shape` interns (tag, specs): the same ones give
  // the same id.
  uint32_t shape(uint16_t tag, std::span<const AttributeSpec> specs);
  // Throws BuildError unless `bytes` hold exactly one value per spec, in its
  // form, and every reference names a DIE of this unit.
  DieId addEncoded(DieId parent, uint32_t shape, std::span<const uint8_t> bytes);
  // A run: leaf DIEs of one shape, last among `parent`'s children, in the
  // order appendToRun adds them, kept as one record (one DieId, Die::count
  // DIEs) instead of one each: what a register range's variables are
  // (Builder::registerVariables), hundreds of thousands of DIEs that nothing
  // refers to. A run takes no children; its DieId (as the target of a
  // reference, say) is its first DIE. Empty, and written as nothing, until
  // appended to.
  DieId addEncodedRun(DieId parent, uint32_t shape);
  // Adds one DIE's bytes to `run`, which must be the last DIE added encoded;
  // checked as addEncoded checks them.
  void appendToRun(DieId run, std::span<const uint8_t> bytes);
  // A register run: the variables %stem0 .. %stem<count-1> of a `.reg .T
  // %stem<count>` declaration, leaves of one shape kept as the first DIE's
  // bytes and a count (a run keeps every DIE's: 8 MB for the 400,000
  // registers of a 15 MB nvcc -O3 file). DIE k is the first with k written
  // for the 0 that ends the name (the shape's first value, a DW_FORM_string
  // `stemSize` bytes and "0"), and, in the location (a DW_FORM_block1 of
  // DW_OP_regx and a ULEB), the name packed as cuda-gdb reads it: `stem`
  // (the packed stem) shifted by a byte per digit, the digits added. The
  // other values are the first's. Checked as addEncoded checks `first`; the
  // names must fit the 8 bytes of a packed name. What a run is otherwise.
  DieId addRegisterRun(DieId parent, uint32_t shape, std::span<const uint8_t> first, uint32_t stemSize,
                       uint64_t stem, uint32_t count);
  // An encoded DIE's bytes; a run's, DIE after DIE; a register run's first DIE's.
  std::span<const uint8_t> encodedBytes(DieId id) const {
    const Die& d = die(id);
    if (!d.isEncoded()) return {};
    return {encoded_.data() + d.firstAttribute, d.attributeCount};
  }
  struct EncodedValue {
    uint16_t name = 0, form = 0;
    std::span<const uint8_t> bytes{};
  };
  // An encoded DIE's attribute values, in order (none for another DIE); a
  // run's, DIE after DIE; a register run's first DIE's (the others differ
  // only in name and location).
  std::vector<EncodedValue> encodedValues(DieId id) const;
  const Die& die(DieId id) const {
    check(id);
    return dies_[id];
  }
  size_t size() const { return dies_.size(); }  // records: a run is one
  // The DIEs the unit writes: a run counts its DIEs.
  size_t dieCount() const { return dieCount_; }
  const UnitOptions& options() const { return options_; }
  // Room for this many DIEs and attributes in all (a caller that knows).
  void reserve(size_t dies, size_t attributes);

  // A DIE's attributes, in order.
  class AttributeRange {
   public:
    struct iterator {
      const Unit* unit;
      uint32_t index;
      AttributeView operator*() const { return AttributeView(unit, index); }
      iterator& operator++();
      bool operator==(const iterator& o) const { return index == o.index; }
    };
    iterator begin() const { return {unit_, first_}; }
    iterator end() const { return {unit_, end_}; }

   private:
    friend class Unit;
    AttributeRange(const Unit* unit, uint32_t first, uint32_t end) : unit_(unit), first_(first), end_(end) {}
    const Unit* unit_;
    uint32_t first_, end_;
  };
  AttributeRange attributes(DieId id) const {
    const Die& d = die(id);
    if (d.isEncoded()) return {this, 0, 0};
    return {this, d.firstAttribute, d.firstAttribute + d.attributeCount};
  }
  // The first attribute of that name, if any.
  std::optional<AttributeView> find(DieId id, uint16_t name) const;

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
  // How the unit stores what it is given, and how the encoder reads and
  // makes encoded DIEs: inside the library (src/write/unit_store.h).
  friend class AttributeView;
  friend struct UnitStore;
  struct Record;
  struct StoredSymbol;
  struct StoredBytes;
  struct Shape;
  struct RegisterRun;

  void check(DieId id) const {
    if (id >= dies_.size()) badId(id);
  }
  [[noreturn]] void badId(DieId id) const;
  void checkName(DieId id, uint16_t name) const;
  void checkPtxasReads(DieId id, uint16_t name, Value::Kind kind, bool pinned, uint16_t form) const;
  // Links `r` in as the DIE's attribute `name` (replacing one of that name unless `append`).
  void put(DieId id, uint16_t name, Record r, bool append);
  Record bytesRecord(Value::Kind kind, std::span<const uint8_t> bytes, uint16_t form);
  Record expressionRecord(Value::Kind kind, const Expr& expr, uint16_t form);
  Record recordOf(const Value& value);
  uint32_t keepString(std::string_view s);
  std::string_view stringAt(uint32_t begin, uint32_t size) const { return {strings_.data() + begin, size}; }
  uint16_t formOf(const Record& r) const;
  // addEncoded without its checks, for the Builder, which writes the bytes
  // from the shape itself (registerVariable: hundreds of thousands).
  friend class Builder;
  DieId addEncodedUnchecked(DieId parent, uint32_t shape, std::span<const uint8_t> bytes);
  // Throws BuildError unless `bytes` are one DIE of `shape` (see addEncoded).
  void checkEncoded(uint32_t shape, std::span<const uint8_t> bytes) const;
  void checkTakesChildren(DieId parent) const;  // a run takes none

  UnitOptions options_;
  std::vector<Die> dies_;
  std::vector<Record> records_;
  std::string strings_;         // names of strings, symbols and fixups
  std::vector<uint8_t> bytes_;  // expressions and blocks over 8 bytes
  std::vector<StoredSymbol> symbols_;
  std::vector<StoredBytes> blobs_;
  std::vector<StoredFixup> fixups_;
  std::vector<std::vector<Location::ListEntry>> lists_;
  std::vector<Pubname> pubnames_;
  bool explicitPubnames_ = false;
  std::vector<Shape> shapes_;
  std::vector<uint8_t> encoded_;           // the bytes of encoded DIEs
  std::vector<RegisterRun> registerRuns_;  // by DieId
  uint32_t detached_ = 0;                  // DIEs added detached and not attached yet
  size_t dieCount_ = 0;                    // see dieCount()
};

inline Unit::AttributeRange::iterator& Unit::AttributeRange::iterator::operator++() {
  ++index;
  return *this;
}

}  // namespace ptxdwarf::write
