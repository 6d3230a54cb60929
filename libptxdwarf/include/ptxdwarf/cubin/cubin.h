// A cubin (the ELF file ptxas writes) as one more source of the model a
// PTX file reads into: its debug sections, relocated, become the module's
// SectionImages (so read::decode builds the same Dwarf from them, and every
// printer of the DWARF works on it unchanged); `.debug_line`'s file table
// becomes the module's files; the NVIDIA sections (`.nv_debug_line_sass`,
// `.nv_debug_ptx_txt`, `.nv_debug_info_reg_sass`) are kept as sections too,
// for the decoders in this folder.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/elf/elf.h"
#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::cubin {

// Does the file start like a cubin (the ELF magic)? Where a file is loaded,
// this decides between cubin::read and ptx::read.
inline bool looksLikeCubin(std::string_view bytes) { return elf::hasElfMagic(bytes); }

// One function's SASS: the `.text.<name>` section.
struct CodeSection {
  std::string name;   // the function's (linkage) name
  uint64_t size = 0;  // bytes of SASS; its addresses run from 0
  // Where ReadOptions::placeCode put it (0 otherwise): the debug sections'
  // addresses in this function are this plus the function-relative PC.
  uint64_t address = 0;
};

struct Cubin {
  elf::Header header;
  std::vector<CodeSection> code;
  // Relocation types the file's debug sections use that were not applied
  // (their bytes are as the file holds them), by section.
  std::vector<std::string> notes;

  const CodeSection* codeOf(std::string_view function) const;
};

struct ReadResult {
  ptx::Module module;  // filename, sections, files (from .debug_line)
  Cubin cubin;
  Diagnostics diagnostics;
  bool ok() const { return !diagnostics.hasErrors(); }
};

struct ReadOptions {
  // Apply the `.rel`/`.rela` sections to the debug sections (S + A), as the
  // CUDA driver does when it loads the cubin and cuda-gdb then reads it.
  // Without it the bytes are the file's: what llvm-dwarfdump shows, which
  // has no resolver for EM_CUDA. The two differ where ptxas's bytes in place
  // are stale (nvcc -G sm_90: a DW_AT_high_pc of 0x3a0 in place, 0x380 -- the
  // function's code size -- once relocated).
  bool applyRelocations = true;
  // Relocate as the driver does when it loads the module: each function's
  // `.text.<name>` at an address of its own (one after the other, aligned
  // as its section asks), so that the DIE ranges, location lists and line
  // table rows of different functions -- all from 0 in the file -- name
  // distinct addresses, as they do for cuda-gdb. What the debugger's view
  // (view::lookup on a cubin) reads; the dump keeps the file's addresses.
  bool placeCode = false;
  // Called with stretches [begin, end) of the file's bytes the read will
  // not look at again: at the start, what is neither a debug section nor
  // what relocates one; then each debug section once its copy is made; at
  // the end, the whole file. A caller whose bytes are a mapped file drops
  // those pages (FileText::release), so that the file and the sections'
  // copies are not both in memory.
  std::function<void(uint64_t begin, uint64_t end)> release;
};

// Reads a cubin from its bytes, which must outlive nothing: the result owns
// copies. A damaged ELF file is an error diagnostic (at line 0: a cubin has
// no lines) naming what is wrong and its file offset.
ReadResult read(std::span<const uint8_t> bytes, std::string_view filename, const ReadOptions& options = {});
inline ReadResult read(std::string_view bytes, std::string_view filename, const ReadOptions& options = {}) {
  return read(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), filename,
              options);
}

// The PTX text ptxas embedded (`.nv_debug_ptx_txt`, `.nv_debug_ptx_txt.<n>`
// in a relocatable cubin) as text: ptxas stores each line NUL-terminated
// (comments emptied, the debug sections' contents blanked), so line N here
// is the line `.nv_debug_line_sass` calls N, and of the PTX ptxas read.
// nullopt when the cubin has none.
std::optional<std::string> embeddedPtx(const ptx::Module& cubinModule);

// The section of that name or one named `<name>.<suffix>` (ptxas -c adds a suffix).
const SectionImage* sectionOrSuffixed(const ptx::Module& cubinModule, std::string_view name);

}  // namespace ptxdwarf::cubin
