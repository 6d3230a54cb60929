// ptxdump's subcommands as functions: the CLI parses arguments and calls these;
// tests call them directly. Each returns the process exit code:
// 0 success, 1 problems found, 2 a file could not be read or parsed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dump.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdump {

enum Exit : int { kOk = 0, kProblems = 1, kUnreadable = 2 };

// A PTX file read and decoded. Holds the text so that views into it stay valid.
struct LoadedFile {
  std::string path;
  std::string text;
  ptxdwarf::ptx::ReadResult read;
  ptxdwarf::read::Dwarf dwarf;
};

// Reads and decodes `path`; on failure appends `file:line:col: error: ...` lines
// to `err` and returns nullopt.
std::optional<LoadedFile> loadFile(const std::string& path, std::string& err);
// The largest file ptxdump reads (the whole file is held in memory).
inline constexpr size_t kMaxFileSize = size_t{1} << 30;

// Reads the whole file into `text`; false with `error` set on failure.
bool readWholeFile(const std::string& path, std::string& text, std::string& error);

enum class Format { text, json };

struct DumpRequest {
  std::vector<std::string> files;
  DumpOptions sections;
  Format format = Format::text;
};
int runDump(const DumpRequest& request, std::string& out, std::string& err);

struct ExtractRequest {
  std::string file;
  std::string section;     // with or without the leading dot
  std::string output;      // empty: no raw bytes written
  bool relocations = false;  // print relocations to `out`
};
// Raw bytes go to `request.output` ("-" for `out`); relocations, one per line,
// as `offset size expression` to `out`.
int runExtract(const ExtractRequest& request, std::string& out, std::string& err);

struct CheckRequest {
  std::vector<std::string> files;
  bool werror = false;      // warnings count as errors
  bool roundTrip = true;
  unsigned jobs = 1;        // files checked in parallel
};
// Diagnostics to `err` as `file:line:col: severity: message [rule] (section+offset)`,
// then one summary line per file and a total to `out`. Exit 0 clean, 1 problems, 2 unreadable.
int runCheck(const CheckRequest& request, std::string& out, std::string& err);

struct ReformatRequest {
  std::string file;
  std::string output;            // empty or "-": to `out`
  std::string style = "packed";  // packed | one-per-line | verbose
  bool reencode = false;         // through the canonical encoder
};
// Rewrites only the debug sections; every other byte of the file is kept.
// Exit 0 written, 1 the sections cannot be written for this .version, 2 unreadable.
int runReformat(const ReformatRequest& request, std::string& out, std::string& err);

}  // namespace ptxdump
