#pragma once

// Internal to the encoder (src/write/encode*.cpp): the abbreviation table, the
// section writer and a unit's layout, which the .debug_info emission
// (encode.cpp) and the other sections' (encode_sections.cpp) share. Not part
// of the library's interface.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ptxdwarf/leb128.h"
#include "ptxdwarf/section.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/unit.h"

namespace ptxdwarf::write::encoding {

// One abbreviation: its code and the forms of its attributes, in order.
struct AbbrevEntry {
  uint32_t code;
  uint16_t tag;
  bool children;
  std::vector<std::pair<uint16_t, uint16_t>> specs;
};

class AbbrevInterner {
 public:
  uint32_t intern(uint16_t tag, bool children, const std::vector<std::pair<uint16_t, uint16_t>>& specs) {
    // Neighbouring DIEs often share their shape (a function's registers): no hashing for a repeat.
    if (last_ && last_->tag == tag && last_->children == children && last_->specs == specs) return last_->code;
    key_.clear();
    appendKey(tag);
    key_ += children ? '1' : '0';
    for (auto [name, form] : specs) {
      appendKey(name);
      appendKey(form);
    }
    auto [it, inserted] = codes_.try_emplace(key_, static_cast<uint32_t>(entries_.size() + 1));
    if (inserted) entries_.push_back({it->second, tag, children, specs});
    last_ = &entries_[it->second - 1];
    return it->second;
  }
  const std::deque<AbbrevEntry>& entries() const { return entries_; }

 private:
  void appendKey(uint16_t v) {
    key_ += static_cast<char>(v & 0xff);
    key_ += static_cast<char>(v >> 8);
  }
  std::string key_;
  std::unordered_map<std::string, uint32_t> codes_;
  std::deque<AbbrevEntry> entries_;  // stable: last_ points into it
  const AbbrevEntry* last_ = nullptr;
};

// Little-endian, LEB128 and relocation writer over one section image.
class SectionWriter {
 public:
  explicit SectionWriter(SectionImage& image) : img_(image) {}
  uint64_t offset() const { return img_.bytes.size(); }
  void u8(uint64_t v) { img_.bytes.push_back(static_cast<uint8_t>(v)); }
  void fixed(uint64_t v, unsigned size) { appendLittleEndian(img_.bytes, v, size); }
  // Overwrites `size` bytes written already at `at`.
  void patch(uint64_t at, uint64_t v, unsigned size) { storeLittleEndian(std::span(img_.bytes).subspan(at, size), v); }
  void uleb(uint64_t v) {
    encodeUleb(v, [this](uint8_t b) { u8(b); });
  }
  void string(std::string_view s) {
    img_.bytes.insert(img_.bytes.end(), s.begin(), s.end());
    u8(0);
  }
  // A symbolic operand: relocation plus zero bytes (a symbol with an empty
  // name is the plain number `addend`).
  void symbol(const SymbolRef& s, unsigned size) { symbol(s.name, s.addend, size); }
  void symbol(std::string_view name, int64_t addend, unsigned size) {
    if (name.empty()) return fixed(static_cast<uint64_t>(addend), size);
    img_.addRelocation(offset(), static_cast<uint8_t>(size), name, {}, addend);
    fixed(0, size);
  }
  void expr(const Expr& e) {
    uint64_t base = offset();
    img_.bytes.insert(img_.bytes.end(), e.bytes().begin(), e.bytes().end());
    for (const Expr::Fixup& f : e.fixups())
      img_.addRelocation(base + f.offset, f.size, f.symbol.name, {}, f.symbol.addend);
  }

 private:
  SectionImage& img_;
};

// One DIE or NULL entry of a unit, in output order: 8 bytes, as a large
// unit has as many of these as DIEs. A DIE's attribute forms are the next
// ones of UnitLayout::forms (entries and forms are both in output order).
struct Entry {
  DieId die = kNoDie;       // kNoDie: a NULL entry
  uint32_t code : 31 = 0;   // abbreviation codes stay far below 2^31
  uint32_t sibling : 1 = 0; // a DW_AT_sibling is prepended
};
static_assert(sizeof(Entry) == 8);

// Where a part of a unit's emission starts: an entry that is a DIE (its
// offset is known) and the index of its first form.
struct PartStart {
  size_t entry = 0;
  uint32_t form = 0;
  uint32_t relocations = 0;  // at most this many before it (to reserve each part's)
};

struct UnitLayout {
  const Unit* unit = nullptr;
  std::vector<Entry> entries;
  // emitUnit writes the unit in parts.size() parts at once (layout() sets
  // them, about equal in bytes, from `threads`); parts[0] is the start.
  unsigned threads = 1;
  std::vector<PartStart> parts;
  uint32_t relocations = 0;  // at most this many in the unit
  std::vector<uint16_t> forms;        // chosen form per attribute, entries in order
  // 32-bit offsets: DWARF 32 (all the encoder writes) ends at 4 GiB, which
  // encode() checks before anything reads these.
  std::vector<uint32_t> dieOffset;    // absolute .debug_info offset by DieId
  std::vector<uint32_t> nextSibling;  // offset after a DIE's subtree, by DieId (only with siblings)
  bool siblings = false;              // EncodeOptions::siblings: nextSibling is needed
  uint64_t offset = 0;                // of the unit header
  uint64_t size = 0;                  // whole unit, header included
  bool offsetDependentSizes = false;  // a DW_FORM_ref_udata: sizes depend on offsets
};

// The sections beside .debug_info, each from what the unit's layout placed.
void emitAbbrevs(SectionImage& img, const AbbrevInterner& abbrevs);
// .debug_loc; the offset of each list, for the DW_AT_location values that name them.
std::vector<uint64_t> emitLocationLists(SectionImage& img, const Unit& u);
void emitPubnames(SectionImage& img, const UnitLayout& L, UnitLengthConvention convention);
void emitAranges(SectionImage& img, const UnitLayout& L);

}  // namespace ptxdwarf::write::encoding
