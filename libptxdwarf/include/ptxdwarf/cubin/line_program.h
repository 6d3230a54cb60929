// The DWARF line programs of a cubin: `.debug_line` (source line -> SASS
// address) and `.nv_debug_line_sass` (SASS address -> line of the embedded
// PTX), versions 2 to 4, as ptxas writes them, with NVIDIA's extension for
// inlined code:
//  - after the file names, inside the header, a u32 offset into .debug_str
//    (the base of the function names; llvm-dwarfdump 19 calls it "unknown
//    data in line table prologue");
//  - DW_LNE_NVIDIA_inlined_call (extended opcode 0x90): ULEB context, ULEB
//    function name offset: the rows that follow are inside an inlined call of
//    that function, called from the row numbered `context` in the same
//    sequence (0: not inlined);
//  - DW_LNE_NVIDIA_set_function_name (0x91): ULEB function name offset.
// How `context` numbers rows (LineRow::ordinal): ptxas counts the rows of
// each sequence (each function) from 1, and a row at the same address and
// line as the one before it -- `advance_line 0; copy` -- is not counted: it
// shares that row's number. cuda-gdb (gdb/dwarf2/read.c,
// lnp_state_machine::record_line) also counts per sequence but counts every
// row, so after such a repeat it takes the row before the one ptxas meant
// (LineRow::cudaGdbCallSite). Measured on ptxas 13.0's `-lineinfo` cubins of
// the corpus: with ptxas's numbering every inlined row's stack equals the
// PTX's `.loc ... inlined_at` chain.
// Every read is bounds-checked; what cannot be decoded is said in `problems`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/inline_frames.h"

namespace ptxdwarf::cubin {

inline constexpr uint8_t DW_LNE_NVIDIA_inlined_call = 0x90, DW_LNE_NVIDIA_set_function_name = 0x91;

struct LineFile {
  std::string name;
  uint64_t directory = 0;  // index into LineHeader::includeDirectories (1-based; 0: the compilation directory)
  uint64_t modTime = 0;
  uint64_t length = 0;
};

struct LineHeader {
  uint64_t offset = 0;        // of the unit_length field in the section
  uint64_t unitLength = 0;
  uint16_t version = 0;
  uint64_t headerLength = 0;
  uint8_t minInstLength = 1;
  uint8_t maxOpsPerInst = 1;
  bool defaultIsStmt = true;
  int8_t lineBase = 0;
  uint8_t lineRange = 1;
  uint8_t opcodeBase = 1;
  std::vector<uint8_t> standardOpcodeLengths;
  std::vector<std::string> includeDirectories;  // [0] is include_directories[1]
  std::vector<LineFile> files;                  // [0] is file_names[1]
  // NVIDIA's extension: the .debug_str offset the function names are relative to.
  std::optional<uint32_t> inlineNamesBase;
  uint64_t programBegin = 0, end = 0;  // offsets in the section

  // The file's path as llvm-dwarfdump prints it: its directory joined with
  // its name (the name alone where it is absolute or the directory is 0).
  std::string filePath(uint64_t file) const;
};

struct LineRow {
  uint64_t address = 0;
  uint32_t file = 1;
  uint32_t line = 1;
  uint32_t column = 0;
  bool isStmt = true;
  bool endSequence = false;
  // Inlined code: `context` as the program gives it (the number of the call
  // site's row in this sequence; 0 when the row is not inside an inlined
  // call), and the function's name as a .debug_str offset (relative to
  // LineHeader::inlineNamesBase).
  uint32_t context = 0;
  std::optional<uint64_t> functionName;
  // The number ptxas gives this row: rows counted from 1 in each sequence, a
  // row at the same address and line as the one before it sharing its number.
  uint32_t ordinal = 0;
  // The call site's row (index into LineTable::rows) `context` names as ptxas
  // numbers rows; kNoRow when the row is not inlined or the context names no
  // earlier row of its sequence (a loop or a forward reference: not decoded).
  static constexpr size_t kNoRow = SIZE_MAX;
  size_t callSite = kNoRow;
  // The row cuda-gdb takes for `context`: it numbers every row of the
  // sequence whose file is in the file table, this one included; kNoRow where
  // it finds none. Differs from callSite only after a repeated row.
  size_t cudaGdbCallSite = kNoRow;
  // Frames in the row's inline stack (following callSite), and whether the
  // stack ends at a context that names no earlier row.
  uint32_t inlineDepth = 0;
  bool inlineStackBroken = false;
};

struct LineTable {
  LineHeader header;
  std::vector<LineRow> rows;          // in program order, end_sequence rows included
  std::vector<std::string> problems;  // what could not be decoded, with its section offset
};

// Every line table of a .debug_line or .nv_debug_line_sass section.
std::vector<LineTable> decodeLinePrograms(std::span<const uint8_t> section);

// One frame of a row's inline stack: the inlined function and where it was called.
struct InlineFrame {
  std::string_view function;  // from .debug_str; empty when the offset is outside it
  uint32_t callFile = 0, callLine = 0, callColumn = 0;
};
// The row's inline stack, innermost first, at most `most` frames (the row's
// inlineDepth says how many there are): empty when the row is not in inlined
// code. `debugStr` is the cubin's .debug_str. `broken` is set when the stack
// ends at a context that names no earlier row of the sequence. Work: one step
// per frame returned.
std::vector<InlineFrame> inlineStack(const LineTable& table, size_t row, std::span<const uint8_t> debugStr,
                                     bool* broken = nullptr, size_t most = SIZE_MAX);

struct ShownInlineStack {
  std::vector<InlineFrame> frames;  // innermost first, at most kInlineFramesShown
  uint32_t omitted = 0;             // the frames past those
  bool broken = false;              // as inlineStack's
};
// The row's inline stack as a listing shows it (ptxdwarf/inline_frames.h).
ShownInlineStack shownInlineStack(const LineTable& table, size_t row, std::span<const uint8_t> debugStr);

}  // namespace ptxdwarf::cubin
