// cubin-line-unplaced: the source lines the PTX's `.loc` lines place at an
// instruction and the cubin's `.debug_line` places at no SASS address.
// gdb puts a breakpoint on a line at the addresses of its rows; a line with
// none gets its breakpoint at the next line that has one (or none at all).
#include <map>
#include <set>
#include <vector>
#include <string>
#include <utility>

#include "cubin_checker.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"

namespace ptxdwarf::check {

namespace {

using SourceLine = std::pair<std::string, uint32_t>;  // file path, line

// Every (file, line) the cubin's line tables have a row for.
std::set<SourceLine> placedLines(const SectionImage& debugLine) {
  std::set<SourceLine> placed;
  for (const cubin::LineTable& table : cubin::decodeLinePrograms(debugLine.bytes))
    for (const cubin::LineRow& row : table.rows)
      if (!row.endSequence) placed.emplace(table.header.filePath(row.file), row.line);
  return placed;
}

// Does `.loc` record `i` place its line at an instruction? Not when the next
// `.loc` stands before the same instruction (the later one wins), nor when
// no instruction follows it in its function.
bool placesAnInstruction(const ptx::Module& m, size_t i) {
  const ptx::LocRecord& r = m.locs[i];
  if (r.function < 0 || r.line == 0) return false;
  if (r.instruction >= m.functions[static_cast<size_t>(r.function)].endInstruction) return false;
  return i + 1 == m.locs.size() || m.locs[i + 1].function != r.function || m.locs[i + 1].instruction != r.instruction;
}

}  // namespace

void CubinChecker::lines() {
  const ptx::Module& ptx = source_.module;
  if (ptx.locs.empty()) return;  // nothing to hold against (an embedded PTX has no .loc)
  const auto warn = [&](SourceLoc at, std::string message) {
    out_.warning(at, std::move(message)).rule = "cubin-line-unplaced";
  };
  const SectionImage* debugLine = cubin::sectionOrSuffixed(cubin_.module(), ".debug_line");
  if (!debugLine) {
    warn(ptx.locs.front().loc, "the cubin has no line table (.debug_line): ptxas ran without -g or -lineinfo, "
                               "so no breakpoint on a source line is ever hit");
    return;
  }
  const std::set<SourceLine> placed = placedLines(*debugLine);
  std::set<std::string> placedFiles;
  for (const SourceLine& line : placed) placedFiles.insert(line.first);
  // The unplaced lines, each at its first placing .loc; a file none of whose
  // lines has an address is one finding (the cubin was compiled from other
  // PTX, or with other paths, or ptxas dropped all of that file's code).
  std::map<std::string, std::vector<std::pair<uint32_t, SourceLoc>>> unplaced;  // by file: line, where
  std::set<SourceLine> seen;
  for (size_t i = 0; i < ptx.locs.size(); ++i) {
    if (!placesAnInstruction(ptx, i)) continue;
    const ptx::LocRecord& r = ptx.locs[i];
    const ptx::FileEntry* file = ptx.findFile(r.file);
    if (!file) continue;  // loc-file's finding
    SourceLine line{file->path, r.line};
    if (placed.contains(line) || !seen.insert(line).second) continue;
    unplaced[file->path].emplace_back(r.line, r.loc);
  }
  for (const auto& [path, lines] : unplaced) {
    if (!placedFiles.contains(path)) {
      warn(lines.front().second, "no line of " + path + " has an address in the cubin's line table (" +
                                     std::to_string(lines.size()) +
                                     " with .loc lines): ptxas dropped all its code, or the cubin was "
                                     "compiled from other PTX or with other paths");
      continue;
    }
    for (const auto& [line, at] : lines)
      warn(at, path + ":" + std::to_string(line) +
                   " has .loc lines here but no address in the cubin's line table: a "
                   "breakpoint on it is never hit, or lands on a later line");
  }
}

}  // namespace ptxdwarf::check
