// How names read from a file are spelled in text output.
//
// A DWARF string (DW_AT_name, a `.file` path, a producer) is the file's
// author's bytes: a newline in one would start a line the tool did not print,
// an escape sequence would drive the terminal. Every text output of the
// library and of ptxdump spells such strings through these functions, so
// none of them can print a line of its own.
#pragma once

#include <string>
#include <string_view>

namespace ptxdwarf {

// LLVM raw_ostream::write_escaped, as llvm-dwarfdump spells strings: \\ \t \n
// \" and octal \ooo for every other byte outside printable ASCII (0x20-0x7e).
void appendEscaped(std::string& out, std::string_view s);
std::string escaped(std::string_view s);

// For text already in the tool's own words with names embedded (a
// diagnostic's message): printable ASCII as is, quotes and backslashes
// included; every other byte as appendEscaped spells it.
void appendUnprintableEscaped(std::string& out, std::string_view s);

// A JSON string literal with its quotes: every control byte, DEL and every
// byte past ASCII as \u00XX, so the document stays valid JSON whatever the bytes.
void appendJsonString(std::string& out, std::string_view s);

}  // namespace ptxdwarf
