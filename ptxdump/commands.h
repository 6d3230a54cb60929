// ptxdump's subcommands as functions: the CLI parses arguments and calls these;
// tests call them directly. Each returns the process exit code:
// 0 success, 1 problems found, 2 a file could not be read or parsed.
// One file a command (dump_command.cpp, check_command.cpp, ...): options in,
// one library call, diagnostics out.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/diff.h"

namespace ptxdump {

using ptxdwarf::print::DumpOptions;

enum Exit : int { kOk = 0, kProblems = 1, kUnreadable = 2 };

// text for every command, json for dump, types and lookup, jsonLines for dump.
using Format = ptxdwarf::print::DumpFormat;

// What print::dumpFile shows of each file (defaultSections: no section was
// asked for: .debug_info, or the line table of a file that has line
// information and no .debug_info, a -lineinfo build), and of which files.
struct DumpRequest : ptxdwarf::print::FileDumpOptions {
  std::vector<std::string> files;
  std::FILE* stream = nullptr;  // dumps go here as they are rendered, not to `out`
  // --statistics: llvm-dwarfdump --statistics' JSON object instead of the sections.
  bool statistics = false;
};
int runDump(const DumpRequest& request, std::string& out, std::string& err);
// Was the module read from a cubin (cubin::read)?
inline bool isCubinModule(const ptxdwarf::ptx::Module& m) { return m.fileFormat != "ptx"; }

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

// check::Options for each file (its threads: what the `jobs` workers leave
// free), and which files.
struct CheckRequest : ptxdwarf::check::Options {
  std::vector<std::string> files;
  bool werror = false;      // warnings count as errors
  unsigned jobs = 1;        // files checked in parallel
  // --cubin: the cubin ptxas made of the one PTX file, held against it (check/cubin.h).
  std::string cubin;
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

struct LookupRequest {
  std::string file;
  std::string at;
  Format format = Format::text;
};
// `ptxdump lookup FILE --at WHERE`: the debugger's view at a place, as text or JSON.
int runLookup(const LookupRequest& request, std::string& out, std::string& err);

struct DiffRequest {
  std::string oldFile;
  std::string newFile;
  ptxdwarf::view::DiffOptions options;
};
// `ptxdump diff A B`: a semantic diff of two PTX files' debug information, for
// producer regression tests (new output against a golden file); the
// comparison and its text are the library's (ptxdwarf/view/diff.h).
// Difference lines and the summary to `out`; load and decode errors to `err`.
// Exit 0 equal, 1 different, 2 a file could not be read, parsed or decoded.
int runDiff(const DiffRequest& request, std::string& out, std::string& err);

}  // namespace ptxdump
