// Debug information for PTX that has none (`ptxdump annotate`): the PTX file
// itself becomes the source a debugger shows.
//
// Into a copy of the text it adds, as whole lines (every other byte stays as
// it was, except `, debug` appended to `.target` where it is missing):
//   - `.file 1 "<source name>"` after the module header, and before each line
//     holding an instruction `.loc 1 LINE COL` naming that line of the input
//     (the line emitter of write/line_table.h writes them);
//   - labels around each function body and each `{ }` register block;
//   - at the end, the DWARF: a compile unit (DW_LANG_Mips_Assembler, as
//     assemblers describe their own source), a subprogram per function with a
//     body (linkage name = the PTX name), a formal parameter per `.param`
//     (DW_OP_addr of the parameter, class 7), a variable per register named
//     as the register (`%r5`; ranges expanded; DW_OP_regx of the packed name,
//     class 2, typed from the register's PTX type; a `{ }` block's registers
//     in a lexical block), and a variable per `.global`/`.shared`/`.const`/
//     `.local` declaration (DW_OP_addr and the space's class; arrays typed as
//     arrays).
// A register name longer than 8 bytes cannot be packed for cuda-gdb: it gets a
// warning and no variable, unless AnnotateOptions::renameRegisters renames it
// (then its tokens in the code change too).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/write/ptx_writer.h"

namespace ptxdwarf::write {

struct AnnotateOptions {
  // The path `.file 1` names and the compile unit's name: the input as the
  // user gave it (empty: the module's filename).
  std::string sourceName = {};
  // For PTX that has `.file`/`.loc` already (a -lineinfo build): keep them and
  // add only the DWARF. Without it such a file is refused.
  bool keepLines = false;
  // Renames every register whose name cuda-gdb cannot read (over 8 bytes, or
  // no leading '%') to a short one, consistently through its function, so
  // that every register gets a variable. The code stays the same program.
  bool renameRegisters = false;
  // Annotates a file that has debug information already: its debug sections
  // are removed (and its `.file`/`.loc` directives, unless keepLines), the
  // rest is annotated as a file without.
  bool replace = false;
  // The debug sections' text. Dense by default: the output is read by ptxas
  // and debuggers, not by eye, and dense text is about a fifth smaller (less
  // to write) than packed.
  Style style = Style::dense;
  // 1 (the default): everything on the calling thread. Otherwise (`threads`
  // >= 2, or 0 when the process may use two CPUs) a large file's DWARF is built and encoded on a second
  // thread (its unit written in parts at once) while the code's edits are
  // made and the code is written on the caller's, and its largest section is
  // rendered in parts on two threads; the output is the same either way.
  unsigned threads = 1;
  // The most the annotated text may grow: a file whose output would be more
  // than this many times its size (or than this many times 16 KiB, for a
  // small one) is refused before anything is built. A register range is a
  // few bytes of text and one variable per register: `%r<100000000>` in a
  // 1 KB file would be gigabytes of DWARF. Real files grow about 4 times.
  // 0 lifts the limit.
  uint32_t maxGrowth = 64;
};

struct AnnotateStats {
  size_t locs = 0;              // `.loc` lines added
  size_t instructionLines = 0;  // lines of the input holding an instruction
  size_t subprograms = 0;
  size_t parameters = 0;
  size_t registerVariables = 0;  // registers described as variables
  size_t skippedRegisters = 0;   // registers whose names cannot be packed (warned about)
  size_t renamedRegisters = 0;   // declarations renamed (renameRegisters)
  size_t variables = 0;          // .global/.shared/.const/.local declarations
};

struct Annotated {
  std::string ptx = {};          // empty when the file was refused (see diagnostics), or given to a sink
  Diagnostics diagnostics = {};  // errors that refused it; warnings (long register names)
  AnnotateStats stats = {};
  bool written() const { return !ptx.empty() || streamed; }
  bool streamed = false;  // the output went to a sink
};

// `module` is ptx::read(text); a file that already has `.debug_info` (or any
// section annotate writes) is refused unless options.replace, and so is one
// with `.loc` lines unless options.keepLines or options.replace.
Annotated annotate(std::string_view text, const ptx::Module& module, const AnnotateOptions& options = {});

// The same, handing the output to `sink` in order, in pieces (most about
// 1 MB), instead of into Annotated::ptx (left empty): a caller writing a file
// never holds the whole output, several times the input. Nothing is handed
// over when the file is refused. When the DWARF is built on a second thread
// (AnnotateOptions::threads), the code goes to the sink while it is built:
// an error found in it then (one the encoder or the writer reports, as for
// DWARF past 4 GiB) comes after pieces were handed over, and written() is
// false; whatever the sink received must be dropped, as a file written to a
// temporary name and renamed only when written() is. On one thread every
// error is known before the first piece.
Annotated annotate(std::string_view text, const ptx::Module& module, const AnnotateOptions& options,
                   const std::function<void(std::string_view)>& sink);

}  // namespace ptxdwarf::write
