// `ptxdump strip` and `ptxdump reformat --remap-path`: options to the
// library's write/strip.h and write/remap.h, the output written whole or
// not at all.
#include <vector>

#include "commands.h"
#include "ptxdwarf/threads.h"
#include "ptxdwarf/write/remap.h"
#include "ptxdwarf/write/strip.h"

namespace ptxdump {

using namespace ptxdwarf;

namespace {

void report(const Diagnostics& diags, const std::string& file, std::string& err) {
  for (const Diagnostic& d : diags.items) err += d.format(file) + "\n";
}

}  // namespace

int runStrip(const StripRequest& request, std::string& out, std::string& err) {
  if (request.output.empty()) {
    err += "ptxdump strip: error: -o OUT is required (`-o -` writes to standard output)\n";
    return kUnreadable;
  }
  std::optional<LoadedFile> file = loadFile(request.file, err, {.keepText = true, .nameIndex = false});
  if (!file) return kUnreadable;
  write::Stripped s = write::strip(file->text.view(), file->read.module,
                                   request.keepLines ? write::StripMode::keepLines : write::StripMode::all);
  report(s.diagnostics, request.file, err);
  if (!s.ok()) return kProblems;
  return !inputShrank(*file, err) && writeOutput(request.output, s.ptx, out, err) ? kOk : kUnreadable;
}

int runRemap(const ReformatRequest& request, std::string& out, std::string& err) {
  std::vector<write::PathPrefixMap> maps;
  for (const std::string& arg : request.remapPaths) {
    std::optional<write::PathPrefixMap> m = write::parsePathPrefixMap(arg);
    if (!m) {
      err += "ptxdump reformat: error: --remap-path takes OLD=NEW (as -ffile-prefix-map), not '" + arg + "'\n";
      return kUnreadable;
    }
    maps.push_back(std::move(*m));
  }
  if (request.reencode) {
    err += "ptxdump reformat: error: --remap-path moves offsets in the sections as they are; it does not combine "
           "with --reencode\n";
    return kUnreadable;
  }
  std::optional<write::Style> style = write::parseStyle(request.style);
  if (!style) {
    err += "error: unknown style '" + request.style + "' (packed, one-per-line, verbose or dense)\n";
    return kUnreadable;
  }
  std::optional<LoadedFile> file = loadFile(request.file, err, {.keepText = true, .nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  write::RemapOptions options;
  options.allSections = true;  // reformat writes every debug section in --style
  options.write.style = *style;
  options.write.threads = ptxdwarf::usableThreads();  // as reformat writes them
  write::Remapped r = write::remapPaths(file->text.view(), file->read.module, file->dwarf, maps, options);
  report(r.diagnostics, request.file, err);
  if (!r.ok()) return kProblems;
  return !inputShrank(*file, err) && writeOutput(request.output, r.ptx, out, err) ? kOk : kUnreadable;
}

}  // namespace ptxdump
