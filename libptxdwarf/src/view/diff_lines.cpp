// The diff's line tables (`.file` / `.loc`), the merge of two sorted lists,
// and the text of a diff: see view/diff.h.
//
// A row's code position is its function and the ordinal of the instruction it
// applies to within the function (the PTX analogue of the address ptxas gives
// it), so that code moved down the file by an unrelated change compares equal.
// Several rows at one position are told apart by their order (`#k`).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "diff_detail.h"
#include "ptxdwarf/demangle.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/line.h"
#include "ptxdwarf/ptx/lines.h"

namespace ptxdwarf::view {

namespace diffdetail {

void diffSortedLists(const std::vector<ListEntry>& before, const std::vector<ListEntry>& after,
                     DiffLine::Subject subject, std::vector<DiffLine>& lines) {
  std::vector<char> onlyBefore(before.size(), 0), onlyAfter(after.size(), 0);
  for (size_t i = 0, j = 0; i < before.size() || j < after.size();) {
    if (j == after.size() || (i < before.size() && before[i].key < after[j].key))
      onlyBefore[i++] = 1;
    else if (i == before.size() || after[j].key < before[i].key)
      onlyAfter[j++] = 1;
    else
      ++i, ++j;
  }
  // Entries left over on both sides that agree by their other key.
  std::unordered_multimap<std::string_view, size_t> alternatives;
  for (size_t j = 0; j < after.size(); ++j)
    if (onlyAfter[j] && !after[j].alternative.empty()) alternatives.emplace(after[j].alternative, j);
  for (size_t i = 0; i < before.size(); ++i) {
    if (!onlyBefore[i] || before[i].alternative.empty()) continue;
    auto it = alternatives.find(before[i].alternative);
    if (it == alternatives.end()) continue;
    onlyBefore[i] = onlyAfter[it->second] = 0;
    alternatives.erase(it);
  }
  for (size_t i = 0, j = 0; i < before.size() || j < after.size();) {
    const bool takeBefore = j == after.size() || (i < before.size() && !(after[j].key < before[i].key));
    const size_t at = takeBefore ? i++ : j++;
    if (!(takeBefore ? onlyBefore : onlyAfter)[at]) continue;
    DiffLine line{.kind = takeBefore ? DiffLine::Kind::removed : DiffLine::Kind::added, .subject = subject};
    (takeBefore ? line.before : line.after) = (takeBefore ? before : after)[at].shown;
    lines.push_back(std::move(line));
  }
}

namespace {

struct PositionedRow {
  std::string_view function;  // empty at module scope
  uint32_t offset = 0;        // instruction ordinal in the function
  uint32_t order = 0;         // among the rows at this position
  std::string where;          // the position (escaped), with its inline stack
};

// Frames of a row's inline stack compared: as many as `dump --debug-line` shows.
constexpr size_t kInlineFramesCompared = 64;

std::string rowWhere(const ptx::Module& m, const ptx::LineTable& t, uint32_t row) {
  const ptx::LocRecord& r = m.locs[t.rows[row].loc];
  std::string out;
  print::appendSourcePosition(out, t, r.position());
  if (!r.isInlined()) return out;
  for (uint32_t frameRow : t.inlineStack(row, kInlineFramesCompared)) {
    const ptx::LocRecord& frame = m.locs[t.rows[frameRow].loc];
    if (!frame.isInlined()) break;  // the outermost row: the function itself
    const ptx::LocInlining& in = m.inliningOf(frame);
    out += " inlined: ";
    if (const auto& name = t.functionNames[in.functionName])
      appendEscaped(out, demangle(*name));
    else
      appendEscaped(out, m.locFunctionNames[in.functionName]);
    out += " at ";
    print::appendSourcePosition(out, t, in.inlinedAt);
  }
  return out;
}

std::vector<PositionedRow> positionedRows(const ptx::Module& m, const ptx::LineTable& t) {
  std::vector<PositionedRow> rows;
  rows.reserve(t.rows.size());
  for (uint32_t i = 0; i < t.rows.size(); ++i) {
    const ptx::LocRecord& r = m.locs[t.rows[i].loc];
    PositionedRow p;
    if (r.function >= 0) {
      const ptx::Function& f = m.functions[static_cast<size_t>(r.function)];
      p.function = f.name;
      if (r.instruction != ptx::kNoIndex && r.instruction >= f.firstInstruction)
        p.offset = r.instruction - f.firstInstruction;
    }
    p.where = rowWhere(m, t, i);
    rows.push_back(std::move(p));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const PositionedRow& a, const PositionedRow& b) {
    return a.function != b.function ? a.function < b.function : a.offset < b.offset;
  });
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i].function == rows[i - 1].function && rows[i].offset == rows[i - 1].offset)
      rows[i].order = rows[i - 1].order + 1;
  return rows;
}

std::string rowKey(const PositionedRow& r) {
  std::string key;
  if (r.function.empty())
    key = "(module scope)";
  else
    appendEscaped(key, r.function);
  key += '+';
  appendDec(key, r.offset);
  if (r.order) {
    key += '#';
    appendDec(key, r.order);
  }
  return key;
}

std::vector<ListEntry> filePaths(const ptx::LineTable& t) {
  std::vector<ListEntry> v;
  v.reserve(t.files.size());
  for (const ptx::LineFile& f : t.files) {
    std::string path = escaped(ptx::pathOf(t, f));
    v.push_back({path, {}, path});
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end(), [](const ListEntry& a, const ListEntry& b) { return a.key == b.key; }),
          v.end());
  return v;
}

}  // namespace

void diffLineTables(const ptx::Module& a, const ptx::Module& b, std::vector<DiffLine>& lines) {
  const ptx::LineTable ta = ptx::buildLineTable(a), tb = ptx::buildLineTable(b);
  diffSortedLists(filePaths(ta), filePaths(tb), DiffLine::Subject::lineFile, lines);
  const std::vector<PositionedRow> ra = positionedRows(a, ta), rb = positionedRows(b, tb);
  auto before = [](const PositionedRow& x, const PositionedRow& y) {
    if (x.function != y.function) return x.function < y.function;
    return x.offset != y.offset ? x.offset < y.offset : x.order < y.order;
  };
  for (size_t i = 0, j = 0; i < ra.size() || j < rb.size();) {
    DiffLine line;
    line.subject = DiffLine::Subject::lineRow;
    if (j == rb.size() || (i < ra.size() && before(ra[i], rb[j]))) {
      line.kind = DiffLine::Kind::removed;
      line.path = rowKey(ra[i]);
      line.before = ra[i++].where;
    } else if (i == ra.size() || before(rb[j], ra[i])) {
      line.kind = DiffLine::Kind::added;
      line.path = rowKey(rb[j]);
      line.after = rb[j++].where;
    } else {
      if (ra[i].where == rb[j].where) {
        ++i, ++j;
        continue;
      }
      line.kind = DiffLine::Kind::changed;
      line.path = rowKey(ra[i]);
      line.before = ra[i++].where;
      line.after = rb[j++].where;
    }
    lines.push_back(std::move(line));
  }
}

}  // namespace diffdetail

// ---- text ----

namespace {

// `n` and what it counts, singular or plural.
void appendCount(std::string& s, uint64_t n, std::string_view one, std::string_view many) {
  appendDec(s, n);
  s += n == 1 ? one : many;
}

// `before -> after` for a change, else the one value there is.
void appendValues(std::string& s, const DiffLine& line) {
  if (line.kind == DiffLine::Kind::changed) {
    s += line.before;
    s += " -> ";
    s += line.after;
  } else {
    s += line.kind == DiffLine::Kind::added ? line.after : line.before;
  }
}

}  // namespace

std::string diffLineText(const DiffLine& line) {
  std::string s;
  s += line.kind == DiffLine::Kind::added ? '+' : line.kind == DiffLine::Kind::removed ? '-' : '~';
  s += ' ';
  switch (line.subject) {
    case DiffLine::Subject::die:
      s += line.path;
      if (line.descendants) {
        s += " (and ";
        appendCount(s, line.descendants, " descendant)", " descendants)");
      }
      break;
    case DiffLine::Subject::attribute:
      s += line.path;
      s += ": ";
      s += line.attribute;
      s += ' ';
      appendValues(s, line);
      break;
    case DiffLine::Subject::order:
      s += line.path;
      s += ": moved ";
      appendValues(s, line);
      break;
    case DiffLine::Subject::pubname:
      if (line.kind == DiffLine::Kind::changed) {
        s += "pubnames[\"";
        appendEscaped(s, line.path);
        s += "\"]: ";
        appendValues(s, line);
      } else {
        s += "pubnames: ";
        appendQuoted(s, line.path);
      }
      break;
    case DiffLine::Subject::arange:
      s += "aranges: ";
      appendValues(s, line);
      break;
    case DiffLine::Subject::lineRow:
      s += "line ";
      s += line.path;
      s += ": ";
      appendValues(s, line);
      break;
    case DiffLine::Subject::lineFile:
      s += "file \"";
      appendValues(s, line);
      s += '"';
      break;
  }
  return s;
}

DiffSummary summarize(const std::vector<DiffLine>& lines) {
  DiffSummary sum;
  std::unordered_set<std::string_view> changed;
  for (const DiffLine& l : lines) {
    switch (l.subject) {
      case DiffLine::Subject::die:
        (l.kind == DiffLine::Kind::added ? sum.added : sum.removed)++;
        break;
      case DiffLine::Subject::attribute:
      case DiffLine::Subject::order:
        changed.insert(l.path);
        break;
      case DiffLine::Subject::pubname:
      case DiffLine::Subject::arange:
        ++sum.names;
        break;
      case DiffLine::Subject::lineRow:
      case DiffLine::Subject::lineFile:
        ++sum.lines;
        break;
    }
  }
  sum.changed = changed.size();
  return sum;
}

std::string summaryText(const DiffSummary& s) {
  std::string out;
  appendCount(out, s.changed, " DIE changed, ", " DIEs changed, ");
  appendDec(out, s.added);
  out += " added, ";
  appendDec(out, s.removed);
  out += " removed";
  if (s.names) {
    out += ", ";
    appendCount(out, s.names, " name-table entry different", " name-table entries different");
  }
  if (s.lines) {
    out += ", ";
    appendCount(out, s.lines, " line-table entry different", " line-table entries different");
  }
  return out;
}

void printDiff(std::string& out, const std::vector<DiffLine>& lines) {
  for (const DiffLine& line : lines) {
    out += diffLineText(line);
    out += '\n';
  }
  out += summaryText(summarize(lines));
  out += '\n';
}

}  // namespace ptxdwarf::view
