// What `ptxdump dump` shows of one file: the sections asked for, the default
// when none is, and a cubin's own tables beside its DWARF.
#include "ptxdwarf/print/cubin.h"
#include "ptxdwarf/print/dump.h"

namespace ptxdwarf::print {

namespace {

bool isCubin(const ptx::Module& m) { return m.fileFormat != "ptx"; }

bool hasDebugSections(const ptx::Module& m) {
  for (const SectionImage& s : m.sections)
    if (s.name.starts_with(".debug")) return true;
  return false;
}

bool hasLineInformation(const ptx::Module& m) { return !m.files.empty() || !m.locs.empty(); }

bool showsDwarf(const DumpOptions& s) {
  return s.info || s.abbrev || s.loc || s.aranges || s.str || s.pubnames || !s.names.empty();
}

// A cubin: its DWARF through the same dump as a PTX file's; its line table
// (its own .debug_line, not the PTX's `.file`/`.loc`), SASS lines and
// register map after it -- in JSON, members of one object beside "file".
void dumpCubin(std::string_view path, const ptx::Module& m, const read::Dwarf& dwarf,
               const FileDumpOptions& options, std::string& out, const Sink& sink) {
  DumpOptions s = options.sections;
  const bool extrasOnly = (options.regmap || options.sassLines) && options.defaultSections;
  if (options.defaultSections && (extrasOnly || !m.section(".debug_info"))) {
    s.info = false;
    s.line = !extrasOnly;  // a -lineinfo cubin: its line table
  }
  const bool line = s.line;
  s.line = false;
  if (options.format != DumpFormat::text) {
    if (!line && !options.regmap && !options.sassLines)
      return dumpJson(m, dwarf, s, out, sink, options.format == DumpFormat::jsonLines);
    JsonWriter w(out);
    w.objectBegin();
    w.field("file", path);
    if (line) cubinLineTablesJson(m, w);
    if (options.sassLines) sassLinesJson(m, w);
    if (options.regmap) regMapJson(m, w);
    w.objectEnd();
    out += "\n";
  } else {
    if (showsDwarf(s)) {
      dumpText(m, dwarf, s, out, sink);
    } else {
      out += path;
      out += ":\tfile format ";
      out += m.fileFormat;
      out += "\n";
    }
    if (line) cubinLineTablesText(m, out);
    if (options.sassLines) sassLinesText(m, out);
    if (options.regmap) regMapText(m, out);
  }
  if (sink && !out.empty()) {
    sink(out);
    out.clear();
  }
}

}  // namespace

void dumpFile(std::string_view path, const ptx::Module& m, const read::Dwarf& dwarf,
              const FileDumpOptions& options, std::string& out, const Sink& sink) {
  if (isCubin(m)) return dumpCubin(path, m, dwarf, options, out, sink);
  DumpOptions s = options.sections;
  if (options.defaultSections && !m.section(".debug_info") && hasLineInformation(m)) {
    s.info = false;  // a -lineinfo build: its line table
    s.line = true;
  }
  if (options.format != DumpFormat::text) return dumpJson(m, dwarf, s, out, sink, options.format == DumpFormat::jsonLines);
  if (hasDebugSections(m) || hasLineInformation(m)) return dumpText(m, dwarf, s, out, sink);
  out += path;
  out += ": no debug sections\n";
  if (sink) {
    sink(out);
    out.clear();
  }
}

}  // namespace ptxdwarf::print
