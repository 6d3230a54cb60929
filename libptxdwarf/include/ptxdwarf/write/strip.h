// Removing debug information from PTX (`ptxdump strip`), for consumers that
// choke on it: PTX-to-other-IR translators that drop the directives, drivers
// too old for `label1-label2` in a section, JITs asked to load a module
// without its DWARF.
//
// The result is the input with whole statements taken out (and `debug` taken
// from `.target`); every other byte is kept, so ptxas makes the same code of
// it (for StripMode::all: the same code as of the input without `, debug`;
// README "strip" says what is compared).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::write {

enum class StripMode : uint8_t {
  // Every debug `.section` (`.debug_*`, `.nv_debug_*`), every `.file` and
  // `.loc`, and `debug` from `.target`.
  all,
  // What a `-lineinfo` build leaves: `.file`/`.loc` stay, and `.debug_str`
  // when a `.loc ... function_name` names a string in it; the other debug
  // sections and `debug` from `.target` go (ptxas refuses `.target debug`
  // without `.debug_info`: "Debug information not found").
  keepLines,
};

struct StripStats {
  size_t sectionBlocks = 0;  // `.section` blocks removed
  size_t files = 0;          // `.file` directives removed
  size_t locs = 0;           // `.loc` directives removed
  bool targetDebug = false;  // `debug` taken from `.target`
};

struct Stripped {
  std::string ptx = {};          // the stripped text; empty when refused (see diagnostics)
  Diagnostics diagnostics = {};  // errors that refused it
  StripStats stats = {};
  bool ok() const { return !diagnostics.hasErrors(); }
};

// `module` is ptx::read(text) with its bodies recorded (ReadOptions::bodies:
// the `.loc` directives are found there).
Stripped strip(std::string_view text, const ptx::Module& module, StripMode mode = StripMode::all);

}  // namespace ptxdwarf::write
