// Printers for ptxdump: llvm-dwarfdump's text layout, and the same content as JSON.
#pragma once

#include <cerrno>
#include <cstdio>
#include <string>
#include <string_view>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdump {

// errno of the last write through writeTo() that failed (0: none did), for
// the message that a failed write to stdout ends with.
inline int lastWriteErrno = 0;

// What a command produced, to stdout or stderr. A failure leaves the stream's
// error flag set and its errno in lastWriteErrno.
inline void writeTo(std::FILE* f, std::string_view s) {
  if (!s.empty() && std::fwrite(s.data(), 1, s.size(), f) != s.size()) lastWriteErrno = errno;
}

struct DumpOptions {
  bool info = true;
  bool abbrev = false;
  bool pubnames = false;
  bool aranges = false;
  bool loc = false;
  bool str = false;
};

// Appends the selected sections to `out`, in llvm-dwarfdump's order
// (.debug_abbrev, .debug_info, .debug_loc, .debug_aranges, .debug_pubnames, .debug_str).
// With a `stream`, `out` is a buffer: written to the stream whenever it holds
// a megabyte, and at the end, so it returns empty.
void dumpText(const ptxdwarf::ptx::Module& module, const ptxdwarf::read::Dwarf& dwarf,
              const DumpOptions& options, std::string& out, std::FILE* stream = nullptr);
// The same content as JSON: one object, the DIE tree nested; or with
// `lines`, JSON Lines: a line per unit and per DIE (with its parent's offset),
// a line per other section (for tools whose parsers limit nesting depth).
// With a `stream`, written there as it is rendered, like dumpText.
void dumpJson(const ptxdwarf::ptx::Module& module, const ptxdwarf::read::Dwarf& dwarf,
              const DumpOptions& options, std::string& out, std::FILE* stream = nullptr, bool lines = false);

}  // namespace ptxdump
