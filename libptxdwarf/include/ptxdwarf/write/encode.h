// The encoder: DIE model -> section images. Abbreviations are interned
// (same tag, children flag and attribute/form list share a code, numbered in
// first-use order); a layout pass computes every offset, and emission checks
// that it lands exactly where the layout said.
#pragma once

#include <span>
#include <vector>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/section.h"
#include "ptxdwarf/write/unit.h"

namespace ptxdwarf::write {

// What the `debug_info_length` field of a .debug_pubnames set holds. DWARF
// says the unit's full size (266 for a 266-byte unit): the default. The
// Chapter 6 example writes the unit_length field's value (262), which
// `ptxdump check` accepts with a note.
enum class UnitLengthConvention : uint8_t { unitLengthField, totalSize };

struct EncodeOptions {
  bool pubnames = true;
  bool aranges = false;
  UnitLengthConvention pubnamesLength = UnitLengthConvention::totalSize;
  // Adds DW_AT_sibling (ref4) to every DIE that has children and a next sibling.
  bool siblings = false;
  // A unit of tens of thousands of DIEs is written in this many parts at
  // once; the bytes are the same. 1 (the default): on the caller's thread
  // only, as a library that starts no thread unless asked; 0: one per CPU
  // the process may use.
  unsigned threads = 1;
};

// Encodes the units into .debug_abbrev, .debug_info, and as asked
// .debug_pubnames, .debug_aranges and .debug_loc (only when lists exist).
// Problems (a reference to a DIE of no unit, a value too large for a pinned
// form) are errors in `diags`; the images are then incomplete.
std::vector<SectionImage> encode(std::span<const Unit* const> units, const EncodeOptions& options,
                                 Diagnostics& diags);
std::vector<SectionImage> encode(const Unit& unit, const EncodeOptions& options, Diagnostics& diags);

// The form the encoder writes for `value` of attribute `name` in a unit with
// these options (the pinned form when there is one).
uint16_t chooseForm(uint16_t name, const Value& value, const UnitOptions& options);
// The same from a value's parts: its kind, its pinned form (0: none), its
// number (unsigned_, flag) and, for a block or an expression, its size.
uint16_t chooseForm(uint16_t name, Value::Kind kind, uint16_t pinned, uint64_t number, size_t blockSize,
                    const UnitOptions& options);

}  // namespace ptxdwarf::write
