// ptxdump's files: the input loaded through the library's load() with
// ptxdump's defaults, diagnostics as the commands print them, and outputs
// written whole or not at all.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/load.h"

namespace ptxdump {

using ptxdwarf::FileText;
using ptxdwarf::readWholeFile;

// A PTX file read and decoded (ptxdwarf::load).
using LoadedFile = ptxdwarf::Loaded;

// ptxdwarf::LoadOptions as ptxdump's commands ask: the text's pages released
// as the reader passes them, on every usable CPU, unless a command says.
struct LoadOptions {
  // Unless set, the text's pages are released as the reader passes them
  // (commands that do not look at the text again need only a few megabytes
  // of it in memory at a time).
  bool keepText = false;
  // A large file is read on up to this many threads (0: one per CPU this
  // process may run on).
  unsigned threads = 0;
  bool nameIndex = true;  // LoadOptions::nameIndex
  bool bodies = true;     // LoadOptions::bodies
};

// Reads and decodes `path` (ptxdwarf::load); appends its diagnostics (errors,
// or warnings worth knowing) as `file:line:col: severity: ...` lines to `err`;
// nullopt on failure.
std::optional<LoadedFile> loadFile(const std::string& path, std::string& err, const LoadOptions& load = {});

// One line per diagnostic, `file:line:col: severity: message [rule]`, with
// ` (section+0xOFFSET)` after one that has both a PTX position and a section
// offset (one without a line names its offset in place of the position).
void appendDiagnostics(const ptxdwarf::Diagnostics& diags, const std::string& path, std::string& err);

// The DWARF's decode errors, appended to `err` as appendDiagnostics writes
// them; false when it decoded without one.
bool decodeFailed(const LoadedFile& file, std::string& err);

// Did the mapped input lose bytes while it was read, or while an output was
// copied from it? Then `FILE: error: cannot read file: ...` goes to `err`.
bool inputShrank(const LoadedFile& file, std::string& err);

// `data` to `out` for "-" or no path, else to `path` whole or not at all
// (ReplacingFile); false with `PATH: error: cannot write: ...` appended
// to `err` when it cannot be written.
bool writeOutput(const std::string& path, std::string_view data, std::string& out, std::string& err);

// An output file written in pieces as they are made, through a temporary
// file beside `path` renamed over it only once every byte is written (and,
// when it replaces a file, synced to disk): a full disk or a file size limit
// leaves `path` as it was (even when `path` is the input). A path that exists
// and is not a regular file (/dev/null, a FIFO) is written to directly. The
// temporary file is opened at the first piece, so a command that refuses its
// input creates nothing; one destroyed before commit() leaves `path` as it
// was and removes its temporary file.
class ReplacingFile {
 public:
  explicit ReplacingFile(std::string path) : path_(std::move(path)) {}
  ReplacingFile(const ReplacingFile&) = delete;
  ReplacingFile& operator=(const ReplacingFile&) = delete;
  ~ReplacingFile();
  void write(std::string_view piece);  // a failure is reported by commit()
  // Puts the file in place (an empty one when no piece came); false with
  // `PATH: error: cannot write: ...` appended to `err`.
  bool commit(std::string& err);

 private:
  void open();                      // at the first piece; a failure goes to openError_
  bool replace(std::string& error);  // commit() of an opened file
  std::string path_, target_, temp_, openError_;
  struct stat st_ {};
  bool opened_ = false, exists_ = false, direct_ = false, ok_ = true;
  int fd_ = -1;
  int errno_ = 0;
};
// Do `a` and `b` name the same existing file?
bool sameFile(const std::string& a, const std::string& b);

// errno of the last write through writeTo() that failed (0: none did), for
// the message that a failed write to stdout ends with.
inline int lastWriteErrno = 0;

// What a command produced, to stdout or stderr. A failure leaves the stream's
// error flag set and its errno in lastWriteErrno.
inline void writeTo(std::FILE* f, std::string_view s) {
  if (!s.empty() && std::fwrite(s.data(), 1, s.size(), f) != s.size()) lastWriteErrno = errno;
}

}  // namespace ptxdump
