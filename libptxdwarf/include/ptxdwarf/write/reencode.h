// Encoding a decoded DWARF model back into section images.
//  - preserve: the same abbreviation tables, codes, forms, order and LEB128
//    widths; the result is byte-identical to the input wherever the decoder
//    understood it, which is what a round-trip check compares.
//  - canonical: through the producer's encoder (write::Unit): abbreviations
//    re-interned, offsets recomputed, every reference rewritten.
#pragma once

#include <vector>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/section.h"
#include "ptxdwarf/write/encode.h"

namespace ptxdwarf::write {

// Re-encodes .debug_abbrev, .debug_info, .debug_loc, .debug_pubnames and
// .debug_aranges from the model; every other section of the input is copied.
std::vector<SectionImage> encodePreserve(const read::Dwarf& dwarf, Diagnostics& diags);
// The same for one of `dwarf.sections` (by address): a caller that compares
// section by section holds one re-encoded image at a time.
SectionImage encodePreserve(const read::Dwarf& dwarf, const SectionImage& section, Diagnostics& diags);

// Rebuilds the units as write::Units (forms kept) and encodes them afresh,
// a large unit in parts on up to `threads` threads (EncodeOptions::threads).
std::vector<SectionImage> encodeCanonical(const read::Dwarf& dwarf, Diagnostics& diags, unsigned threads = 1);

// First difference between two sets of images (bytes, then relocations), as
// "section+offset: what differs"; empty when identical.
struct ImageDifference {
  std::string section{};
  uint64_t offset = 0;
  std::string message{};
};
std::optional<ImageDifference> compareImages(std::span<const SectionImage> expected,
                                             std::span<const SectionImage> actual);

// The round trip of one of `dwarf.sections` (by address), compared as it is
// encoded: compareImages(that section, encodePreserve(dwarf, it)), without a
// copy of its relocations (the re-encoding refers to the section's own, eight
// bytes each instead of 32: tens of thousands in a large file).
std::optional<ImageDifference> preserveDifference(const read::Dwarf& dwarf, const SectionImage& section,
                                                  Diagnostics& diags);

}  // namespace ptxdwarf::write
