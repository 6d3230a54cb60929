// `ptxdump strip`: options to the library's write/strip.h, the output
// written whole or not at all.
#include "commands.h"
#include "ptxdwarf/write/strip.h"

namespace ptxdump {

using namespace ptxdwarf;

int runStrip(const StripRequest& request, std::string& out, std::string& err) {
  if (request.output.empty()) {
    err += "ptxdump strip: error: -o OUT is required (`-o -` writes to standard output)\n";
    return kUnreadable;
  }
  std::optional<LoadedFile> file = loadFile(request.file, err, {.keepText = true, .nameIndex = false});
  if (!file) return kUnreadable;
  write::Stripped s = write::strip(file->text.view(), file->read.module,
                                   request.keepLines ? write::StripMode::keepLines : write::StripMode::all);
  for (const Diagnostic& d : s.diagnostics.items) err += d.format(request.file) + "\n";
  if (!s.ok()) return kProblems;
  return !inputShrank(*file, err) && writeOutput(request.output, s.ptx, out, err) ? kOk : kUnreadable;
}

}  // namespace ptxdump
