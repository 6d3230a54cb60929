// ULEB128s the library wrote into its own compact encodings (SourceMap,
// InstructionPositions), read back without bounds checks: each was written
// whole from a uint32_t by encodeUleb (ptxdwarf/leb128.h), so it ends within
// five bytes. Input from outside goes through ByteReader.
#pragma once

#include <cstdint>

namespace ptxdwarf {

inline uint32_t readOwnUleb32(const uint8_t*& p) {
  uint32_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    const uint8_t b = *p++;
    v |= static_cast<uint32_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
}

}  // namespace ptxdwarf
