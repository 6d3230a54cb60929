// Where cuda-gdb finds a PTX register at a SASS address: the rule of its
// gdb/cuda/cuda-regmap.c and cuda-tdep.c, applied to the register map
// (`.nv_debug_info_reg_sass`) without a GPU.
//
// For `DW_OP_regx %rd5` at a PC of function F (F: the linkage name of the
// function the PC is in, an inlined call's caller included):
//  - entries are F's entries naming %rd5; cuda-gdb drops, when it loads the
//    map, every entry whose name does not start with `%` or is over 8 bytes;
//  - an entry covers the PC when start <= PC <= end (`end` inclusive);
//    entries of a piece over 1 (the upper half of a 128-bit register) are
//    never used;
//  - one covering entry of a full (or uniform full) register: that register;
//  - otherwise the value is put together from the covering entries, piece
//    by piece, and is readable only when every piece from 0 to the highest
//    piece any entry of %rd5 in F has (at any PC) is covered: a 64-bit
//    register with only its low half covered is `<optimized out>`;
//  - no covering entry: `<optimized out>`.
// With `set cuda value_extrapolation on` (off by default) cuda-gdb also
// reads a register past an entry's end, up to where the register's next
// entry starts (`extrapolate`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptxdwarf/cubin/regmap.h"

namespace ptxdwarf::cubin {

struct RegisterAt {
  bool available = false;
  // The SASS locations (RegMap's sassLocation spelling) of the covering
  // entries, piece 0 first: {"R4", "R5"} for a 64-bit register in two.
  std::vector<std::string> sass;
  std::string reason;  // why not available
};

// A function's record indexed by register, for a caller that locates many
// registers in it (lookup, at every variable of every stop): built in
// O(E log E) for E entries, after which locating a register at a PC costs
// O((1 + c) log e) for its e entries, c of them covering the PC (a
// register a function moves through thousands of SASS registers included).
// Views `function`, which must outlive it.
class FunctionRegisters {
 public:
  explicit FunctionRegisters(const RegMapFunction& function);
  FunctionRegisters(FunctionRegisters&&) noexcept;
  FunctionRegisters& operator=(FunctionRegisters&&) noexcept;
  ~FunctionRegisters();
  // locateRegister's answer.
  RegisterAt locate(std::string_view reg, uint64_t pc, bool extrapolate = false) const;

 private:
  struct Register;  // one register's entries, indexed by the PCs they cover (locate.cpp)
  std::vector<Register> registers_;
  std::unordered_map<std::string_view, uint32_t> byName_;  // into registers_: the entries cuda-gdb keeps
  uint32_t lastEnd_ = 0;  // the greatest end of those entries: where extrapolation stops
};

// `reg` (with its `%`) at `pc` (relative to the function) in `function`'s
// record (nullptr: the map has none for it). Work: every entry of the
// function; FunctionRegisters to locate many.
RegisterAt locateRegister(const RegMapFunction* function, std::string_view reg, uint64_t pc,
                          bool extrapolate = false);

// The pieces' locations as one string: "R4:R5" (piece 0 first), "R7", "P0".
std::string joinSass(const std::vector<std::string>& sass);

}  // namespace ptxdwarf::cubin
