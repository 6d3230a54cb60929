// Edits over a PTX text that keep every other byte of it: ranges replaced
// (by nothing, to delete), applied in one pass in offset order. What strip
// and remap change is a few tokens and whole statements; the rest of a file
// -- its code above all -- must come out exactly as it went in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../reserve.h"

namespace ptxdwarf::write::detail {

struct TextEdit {
  uint64_t begin = 0, end = 0;  // [begin, end) of the input
  std::string with{};
};

class TextEdits {
 public:
  void replace(uint64_t begin, uint64_t end, std::string with = {}) { items_.push_back({begin, end, std::move(with)}); }
  void erase(uint64_t begin, uint64_t end) { replace(begin, end); }

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

// Where the text's lines start, found as far as they are asked for: the
// edits ask in about increasing order, so the text is scanned once, as
// they are made (annotate: on the thread that makes them, not before the
// threads part).
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : text_(text) {}

  // Line N (from 1) starts at this offset; the text's size past its last line.
  uint64_t start(uint32_t line) {
    if (line == 0) return 0;
    return has(line) ? starts_[line - 1] : text_.size();
  }
  bool has(uint32_t line) {
    scanTo(line);
    return line <= starts_.size();
  }
  // The offset of line:col (both from 1); the text's end past its last line.
  uint64_t offset(uint32_t line, uint32_t col) {
    if (line == 0 || !has(line)) return text_.size();
    return std::min<uint64_t>(starts_[line - 1] + (col ? col - 1 : 0), text_.size());
  }
  void release() { starts_ = {}; }
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
  void scanTo(uint32_t line) {
    if (starts_.empty()) {
      // Room for a line of every 8 bytes, filled once, in place: nvcc -O3
      // writes lines of 14 bytes on average, and a vector that outgrows its
      // room copies itself into twice the memory.
      reserveUpTo(starts_, text_.size() / 8 + 2);
      starts_.push_back(0);
    }
    const char* base = text_.data();
    const char* end = base + text_.size();
    while (starts_.size() < line && !done_) {
      const char* p = base + starts_.back();
      const void* nl = p < end ? std::memchr(p, '\n', static_cast<size_t>(end - p)) : nullptr;
      if (!nl) {
        done_ = true;
        break;
      }
      starts_.push_back(static_cast<uint32_t>(static_cast<const char*>(nl) + 1 - base));
    }
  }

  std::string_view text_;
  std::vector<uint32_t> starts_;  // line N starts at starts_[N-1] (ptx::read takes at most 4 GiB)
  bool done_ = false;             // no line break after the last start
};

}  // namespace ptxdwarf::write::detail
