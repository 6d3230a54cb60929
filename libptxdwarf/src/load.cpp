// load(): the text in, read, indexed and decoded (ptxdwarf/load.h).
#include "ptxdwarf/load.h"

#include <cstdint>
#include <utility>

#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/threads.h"

namespace ptxdwarf {

namespace {

unsigned threadsFor(const LoadOptions& options) { return options.threads ? options.threads : usableThreads(); }

// Reads `file.text` into `file.read`; `release` drops the text's pages as
// the reader passes them.
void readText(Loaded& file, const LoadOptions& options, unsigned threads, bool release) {
  ptx::ReadOptions reading;
  reading.threads = threads;
  reading.index = false;  // built by decodeAndIndex, while the sections decode
  reading.bodies = options.bodies;
  if (release) reading.consumed = [&file](uint64_t begin, uint64_t end) { file.text.release(begin, end); };
  file.read = ptx::read(file.text.view(), file.path, reading);
  if (release) file.text.release(0, UINT64_MAX);
}

// The name index and the decoded sections: on two threads when asked for
// more than one, as they share nothing (the decode reads only the sections,
// the index only the names; the decode is the longer).
void decodeAndIndex(Loaded& file, const LoadOptions& options, unsigned threads) {
  ptx::Module& module = file.read.module;
  if (!options.nameIndex) {
    module.indexFiles();
    file.dwarf = read::decode(module.sections);
  } else if (threads == 1) {
    module.reindex();
    file.dwarf = read::decode(module.sections);
  } else {
    runConcurrently([&] { file.dwarf = read::decode(module.sections); }, [&module] { module.reindex(); });
  }
}

// After the text is read: a file that shrank meanwhile, syntax errors, a
// text that is not PTX; else the DWARF decoded.
void finish(Loaded& file, const LoadOptions& options, unsigned threads) {
  if (file.text.shrank()) {
    // What was read past the new end was zeros: the reader's complaints about
    // them say nothing.
    file.read.diagnostics = {};
    file.read.diagnostics.error({}, kShrankMessage);
    return;
  }
  if (!file.read.ok()) return;
  if (!file.read.module.version.present) {
    // ptxas: "Missing .version directive at start of file" -- an empty file
    // included: it is not PTX, not a PTX file without debug information.
    file.read.diagnostics.error({1, 1}, "no .version directive: this is not PTX (ptxas rejects a file without one)");
    return;
  }
  decodeAndIndex(file, options, threads);
}

// A cubin (ELF): its debug sections, relocated, read into the same model
// (cubin::read) and decoded; it has no PTX text to read or index.
void readCubin(Loaded& file, bool release) {
  cubin::ReadOptions options;
  if (release) options.release = [&file](uint64_t begin, uint64_t end) { file.text.release(begin, end); };
  cubin::ReadResult r = cubin::read(file.text.view(), file.path, options);
  file.read.diagnostics = std::move(r.diagnostics);
  if (!file.read.ok()) return;
  file.read.module = std::move(r.module);
  file.dwarf = read::decode(file.read.module.sections);
}

// The text in `file.text`, read as what it is: a cubin, or PTX.
void readLoaded(Loaded& file, const LoadOptions& options, bool release) {
  if (cubin::looksLikeCubin(file.text.view())) {
    readCubin(file, release);
    return;
  }
  const unsigned threads = threadsFor(options);
  startThreads(threads);
  readText(file, options, threads, release);
  finish(file, options, threads);
}

}  // namespace

Loaded load(const std::string& path, const LoadOptions& options) {
  Loaded file;
  file.path = path;
  startThreads(threadsFor(options));  // awake by the time the text is mapped and scanned
  if (std::string error; !file.text.load(path, error, options.map, options.program)) {
    file.read.diagnostics.error({}, "cannot read file: " + error);
    return file;
  }
  readLoaded(file, options, options.releaseText);
  return file;
}

Loaded loadText(std::string_view text, std::string_view name, const LoadOptions& options) {
  Loaded file;
  file.path = name;
  file.text = FileText::borrowing(text);
  readLoaded(file, options, /*release=*/false);
  return file;
}

}  // namespace ptxdwarf
