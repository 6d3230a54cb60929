// The debugger's questions, answered from the PTX alone: stopped at a source
// line, a PTX line or a function, which function, inlined subroutines and
// blocks am I in; which variables and parameters are visible; where does each
// live right there (register, .local depot offset, .param symbol — through
// location lists whose ranges are PTX labels); of which type and address class.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/load.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/scopes.h"

namespace ptxdwarf::view {

struct ScopeInfo {
  uint16_t tag = 0;
  std::string name = {};          // through abstract_origin for inlined subroutines; empty for blocks
  uint64_t die = 0;          // DIE offset
  // Inlined subroutines: the call site, as DW_AT_call_file/call_line give it.
  std::string callFile = {};
  uint64_t callLine = 0;
};

struct VariableInfo {
  std::string name = {};
  bool parameter = false;
  std::string type = {};          // the C spelling ("int *", "geo::Vec3")
  std::string location = {};      // in PTX terms at the place: "%r5", "_Z4testPi_param_0", "__local_depot0+8", ...
  bool available = true;     // false: no location covers the place (optimized out there)
  // On a cubin: where cuda-gdb reads the value at the match's pc, in SASS
  // terms: {"R4", "R5"} for a 64-bit register in two pieces, {"P0"},
  // {"[param+0x210]"}, {"[CFA-0x68]"}; empty when unavailable (cuda-gdb
  // prints <optimized out>) or when the location is not one of these.
  // nullopt on PTX, which has no SASS.
  std::optional<std::vector<std::string>> sass = std::nullopt;
  uint64_t addressClass = 0;  // DW_AT_address_class, 0 when absent
  uint64_t declLine = 0;
  uint64_t die = 0;          // DIE offset
};

// One place the question matched: a function and the PTX instructions there
// that share one innermost scope.
struct Match {
  std::string function = {};                  // the PTX function
  std::vector<uint32_t> ptxLines = {};        // of those instructions (on a cubin: of the embedded PTX at pc)
  std::vector<uint32_t> instructions = {};    // indices into Module::instructions
  std::vector<ScopeInfo> scopes = {};         // innermost first, up to the subprogram
  std::vector<VariableInfo> variables = {};   // visible at the first of the instructions
  // On a cubin: the SASS address, relative to the function (no instructions).
  std::optional<uint64_t> pc = std::nullopt;
  uint32_t line = 0;  // on a cubin: the source line of the line table row in force at pc (0: none)
};

struct LookupResult {
  std::vector<Match> matches = {};
  std::string error = {};  // why nothing matched, when nothing did
  bool cubin = false;      // answered from a cubin: matches carry pc, variables sass
};

// WHERE: `SOURCE:LINE` (a source path or any suffix of it at a '/'), `ptx:LINE`
// (a line of the PTX file: its instruction, or the next one), or a function's
// PTX name or DW_AT_name (its first instruction).
//
// Visibility follows the debugger and C++: the variables and parameters of
// every scope from the innermost up to the frame (the subprogram, or the
// inlined subroutine the place is in), less those a source line lookup finds
// declared later in the same file (C++: a name is visible from its
// declaration on).
LookupResult lookup(const ptx::Module& module, const read::Dwarf& dwarf, std::string_view where);

// The debugger's view on a cubin (ptxas's ELF): the code placed as the
// driver loads it (cubin::ReadOptions::placeCode), so each function's DIE
// ranges, location lists and line rows are its own. WHERE:
//  - `FUNCTION+0xPC` (or +PC in decimal): that SASS address, relative to
//    the function (its linkage name or DW_AT_name);
//  - `FUNCTION`: its first address;
//  - `SOURCE:LINE`: every address where cuda-gdb puts a breakpoint for the
//    line -- gdb's rule (linespec.c's decode_digits_ordinary and
//    create_sals_line_offset, symtab.c's find_line_common):
//      1. in the line table rows of every file SOURCE names (whole path
//         components, as for PTX), the addresses of the is_stmt rows of
//         LINE; if there are none, of the smallest line after LINE that
//         has is_stmt rows (one best line over all files);
//      2. of the addresses in one innermost block (a subprogram, an inlined
//         subroutine, or a lexical block that declares a variable -- gdb
//         makes no block of the others), only the lowest is kept;
//      3. an address that is its function's entry moves past the prologue
//         (skip_prologue_sal, cuda_skip_prologue): to the address of the
//         function's first is_stmt row of another line, if any.
// Each address is a match: its scopes, and each visible variable's
// location at that pc the way cuda-gdb reads it: a `DW_OP_regx` register
// through the register map (cubin/locate.h: `<optimized out>` when no
// entry covers the pc), a location list through the range covering the pc
// (none: `<optimized out>`), memory as `[space+0xN]` / `[CFA-0xN]`.
LookupResult lookupCubin(std::span<const uint8_t> cubinBytes, std::string_view filename, std::string_view where);

// lookup() on what load() read: a PTX file's module and DWARF, or a
// cubin's bytes (lookupCubin).
LookupResult lookup(const Loaded& file, std::string_view where);

}  // namespace ptxdwarf::view
