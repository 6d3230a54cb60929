// The commands on a cubin: what the library's cubin printers say, chosen by
// the options (the DWARF itself goes through the same dump as a PTX file's).
#include "commands.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/print.h"
#include "ptxdwarf/format.h"

namespace ptxdump {

bool isCubinModule(const ptxdwarf::ptx::Module& m) { return m.fileFormat != "ptx"; }

int dumpCubin(const DumpRequest& request, const LoadedFile& file, std::string& out) {
  namespace cubin = ptxdwarf::cubin;
  const ptxdwarf::ptx::Module& m = file.read.module;
  DumpOptions s = request.sections;
  const bool extrasOnly = (request.regmap || request.sassLines) && request.defaultSections;
  // A -lineinfo cubin has no .debug_info: a plain dump shows its line table.
  if (request.defaultSections && (extrasOnly || !m.section(".debug_info"))) {
    s.info = false;
    s.line = !extrasOnly;
  }
  const bool line = s.line;
  s.line = false;  // the PTX line table: a cubin has its own
  const bool dwarf = s.info || s.abbrev || s.loc || s.aranges || s.str || s.pubnames || !s.names.empty();
  if (request.format != Format::text) {
    if (!line && !request.regmap && !request.sassLines) {
      ptxdwarf::print::dumpJson(m, file.dwarf, s, out, {}, request.format == Format::jsonLines);
      return kOk;
    }
    out += "{\"file\":";
    ptxdwarf::appendJsonString(out, file.path);
    if (line) cubin::appendLineTableJsonMembers(m, out += ",");
    if (request.sassLines) cubin::appendSassLinesJsonMembers(m, out += ",");
    if (request.regmap) cubin::appendRegMapJsonMembers(m, out += ",");
    out += "}\n";
    return kOk;
  }
  if (dwarf) {
    ptxdwarf::print::dumpText(m, file.dwarf, s, out, {});
  } else {
    out += file.path;
    out += ":\tfile format ";
    out += m.fileFormat;
    out += "\n";
  }
  if (line) cubin::appendLineTableText(m, out);
  if (request.sassLines) cubin::appendSassLinesText(m, out);
  if (request.regmap) cubin::appendRegMapText(m, out);
  return kOk;
}

int runExtractPtx(const ExtractRequest& request, std::string& out, std::string& err) {
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  const ptxdwarf::ptx::Module& m = file->read.module;
  std::optional<std::string> ptx = isCubinModule(m) ? ptxdwarf::cubin::embeddedPtx(m) : std::nullopt;
  if (!ptx) {
    err += request.file + ": error: --ptx: " +
           (isCubinModule(m) ? "the cubin has no embedded PTX (.nv_debug_ptx_txt: ptxas writes it with -g or -lineinfo)"
                             : "not a cubin (the file is PTX already)") +
           "\n";
    return kUnreadable;
  }
  if (request.output.empty() || request.output == "-") {
    out.append(*ptx);
    return kOk;
  }
  if (std::string error; !writeFileReplacing(request.output, *ptx, error)) {
    err += request.output + ": error: cannot write: " + error + "\n";
    return kUnreadable;
  }
  return kOk;
}

}  // namespace ptxdump
