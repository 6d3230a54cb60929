// Loading a PTX file: the read path ptxdump, the C API and bindings share.
//
// load() brings the text in (a regular file mapped, anything else read),
// reads the PTX, builds the module's name index and decodes the DWARF, with
// one policy for threads and memory:
//
//   Loaded k = ptxdwarf::load("k.ptx");                 // one thread, the text kept
//   if (!k.ok()) for (const Diagnostic& d : k.read.diagnostics.items) ...;  // file:line:col: error: ...
//   view::lookup(k.read.module, k.dwarf, "k.cu:42");
//
// Nothing here starts a thread unless LoadOptions::threads asks for more
// than one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf {

// The largest text load() reads (the whole text is in memory while it is read).
inline constexpr size_t kMaxFileSize = size_t{1} << 30;

// The error of a mapped file that another process truncated while it was read.
inline constexpr const char* kShrankMessage = "cannot read file: it shrank while it was being read";

struct GuardedMap;

// A PTX text's bytes. A regular file is mapped read-only, so nothing is
// copied and the pages are the page cache's; stdin, pipes and devices are
// read into memory, up to the first NUL byte (PTX is text), or to their end
// when they start with the ELF magic (a cubin); a caller's text is viewed
// (borrowed). A mapped file that shrinks while it is read does not kill the
// process (SIGBUS): the pages past its new end read as zeros and shrank()
// says so. (The handler that does this is installed at the first mapping;
// a SIGBUS that is not about a mapping of this class goes to the handler
// installed before it, or kills the process as it would have.)
class FileText {
 public:
  FileText() = default;
  explicit FileText(std::string text) : owned_(std::move(text)) {}
  // A view of `text`, which must outlive this.
  static FileText borrowing(std::string_view text);
  FileText(FileText&& other) noexcept;
  FileText& operator=(FileText&& other) noexcept;
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  ~FileText() { unmap(); }

  // Loads `path` ("-" for stdin), mapped unless `map` is false; false with
  // `error` set on failure (a directory, a file over kMaxFileSize, ...).
  // `program` is who the size-limit error says reads at most kMaxFileSize.
  bool load(const std::string& path, std::string& error, bool map = true, std::string_view program = "ptxdwarf");
  // Did the mapped file lose bytes while it was mapped? Its view then holds
  // zeros where those bytes were.
  bool shrank() const;
  std::string_view view() const {
    return map_ ? std::string_view(map_, size_) : borrowed_ ? std::string_view(borrowed_, size_) : std::string_view(owned_);
  }
  // The view stays where it is for as long as this lives, moved or not (a
  // text read into memory may be a string short enough to move with it).
  bool mapped() const { return map_ != nullptr; }
  // Drops the mapped pages wholly inside [begin, end) from memory (a later
  // read of them faults them back in from the file): the view is unchanged.
  // Nothing to do for text in memory.
  void release(uint64_t begin, uint64_t end) const;

 private:
  void unmap();
  const char* map_ = nullptr;
  const char* borrowed_ = nullptr;
  size_t size_ = 0;
  GuardedMap* guard_ = nullptr;
  std::string owned_;
};

// Reads the whole file into `text` (no mapping: works for pipes); false with
// `error` set on failure.
bool readWholeFile(const std::string& path, std::string& text, std::string& error,
                   std::string_view program = "ptxdwarf");

struct LoadOptions {
  // Threads to read the large `.section` blocks on beside the code
  // (ptx::ReadOptions::threads), and to build the name index on while the
  // sections decode: 1 (the default) runs on the caller's thread only; 0 on
  // one per CPU this process may run on (usableThreads()).
  unsigned threads = 1;
  // The module's name index (Module::reindex): what check, lookup and the
  // statistics resolve symbols with. A plain dump resolves none, and the
  // index of a large file is megabytes it would only touch.
  bool nameIndex = true;
  // What function bodies hold (ptx::ReadOptions::bodies): the line table,
  // the statistics and the checks read it; the DWARF sections alone do not.
  bool bodies = true;
  // Map a regular file (else read it into memory).
  bool map = true;
  // Drop the mapped text's pages as the reader passes them and once the read
  // is done, for a caller that looks at the text again little or not at all
  // (a later read of Loaded::text faults them back in from the file): a
  // large file then needs a few megabytes of it in memory at a time.
  bool releaseText = false;
  // Who the error for a file over kMaxFileSize says reads at most that much.
  std::string_view program = "ptxdwarf";
};

// A PTX text read and decoded. Holds the text, so that views into it (the
// sections' operand positions, a writer's runs of the input) stay valid; it
// may be moved.
struct Loaded {
  std::string path;          // as diagnostics name the file
  FileText text;
  ptx::ReadResult read;      // the module, and every error of the load: the file, the syntax, no .version
  ptxdwarf::read::Dwarf dwarf;  // decoded when the read is ok(); its own diagnostics are the decode's

  bool ok() const { return read.ok(); }
  const ptx::Module& module() const { return read.module; }
};

// Reads and decodes the file at `path` ("-": standard input). On failure
// read.diagnostics holds `file:line:col: error: ...` diagnostics (or
// `file: error: cannot read file: ...`) and the DWARF is not decoded. A
// text without a .version directive is not PTX (ptxas rejects it), an empty
// one included: that is an error too.
Loaded load(const std::string& path, const LoadOptions& options = {});

// The same for a text in memory, which must outlive the Loaded (`map` does
// not apply; nothing is released). `name` is the file diagnostics name.
Loaded loadText(std::string_view text, std::string_view name, const LoadOptions& options = {});

}  // namespace ptxdwarf
