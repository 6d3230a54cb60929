// `ptxdump dump` (the default command): the debug sections in llvm-dwarfdump's
// layout, as JSON, or llvm-dwarfdump --statistics' object.
#include "commands.h"
#include "ptxdwarf/view/statistics.h"
#include "ptxdwarf/print/views.h"

namespace ptxdump {

using namespace ptxdwarf;

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
    if (request.statistics) {
      ptxdwarf::print::statisticsJson(path, ptxdwarf::view::computeStatistics(m, file->dwarf), out);
    } else {
      ptxdwarf::print::dumpFile(path, m, file->dwarf, request, out, sink);
    }
    if (decodeFailed(*file, err)) status = kUnreadable;
  }
  return status;
}

}  // namespace ptxdump
