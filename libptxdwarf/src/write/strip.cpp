#include "ptxdwarf/write/strip.h"

#include "text_edits.h"

namespace ptxdwarf::write {

namespace {

bool isDebugSection(std::string_view name) { return name.starts_with(".debug") || name.starts_with(".nv_debug"); }

bool isBlank(char c) { return c == ' ' || c == '\t'; }

// The `debug` operand of `.target sm_80, debug` (or `.target debug, sm_80`)
// with the comma that joins it to its neighbour, as [begin, end); {0, 0}
// when the statement has none. `at` is the `.target` directive's offset.
std::pair<uint64_t, uint64_t> targetDebugRange(std::string_view text, uint64_t at) {
  const uint64_t end = std::min({text.find(';', at), text.find('\n', at), text.find("//", at)});
  const uint64_t stop = std::min<uint64_t>(end, text.size());
  uint64_t p = at + std::string_view(".target").size();
  uint64_t previousComma = UINT64_MAX;  // before the current operand
  while (p < stop) {
    while (p < stop && (isBlank(text[p]) || text[p] == ',')) {
      if (text[p] == ',') previousComma = p;
      ++p;
    }
    const uint64_t begin = p;
    while (p < stop && !isBlank(text[p]) && text[p] != ',' && text[p] != '\r') ++p;
    if (text.substr(begin, p - begin) != "debug") continue;
    if (previousComma != UINT64_MAX) {  // `, debug`: from the comma before it
      uint64_t from = previousComma;
      while (from > at && isBlank(text[from - 1])) --from;
      return {from, p};
    }
    uint64_t to = p;  // `debug, sm_80`: up to the next operand
    while (to < stop && (isBlank(text[to]) || text[to] == ',')) ++to;
    if (to == stop || text[to] == '\r') return {UINT64_MAX, UINT64_MAX};  // `debug` alone
    return {begin, to};
  }
  return {0, 0};
}

class Stripper {
 public:
  Stripper(std::string_view text, const ptx::Module& m, StripMode mode, Stripped& out)
      : text_(text), m_(m), mode_(mode), out_(out), lines_(text) {}

  void run() {
    const bool keepStrings = mode_ == StripMode::keepLines && !m_.locFunctionNames.empty();
    for (const SectionImage& s : m_.sections) {
      if (!isDebugSection(s.name) || (keepStrings && s.name == ".debug_str")) continue;
      for (const TextRange& b : s.blocks) {
        auto [begin, end] = lines_.wholeLines(b.begin, b.end);
        edits_.erase(begin, end);
        ++out_.stats.sectionBlocks;
      }
    }
    if (mode_ == StripMode::all) {
      for (const ptx::FileEntry& f : m_.files) eraseStatement(f.loc), ++out_.stats.files;
      for (const ptx::LocRecord& l : m_.locs) eraseStatement(l.loc), ++out_.stats.locs;
    }
    if (m_.debug && m_.targetLoc.line != 0) removeTargetDebug();
    if (out_.ok()) out_.ptx = edits_.apply(text_);
  }

 private:
  // A `.file` or `.loc`: from the directive to the end of its line.
  void eraseStatement(SourceLoc at) {
    const uint64_t begin = lines_.offset(at.line, at.col);
    auto [b, e] = lines_.wholeLines(begin, lines_.lineEnd(begin));
    edits_.erase(b, e);
  }

  void removeTargetDebug() {
    auto [begin, end] = targetDebugRange(text_, lines_.offset(m_.targetLoc.line, m_.targetLoc.col));
    if (begin == UINT64_MAX) {
      out_.diagnostics.error(m_.targetLoc, "`.target debug` names no architecture; there is nothing left to keep");
      return;
    }
    if (begin == end) {  // the reader found `debug` where this scan of the `.target` line did not
      out_.diagnostics.error(m_.targetLoc, "`debug` of this .target is not on its line; write `.target ARCH, debug` "
                                           "on one line to strip it");
      return;
    }
    edits_.erase(begin, end);
    out_.stats.targetDebug = true;
  }

  std::string_view text_;
  const ptx::Module& m_;
  StripMode mode_;
  Stripped& out_;
  detail::LineIndex lines_;
  detail::TextEdits edits_;
};

}  // namespace

Stripped strip(std::string_view text, const ptx::Module& module, StripMode mode) {
  Stripped out;
  Stripper(text, module, mode, out).run();
  return out;
}

}  // namespace ptxdwarf::write
