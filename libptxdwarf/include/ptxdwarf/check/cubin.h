// What ptxas did to the debug information: the rules that hold a cubin --
// what cuda-gdb reads -- against the PTX it was compiled from. Each
// diagnostic stands at the PTX line it concerns:
//  - cubin-variable-unavailable: a register variable that no entry of the
//    register map (`.nv_debug_info_reg_sass`) holds anywhere in its scope
//    (cuda-gdb prints it `<optimized out>` at every stop);
//  - cubin-line-unplaced: a source line the PTX has `.loc` lines for and the
//    cubin's `.debug_line` no address (a breakpoint there is never hit, or
//    gdb moves it to the next line that has one);
//  - cubin-register-unmapped: a `DW_OP_regx` register the function's map
//    cannot have (not declared, cut to 8 bytes, no map for the function);
//  - cubin-function-missing: a subprogram's linkage name with no function
//    (`.text.<name>`) in the cubin.
// The rules' ids, severities and summaries are in check::rules().
#pragma once

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/load.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::check {

// The PTX a cubin was compiled from: its file, read with its DWARF (the
// diagnostics then stand at the lines of its DIEs), or the cubin's embedded
// copy, whose `.loc` lines and DWARF ptxas blanked (they then stand at the
// declarations of the registers and functions concerned).
struct CubinSource {
  const ptx::Module& module;
  const read::Dwarf* dwarf = nullptr;
};

// Runs the cubin rules on `cubin` (load() of a cubin: its text holds the ELF
// bytes, its module the debug sections, its DWARF relocated to SASS
// addresses) against `source`. cubin-line-unplaced needs the source's
// `.loc` lines: it finds nothing in an embedded copy.
Diagnostics runCubin(const Loaded& cubin, const CubinSource& source);

// A cubin checked alone: its embedded PTX (`.nv_debug_ptx_txt`) read as the
// source, so diagnostics stand at that text's lines (`ptxdump extract --ptx`
// prints it), with the decoder's findings on the cubin's DWARF. Without an
// embedded PTX the diagnostics have no line (the `.debug_info` offset says
// where).
Diagnostics runCubin(const Loaded& cubin);

}  // namespace ptxdwarf::check
