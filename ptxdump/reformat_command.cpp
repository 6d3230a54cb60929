// `ptxdump reformat`: options to the library's write::reformat (write/reformat.h),
// the text to a file written whole or not at all, or to the stream.
#include "commands.h"
#include "ptxdwarf/threads.h"
#include "ptxdwarf/write/reformat.h"

namespace ptxdump {

using namespace ptxdwarf;

int runReformat(const ReformatRequest& request, std::string& out, std::string& err) {
  if (!request.remapPaths.empty()) return runRemap(request, out, err);
  std::optional<write::Style> style = write::parseStyle(request.style);
  if (!style) {
    err += "error: unknown style '" + request.style + "' (packed, one-per-line, verbose or dense)\n";
    return kUnreadable;
  }
  // Every byte outside the debug sections goes out as it came in, read back
  // from the mapped file as it is written: the reader releases the text's
  // pages as it passes them, and the writer those of each run it hands over.
  // At 20 MB the peak is 1.7 times the input so; the text held whole and the
  // output built in memory made it 3.6 times. What function bodies hold and
  // the name index are not looked at.
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  if (decodeFailed(*file, err)) return kUnreadable;
  // The library runs on the caller's thread unless asked; ptxdump asks for
  // every CPU it may use, as it reads the file with.
  const write::ReformatOptions options{
      .style = *style, .reencode = request.reencode, .threads = ptxdwarf::usableThreads(), .releaseText = true};
  // The text goes out as it is made, never held whole (it is larger than the
  // input): to a temporary file renamed when all is written, or to the
  // stream. A refused input creates no file and writes nothing.
  const bool toFile = !request.output.empty() && request.output != "-";
  ReplacingFile outputFile(request.output);
  write::Reformatted r;
  if (toFile) r = write::reformat(*file, options, [&](std::string_view piece) { outputFile.write(piece); });
  else if (request.stream) r = write::reformat(*file, options, [&](std::string_view piece) { writeTo(request.stream, piece); });
  else r = write::reformat(*file, options);
  appendDiagnostics(r.diagnostics, request.file, err);
  if (!r.written) return kProblems;
  // The text was read again while writing: a temporary file goes; a stream got it cut.
  if (inputShrank(*file, err)) return kUnreadable;
  if (toFile) return outputFile.commit(err) ? kOk : kUnreadable;
  out += r.ptx;  // empty when the stream took it; a failed write to the stream is the caller's exit 2
  return kOk;
}

}  // namespace ptxdump
