// `ptxdump lookup`: the file loaded, view::lookup, its text or JSON out.
#include "commands.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/views.h"
#include "ptxdwarf/view/lookup.h"

namespace ptxdump {

int runLookup(const LookupRequest& request, std::string& out, std::string& err) {
  std::optional<LoadedFile> file = loadFile(request.file, err);
  if (!file) return kUnreadable;
  ptxdwarf::view::LookupResult r = ptxdwarf::view::lookup(*file, request.at);
  if (request.format == Format::json) ptxdwarf::print::lookupJson(request.file, request.at, r, out);
  else ptxdwarf::print::lookupText(request.file, request.at, r, out);
  if (r.matches.empty()) {
    ptxdwarf::appendEscaped(err, request.file);
    err += ": error: ";
    ptxdwarf::appendUnprintableEscaped(err, r.error);
    err += '\n';
    return kProblems;
  }
  return kOk;
}

}  // namespace ptxdump
