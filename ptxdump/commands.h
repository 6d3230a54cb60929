// ptxdump's subcommands as functions: the CLI parses arguments and calls these;
// tests call them directly. Each returns the process exit code:
// 0 success, 1 problems found, 2 a file could not be read or parsed.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dump.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdump {

enum Exit : int { kOk = 0, kProblems = 1, kUnreadable = 2 };


struct GuardedMap;

// A file's bytes. A regular file is mapped read-only, so nothing is copied
// and the pages are the page cache's; stdin, pipes and devices are read into
// memory, up to the first NUL byte. A mapped file that shrinks while it is
// read does not kill the process (SIGBUS): the pages past its new end read as
// zeros and shrank() says so.
class FileText {
 public:
  FileText() = default;
  explicit FileText(std::string text) : owned_(std::move(text)) {}
  FileText(FileText&& other) noexcept;
  FileText& operator=(FileText&& other) noexcept;
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  ~FileText() { unmap(); }

  // Loads `path` ("-" for stdin), mapped unless `map` is false; false with
  // `error` set on failure (a directory, a file over kMaxFileSize, ...).
  bool load(const std::string& path, std::string& error, bool map = true);
  // Did the mapped file lose bytes while it was mapped? Its view then holds
  // zeros where those bytes were.
  bool shrank() const;
  std::string_view view() const { return map_ ? std::string_view(map_, size_) : std::string_view(owned_); }
  // The view stays where it is for as long as this lives, moved or not (a
  // text read into memory may be a string short enough to move with it).
  bool mapped() const { return map_ != nullptr; }
  // Drops the mapped pages wholly inside [begin, end) from memory (a later
  // read of them faults them back in from the file). Nothing to do for text
  // read into memory.
  void release(uint64_t begin, uint64_t end);

 private:
  void unmap();
  const char* map_ = nullptr;
  size_t size_ = 0;
  GuardedMap* guard_ = nullptr;
  std::string owned_;
};

// A PTX file read and decoded. Holds the text so that views into it stay valid.
struct LoadedFile {
  std::string path;
  FileText text;
  ptxdwarf::ptx::ReadResult read;
  ptxdwarf::read::Dwarf dwarf;
};

struct LoadOptions {
  // Unless set, the text's pages are released as the reader passes them
  // (commands that do not look at the text again need only a few megabytes
  // of it in memory at a time).
  bool keepText = false;
  // A large file is read on up to this many threads (0: one per CPU this
  // process may run on).
  unsigned threads = 0;
  // The module's name index (Module::reindex): what check, lookup and the
  // statistics resolve symbols with. A plain dump resolves none, and the
  // index of a large file is megabytes it would only touch.
  bool nameIndex = true;
  // What function bodies hold (ReadOptions::bodies): the line table, the
  // statistics and every command but a dump of the DWARF sections read it.
  bool bodies = true;
};

struct DumpRequest;
// dump on a cubin: its DWARF as for PTX, and its line tables and register map (cubin_commands.cpp).
int dumpCubin(const DumpRequest& request, const LoadedFile& file, std::string& out);

// Reads and decodes `path`; on failure appends `file:line:col: error: ...` lines
// to `err` and returns nullopt.
std::optional<LoadedFile> loadFile(const std::string& path, std::string& err, const LoadOptions& load = {});
// The largest file ptxdump reads (the whole file is held in memory).
inline constexpr size_t kMaxFileSize = size_t{1} << 30;

// Reads the whole file into `text` (no mapping: works for pipes); false with
// `error` set on failure.
bool readWholeFile(const std::string& path, std::string& text, std::string& error);

// Writes `data` to `path` through a temporary file beside it, renamed over
// `path` only once every byte is written (and, when it replaces a file,
// synced to disk): a full disk or a file size limit leaves `path` as it was
// (even when `path` is the input). A path
// that exists and is not a regular file (/dev/null, a FIFO) is written to
// directly. False with `error` set on failure.
bool writeFileReplacing(const std::string& path, std::string_view data, std::string& error);

// The same, written in pieces: open(), write() as often as needed, then
// commit() (which replaces `path`); a file destroyed before commit() leaves
// `path` as it was and removes its temporary file.
class ReplacingFile {
 public:
  ReplacingFile() = default;
  ReplacingFile(const ReplacingFile&) = delete;
  ReplacingFile& operator=(const ReplacingFile&) = delete;
  ~ReplacingFile();
  bool open(const std::string& path, std::string& error);
  bool isOpen() const { return fd_ >= 0; }
  void write(std::string_view data);  // a failure is reported by commit()
  bool commit(std::string& error);

 private:
  std::string target_, temp_;
  struct stat st_ {};
  bool exists_ = false, direct_ = false, ok_ = true;
  int fd_ = -1;
  int errno_ = 0;
};
// An output file written in pieces as they are made: the temporary file
// is opened at the first piece, so a command that refuses its input creates
// nothing, and renamed over `path` by commit() once all is written.
class PiecewiseFile {
 public:
  explicit PiecewiseFile(std::string path) : path_(std::move(path)) {}
  void write(std::string_view piece);
  // Puts the file in place (an empty one when no piece came); false with
  // `PATH: error: cannot write: ...` appended to `err`.
  bool commit(std::string& err);

 private:
  std::string path_;
  ReplacingFile file_;
  std::string openError_;
};
// Do `a` and `b` name the same existing file?
bool sameFile(const std::string& a, const std::string& b);

enum class Format { text, json, jsonLines };

struct DumpRequest {
  std::vector<std::string> files;
  DumpOptions sections;
  // No section was asked for: .debug_info, or the line table of a file that
  // has line information and no .debug_info (a -lineinfo build).
  bool defaultSections = false;
  Format format = Format::text;
  std::FILE* stream = nullptr;  // dumps go here as they are rendered, not to `out`
  // --statistics: llvm-dwarfdump --statistics' JSON object instead of the sections.
  bool statistics = false;
  // A cubin's register map (.nv_debug_info_reg_sass) and SASS -> PTX lines (.nv_debug_line_sass).
  bool regmap = false;
  bool sassLines = false;
};
int runDump(const DumpRequest& request, std::string& out, std::string& err);
// Was the module read from a cubin (cubin::read)?
bool isCubinModule(const ptxdwarf::ptx::Module& m);

struct TypesRequest {
  std::string file;
  std::vector<std::string> names;  // empty: every type; else those whose qualified or plain name is one of these
  Format format = Format::text;
};
// The type layouts (view::typeLayouts) as C declarations with pahole's
// comments, or as JSON. Exit 0, 1 when --name matches nothing, 2 unreadable.
int runTypes(const TypesRequest& request, std::string& out, std::string& err);

struct ExtractRequest {
  std::string file;
  std::string section;     // with or without the leading dot
  std::string output;      // empty: no raw bytes written
  bool relocations = false;  // print relocations to `out`
  bool ptx = false;          // --ptx: a cubin's embedded PTX text (.nv_debug_ptx_txt)
};
// Raw bytes go to `request.output` ("-" for `out`); relocations, one per line,
// as `offset size expression` to `out`.
int runExtract(const ExtractRequest& request, std::string& out, std::string& err);
int runExtractPtx(const ExtractRequest& request, std::string& out, std::string& err);

struct CheckRequest {
  std::vector<std::string> files;
  bool werror = false;      // warnings count as errors
  bool roundTrip = true;
  unsigned jobs = 1;        // files checked in parallel
  bool sources = false;     // --sources[=DIR]: rule source-file (check/sources.h)
  std::string sourceDirectory;
};
// Diagnostics to `err` as `file:line:col: severity: message [rule] (section+offset)`,
// then one summary line per file and a total to `out`. Exit 0 clean, 1 problems, 2 unreadable.
int runCheck(const CheckRequest& request, std::string& out, std::string& err);
// `check --list-rules`: one line per rule, `id  severity  what it checks  ptxas: what ptxas 13 does`.
std::string listRules();

struct ReformatRequest {
  std::string file;
  std::string output;            // empty or "-": to `out`
  std::string style = "packed";  // packed | one-per-line | verbose | dense
  bool reencode = false;         // through the canonical encoder
  std::FILE* stream = nullptr;   // without -o the text goes here as it is made, not to `out`
  std::vector<std::string> remapPaths = {};  // --remap-path OLD=NEW, in order given (write/remap.h)
};
// Rewrites only the debug sections; every other byte of the file is kept.
// Exit 0 written, 1 the sections cannot be written for this .version, 2 unreadable.
int runReformat(const ReformatRequest& request, std::string& out, std::string& err);

// reformat --remap-path (runReformat calls it): paths rewritten, the debug
// sections then written as reformat writes them. Exit 0 written, 1 refused, 2
// unreadable or a malformed OLD=NEW.
int runRemap(const ReformatRequest& request, std::string& out, std::string& err);

struct StripRequest {
  std::string file;
  std::string output;       // required; "-" for `out`
  bool keepLines = false;   // --keep-lines, else --all
};
// `ptxdump strip` (write/strip.h). Exit 0 written, 1 refused, 2 unreadable or not written.
int runStrip(const StripRequest& request, std::string& out, std::string& err);

struct AnnotateRequest {
  std::string file;
  std::string output;            // empty or "-": to `out`
  std::string sourceName;        // what `.file 1` names (empty: `file` as given)
  bool keepLines = false;        // keep existing .file/.loc, add only the DWARF
  bool renameRegisters = false;  // rename registers cuda-gdb cannot read (over 8 bytes)
  bool replace = false;          // replace the file's debug information instead of refusing it
  unsigned jobs = 0;             // threads (0: what the machine and the file make worth it)
  uint32_t maxGrowth = 64;       // refuse output over this many times the input (AnnotateOptions); 0: no limit
};
// Debug information for PTX that has none (ptxdwarf/write/annotate.h). Warnings
// (registers that get no variable) and refusals to `err`. Exit 0 written, 1
// refused (the file has debug information already), 2 unreadable.
int runAnnotate(const AnnotateRequest& request, std::string& out, std::string& err);

}  // namespace ptxdump
