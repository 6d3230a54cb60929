// The decoded DWARF of one PTX module: abbreviation tables, units, a flat DIE
// array (children follow their parent, NULL entries kept so offsets and the
// tree shape survive), and the name tables. Values keep their relocations:
// an operand that was `.b64 func_begin0` in the PTX decodes as symbolic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/section.h"

namespace ptxdwarf::read {

inline constexpr uint32_t kNone = UINT32_MAX;

struct AttrSpec {
  static constexpr uint8_t kSizeVaries = 0xff, kAddressSized = 0xfe;
  uint16_t name = 0;
  uint16_t form = 0;
  // The size of every value of the form where the form says it (AttrRange
  // steps over those without reading them); kAddressSized for DW_FORM_addr;
  // kSizeVaries for the rest.
  uint8_t valueSize = kSizeVaries;
};

struct Abbrev {
  uint64_t code = 0;
  uint64_t offset = 0;  // of the code in .debug_abbrev
  uint16_t tag = 0;
  bool hasChildren = false;
  uint32_t firstSpec = 0;  // into AbbrevTable::specs
  uint32_t specCount = 0;
};

struct AbbrevTable {
  uint64_t offset = 0;  // in .debug_abbrev
  uint64_t end = 0;     // one past the terminating 0 (or where decoding stopped)
  bool terminated = false;
  std::vector<Abbrev> abbrevs;  // in table order
  std::vector<AttrSpec> specs;
  std::vector<uint32_t> byCode;  // dense code -> index (kNone)
  std::map<uint64_t, uint32_t> bySparseCode;  // codes too large for byCode -> index (the first defined)

  const Abbrev* find(uint64_t code) const;
  std::span<const AttrSpec> specsOf(const Abbrev& a) const {
    return std::span<const AttrSpec>(specs).subspan(a.firstSpec, a.specCount);
  }
};

// One attribute value, decoded. `form` is the actual form (DW_FORM_indirect
// resolved; `indirect` remembers it was indirect). Values are not stored:
// Dwarf::attributes() decodes them from the section bytes when asked (see
// AttrRange), so an AttrValue is a temporary. Offsets are 32-bit (a PTX file
// is at most 4 GiB), and a string's characters and a block's bytes share one
// view into the section bytes, read through string() and block().
struct AttrValue {
  uint64_t value = 0;    // constant, flag, address, absolute DIE offset for references (the
                         // field's bytes where relocated: Dwarf::referenceTarget resolves it),
                         // .debug_str offset for strp, section offset for sec_offset, the
                         // .debug_info offset of a block's bytes; DW_FORM_sdata: see svalue()
  const Relocation* reloc = nullptr;  // set when the value bytes are a symbolic operand
  uint32_t offset = 0;   // of the value's first byte in .debug_info
  uint32_t size = 0;     // bytes of the value (after the indirect form code)
  uint16_t name = 0;
  uint16_t form = 0;
  bool indirect = false;
  uint8_t formCodeSize = 0;  // bytes of the DW_FORM_indirect form code before `offset`

  bool isReference() const;
  bool isBlock() const;
  bool isString() const;
  bool isConstant() const;  // dataN, sdata, udata

  // string and strp: the characters (a view into .debug_info or .debug_str); else empty.
  std::string_view string() const {
    return isString() ? std::string_view(reinterpret_cast<const char*>(data_), dataSize_) : std::string_view();
  }
  // blockN and exprloc: the contents (a view into .debug_info); else empty.
  std::span<const uint8_t> block() const {
    return isBlock() && data_ ? std::span<const uint8_t>(data_, dataSize_) : std::span<const uint8_t>();
  }
  // DW_FORM_sdata's value (`value` holds its two's complement bits).
  int64_t svalue() const { return static_cast<int64_t>(value); }

  void setString(std::string_view s) {
    data_ = reinterpret_cast<const uint8_t*>(s.data());
    dataSize_ = static_cast<uint32_t>(s.size());
  }
  void setBlock(std::span<const uint8_t> b) {
    data_ = b.data();
    dataSize_ = static_cast<uint32_t>(b.size());
  }

 private:
  const uint8_t* data_ = nullptr;  // the string's characters or the block's bytes
  uint32_t dataSize_ = 0;
};

// 24 bytes: its unit is the one whose bytes hold it (Dwarf::unitOf), and
// its attributes are its abbreviation's (the one DIE a unit's decode stopped
// inside has fewer: Unit::cutDie).
struct Die {
  uint32_t offset = 0;         // a PTX file, and so .debug_info, is at most 4 GiB
  uint32_t parent = kNone;     // index into Dwarf::dies
  uint32_t depth = 0;          // 0 for the unit DIE
  uint32_t abbrevIndex = kNone;  // into the unit's table; kNone for a NULL entry
  uint32_t firstReloc = 0;     // where a relocation lookup for its values starts: a relocation of
                               // .debug_info at or before the first one at or after `offset`
  uint16_t tag = 0;            // 0 for a NULL entry
  bool hasChildren = false;
  uint8_t codeSize = 0;        // the abbreviation code's ULEB128 bytes: the attributes follow
  // (The abbreviation code as written is its abbreviation's: Dwarf::abbrevCode.)

  bool isNull() const { return tag == 0 && abbrevIndex == kNone; }
};

static_assert(sizeof(Die) == 24, "Die is one per DIE: keep it small");

struct Unit {
  uint64_t offset = 0;
  uint64_t length = 0;     // the unit_length field
  uint64_t end = 0;        // offset + 4 + length (clamped to the section)
  uint16_t version = 0;
  uint64_t abbrevOffset = 0;
  uint8_t addressSize = 0;
  const Relocation* abbrevReloc = nullptr;
  uint32_t abbrevTable = kNone;  // into Dwarf::abbrevTables
  uint32_t firstDie = 0;
  uint32_t dieCount = 0;
  // Where a value failed to decode, the unit's decode stopped: its last DIE
  // (at cutDie; kNone when none) has the attributes before that value only,
  // cutAttributes of them.
  uint32_t cutDie = kNone;
  uint32_t cutAttributes = 0;
  uint64_t headerSize() const { return 11; }
};

struct NameEntry {
  uint64_t offset = 0;      // of the entry in the section
  uint64_t dieOffset = 0;   // relative to the unit
  std::string_view name;
};

struct NameSet {  // one .debug_pubnames set
  uint64_t offset = 0;
  uint64_t length = 0;
  uint16_t version = 0;
  uint64_t infoOffset = 0;
  const Relocation* infoReloc = nullptr;
  uint64_t infoLength = 0;
  std::vector<NameEntry> entries;
};

struct Range {
  uint64_t offset = 0;  // of the entry in the section
  uint64_t address = 0;
  uint64_t length = 0;
  const Relocation* addressReloc = nullptr;
  const Relocation* lengthReloc = nullptr;
};

struct ArangeSet {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint16_t version = 0;
  uint64_t infoOffset = 0;
  const Relocation* infoReloc = nullptr;
  uint8_t addressSize = 0;
  uint8_t segmentSize = 0;
  std::vector<Range> ranges;  // without the 0,0 terminator
  uint64_t next = 0;          // where the next set starts (after padding the length covers)
};

// One .debug_loc entry, decoded. Kinds: a range with an expression, a base
// address selection (begin = all ones), or the end of the list.
struct LocEntry {
  enum Kind : uint8_t { range, baseAddress, endOfList };
  Kind kind = range;
  uint64_t offset = 0;
  uint64_t begin = 0, end = 0;
  const Relocation* beginReloc = nullptr;
  const Relocation* endReloc = nullptr;
  uint64_t exprOffset = 0;  // of the expression bytes in .debug_loc
  std::span<const uint8_t> expr;
};

// Where a complete .debug_loc entry starts, which is all a decoded list
// keeps of it: the entry is read again from the section when it is looked
// at (LocEntries). Eight bytes where a LocEntry takes 72: a 20 MB nvcc -G
// file has 50,000 entries.
struct LocEntryRef {
  uint32_t offset = 0;      // a PTX file, and so a section, is at most 4 GiB
  uint32_t firstReloc = 0;  // the first relocation of .debug_loc at or after `offset`
};

// Decodes the entry `ref` names (one readLocList stored).
LocEntry decodeLocEntry(const SectionImage& loc, LocEntryRef ref, uint8_t addressSize);

// The entries of one list, decoded as they are read. Indexing and iterating
// yield LocEntry values; refs() says which stored entries they are (lists
// that share a tail share them).
class LocEntries {
 public:
  LocEntries() = default;
  LocEntries(const SectionImage* loc, std::span<const LocEntryRef> refs, uint8_t addressSize)
      : loc_(loc), refs_(refs.data()), size_(static_cast<uint32_t>(refs.size())), addressSize_(addressSize) {}

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = LocEntry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = LocEntry;
    iterator() = default;
    iterator(const LocEntries* entries, size_t i) : entries_(entries), i_(i) {}
    LocEntry operator*() const { return (*entries_)[i_]; }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++i_;
      return before;
    }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
    size_t index() const { return i_; }

   private:
    const LocEntries* entries_ = nullptr;
    size_t i_ = 0;
  };

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  LocEntry operator[](size_t i) const { return decodeLocEntry(*loc_, refs_[i], addressSize_); }
  LocEntry front() const { return (*this)[0]; }
  LocEntry back() const { return (*this)[size_ - 1]; }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size_}; }
  std::span<const LocEntryRef> refs() const { return {refs_, size_}; }
  uint8_t addressSize() const { return addressSize_; }

 private:
  // 24 bytes, not a span's 16 for the refs: a list each (thousands).
  const SectionImage* loc_ = nullptr;
  const LocEntryRef* refs_ = nullptr;
  uint32_t size_ = 0;
  uint8_t addressSize_ = 8;
};

struct LocList {
  uint64_t offset = 0;
  LocEntries entries;       // the end-of-list entry included; into Dwarf::locEntries (or storage)
  uint64_t end = 0;         // one past the last complete entry
  uint8_t addressSize = 8;  // of the unit whose attribute names the list
  bool terminated = false;
};
static_assert(sizeof(void*) != 8 || sizeof(LocList) == 48, "one per list: keep it small");

// Attributes whose value is a location: an expression block, or an offset
// into .debug_loc (LLVM's DWARFAttribute::mayHaveLocationList set).
bool isLocationAttribute(uint64_t attr);

// Reads the list at `offset` of `.debug_loc`: pairs of address-sized values,
// all-ones selecting a base address, 0,0 (not relocated) ending the list.
// `terminated` is false when the section ends inside the list. The entries
// are appended to `storage`; the list's entries are valid until it grows.
LocList readLocList(const SectionImage& loc, uint64_t offset, uint8_t addressSize,
                    std::vector<LocEntryRef>& storage);

struct DecodeOptions {
  // Location lists are decoded from every offset a DW_AT_location /
  // DW_AT_frame_base / ... sec_offset or data4 value names.
  bool locationLists = true;
};

class Dwarf;

// Where a symbolic operand points inside a debug section, as ptxas resolves
// it: the section's own name (`.b32 .debug_loc+138`), or a label defined
// inside that section (`$L__debug_loc0:` in `.section .debug_loc`, which
// LLVM 22 writes and ptxas resolves to the label's offset there), plus the
// addend.
struct SectionOffset {
  std::string_view section;  // ".debug_loc"
  uint64_t offset = 0;
};

// The labels defined inside the debug sections, by name: the first
// definition of each (what Dwarf::resolve looks them up in).
using SectionLabelIndex = std::unordered_map<std::string_view, SectionOffset>;

// The attributes of one DIE, decoded on demand from .debug_info (LLVM's
// DWARFDebugInfoEntry model): the model keeps where the DIE starts and how
// many of its abbreviation's attributes decoded, not where each starts nor
// its value. Iterating walks the DIE's bytes once, skipping each value it is
// not asked for (a fixed size, a length, or a NUL away); operator[] and
// offsetAt walk from the first attribute. Iterators and operator[] yield
// values, so a `const AttrValue&` bound to one lives as long as the loop
// variable or reference. Valid while the Dwarf lives.
class AttrRange {
 public:
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;  // values, not references
    using iterator_concept = std::forward_iterator_tag;
    using value_type = AttrValue;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = AttrValue;
    iterator() = default;
    AttrValue operator*() const { return range_->valueAt(index_, offset_); }
    iterator& operator++() {
      offset_ = range_->next(index_, offset_);
      ++index_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    // The attribute's name, declared form and where it starts: no decoding.
    uint16_t name() const { return range_->nameAt(index_); }
    uint16_t declaredForm() const { return range_->declaredFormAt(index_); }
    uint32_t offset() const { return offset_; }
    difference_type operator-(const iterator& o) const {
      return static_cast<difference_type>(index_) - static_cast<difference_type>(o.index_);
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.index_ == b.index_; }

   private:
    friend class AttrRange;
    iterator(const AttrRange* range, size_t index, uint32_t offset) : range_(range), index_(index), offset_(offset) {}
    const AttrRange* range_ = nullptr;
    size_t index_ = 0;
    uint32_t offset_ = 0;  // where attribute index_ starts (its DW_FORM_indirect form code, if any, included)
  };

  AttrRange() = default;
  // `specs`: the attributes that decoded, `first` where the first starts.
  AttrRange(const Dwarf& dwarf, const Unit& unit, std::span<const AttrSpec> specs, uint32_t first, uint32_t firstReloc)
      : dwarf_(&dwarf), unit_(&unit), specs_(specs), first_(first), firstReloc_(firstReloc) {}

  size_t size() const { return specs_.size(); }
  bool empty() const { return specs_.empty(); }
  // The attribute's name: no decoding.
  uint16_t nameAt(size_t i) const { return specs_[i].name; }
  // The form the abbreviation declares: DW_FORM_indirect where the value
  // names its own (a loop that wants one kind of form skips the rest unread).
  uint16_t declaredFormAt(size_t i) const { return specs_[i].form; }
  // Where attribute i starts; walks the i before it.
  uint32_t offsetAt(size_t i) const;
  AttrValue operator[](size_t i) const;
  iterator begin() const { return iterator(this, 0, first_); }
  iterator end() const { return iterator(this, size(), 0); }

 private:
  AttrValue valueAt(size_t i, uint32_t offset) const;
  // Where the attribute after i starts: inline for a size the form gives.
  uint32_t next(size_t i, uint32_t offset) const {
    const uint8_t size = specs_[i].valueSize;
    if (size < AttrSpec::kAddressSized) return offset + size;
    return size == AttrSpec::kAddressSized ? offset + unit_->addressSize : endOf(i, offset);
  }
  uint32_t endOf(size_t i, uint32_t offset) const;  // any form: reads what the size depends on
  AttrValue valueRead(size_t i, uint32_t offset) const;  // valueAt by the decoder's general path

  const Dwarf* dwarf_ = nullptr;
  const Unit* unit_ = nullptr;
  std::span<const AttrSpec> specs_;  // one per attribute
  uint32_t first_ = 0;
  uint32_t firstReloc_ = 0;
};

class Dwarf {
 public:
  const SectionImage* info = nullptr;
  const SectionImage* abbrev = nullptr;
  const SectionImage* str = nullptr;
  const SectionImage* loc = nullptr;
  const SectionImage* pubnames = nullptr;
  const SectionImage* aranges = nullptr;
  std::span<const SectionImage> sections;  // every section of the module

  std::vector<AbbrevTable> abbrevTables;  // those units name first, then the rest; see tablesInOrder()
  // Offset in .debug_abbrev -> index in abbrevTables.
  std::map<uint64_t, uint32_t> abbrevTableAtOffset;
  std::vector<Unit> units;
  std::vector<Die> dies;
  // Where dieAt looks: dieBuckets[b] is the index of the first DIE at or
  // after offset b << dieBucketShift, about four DIEs a bucket (made by
  // decode; empty: dieAt searches all the DIEs).
  std::vector<uint32_t> dieBuckets;
  unsigned dieBucketShift = 0;
  std::vector<NameSet> pubnameSets;
  std::vector<ArangeSet> arangeSets;
  std::vector<LocList> locLists;  // sorted by offset
  // Every .debug_loc entry decoded, each once, in the order read; lists are
  // spans of it (a list that starts on an entry of an earlier list shares
  // that list's tail instead of decoding it again). Shared, so that the
  // lists of a copy of this Dwarf stay valid as long as either lives.
  std::shared_ptr<const std::vector<LocEntryRef>> locEntries;
  std::span<const LocEntryRef> allLocEntries() const {
    return locEntries ? std::span<const LocEntryRef>(*locEntries) : std::span<const LocEntryRef>();
  }
  // The position of `ref` in allLocEntries(), or SIZE_MAX when it is not
  // one of them (a list read into other storage): lists that share a tail
  // share these positions.
  size_t locEntryIndex(const LocEntryRef& ref) const {
    const std::span<const LocEntryRef> all = allLocEntries();
    const auto at = reinterpret_cast<uintptr_t>(&ref), begin = reinterpret_cast<uintptr_t>(all.data());
    return at >= begin && at < begin + all.size_bytes() ? static_cast<size_t>(&ref - all.data()) : SIZE_MAX;
  }
  Diagnostics diagnostics;
  // The labels of the debug sections (made by decode; without it resolve()
  // searches the sections' labels).
  std::shared_ptr<const SectionLabelIndex> sectionLabels;

  // The section and offset a relocation names, as ptxas resolves it: a
  // section's name or a label defined in a debug section, plus the addend.
  // nullopt for a label difference, a symbol that is neither (a code label,
  // a variable), or an offset before the section's start. Every reader of
  // an offset field (location lists, DW_AT_stmt_list, abbreviation offsets,
  // name-table unit offsets, DW_FORM_strp, DW_FORM_ref_addr) goes through it.
  std::optional<SectionOffset> resolve(const Relocation& r) const;
  // The offset into `section` that a field names whose bytes read `value`
  // and which `reloc` relocates (or not: then the number is the offset);
  // nullopt where the relocation points anywhere else.
  std::optional<uint64_t> offsetIn(std::string_view section, uint64_t value, const Relocation* reloc) const;
  // The .debug_info offset a reference value names: any unit's DIE for
  // DW_FORM_ref_addr (`.b64 .debug_info+311`, or a number), the unit's own
  // for the unit-relative forms; nullopt for a value that is no reference
  // or whose relocation names no place in .debug_info.
  std::optional<uint64_t> referenceTarget(const AttrValue& v) const;
  // The DIE starting where referenceTarget points; nullptr when none does.
  const Die* referencedDie(const AttrValue& v) const;

  // The DIE's attributes, decoded as they are read (see AttrRange). Always
  // inline: each rule asks for every DIE's (500,000 calls in a check of a
  // 20 MB nvcc -G file), and GCC left a call at 130,000 of them (320,000 on
  // template-heavy code), each returning the range through memory.
  [[gnu::always_inline]] AttrRange attributes(const Die& d) const {
    if (d.isNull()) return {};
    const Unit& u = unitOf(d);
    const AbbrevTable& table = abbrevTables[u.abbrevTable];
    std::span<const AttrSpec> specs = table.specsOf(table.abbrevs[d.abbrevIndex]);
    if (d.offset == u.cutDie) specs = specs.first(u.cutAttributes);
    if (specs.empty()) return {};
    return AttrRange(*this, u, specs, d.offset + d.codeSize, d.firstReloc);
  }
  // The first attribute named `name`, decoded; nullopt when the DIE has none.
  std::optional<AttrValue> attribute(const Die& d, uint16_t name) const;
  bool hasAttribute(const Die& d, uint16_t name) const;
  const Die* dieAt(uint64_t offset) const;  // the DIE starting exactly there (not NULL entries)
  const Die* parentOf(const Die& d) const { return d.parent == kNone ? nullptr : &dies[d.parent]; }
  // The unit whose bytes hold `d`, one of this Dwarf's DIEs.
  const Unit& unitOf(const Die& d) const {
    return units.size() == 1 ? units.front() : units[unitIndexOf(d)];  // one unit: nvcc's and clang's files
  }
  uint32_t unitIndexOf(const Die& d) const;
  const AbbrevTable* tableOf(const Unit& u) const {
    return u.abbrevTable == kNone ? nullptr : &abbrevTables[u.abbrevTable];
  }
  const LocList* locListAt(uint64_t offset) const;
  // The abbreviation code the DIE was written with; 0 for a NULL entry.
  uint64_t abbrevCode(const Die& d) const {
    const AbbrevTable* t = d.isNull() ? nullptr : tableOf(unitOf(d));
    return t ? t->abbrevs[d.abbrevIndex].code : 0;
  }
  // Every abbreviation table, by offset in .debug_abbrev.
  std::vector<const AbbrevTable*> tablesInOrder() const;
  // DW_AT_name, else empty.
  std::string_view name(const Die& d) const;
  // DW_AT_linkage_name or DW_AT_MIPS_linkage_name, else empty.
  std::string_view linkageName(const Die& d) const;
  // The value ptxas computes for `A-B` when both labels are defined in one
  // section (nvcc writes pubnames lengths so); nullopt otherwise.
  std::optional<int64_t> labelDifference(const Relocation& r) const;
  // A diagnostic at `offset` in `section`, located at the PTX line that wrote the byte.
  Diagnostic& error(const SectionImage* section, uint64_t offset, std::string message);
};

// Decodes every debug section among `sections` (by name). Problems become
// diagnostics in Dwarf::diagnostics; decoding continues where it safely can.
Dwarf decode(std::span<const SectionImage> sections, const DecodeOptions& options = {});

}  // namespace ptxdwarf::read
