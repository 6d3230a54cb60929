// `.nv_debug_info_reg_sass`: where each PTX register lives in SASS, per
// function and PC range -- the map cuda-gdb reads (gdb/cuda/cuda-regmap.c)
// to find a `DW_OP_regx %r5` location in the machine's registers. Records of
// {function name NUL, u32 count, count x {u32 piece, PTX register NUL,
// u32 location = class << 24 | payload, u32 start, u32 end}}, little-endian,
// unaligned; PCs relative to the function; cuda-gdb takes `end` as inclusive.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxdwarf::cubin {

// The location classes (cuda-gdb's CUDBGRegClass).
enum class RegClass : uint8_t {
  invalid = 0, cc = 1, predicate = 2, address = 3, half = 4, full = 5, localMemory = 6, spOffset = 7,
  uniformPredicate = 9, uniformHalf = 10, uniformFull = 11, spilled = 12,
};

struct RegMapEntry {
  uint32_t piece = 0;         // as written; cuda-gdb keeps the low two bits (which 32-bit part)
  std::string_view reg;       // the PTX register, with its `%`
  uint32_t location = 0;      // class << 24 | payload
  uint32_t start = 0, end = 0;  // function-relative SASS PCs, `end` inclusive
  uint64_t offset = 0;        // of the entry in the section

  uint8_t classCode() const { return static_cast<uint8_t>(location >> 24); }
  uint32_t payload() const { return location & 0xffffff; }
  // Would cuda-gdb keep it: a name starting with `%`, at most 8 bytes?
  bool usableByCudaGdb() const { return reg.starts_with('%') && reg.size() <= 8; }
};

struct RegMapFunction {
  std::string_view name;
  uint32_t declaredCount = 0;  // the record's count field
  uint64_t offset = 0;         // of the record in the section
  std::vector<RegMapEntry> entries;
};

struct RegMap {
  std::vector<RegMapFunction> functions;
  // Where the section stopped decoding (a record running past its end, a
  // name without a NUL), with the section offset; empty when it decoded whole.
  std::string problem;
  size_t entryCount() const;
};

// Decodes the section; `bytes` must outlive the result (names view it).
RegMap decodeRegMap(std::span<const uint8_t> bytes);

// The location spelled as SASS: `R5`, `RZ`, `R4.hi` (a half register), `P0`,
// `UR4`, `URZ`, `UP1`, `[local+0x10]` (local memory), `[R1+0x8]` (the stack
// pointer register plus an offset), `spilled 0x...`; `class 13 0x...` for a
// class cuda-gdb does not name.
std::string sassLocation(uint32_t location);
// "full", "half", "predicate", "local", "sp_offset", "uniform", ... for JSON.
std::string_view className(uint8_t classCode);

}  // namespace ptxdwarf::cubin
