// `ptxdump dump` (the default command): the debug sections in llvm-dwarfdump's
// layout, as JSON, or llvm-dwarfdump --statistics' object.
#include "commands.h"
#include "ptxdwarf/view/statistics.h"
#include "report.h"
#include "ptxdwarf/print/views.h"

namespace ptxdump {

using namespace ptxdwarf;

namespace {

bool hasDebugSections(const ptx::Module& m) {
  for (const SectionImage& s : m.sections)
    if (s.name.starts_with(".debug")) return true;
  return false;
}

bool hasLineInformation(const ptx::Module& m) { return !m.files.empty() || !m.locs.empty(); }

// What a dump shows when the user named no section: the DIE tree, or for a
// file with line information and no DIEs (a -lineinfo build) its line table.
DumpOptions sectionsToShow(const DumpRequest& request, const ptx::Module& m) {
  DumpOptions s = request.sections;
  if (request.defaultSections && !m.section(".debug_info") && hasLineInformation(m)) {
    s.info = false;
    s.line = true;
  }
  return s;
}


}  // namespace

int runDump(const DumpRequest& request, std::string& out, std::string& err) {
  int status = kOk;
  if (request.format == Format::json && !request.sections.names.empty()) {
    err += "ptxdump: error: --name selects DIEs of the text dump (llvm-dwarfdump's); it has no JSON form\n";
    return kUnreadable;
  }
  if (std::string error; !ptxdwarf::print::validNamePatterns(request.sections, error)) {
    err += "ptxdump: " + error + "\n";
    return kUnreadable;
  }
  // The DIE tree, the location lists and the other sections need nothing
  // of the code; the line table and the statistics need all of it.
  const bool bodies = request.statistics || request.sections.line;
  ptxdwarf::print::Sink sink;
  if (request.stream) sink = [&request](std::string_view s) { writeTo(request.stream, s); };
  for (const std::string& path : request.files) {
    std::string readErr;  // the read's warnings: said once, by the read that is kept
    std::optional<LoadedFile> file = loadFile(path, readErr, {.nameIndex = request.statistics, .bodies = bodies});
    // Without .debug_info a plain dump may show the line table instead, or
    // say there is nothing to show: both depend on the `.loc` lines.
    if (file && !bodies && !file->read.module.section(".debug_info")) {
      readErr.clear();
      file = loadFile(path, readErr, {.nameIndex = false});
    }
    err += readErr;
    if (!file) {
      status = kUnreadable;
      continue;
    }
    const ptx::Module& m = file->read.module;
    if (isCubinModule(m) && !request.statistics) {
      dumpCubin(request, *file, out);
      continue;
    }
    if (request.statistics) {
      ptxdwarf::print::statisticsJson(path, ptxdwarf::view::computeStatistics(m, file->dwarf), out);
      if (file->dwarf.diagnostics.hasErrors()) {
        appendDiagnostics(file->dwarf.diagnostics, path, err);
        status = kUnreadable;
      }
      continue;
    }
    const DumpOptions sections = sectionsToShow(request, m);
    if (request.format != Format::text) {
      ptxdwarf::print::dumpJson(m, file->dwarf, sections, out, sink, request.format == Format::jsonLines);
    } else if (!hasDebugSections(m) && !hasLineInformation(m)) {
      out += path + ": no debug sections\n";
      continue;
    } else {
      ptxdwarf::print::dumpText(m, file->dwarf, sections, out, sink);  // starts with llvm-dwarfdump's file line
    }
    if (file->dwarf.diagnostics.hasErrors()) {
      appendDiagnostics(file->dwarf.diagnostics, path, err);
      status = kUnreadable;
    }
  }
  return status;
}

}  // namespace ptxdump
