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
  ptx::ReadOptions readOptions;
  readOptions.threads = 0;  // as `check` reads: one part per hardware thread
  ptx::ReadResult r = ptx::read(text, request.file, readOptions);
  for (const Diagnostic& d : r.diagnostics.items) err += d.format(request.file) + "\n";
  if (!r.ok()) return kUnreadable;
  write::AnnotateOptions options;
  options.sourceName = request.sourceName.empty() ? request.file : request.sourceName;
  options.keepLines = request.keepLines;
  options.renameRegisters = request.renameRegisters;
  options.replace = request.replace;
  if (request.output.empty() || request.output == "-") {
    write::Annotated a = write::annotate(text, r.module, options);
    for (const Diagnostic& d : a.diagnostics.items) err += d.format(request.file) + "\n";
    if (!a.written()) return kProblems;
    out += a.ptx;
    return kOk;
  }
  // Whole or not at all: `annotate x.ptx -o x.ptx` that fails keeps x.ptx.
  // The output (about five times the input) goes to the file as it is made,
  // never held whole; the file is opened at the first piece, so a refused
  // input creates nothing.
  ReplacingFile file;
  std::string openError;
  write::Annotated a = write::annotate(text, r.module, options, [&](std::string_view piece) {
    if (!file.isOpen() && openError.empty() && !file.open(request.output, openError)) return;
    if (file.isOpen()) file.write(piece);
  });
  for (const Diagnostic& d : a.diagnostics.items) err += d.format(request.file) + "\n";
  if (!a.written()) return kProblems;
  std::string writeError = openError;
  if (writeError.empty()) file.commit(writeError);
  if (!writeError.empty()) {
    err += request.output + ": error: cannot write: " + writeError + "\n";
    return kUnreadable;
  }
  return kOk;
}

}  // namespace ptxdump
