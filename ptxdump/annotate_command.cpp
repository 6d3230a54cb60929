// `ptxdump annotate`: debug information for PTX that has none (write/annotate.h).
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "ptxdwarf/write/annotate.h"

namespace ptxdump {

using namespace ptxdwarf;

int runAnnotate(const AnnotateRequest& request, std::string& out, std::string& err) {
  std::string text, error;
  if (!readWholeFile(request.file, text, error)) {
    err += request.file + ": error: cannot read: " + error + "\n";
    return kUnreadable;
  }
  ptx::ReadResult r = ptx::read(text, request.file);
  for (const Diagnostic& d : r.diagnostics.items) err += d.format(request.file) + "\n";
  if (!r.ok()) return kUnreadable;
  write::AnnotateOptions options;
  options.sourceName = request.sourceName.empty() ? request.file : request.sourceName;
  options.keepLines = request.keepLines;
  options.renameRegisters = request.renameRegisters;
  options.replace = request.replace;
  write::Annotated a = write::annotate(text, r.module, options);
  for (const Diagnostic& d : a.diagnostics.items) err += d.format(request.file) + "\n";
  if (!a.written()) return kProblems;
  if (request.output.empty() || request.output == "-") {
    out += a.ptx;
    return kOk;
  }
  // Whole or not at all: `annotate x.ptx -o x.ptx` that fails keeps x.ptx.
  if (std::string error; !writeFileReplacing(request.output, a.ptx, error)) {
    err += request.output + ": error: cannot write: " + error + "\n";
    return kUnreadable;
  }
  return kOk;
}

}  // namespace ptxdump
