// The DWARF line programs of a cubin: `.debug_line` (source line -> SASS
// address) and `.nv_debug_line_sass` (SASS address -> line of the embedded
// PTX), versions 2 to 4, as ptxas writes them, with NVIDIA's extension for
// inlined code decoded as cuda-gdb and elfutils' libdw decode it:
//  - after the file names, inside the header, a u32 offset into .debug_str
//    (the base of the function names; llvm-dwarfdump 19 calls it "unknown
//    data in line table prologue");
//  - DW_LNE_NVIDIA_inlined_call (extended opcode 0x90): ULEB context, ULEB
//    function name offset: the rows that follow are inside an inlined call of
//    that function, called from the row numbered `context` (1-based, in the
//    order the program makes rows, a row repeating its predecessor not
//    counted: LineRow::ordinal; 0: not inlined);
//  - DW_LNE_NVIDIA_set_function_name (0x91): ULEB function name offset.
// Every read is bounds-checked; what cannot be decoded is said in `problems`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
  // Inlined code: the row (1-based index into LineTable::rows) of the call
  // site, 0 when the row is not inside an inlined call; and the function's
  // name as a .debug_str offset (relative to LineHeader::inlineNamesBase).
  uint32_t context = 0;
  std::optional<uint64_t> functionName;
  // The number contexts name this row by: rows counted from 1 in program
  // order across the table, a row identical to the one before it sharing
  // that row's number (measured on ptxas 13's -lineinfo tables: its contexts
  // skip such repeats).
  uint32_t ordinal = 0;
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
// The row's inline stack, innermost first: empty when the row is not in
// inlined code. `debugStr` is the cubin's .debug_str. A context naming a row
// that is not before this one (a loop or a forward reference) ends the stack
// and sets `broken`.
std::vector<InlineFrame> inlineStack(const LineTable& table, size_t row, std::span<const uint8_t> debugStr,
                                     bool* broken = nullptr);

}  // namespace ptxdwarf::cubin
