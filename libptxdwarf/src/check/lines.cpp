// The rules of the line information: `.file` and `.loc` (with
// `function_name`/`inlined_at`) against each other, `.debug_str` and the PTX
// version -- they need no DWARF: a -lineinfo build is checked by them alone
// -- and the DIEs' subprograms and inlined calls against the line table.
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "checker.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/lines.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

class LineChecker {
 public:
  LineChecker(const ptx::Module& m, const ptx::LineTable& t, Diagnostics& out) : m_(m), t_(t), out_(out) {}

  void run() {
    files();
    for (uint32_t i = 0; i < t_.rows.size(); ++i) row(i);
  }

 private:
  void report(Severity severity, SourceLoc at, std::string_view rule, std::string message) {
    Diagnostic& d = out_.items.emplace_back();
    d.severity = severity;
    d.loc = at;
    d.rule = std::string(rule);
    d.message = std::move(message);
  }

  // ptxas: "Duplicate file index #N", whether or not the paths differ.
  void files() {
    // LineTable keeps each index's first entry; every other entry of that index is a duplicate.
    for (uint32_t i = 0; i < m_.files.size(); ++i) {
      const ptx::FileEntry& e = m_.files[i];
      const ptx::LineFile* first = t_.file(e.index);
      if (!first || first->entry == i) continue;
      const ptx::FileEntry& original = m_.files[first->entry];
      report(Severity::error, e.loc, "file-duplicate",
             ".file " + std::to_string(e.index) + " is given again (first at line " +
                 std::to_string(original.loc.line) + ")" +
                 (original.path == e.path ? "" : ", with another path: \"" + e.path + "\" after \"" + original.path + "\"") +
                 "; ptxas rejects any repeated file index");
    }
  }

  void row(uint32_t index) {
    const ptx::LocRecord& r = m_.locs[t_.rows[index].loc];
    if (r.function < 0)
      report(Severity::error, r.loc, "loc-scope",
             ".loc outside a function body: ptxas reports a syntax error; a location applies to the instructions after it");
    if (!t_.file(r.file))
      report(Severity::error, r.loc, "loc-file",
             ".loc names file " + std::to_string(r.file) + ", which has no .file" + knownFiles() +
                 " (ptxas accepts it silently; the debugger gets a row with no file)");
    if (!r.isInlined()) return;
    inlined(r, t_.rows[index]);
  }

  void inlined(const ptx::LocRecord& record, const ptx::LineRow& row) {
    const ptx::LocInlining& r = m_.inliningOf(record);
    if (!t_.functionNames[r.functionName])
      report(Severity::error, r.functionNameLoc, "loc-function-name", whyNoString(r.functionName));
    if (!t_.file(r.inlinedAt.file))
      report(Severity::error, r.inlinedAtLoc, "loc-file",
             "inlined_at names file " + std::to_string(r.inlinedAt.file) + ", which has no .file" + knownFiles());
    if (row.caller == ptx::kNoIndex)
      report(Severity::error, r.inlinedAtLoc, "loc-inlined-at",
             "inlined_at " + position(r.inlinedAt) +
                 " is not a location an earlier .loc used (ptxas: \"must be used in a preceding .loc directive\"); "
                 "the inline stack cannot be resolved");
    versionRule(r);
  }

  // The PTX ISA asks for 7.2; ptxas 13 accepts 7.0 and rejects anything older.
  void versionRule(const ptx::LocInlining& r) {
    const ptx::Version& v = m_.version;
    if (!v.present || v.atLeast(7, 2)) return;
    std::string have = std::to_string(v.major) + "." + std::to_string(v.minor);
    if (v.atLeast(7, 0)) {
      if (!versionWarned_)
        report(Severity::warning, r.functionNameLoc, "loc-version",
               "function_name/inlined_at need .version 7.2 by the PTX ISA (this file is " + have +
                   "; ptxas 13 accepts 7.0 and later)");
      versionWarned_ = true;
      return;
    }
    report(Severity::error, r.functionNameLoc, "loc-version",
           "function_name/inlined_at need .version 7.2 (this file is " + have +
               "; ptxas: 'Line information of inline functions' requires 7.0)");
  }

  // Why a function_name label names no string; worked out once per label.
  const std::string& whyNoString(uint32_t name) {
    if (whyNoString_.empty()) whyNoString_.resize(m_.locFunctionNames.size());
    std::string& why = whyNoString_[name];
    if (!why.empty()) return why;
    const std::string& label = m_.locFunctionNames[name];
    why = "function_name " + label + " ";
    if (const SectionImage* s = sectionDefining(label))
      why += s->name == ".debug_str"
                 ? "does not start a NUL-terminated string in .debug_str (the debugger shows no name)"
                 : "labels " + s->name + ", not a string in .debug_str (ptxas accepts it; the debugger reads what is there)";
    else if (m_.findLabel(label))
      why += "labels code, not a string in .debug_str (ptxas: Unresolved label)";
    else
      why += "is not defined (ptxas: Unresolved label)";
    return why;
  }

  const SectionImage* sectionDefining(std::string_view label) const {
    for (const SectionImage& s : m_.sections)
      if (s.findLabel(label)) return &s;
    return nullptr;
  }

  std::string knownFiles() const { return t_.files.empty() ? " (the file has no .file directives)" : ""; }

  static std::string position(const ptx::SourcePosition& p) {
    return std::to_string(p.file) + " " + std::to_string(p.line) + " " + std::to_string(p.col);
  }

  const ptx::Module& m_;
  const ptx::LineTable& t_;
  Diagnostics& out_;
  bool versionWarned_ = false;  // one warning says it for the whole file
  std::vector<std::string> whyNoString_;
};

}  // namespace

void Checker::lineTable() {
  const ptx::LineTable table = ptx::buildLineTable(module_);
  LineChecker(module_, table, out_).run();
}

// A subprogram with code whose PTX function has no .loc: a debugger can stop
// in it but not step it or show its source. Only where the file has a line
// table at all.
void Checker::subprogramLines() {
  if (module_.locs.empty()) return;
  std::vector<bool> hasLoc(module_.functions.size());
  for (const ptx::LocRecord& r : module_.locs)
    if (r.function >= 0) hasLoc[static_cast<size_t>(r.function)] = true;
  for (const read::Die& die : dwarf_.dies) {
    if (die.tag != DW_TAG_subprogram || !dwarf_.hasAttribute(die, DW_AT_low_pc)) continue;
    const ptx::Function* f = module_.findFunction(ptxName(die));
    if (!f || !f->hasBody || hasLoc[static_cast<size_t>(f - module_.functions.data())]) continue;
    warning(dwarf_.info, die.offset, "subprogram-lines",
            "PTX function " + f->name + " has no .loc: a debugger can stop in it but not step it or show its source",
            &die);
  }
}

// Where the line table describes inlining (`.loc ... inlined_at`), each
// DW_TAG_inlined_subroutine's call site should be one of its call sites.
// nvcc -G describes inlining in the DIEs only and -lineinfo in the line
// table only, so the rule speaks only when a file has both.
void Checker::inlineCallSites() {
  struct Site {
    uint64_t file, line, col;
    bool operator==(const Site&) const = default;
  };
  struct SiteHash {
    size_t operator()(const Site& s) const { return std::hash<uint64_t>()((s.file << 40) ^ (s.line << 12) ^ s.col); }
  };
  std::unordered_set<Site, SiteHash> sites, sitesAnyColumn;
  for (const ptx::LocInlining& r : module_.locInlinings) {
    sites.insert({r.inlinedAt.file, r.inlinedAt.line, r.inlinedAt.col});
    sitesAnyColumn.insert({r.inlinedAt.file, r.inlinedAt.line, 0});
  }
  if (sites.empty()) return;
  for (const read::Die& die : dwarf_.dies) {
    if (die.tag != DW_TAG_inlined_subroutine) continue;
    std::optional<read::AttrValue> file = dwarf_.attribute(die, DW_AT_call_file);
    std::optional<read::AttrValue> line = dwarf_.attribute(die, DW_AT_call_line);
    std::optional<read::AttrValue> col = dwarf_.attribute(die, DW_AT_call_column);
    if (!file || !line || !file->isConstant() || !line->isConstant()) continue;
    bool withColumn = col && col->isConstant();
    Site s{file->value, line->value, withColumn ? col->value : 0};
    if (withColumn ? sites.count(s) : sitesAnyColumn.count(s)) continue;
    warning(dwarf_.info, line->offset, "inline-call-site",
            "call site " + std::to_string(s.file) + ":" + std::to_string(s.line) +
                (withColumn ? ":" + std::to_string(s.col) : "") +
                " is no inlined_at of the line table, which describes inlining elsewhere", &die);
  }
}

}  // namespace ptxdwarf::check
