// Rewriting source paths in PTX debug information (`ptxdump reformat
// --remap-path OLD=NEW`), with the semantics of the C compilers'
// `-ffile-prefix-map=OLD=NEW` as GCC has them: OLD is the argument up to its
// first '=', a path starting with OLD (a plain prefix of the characters, not
// of whole directory names) has it replaced by NEW, and where several options
// match a path the last one given wins.
//
// What is rewritten: the `.file` paths (the line table's file names, which
// DW_AT_decl_file/DW_AT_call_file index), and the unit DIEs' DW_AT_name and
// DW_AT_comp_dir, whether inline (DW_FORM_string) or in `.debug_str`
// (DW_FORM_strp). A string that changes length moves what follows it: the
// unit lengths, unit-relative and section-relative references
// (DW_FORM_ref*, DW_FORM_ref_addr, `.debug_info+N`, `.debug_str+N`),
// labels and relocations inside the sections, and the unit offsets, lengths
// and DIE offsets of `.debug_pubnames` and `.debug_aranges` are moved with it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/ptx_writer.h"

namespace ptxdwarf::write {

struct PathPrefixMap {
  std::string from;  // OLD
  std::string to;    // NEW
};

// "OLD=NEW", split at the first '='; nullopt when there is none.
std::optional<PathPrefixMap> parsePathPrefixMap(std::string_view arg);

// `path` with the prefix of the last of `maps` that matches replaced;
// nullopt when none matches.
std::optional<std::string> remapPath(std::string_view path, std::span<const PathPrefixMap> maps);

struct RemapOptions {
  // Rewrite every debug section in WriteOptions::style (what `reformat`
  // does), not only those whose contents change.
  bool allSections = false;
  WriteOptions write = {};
};

struct RemapStats {
  size_t files = 0;    // `.file` paths rewritten
  size_t strings = 0;  // DWARF strings rewritten
};

struct Remapped {
  std::string ptx = {};          // empty when refused (see diagnostics)
  Diagnostics diagnostics = {};  // errors that refused it
  RemapStats stats = {};
  bool ok() const { return !diagnostics.hasErrors(); }
};

// `module` is ptx::read(text), `dwarf` read::decode(module.sections). A text
// whose DWARF has decoding errors is refused (offsets cannot be moved in
// bytes that were not understood).
Remapped remapPaths(std::string_view text, const ptx::Module& module, const read::Dwarf& dwarf,
                    std::span<const PathPrefixMap> maps, const RemapOptions& options = {});

}  // namespace ptxdwarf::write
