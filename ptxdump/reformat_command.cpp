// `ptxdump reformat`: options to the library's write::reformat (write/reformat.h),
// or with --remap-path to write::remapPaths (write/remap.h), the text to a file
// written whole or not at all, or to the stream.
#include <vector>

#include "commands.h"
#include "ptxdwarf/threads.h"
#include "ptxdwarf/write/reformat.h"
#include "ptxdwarf/write/remap.h"

namespace ptxdump {

using namespace ptxdwarf;

namespace {

// reformat --remap-path: paths rewritten (write/remap.h), the debug sections
// then written as reformat writes them. Exit 0 written, 1 refused, 2
// unreadable or a malformed OLD=NEW.
int remap(const ReformatRequest& request, write::Style style, std::string& out, std::string& err) {
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
  std::optional<LoadedFile> file = loadFile(request.file, err, {.keepText = true, .nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  write::RemapOptions options;
  options.allSections = true;  // reformat writes every debug section in --style
  options.write.style = style;
  options.write.threads = ptxdwarf::usableThreads();  // as reformat writes them
  write::Remapped r = write::remapPaths(file->text.view(), file->read.module, file->dwarf, maps, options);
  for (const Diagnostic& d : r.diagnostics.items) err += d.format(request.file) + "\n";
  if (!r.ok()) return kProblems;
  return !inputShrank(*file, err) && writeOutput(request.output, r.ptx, out, err) ? kOk : kUnreadable;
}

}  // namespace

int runReformat(const ReformatRequest& request, std::string& out, std::string& err) {
  std::optional<write::Style> style = write::parseStyle(request.style);
  if (!style) {
    err += "error: unknown style '" + request.style + "' (packed, one-per-line, verbose or dense)\n";
    return kUnreadable;
  }
  if (!request.remapPaths.empty()) return remap(request, *style, out, err);
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
