// SectionImage: where the PTX reader and the DWARF writer meet.
// The exact bytes of one debug section as ptxas would assemble them, with every
// symbolic operand kept as a relocation (its bytes zero-filled) and every byte
// traceable to the PTX line and column that produced it.
#pragma once

#include <algorithm>
#include <bit>
#include <compare>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxdwarf/diagnostic.h"

namespace ptxdwarf {

// Append-only storage for the names relocations refer to. A name, once kept,
// never moves, so views of it stay valid as long as any copy of the store
// lives: copies share the chunks written so far and each writes new names
// into chunks of its own.
class StringStore {
 public:
  StringStore() = default;
  StringStore(const StringStore& other) : chunks_(other.chunks_) {}
  StringStore& operator=(const StringStore& other) {
    chunks_ = other.chunks_;
    free_ = {};
    return *this;
  }
  StringStore(StringStore&& other) noexcept
      : chunks_(std::move(other.chunks_)), free_(std::exchange(other.free_, {})) {}
  StringStore& operator=(StringStore&& other) noexcept {
    chunks_ = std::move(other.chunks_);
    free_ = std::exchange(other.free_, {});
    return *this;
  }

  // A NUL-terminated copy of `s` that lives as long as this store or a copy of it.
  std::string_view keep(std::string_view s);
  // What `other` kept lives as long as this store too.
  void adopt(StringStore&& other) {
    chunks_.insert(chunks_.end(), std::make_move_iterator(other.chunks_.begin()),
                   std::make_move_iterator(other.chunks_.end()));
    other.chunks_.clear();
    other.free_ = {};
  }

 private:
  static constexpr size_t kChunkSize = 16384;
  static constexpr size_t kDoublings = 6;  // to 1 MiB chunks
  std::vector<std::shared_ptr<char[]>> chunks_;
  std::span<char> free_;  // the unused tail of this store's own last chunk
};

// A name: a view of NUL-terminated characters, one pointer where a
// std::string_view is two and a std::string four (a large file has hundreds
// of thousands of relocations, labels and declarations). Reads like a
// std::string_view; made only from characters known to end in a NUL: those
// a StringStore keeps, or a string literal.
class SymbolName {
 public:
  constexpr SymbolName() = default;
  // A string literal (its NUL is the array's last element).
  template <size_t N>
  constexpr SymbolName(const char (&literal)[N]) : chars_(N > 1 ? literal : nullptr) {}
  // `kept`: a view StringStore::keep returned (a NUL follows its characters).
  static SymbolName fromKept(std::string_view kept) {
    SymbolName n;
    n.chars_ = kept.empty() ? nullptr : kept.data();
    return n;
  }

  std::string_view view() const { return chars_ ? std::string_view(chars_) : std::string_view(); }
  operator std::string_view() const { return view(); }
  std::string str() const { return std::string(view()); }
  // NUL-terminated, "" when empty: what a C caller can take as it is.
  const char* c_str() const { return chars_ ? chars_ : ""; }
  const char* data() const { return c_str(); }
  // A relocation whose symbol is empty but keeps a second name or an addend
  // after it views a NUL (Relocation): empty too.
  bool empty() const { return !chars_ || *chars_ == '\0'; }
  size_t size() const { return view().size(); }
  bool starts_with(std::string_view prefix) const { return view().starts_with(prefix); }

  // Both NUL-terminated and only the empty name null: compared up to the
  // first difference, neither measured first (`reloc->symbol == ".debug_loc"`
  // is asked of every location attribute of a large file).
  friend bool operator==(SymbolName a, SymbolName b) {
    return a.chars_ == b.chars_ || std::strcmp(a.c_str(), b.c_str()) == 0;
  }
  // Measuring the kept name only as far as `b` goes, never past its NUL (a
  // lookup compares names with the same hash, nearly always equal: 200,000
  // of them in a large file's checks); then one memcmp. A `b` with a NUL
  // inside differs there from a kept name of its length, which has none.
  friend bool operator==(SymbolName a, std::string_view b) {
    if (!a.chars_) return b.empty();
    return strnlen(a.chars_, b.size() + 1) == b.size() && std::memcmp(a.chars_, b.data(), b.size()) == 0;
  }
  friend bool operator==(SymbolName a, const char* b) {
    if (!a.chars_ || !b) return a.empty() && (!b || *b == '\0');
    return std::strcmp(a.chars_, b) == 0;
  }
  friend std::strong_ordering operator<=>(SymbolName a, SymbolName b) { return a.view() <=> b.view(); }
  friend std::strong_ordering operator<=>(SymbolName a, std::string_view b) { return a.view() <=> b; }
  friend std::ostream& operator<<(std::ostream& os, SymbolName n);

 private:
  const char* chars_ = nullptr;  // nullptr for the empty name
};

// `symbol + addend()`, or the label difference `symbol - minus() + addend()`.
// The names view characters that live as long as the owning SectionImage's
// `names` (SectionImage::addRelocation keeps them there), or string
// literals. 16 bytes: offsets are 32-bit, as a PTX file is at most 4 GiB,
// and what few relocations have -- a difference's second name, an addend --
// is kept after the symbol's characters instead of in fields every
// relocation would carry (a 20 MB nvcc -G file's 130,561 relocations hold
// no difference, and 6,668 addends, its `.debug_loc+N`). Only
// SectionImage::addRelocation, which keeps them so, makes a relocation with
// either; a copy has them as long as the names live.
struct Relocation {
  uint32_t offset = 0;
  uint8_t size = 0;  // 1, 2, 4 or 8 (the directive's width)

 private:
  // What follows the symbol's NUL where it is kept, in this order: B's
  // characters and NUL for `A-B` (kDifference), then the addend's eight
  // bytes (kAddend; a zero addend is not kept).
  static constexpr uint8_t kDifference = 1, kAddend = 2;
  uint8_t kept_ = 0;

 public:
  // Replace it only in a relocation that keeps nothing after it (neither a
  // difference nor an addend): what is kept is read from after the kept
  // symbol's characters.
  SymbolName symbol{};

  Relocation() = default;
  Relocation(uint32_t offset, uint8_t size, SymbolName symbol) : offset(offset), size(size), symbol(symbol) {}

  bool isDifference() const { return kept_ & kDifference; }
  // B of `A-B`; empty for any other relocation.
  SymbolName minus() const { return isDifference() ? secondName() : SymbolName(); }
  int64_t addend() const { return kept_ & kAddend ? keptAddend() : 0; }
  // "sym", "sym+8", "sym-4", "A-B"
  std::string expression() const;

 private:
  friend struct SectionImage;
  const char* afterSymbol() const;  // past the kept symbol's NUL
  SymbolName secondName() const;
  int64_t keptAddend() const;
};
static_assert(sizeof(void*) != 8 || sizeof(Relocation) == 16, "Relocation is one per symbolic operand: keep it small");

// A label defined inside a section (`name:`), at the offset of the next byte.
struct SectionLabel {
  std::string name{};
  uint64_t offset = 0;
  SourceLoc loc{};
};

// Where each operand's bytes came from: (section offset, line, column) for
// every directive operand, in offset order, recorded by the reader. There is
// an entry per DWARF byte of an nvcc -G file (a million at 20 MB), so the
// library keeps them compactly encoded; they are read back by offset.
class SourceMap {
 public:
  // The position of the last operand starting at or before `offset`;
  // `fallback` when there is none.
  SourceLoc locate(uint64_t offset, SourceLoc fallback) const;
  SourceLoc last() const { return {last_.line, last_.col}; }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The bytes the encoded entries take (what the compact encoding is for).
  size_t encodedBytes() const { return deltas_.size() + checkpoints_.size() * sizeof(Checkpoint); }

 private:
  friend struct SourceMapEncoding;  // the encoding, internal to the library
  struct Entry {
    uint32_t offset = 0, line = 0, col = 0;
  };
  struct Checkpoint {
    Entry entry;
    uint32_t pos = 0;  // of the next entry's deltas in deltas_
  };
  std::vector<Checkpoint> checkpoints_;
  std::vector<uint8_t> deltas_;  // the entries after each checkpoint
  Entry last_;
  uint32_t count_ = 0;
  uint32_t checkpointPos_ = 0;      // where the last checkpoint's deltas start
  uint32_t repeatAt_ = UINT32_MAX;  // the repeat byte of the current run, if any
  uint8_t runByte_ = 0xff;          // the short delta a repeat byte would repeat (0xff: none)
};

// Where one `.section NAME { ... }` block stands in the PTX text: from the
// `.section` directive to one past the closing brace. Lets a rewriter replace
// the debug sections and leave every other byte of the file as it was.
struct TextRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct SectionImage {
  std::string name{};  // with the leading dot: ".debug_info"
  std::vector<uint8_t> bytes{};
  std::vector<Relocation> relocations{};     // sorted by offset, non-overlapping
  StringStore names{};                       // what the relocations' names view
  std::vector<SectionLabel> labels{};        // in definition order
  SourceMap sourceMap{};                     // operand positions, by offset
  SourceLoc loc{};                           // the first `.section` line of this name
  std::vector<TextRange> blocks{};           // every block of this name, in file order
  std::vector<uint32_t> negativeOperands{};  // offsets of operands written as negative numbers

  // Appends a relocation whose names are copied into `names`.
  Relocation& addRelocation(uint64_t offset, uint8_t size, std::string_view symbol,
                            std::string_view minus = {}, int64_t addend = 0);

  std::span<const uint8_t> data() const { return bytes; }
  size_t size() const { return bytes.size(); }
  // The PTX position of the operand that produced byte `offset` (the section's own
  // position when the offset lies past the end).
  SourceLoc locate(uint64_t offset) const;
  // The relocation covering exactly [offset, offset+size), or nullptr.
  const Relocation* relocationAt(uint64_t offset, uint8_t size) const;
  // Any relocation overlapping [offset, offset+size), or nullptr.
  const Relocation* relocationOverlapping(uint64_t offset, uint64_t size) const;
  const SectionLabel* findLabel(std::string_view name) const;
  // The value ptxas computes for an `A-B` whose labels are both defined in this
  // section (nvcc writes pubnames lengths this way); nullopt otherwise.
  std::optional<int64_t> resolveDifference(const Relocation& r) const;

 private:
  // The name for a relocation with nothing kept after it, which it may
  // share with one of the two relocations before (the one added is last).
  SymbolName keepShared(std::string_view name);
  // `symbol`, with a difference's second name and an addend after it (Relocation).
  SymbolName keepWithTail(std::string_view symbol, std::string_view minus, int64_t addend);
};

// The image named `name` (".debug_info") among `images` -- what write::encode()
// and ptx::read give back -- or nullptr. The last of that name when there are
// several, as ptxas overlays repeated blocks.
const SectionImage* findSection(std::span<const SectionImage> images, std::string_view name);

// relocationAt() for a pass that looks up mostly increasing offsets (a
// decoder reading forward): each lookup moves a cursor a few relocations on
// instead of searching the whole list. Lookups behind the cursor or far ahead
// of it binary-search, so any order gives relocationAt()'s answer.
class RelocationCursor {
 public:
  explicit RelocationCursor(const SectionImage& image) : image_(&image) {}
  // Starting at relocation `next`, which must be at or before the first one
  // at or after `offset` (lookups walk forward from it).
  RelocationCursor(const SectionImage& image, size_t next, uint64_t offset)
      : image_(&image), next_(next), offset_(offset) {}
  const Relocation* at(uint64_t offset, uint8_t size) {
    // Inline for the common step: forward to the next relocation or the one
    // after it (a location entry's two addresses; 640,000 lookups in a check
    // of a 20 MB nvcc -G file). Further, or back, is a search (seek).
    const std::vector<Relocation>& relocs = image_->relocations;
    if (offset < offset_) return seek(offset, size);
    size_t next = next_;
    if (next < relocs.size() && relocs[next].offset < offset && ++next < relocs.size() && relocs[next].offset < offset)
      return seek(offset, size);
    next_ = next;
    offset_ = offset;
    return fieldAt(offset, size);
  }
  // Where the next lookup starts: at or before the first relocation at or
  // after any offset not behind the last lookup.
  size_t next() const { return next_; }
  // Moves on to the first relocation at or after `offset` (which must not be
  // behind the last lookup), as a lookup there would; its index.
  size_t advanceTo(uint64_t offset) {
    at(offset, 0);
    return next_;
  }

 private:
  // at() past its inline step: a walk of a few, then a binary search.
  const Relocation* seek(uint64_t offset, uint8_t size);
  // With next_ the first relocation at or after `offset`: the one that is
  // exactly the field [offset, offset + size), as relocationAt() finds it
  // (one overlapping the field otherwise makes it none).
  const Relocation* fieldAt(uint64_t offset, uint8_t size) const {
    const std::vector<Relocation>& relocs = image_->relocations;
    if (next_ > 0 && relocs[next_ - 1].offset + relocs[next_ - 1].size > offset) return nullptr;
    if (next_ < relocs.size() && relocs[next_].offset == offset && relocs[next_].size == size) return &relocs[next_];
    return nullptr;
  }

  const SectionImage* image_;
  size_t next_ = 0;     // the first relocation at or after `offset_`
  uint64_t offset_ = 0;  // of the last lookup
};

}  // namespace ptxdwarf
