// Printers for ptxdump: llvm-dwarfdump's text layout, and the same content as JSON.
#pragma once

#include <cstdio>
#include <string>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdump {

struct DumpOptions {
  bool info = true;
  bool abbrev = false;
  bool pubnames = false;
  bool aranges = false;
  bool loc = false;
  bool str = false;
  bool line = false;  // the .file/.loc line table
};

// Appends the selected sections to `out`, in llvm-dwarfdump's order
// (.debug_abbrev, .debug_info, .debug_loc, .debug_aranges, .debug_line, .debug_str, .debug_pubnames).
// With a `stream`, `out` is a buffer: written to the stream whenever it holds
// a megabyte, and at the end, so it returns empty.
void dumpText(const ptxdwarf::ptx::Module& module, const ptxdwarf::read::Dwarf& dwarf,
              const DumpOptions& options, std::string& out, std::FILE* stream = nullptr);
void dumpJson(const ptxdwarf::ptx::Module& module, const ptxdwarf::read::Dwarf& dwarf,
              const DumpOptions& options, std::string& out);

}  // namespace ptxdump
