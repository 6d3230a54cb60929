// Fuzzer input layout for the section-level targets: a header of five
// little-endian u16 lengths for .debug_abbrev, .debug_info, .debug_loc,
// .debug_pubnames and .debug_aranges (each clamped to what is left), then
// those sections' bytes, and the rest as .debug_str.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxdwarf/section.h"

inline std::vector<ptxdwarf::SectionImage> sectionsFromFuzzInput(const uint8_t* data, size_t size) {
  static const char* const names[] = {".debug_abbrev", ".debug_info", ".debug_loc", ".debug_pubnames",
                                      ".debug_aranges", ".debug_str"};
  std::vector<ptxdwarf::SectionImage> out(6);
  size_t lengths[6] = {};
  size_t header = size < 10 ? size : 10;
  for (size_t i = 0; i + 1 < header; i += 2) lengths[i / 2] = data[i] | (size_t{data[i + 1]} << 8);
  size_t pos = header;
  for (int i = 0; i < 6; ++i) {
    size_t n = i == 5 ? size - pos : (lengths[i] < size - pos ? lengths[i] : size - pos);
    out[static_cast<size_t>(i)].name = names[i];
    out[static_cast<size_t>(i)].bytes.assign(data + pos, data + pos + n);
    pos += n;
  }
  return out;
}
