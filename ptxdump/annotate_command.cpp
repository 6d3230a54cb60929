// `ptxdump annotate`: debug information for PTX that has none (write/annotate.h).
#include "commands.h"
#include "ptxdwarf/write/annotate.h"

namespace ptxdump {

using namespace ptxdwarf;

int runAnnotate(const AnnotateRequest& request, std::string& out, std::string& err) {
  // Read as `check` reads (mapped, on every usable CPU), keeping the text:
  // the output is the text with lines added. No name index: annotate looks
  // no symbol up.
  std::optional<LoadedFile> loaded =
      loadFile(request.file, err, {.keepText = true, .threads = request.jobs, .nameIndex = false});
  if (!loaded) return kUnreadable;
  const std::string_view text = loaded->text.view();
  const ptx::ReadResult& r = loaded->read;
  write::AnnotateOptions options;
  options.sourceName = request.sourceName.empty() ? request.file : request.sourceName;
  options.keepLines = request.keepLines;
  options.renameRegisters = request.renameRegisters;
  options.replace = request.replace;
  options.threads = request.jobs;
  options.maxGrowth = request.maxGrowth;
  // To a file whole or not at all: `annotate x.ptx -o x.ptx` that fails
  // keeps x.ptx. The output (about five times the input) goes to the file as
  // it is made, never held whole; a refused input creates nothing
  // (ReplacingFile).
  const bool toFile = !request.output.empty() && request.output != "-";
  ReplacingFile file(request.output);
  write::Annotated a =
      toFile ? write::annotate(text, r.module, options, [&](std::string_view piece) { file.write(piece); })
             : write::annotate(text, r.module, options);
  for (const Diagnostic& d : a.diagnostics.items) err += d.format(request.file) + "\n";
  if (!a.written()) return kProblems;
  if (inputShrank(*loaded, err)) return kUnreadable;  // the temporary file goes, the output stays as it was
  if (toFile) return file.commit(err) ? kOk : kUnreadable;
  out += a.ptx;
  return kOk;
}

}  // namespace ptxdump
