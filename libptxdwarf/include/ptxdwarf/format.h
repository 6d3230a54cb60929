// How numbers and names read from a file are spelled in text output.
//
// A DWARF string (DW_AT_name, a `.file` path, a producer) is the file's
// author's bytes: a newline in one would start a line the tool did not print,
// an escape sequence would drive the terminal. Every text output of the
// library and of ptxdump spells such strings through these functions, so
// none of them can print a line of its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ptxdwarf {

// Numbers, appended without temporaries (a dump spells millions of them).
// "0x" + at least `width` lowercase hex digits: appendHex(out, 10, 8) is "0x0000000a".
void appendHex(std::string& out, uint64_t v, int width = 1);
// The digits alone, zero padded to `width` (no "0x").
void appendHexDigits(std::string& out, uint64_t v, int width);
void appendDec(std::string& out, uint64_t v);
void appendSigned(std::string& out, int64_t v);  // "-5", "7"
// appendHex as a string: hex(0x1c, 8) is "0x0000001c", as diagnostics name offsets.
std::string hex(uint64_t v, int width = 1);

// LLVM raw_ostream::write_escaped, as llvm-dwarfdump spells strings: \\ \t \n
// \" and octal \ooo for every other byte outside printable ASCII (0x20-0x7e).
void appendEscaped(std::string& out, std::string_view s);
std::string escaped(std::string_view s);
// appendEscaped between double quotes, as llvm-dwarfdump quotes a string value.
inline void appendQuoted(std::string& out, std::string_view s) {
  out += '"';
  appendEscaped(out, s);
  out += '"';
}

// For text already in the tool's own words with names embedded (a
// diagnostic's message): printable ASCII as is, quotes and backslashes
// included; every other byte as appendEscaped spells it.
void appendUnprintableEscaped(std::string& out, std::string_view s);

// A JSON string literal with its quotes: every control byte, DEL and every
// byte past ASCII as \u00XX, so the document stays valid JSON whatever the bytes.
void appendJsonString(std::string& out, std::string_view s);

}  // namespace ptxdwarf
