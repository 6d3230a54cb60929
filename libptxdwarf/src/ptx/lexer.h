// The PTX scanner: one cursor over the whole file, tokens as views, line and
// column tracked as it goes. Errors are thrown as ParseError and turned into a
// diagnostic by the reader (the only place that catches them).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"

namespace ptxdwarf::ptx {

struct ParseError {
  SourceLoc loc;
  std::string message;
};

// Character classes by table: identifiers are most of what the reader scans.
struct CharClasses {
  static constexpr uint8_t kIdentStart = 1, kIdentChar = 2, kBlank = 4;
  uint8_t of[256] = {};
  constexpr CharClasses() {
    for (int c = 0; c < 256; ++c) {
      const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
      if (letter || c == '%') of[c] |= kIdentStart;
      if (letter || (c >= '0' && c <= '9')) of[c] |= kIdentChar;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') of[c] |= kBlank;
    }
  }
};
inline constexpr CharClasses kCharClasses;

// [A-Za-z_$%]
inline bool isIdentStart(char c) { return kCharClasses.of[static_cast<unsigned char>(c)] & CharClasses::kIdentStart; }
// [A-Za-z0-9_$]
inline bool isIdentChar(char c) { return kCharClasses.of[static_cast<unsigned char>(c)] & CharClasses::kIdentChar; }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
// A blank inside a line of a debug section: what a writer puts between
// operands (a CR or form feed sends the line to the general path).
inline bool isSpaceOrTab(char c) { return c == ' ' || c == '\t'; }

// An operand of a plain data line (Cursor::plainDataLine): a literal that
// the width holds with nothing to say about it -- decimal without a leading
// zero (octal), or 0x hexadecimal -- at most `most` (2^32 - 1 for .b32 and
// .b64, what ptxas keeps of a non-negative one), or from .b32 on a plain
// symbol (`$L__tmp5`, `.debug_abbrev`). `end`: one past it, nullptr for
// anything else (a suffix, an addend, a negative number: the general
// path's). Inline: a large debug section has millions.
struct PlainOperand {
  const char* begin = nullptr;
  const char* end = nullptr;
  uint64_t value = 0;
  bool symbol = false;
};
[[gnu::always_inline]] inline PlainOperand plainOperand(const char* p, const char* end, unsigned width,
                                                        uint64_t most) {
  const char* q = p;
  unsigned d = static_cast<unsigned>(static_cast<unsigned char>(*q)) - '0';
  if (d <= 9) {
    uint64_t value = d;  // at most most * 16 + 15 below: no overflow
    ++q;
    if (d == 0 && q < end && (*q | 0x20) == 'x') {
      const char* digits = ++q;
      for (; q < end && value <= most; ++q) {
        const char c = *q;
        if (isDigit(c)) d = static_cast<unsigned>(c - '0');
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') d = static_cast<unsigned>((c | 0x20) - 'a' + 10);
        else break;
        value = value << 4 | d;
      }
      if (q == digits) return {};
    } else if (d == 0) {
      if (q < end && isDigit(*q)) return {};  // octal
    } else {
      for (; q < end && (d = static_cast<unsigned>(static_cast<unsigned char>(*q)) - '0') <= 9 && value <= most; ++q)
        value = value * 10 + d;
    }
    if (value > most || (q < end && isIdentChar(*q))) return {};
    return {p, q, value, false};
  }
  if (width >= 4 && (isIdentStart(*q) || (*q == '.' && q + 1 < end && isIdentChar(q[1])))) {
    while (++q < end && isIdentChar(*q)) {
    }
    return {p, q, 0, true};
  }
  return {};
}
// The most plainOperand takes for a width.
inline uint64_t plainOperandMost(unsigned width) { return width == 1 ? 0xff : width == 2 ? 0xffff : UINT32_MAX; }

// Result of scanning an integer literal the way ptxas reads it in data
// directives: decimal, 0x hex, 0b binary, leading-0 octal, optional U suffix.
struct NumberScan {
  const char* end = nullptr;  // one past the literal; nullptr when malformed
  uint64_t value = 0;
  bool overflow = false;      // does not fit in 64 bits
};
NumberScan scanNumber(const char* p, const char* end);

// scanNumber for the common case, inline: a short decimal literal ending at a
// character that cannot continue it. Everything else goes to scanNumber.
inline NumberScan scanNumberFast(const char* p, const char* end) {
  if (p < end && *p >= '1' && *p <= '9') {
    uint64_t value = 0;
    const char* q = p;
    for (int digits = 0; q < end && isDigit(*q) && digits < 19; ++q, ++digits)
      value = value * 10 + static_cast<uint64_t>(*q - '0');
    if (q == end || !(isIdentChar(*q) || *q == 'U')) return {q, value, false};
  }
  return scanNumber(p, end);
}

// The newlines in [p, end): the line a reader that starts in the middle of a
// text stands on.
uint64_t countNewlines(const char* p, const char* end);

class Cursor {
 public:
  Cursor(std::string_view text) : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), lineStart_(text.data()) {}
  // A cursor at `offset`, a line start, which is line `line` of `text`.
  Cursor(std::string_view text, uint64_t offset, uint32_t line) : Cursor(text) {
    p_ = lineStart_ = begin_ + offset;
    line_ = line;
  }

  // Moves to `offset` of the text, a place the cursor passed before at `at`.
  void moveTo(uint64_t offset, SourceLoc at) {
    p_ = begin_ + offset;
    line_ = at.line;
    lineStart_ = p_ - (at.col - 1);
  }

  bool atEnd() const { return p_ >= end_; }
  char peek() const { return p_ < end_ ? *p_ : '\0'; }
  char peekAt(size_t n) const { return p_ + n < end_ ? p_[n] : '\0'; }
  const char* pos() const { return p_; }
  uint64_t offset() const { return static_cast<uint64_t>(p_ - begin_); }
  const char* end() const { return end_; }
  SourceLoc loc() const { return {line_, static_cast<uint32_t>(p_ - lineStart_ + 1)}; }
  // q on the current line (earlier ones get column 1). Inline: a packed
  // section line asks it for each operand.
  SourceLoc locAt(const char* q) const {
    return {line_, q < lineStart_ ? 1 : static_cast<uint32_t>(q - lineStart_ + 1)};
  }

  void advance(size_t n = 1) { p_ += n; }
  // Moves to q (>= pos) counting the newlines passed.
  void moveTo(const char* q);

  // Skips whitespace (any kind, CR included) and comments.
  void skipSpace() {
    while (p_ < end_) {
      const char c = *p_;
      if (kCharClasses.of[static_cast<unsigned char>(c)] & CharClasses::kBlank) {
        ++p_;
      } else if (c == '\n') {
        newline(p_);
        ++p_;
      } else if (c != '/' || !skipComment()) {
        return;
      }
    }
  }
  // A run of byte lines, `.b8 N` a line: how nvcc and LLVM write a debug
  // section (a million lines in a 20 MB nvcc -G file). Blanks may stand
  // before the directive and around N, a `//` comment after it, a CR before
  // the newline; N is decimal without a leading zero (octal) or 0x hex, at
  // most 255. The operands after the first stand at one column of their
  // lines. A line of any other form ends the run unread (the other paths
  // read it, and report what is wrong with it).
  struct ByteRun {
    size_t count = 0;  // lines read
    SourceLoc first;   // the first line's operand
    uint32_t col = 0;  // the column of every later line's operand
  };
  // nvcc's form alone, `.b8 N` at the line's start with one blank and no
  // comment, matched with no bounds check per byte: what is looked for
  // first, where it fails fastest. At most out.size() lines; the values go
  // to `out`, the cursor past the run, and the count comes back (the first
  // N stands 4 columns after the cursor, each later one at column 5).
  size_t nvccByteLines(std::span<uint8_t> out);
  // Lines of every form, continuing `run` (with its values in `out`, up to
  // out.size() of them).
  void byteLines(std::span<uint8_t> out, ByteRun& run);

  // A line `.bW op, op, ...` (W 8, 16, 32 or 64) of plain operands
  // (plainOperand) on the line alone: blanks before and after the directive,
  // spaces and tabs around the commas and at the end, a `//` comment to the
  // newline, a CR before it.
  // How the debug-section lines are written that byteLines does not take:
  // nvcc's strings as byte lists, offsets and label addresses (a fifth of a
  // large nvcc -G file's section lines, two thirds of its operands outside
  // `.b8 N`), this library's packed and dense styles (`.b8 237, 155, 14`,
  // `.b32 0x676c0108`), LLVM's `.b32 63  // Length of Unit`. Looks without
  // moving: anything else is nullopt, and the general path reads the line
  // and reports what is wrong with it.
  // The operands go to `operands` as they are matched, as many as it holds
  // (the caller reads the rest of a longer line again, from the last one's
  // end).
  struct DataLine {
    unsigned width;        // of each operand, in bytes
    uint32_t operands;     // how many
    const char* newline;   // the end of the line
  };
  std::optional<DataLine> plainDataLine(std::span<PlainOperand> operands) const;
  // Moves past a line plainDataLine matched (its newline included).
  void passLine(const DataLine& line) {
    newline(line.newline);
    p_ = line.newline + 1;
  }

  // Skips blanks and /* */ comments that stay on this line; stops at a newline or `//`.
  void skipInlineSpace();
  // Skips a statement up to and including the next `;` outside strings and comments.
  void skipStatement();
  // Skips to the end of the line (a trailing // comment included).
  void skipLine();

  // [A-Za-z_$%][A-Za-z0-9_$]*, empty when none
  [[gnu::always_inline]] std::string_view identifier() {
    if (p_ >= end_ || !isIdentStart(*p_)) return {};
    const char* s = p_++;
    while (p_ < end_ && isIdentChar(*p_)) ++p_;
    return {s, static_cast<size_t>(p_ - s)};
  }
  // ".name" incl. the dot, empty when none
  std::string_view directive() {
    if (p_ + 1 >= end_ || *p_ != '.' || !isIdentChar(p_[1])) return {};
    const char* s = p_++;
    while (p_ < end_ && isIdentChar(*p_)) ++p_;
    return {s, static_cast<size_t>(p_ - s)};
  }
  std::string_view stringLiteral();  // contents of "...", escapes kept verbatim
  uint64_t unsignedNumber(const char* what);  // decimal/hex/octal/binary
  bool consume(char c) {
    if (peek() != c) return false;
    ++p_;
    return true;
  }
  void expect(char c, const char* context);

  [[noreturn]] void fail(SourceLoc loc, std::string message) const;
  [[noreturn]] void fail(std::string message) const { fail(loc(), std::move(message)); }

 private:
  void skipBlockComment();
  // At a '/': skips a // or /* */ comment; false when it starts neither.
  bool skipComment();
  void newline(const char* at) {
    ++line_;
    lineStart_ = at + 1;
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  const char* lineStart_;
  uint32_t line_ = 1;
};

}  // namespace ptxdwarf::ptx
