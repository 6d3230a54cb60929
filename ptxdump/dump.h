// Printers for ptxdump: llvm-dwarfdump's text layout, and the same content as JSON.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
  bool line = false;  // the .file/.loc line table

  // llvm-dwarfdump's DIE selection (.debug_info): with `names`, only the DIEs
  // whose name or linkage name matches are dumped (and nothing else).
  std::vector<std::string> names;
  bool ignoreCase = false;
  bool regex = false;          // names are POSIX extended regular expressions, searched for
  bool showChildren = false;   // -c: a selected DIE's children too
  bool showParents = false;    // -p: a selected DIE's parents first
  uint32_t recurseDepth = UINT32_MAX;  // -r: levels of children shown
  bool showForm = false;       // print each attribute's form
};

// With `regex`: false, and the reason in `error`, when a name is not a valid pattern.
bool validNamePatterns(const DumpOptions& options, std::string& error);

// Appends the selected sections to `out`, in llvm-dwarfdump's order
// (.debug_abbrev, .debug_info, .debug_loc, .debug_aranges, .debug_line, .debug_str, .debug_pubnames).
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
