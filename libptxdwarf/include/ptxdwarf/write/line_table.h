// The producer's line information: the `.file` table, the `.loc` directives
// written as the code is written, and the labels a producer needs around code.
//
// ptxas builds `.debug_line` from `.file`/`.loc` (PTX ISA, "Debugging
// Directives"); the DWARF a Builder makes names files by the same numbers
// (DW_AT_decl_file, DW_AT_call_file). A FileTable hands those numbers out, so
// the two agree by construction. A LineEmitter writes the `.loc` lines:
//   .loc 1 7 9
//   .loc 2 3 5, function_name $L__info_string0, inlined_at 1 7 9
// For inlined code it keeps the strings `function_name` labels (in
// `.debug_str`) and makes sure every `inlined_at` location is one an earlier
// `.loc` of the function used, as ptxas requires ("Source location ... used in
// inlined_at directive must be used in a preceding .loc directive").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/section.h"
#include "ptxdwarf/write/unit.h"

namespace ptxdwarf::write {

// A source file of the `.file` table. ptxas puts timestamp and size into the
// line table's mod_time/length (it reads them from the file system when the
// PTX gives none).
struct SourceFile {
  std::string path = {};
  std::optional<uint64_t> timestamp = {};
  std::optional<uint64_t> size = {};
};

// Interns paths: the same path always gets the same id, ids count from 1 in
// order of first use. The id is what `.loc`, DW_AT_decl_file and
// DW_AT_call_file take.
class FileTable {
 public:
  // The id of `path`, added when new. Giving a timestamp or size that differs
  // from the one recorded for the path is a BuildError; a path with a `"` or a
  // control character cannot be written in a `.file` string (BuildError).
  unsigned add(std::string_view path, std::optional<uint64_t> timestamp = {}, std::optional<uint64_t> size = {});
  std::optional<unsigned> find(std::string_view path) const;
  bool contains(unsigned id) const { return id >= 1 && id <= files_.size(); }
  // The file of `id` (BuildError when there is none).
  const SourceFile& file(unsigned id) const;
  size_t size() const { return files_.size(); }
  const std::vector<SourceFile>& files() const { return files_; }

  // `.file N "path"[, timestamp[, size]]`, one line per file, in id order (a
  // size without a timestamp writes timestamp 0, "unknown" in DWARF).
  void write(std::string& out) const;

 private:
  std::vector<SourceFile> files_;
  std::unordered_map<std::string, unsigned> ids_;
};

// Label names for code positions, numbered per kind as nvcc numbers them:
// `$L__func_begin0`/`$L__func_end0`, `$L__tmp0`, `$L__info_string0`. A
// producer that writes labels of its own keeps away from the prefix.
class Labels {
 public:
  explicit Labels(std::string prefix = "$L__") : prefix_(std::move(prefix)) {}

  struct Function {
    std::string begin, end;  // `$L__func_beginN`, `$L__func_endN`
  };
  // The labels of the next function (DW_AT_low_pc / DW_AT_high_pc).
  Function function();
  // A fresh label for a scope boundary or a location-list range.
  std::string temporary();
  // A fresh label for a string in `.debug_str`.
  std::string string();

 private:
  std::string prefix_;
  unsigned functions_ = 0, temporaries_ = 0, strings_ = 0;
};

// A position in the source: a FileTable id, a line and a column (0: none).
struct SourcePos {
  unsigned file = 0;
  unsigned line = 0;
  unsigned column = 0;
  friend bool operator==(const SourcePos&, const SourcePos&) = default;
  friend auto operator<=>(const SourcePos&, const SourcePos&) = default;
};

// One level of inlining: `function` (the name the `.debug_str` string holds;
// nvcc and LLVM write the mangled name) was inlined at `callSite`, a position
// in the function one level out.
struct InlinedCall {
  std::string function = {};
  SourcePos callSite = {};
};

struct LineOptions {
  // The module's `.version`: `function_name`/`inlined_at` need 7.2.
  ptx::Version version{7, 5, true};
  // Below 7.2: write the innermost position of inlined code alone (no
  // function_name/inlined_at) instead of refusing it.
  bool flattenInlined = false;
};

// Writes `.loc` directives as the producer writes instructions.
class LineEmitter {
 public:
  LineEmitter(const FileTable& files, Labels& labels, LineOptions options = {});

  // A new function: what earlier functions wrote is forgotten, so its first
  // location is always written and call sites are written again when needed.
  void beginFunction();

  // The `.loc` line(s) for the instruction the producer writes next, appended
  // to `out`. Nothing when the previous instruction had the same location.
  // `inlined` is the inline stack, outermost call first: the code at `pos` is
  // in inlined.back().function, called at inlined.back().callSite, which is in
  // inlined[size-2].function, and so on out to the function being written.
  // Before the location itself, every call site the stack names that this
  // function's `.loc`s have not used yet (in that context) is written, so
  // each `inlined_at` names a location a preceding `.loc` used.
  // Returns the number of lines written. Throws BuildError for a file id the
  // table does not have, and for inlined code below `.version` 7.2 unless
  // LineOptions::flattenInlined.
  size_t loc(std::string& out, SourcePos pos, std::span<const InlinedCall> inlined = {});

  // The `.debug_str` section the `function_name` labels name: one labelled,
  // NUL-terminated string per inlined function. No bytes when nothing was
  // inlined.
  const SectionImage& strings() const { return strings_; }
  // The label of `function`'s string, added when new.
  const std::string& stringLabel(std::string_view function);

 private:
  // An inline context: the code of `function` (a strings_ entry) called at
  // `callSite` from context `parent`. Context 0 is the function being written.
  struct Context {
    uint32_t parent;
    uint32_t function;
    SourcePos callSite;
    auto operator<=>(const Context&) const = default;
  };
  uint32_t contextOf(uint32_t parent, std::string_view function, SourcePos callSite);
  // Throws unless the file table holds pos.file (inline: every `.loc` asks).
  void checkFile(SourcePos pos, const char* role) const {
    if (!files_.contains(pos.file)) badFile(pos, role);
  }
  [[noreturn]] void badFile(SourcePos pos, const char* role) const;
  void write(std::string& out, SourcePos pos, uint32_t context);

  const FileTable& files_;
  Labels& labels_;
  LineOptions options_;
  SectionImage strings_;
  std::unordered_map<std::string, uint32_t> stringIds_;
  std::vector<std::string> stringLabels_;
  std::map<Context, uint32_t> contextIds_;
  std::vector<Context> contexts_;  // by id - 1
  // This function's `.loc`s: the context each position was last written in,
  // and the last one written. Only inlined code looks positions up, so the
  // `.loc`s are logged as they are written and go into the map when one does
  // (usedLog_[0, logged_) are in it): plain code pays a push_back per `.loc`.
  std::map<SourcePos, uint32_t> used_;
  std::vector<std::pair<SourcePos, uint32_t>> usedLog_;
  size_t logged_ = 0;
  std::optional<std::pair<SourcePos, uint32_t>> current_;
};

}  // namespace ptxdwarf::write
