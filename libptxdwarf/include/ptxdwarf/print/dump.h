// Printing what the library reads: llvm-dwarfdump's text layout of the debug
// sections, and the same content as JSON. What `ptxdump dump` prints, callable
// from a producer's test, the C API or a binding.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::print {

// Where a long output goes as it is rendered: called with each chunk of about
// a megabyte, so the dump of a large file never sits whole in memory.
using Sink = std::function<void(std::string_view)>;

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
// With a `sink`, `out` is a buffer: handed to the sink whenever it holds a
// megabyte, and at the end, so it returns empty.
void dumpText(const ptx::Module& module, const read::Dwarf& dwarf, const DumpOptions& options, std::string& out,
              const Sink& sink = {});
// The same content as JSON: one object, the DIE tree nested; or with
// `lines`, JSON Lines: a line per unit and per DIE (with its parent's offset),
// a line per other section (for tools whose parsers limit nesting depth).
// With a `sink`, handed there as it is rendered, like dumpText.
void dumpJson(const ptx::Module& module, const read::Dwarf& dwarf, const DumpOptions& options, std::string& out,
              const Sink& sink = {}, bool lines = false);

// What `ptxdump dump` shows of one file, chosen as it chooses. With no section
// named (`defaultSections`), the DIE tree -- or, for a file with line
// information and no .debug_info (a -lineinfo build), its line table. A
// cubin's line table is its own .debug_line (the rows ptxas made, inline
// stacks decoded), and on request its register map and SASS -> PTX lines.
enum class DumpFormat { text, json, jsonLines };
struct FileDumpOptions {
  DumpOptions sections;
  bool defaultSections = false;
  DumpFormat format = DumpFormat::text;
  bool regmap = false;     // a cubin's .nv_debug_info_reg_sass
  bool sassLines = false;  // a cubin's .nv_debug_line_sass
};
// Appends to `out` (or hands to `sink`, as dumpText) what the dump shows of the
// module read from `path`, which names it in the output.
void dumpFile(std::string_view path, const ptx::Module& module, const read::Dwarf& dwarf,
              const FileDumpOptions& options, std::string& out, const Sink& sink = {});

}  // namespace ptxdwarf::print
