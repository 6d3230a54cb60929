// Edits over a PTX text that keep every other byte of it: ranges replaced
// (by nothing, to delete), applied in one pass in offset order. What strip
// and remap change is a few tokens and whole statements; the rest of a file
// -- its code above all -- must come out exactly as it went in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxdwarf::write::detail {

struct TextEdit {
  uint64_t begin = 0, end = 0;  // [begin, end) of the input
  std::string with{};
};

class TextEdits {
 public:
  void replace(uint64_t begin, uint64_t end, std::string with = {}) { items_.push_back({begin, end, std::move(with)}); }
  void erase(uint64_t begin, uint64_t end) { replace(begin, end); }
  size_t size() const { return items_.size(); }

  // The edited text. Edits are applied in offset order; one that overlaps an
  // earlier one (a `.loc` inside a section block being removed) is dropped.
  std::string apply(std::string_view text) {
    std::stable_sort(items_.begin(), items_.end(),
                     [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
    std::string out;
    out.reserve(text.size());
    uint64_t at = 0;
    for (const TextEdit& e : items_) {
      if (e.begin < at || e.end > text.size()) continue;
      out.append(text.substr(at, e.begin - at));
      out += e.with;
      at = e.end;
    }
    out.append(text.substr(std::min<uint64_t>(at, text.size())));
    return out;
  }

 private:
  std::vector<TextEdit> items_;
};

// Where line `line` (from 1) starts, for the few lines an edit asks about.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : text_(text) {
    starts_.push_back(0);
    for (size_t p = text.find('\n'); p != std::string_view::npos; p = text.find('\n', p + 1)) starts_.push_back(p + 1);
  }
  // The offset of line:col (both from 1); the text's end past its last line.
  uint64_t offset(uint32_t line, uint32_t col) const {
    if (line == 0 || line > starts_.size()) return text_.size();
    return std::min<uint64_t>(starts_[line - 1] + (col ? col - 1 : 0), text_.size());
  }
  // The end of the line holding `offset`, before its '\r\n' or '\n'.
  uint64_t lineEnd(uint64_t offset) const {
    size_t nl = text_.find('\n', offset);
    if (nl == std::string_view::npos) return text_.size();
    return nl > offset && text_[nl - 1] == '\r' ? nl - 1 : nl;
  }
  // [begin, end) widened to whole lines, line break included, where only
  // blanks stand beside it on its first and last lines: a removed
  // statement leaves no empty line behind. Otherwise as it is.
  std::pair<uint64_t, uint64_t> wholeLines(uint64_t begin, uint64_t end) const {
    uint64_t b = begin;
    while (b > 0 && (text_[b - 1] == ' ' || text_[b - 1] == '\t')) --b;
    if (b != 0 && text_[b - 1] != '\n') return {begin, end};
    uint64_t e = end;
    while (e < text_.size() && (text_[e] == ' ' || text_[e] == '\t' || text_[e] == '\r')) ++e;
    if (e == text_.size()) return {b, e};
    if (text_[e] != '\n') return {begin, end};
    return {b, e + 1};
  }

 private:
  std::string_view text_;
  std::vector<uint64_t> starts_;
};

}  // namespace ptxdwarf::write::detail
