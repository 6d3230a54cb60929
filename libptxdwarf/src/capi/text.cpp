// The C API: PTX text rewritten: annotate, strip, remap paths.
#include "capi.h"

using namespace ptxdwarf;
using namespace ptxdwarf::capi;

// ---- Annotate ------------------------------------------------------------------

ptxdwarf_status ptxdwarf_annotate(const char* text, size_t length, const char* filename,
                                  const ptxdwarf_annotate_options* options, char** out,
                                  ptxdwarf_diagnostics** diagnostics) {
  return guard([&] {
    needOut(out, "out");
    const std::string_view input = textOf(text, length);
    std::string file = filename ? filename : "<input>";
    const Loaded in = loadText(input, file, {.nameIndex = false});  // as `ptxdump annotate` reads
    if (!in.ok()) fail(PTXDWARF_E_PARSE, joinErrors(in.read.diagnostics, file));
    write::AnnotateOptions o;
    o.sourceName = options && options->source_name ? options->source_name : file;
    o.keepLines = options && options->keep_lines;
    o.renameRegisters = options && options->rename_registers;
    o.replace = options && options->replace;
    write::Annotated a = write::annotate(input, in.read.module, o);
    if (!a.written()) fail(PTXDWARF_E_ASSEMBLE, joinErrors(a.diagnostics, file));
    auto found = std::make_unique<ptxdwarf_diagnostics>();
    found->diagnostics = std::move(a.diagnostics);
    *out = mallocCopy(a.ptx);
    if (diagnostics) *diagnostics = found.release();
  });
}

// ---- Strip and remap --------------------------------------------------------

ptxdwarf_status ptxdwarf_strip(const char* text, size_t length, const char* filename, int mode, char** out) {
  return guard([&] {
    needOut(out, "out");
    const std::string_view input = textOf(text, length);
    if (mode != PTXDWARF_STRIP_ALL && mode != PTXDWARF_STRIP_KEEP_LINES)
      fail(PTXDWARF_E_INVALID_ARGUMENT, "unknown strip mode " + std::to_string(mode));
    std::string file = filename ? filename : "<input>";
    const Loaded in = loadText(input, file, {.nameIndex = false});  // as `ptxdump strip` reads
    if (!in.ok()) fail(PTXDWARF_E_PARSE, joinErrors(in.read.diagnostics, file));
    write::Stripped s = write::strip(
        input, in.read.module, mode == PTXDWARF_STRIP_KEEP_LINES ? write::StripMode::keepLines : write::StripMode::all);
    if (!s.ok()) fail(PTXDWARF_E_ASSEMBLE, joinErrors(s.diagnostics, file));
    *out = mallocCopy(s.ptx);
  });
}

ptxdwarf_status ptxdwarf_remap_paths(const char* text, size_t length, const char* filename,
                                     const char* const* maps, size_t count, char** out) {
  return guard([&] {
    needOut(out, "out");
    const std::string_view input = textOf(text, length);
    if (!maps && count) fail(PTXDWARF_E_INVALID_ARGUMENT, "the maps are NULL");
    std::vector<write::PathPrefixMap> parsed;
    for (size_t i = 0; i < count; ++i) {
      std::optional<write::PathPrefixMap> m = maps[i] ? write::parsePathPrefixMap(maps[i]) : std::nullopt;
      if (!m) fail(PTXDWARF_E_INVALID_ARGUMENT, "map " + std::to_string(i) + " is not OLD=NEW");
      parsed.push_back(std::move(*m));
    }
    std::string file = filename ? filename : "<input>";
    // As `ptxdump reformat --remap-path` reads: the DWARF, not the bodies.
    const Loaded in = loadText(input, file, {.nameIndex = false, .bodies = false});
    if (!in.ok()) fail(PTXDWARF_E_PARSE, joinErrors(in.read.diagnostics, file));
    write::Remapped m = write::remapPaths(input, in.read.module, in.dwarf, parsed);
    if (!m.ok()) fail(PTXDWARF_E_ASSEMBLE, joinErrors(m.diagnostics, file));
    *out = mallocCopy(m.ptx);
  });
}

