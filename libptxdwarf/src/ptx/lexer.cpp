#include "lexer.h"

#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ptxdwarf::ptx {

namespace {

int digitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

}  // namespace

uint64_t countNewlines(const char* p, const char* end) {
  uint64_t count = 0;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  for (; end - p >= 16; p += 16) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned newlines = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(c, newline)));
    count += static_cast<uint64_t>(__builtin_popcount(newlines));
  }
#endif
  for (; p < end; ++p) count += *p == '\n';
  return count;
}

NumberScan scanNumber(const char* p, const char* end) {
  NumberScan r;
  if (p >= end || !isDigit(*p)) return r;
  unsigned base = 10;
  if (*p == '0' && p + 1 < end) {
    char n = p[1];
    if (n == 'x' || n == 'X') {
      base = 16;
      p += 2;
    } else if (n == 'b' || n == 'B') {
      base = 2;
      p += 2;
    } else if (isDigit(n)) {
      base = 8;
      p += 1;
    }
  }
  const char* digits = p;
  uint64_t value = 0;
  while (p < end) {
    int d = digitValue(*p);
    if (d >= static_cast<int>(base)) break;
    r.overflow |= __builtin_mul_overflow(value, base, &value);
    r.overflow |= __builtin_add_overflow(value, static_cast<uint64_t>(d), &value);
    ++p;
  }
  if (p == digits) return r;  // "0x" or "0b" without digits
  if (p < end && *p == 'U') ++p;
  if (p < end && (isIdentChar(*p))) return r;  // "09", "1U2", "1L"
  r.end = p;
  r.value = value;
  return r;
}

void Cursor::moveTo(const char* q) {
  while (p_ < q) {
    const void* nl = std::memchr(p_, '\n', static_cast<size_t>(q - p_));
    if (!nl) {
      p_ = q;
      return;
    }
    p_ = static_cast<const char*>(nl);
    newline(p_);
    ++p_;
  }
}

void Cursor::fail(SourceLoc loc, std::string message) const {
  throw ParseError{loc, std::move(message)};
}

void Cursor::skipBlockComment() {
  SourceLoc start = loc();
  p_ += 2;
  for (;;) {
    const void* star = std::memchr(p_, '*', static_cast<size_t>(end_ - p_));
    if (!star) {
      moveTo(end_);
      fail(start, "unterminated /* comment");
    }
    moveTo(static_cast<const char*>(star));
    ++p_;
    if (p_ < end_ && *p_ == '/') {
      ++p_;
      return;
    }
  }
}

bool Cursor::skipComment() {
  if (p_ + 1 >= end_) return false;
  if (p_[1] == '/') {
    skipLine();
    return true;
  }
  if (p_[1] == '*') {
    skipBlockComment();
    return true;
  }
  return false;
}

namespace {
// The end of a line that ends at q: its newline, after a CR when the text
// ends its lines with CRLF (as a PTX file written or checked out on Windows
// does); nullptr when the line goes on.
inline const char* lineEndAt(const char* q, const char* end) {
  if (q < end && *q == '\n') return q;
  if (end - q >= 2 && q[0] == '\r' && q[1] == '\n') return q + 1;
  return nullptr;
}

// nvcc's form of a byte line, `.b8 N` and the line's end with N of one to
// three digits and no leading zero, at p (half of a large nvcc -G file's
// lines): matched with no bounds check per byte, the longest such line
// (`.b8 255` and CRLF) fitting in the 9 bytes the caller has checked are
// there. Its newline, and N in `value`; nullptr for anything else.
inline const char* nvccByteLineEnd(const char* p, unsigned& value) {
  if (std::memcmp(p, ".b8 ", 4) != 0) return nullptr;  // one 32-bit compare
  auto digit = [](char c) { return static_cast<unsigned>(static_cast<unsigned char>(c) - '0'); };
  const char* digits = p + 4;
  value = digit(digits[0]);
  // After a 0 only the line's end: a digit would make it octal, an x hex
  // (both above '\r'; what else is there fails below).
  if (value > 9 || (value == 0 && digits[1] > '\r')) return nullptr;
  const char* q = digits + 1;
  for (unsigned d; q < digits + 3 && (d = digit(*q)) <= 9; ++q) value = value * 10 + d;
  if (*q != '\n' || value > 255) return q[0] == '\r' && q[1] == '\n' && value <= 255 ? q + 1 : nullptr;
  return q;
}

// Every other form of the line, checked byte by byte: blanks before the
// directive and around N, N in hex, a `//` comment after it. `digits`: where
// N starts.
const char* spacedByteLineEnd(const char* p, const char* end, unsigned& value, const char*& digits) {
  while (p < end && isSpaceOrTab(*p)) ++p;
  if (end - p < 5 || std::memcmp(p, ".b8", 3) != 0 || !isSpaceOrTab(p[3])) return nullptr;
  p += 4;
  while (p < end && isSpaceOrTab(*p)) ++p;
  if (p >= end) return nullptr;
  const PlainOperand op = plainOperand(p, end, 1, plainOperandMost(1));
  if (!op.end) return nullptr;
  const char* q = op.end;
  while (q < end && isSpaceOrTab(*q)) ++q;
  if (end - q >= 2 && q[0] == '/' && q[1] == '/') {  // LLVM's verbose asm: `.b8 2  // DWARF version number`
    q = static_cast<const char*>(std::memchr(q, '\n', static_cast<size_t>(end - q)));
  } else {
    q = lineEndAt(q, end);
  }
  if (!q) return nullptr;
  value = static_cast<unsigned>(op.value);
  digits = p;
  return q;
}
}  // namespace

size_t Cursor::nvccByteLines(std::span<uint8_t> out) {
  size_t n = 0;
  unsigned value;
  for (const char* q; n < out.size() && end_ - p_ >= 9 && (q = nvccByteLineEnd(p_, value)); ++n) {
    out[n] = static_cast<uint8_t>(value);
    newline(q);
    p_ = q + 1;
  }
  return n;
}

void Cursor::byteLines(std::span<uint8_t> out, ByteRun& run) {
  unsigned value;
  const char* digits;
  for (const char* q; run.count < out.size() && (q = spacedByteLineEnd(p_, end_, value, digits)); ++run.count) {
    const auto col = static_cast<uint32_t>(digits - lineStart_ + 1);
    if (run.count == 0) run.first = {line_, col};
    else if (run.count == 1) run.col = col;
    else if (col != run.col) break;  // the run's later operands stand at one column
    out[run.count] = static_cast<uint8_t>(value);
    newline(q);
    p_ = q + 1;
  }
}

std::optional<Cursor::DataLine> Cursor::plainDataLine(std::span<PlainOperand> operands) const {
  auto blanks = [&](const char* at) {
    while (at < end_ && isSpaceOrTab(*at)) ++at;
    return at;
  };
  const char* p = blanks(p_);  // an indented line: `\t.b32 0x676c0108`
  if (end_ - p < 6 || p[0] != '.' || p[1] != 'b') return std::nullopt;
  unsigned width = 0;
  const char* q = p + 3;
  if (p[2] == '8') {
    width = 1;
  } else if ((p[2] == '1' && p[3] == '6') || (p[2] == '3' && p[3] == '2') || (p[2] == '6' && p[3] == '4')) {
    width = p[2] == '1' ? 2 : p[2] == '3' ? 4 : 8;
    ++q;
  } else {
    return std::nullopt;
  }
  if (q >= end_ || !isSpaceOrTab(*q)) return std::nullopt;
  q = blanks(q + 1);
  const uint64_t most = plainOperandMost(width);
  for (uint32_t count = 0;;) {
    if (q >= end_) return std::nullopt;
    const PlainOperand op = plainOperand(q, end_, width, most);
    if (!op.end) return std::nullopt;
    if (count < operands.size()) operands[count] = op;
    ++count;
    q = op.end;
    if (q < end_ && *q == ',') {  // nvcc's: no blank before the next operand
      q = blanks(q + 1);
      continue;
    }
    if (q < end_ && *q == '\n') return DataLine{width, count, q};
    q = blanks(q);
    if (q < end_ && *q == ',') {
      q = blanks(q + 1);
      continue;
    }
    if (end_ - q >= 2 && q[0] == '/' && q[1] == '/') {
      const void* newline = std::memchr(q, '\n', static_cast<size_t>(end_ - q));
      if (!newline) return std::nullopt;
      return DataLine{width, count, static_cast<const char*>(newline)};
    }
    q = lineEndAt(q, end_);
    if (!q) return std::nullopt;
    return DataLine{width, count, q};
  }
}

void Cursor::skipInlineSpace() {
  while (p_ < end_) {
    char c = *p_;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++p_;
    } else if (c == '/' && p_ + 1 < end_ && p_[1] == '*') {
      skipBlockComment();
    } else {
      return;
    }
  }
}

void Cursor::skipLine() {
  const void* nl = std::memchr(p_, '\n', static_cast<size_t>(end_ - p_));
  p_ = nl ? static_cast<const char*>(nl) : end_;
}

namespace {

// The characters skipStatement() must look at; everything else in an
// instruction is skipped in a tight loop.
constexpr std::array<bool, 256> kStatementStops = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view(";{}\n\"/")) t[c] = true;
  return t;
}();

// The first character at or after `p` that skipStatement() must look at, or
// `end`. Sixteen bytes a step where every x86-64 has the instructions for it:
// an instruction line is tens of characters, and a large file has hundreds
// of thousands (a byte a step took a tenth of the reading's instructions).
const char* findStatementStop(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i semicolon = _mm_set1_epi8(';'), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'),
                newline = _mm_set1_epi8('\n'), quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('/');
  for (; end - p >= 16; p += 16) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i stops = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(c, semicolon), _mm_cmpeq_epi8(c, open)),
                     _mm_or_si128(_mm_cmpeq_epi8(c, close), _mm_cmpeq_epi8(c, newline))),
        _mm_or_si128(_mm_cmpeq_epi8(c, quote), _mm_cmpeq_epi8(c, slash)));
    if (const int mask = _mm_movemask_epi8(stops)) return p + __builtin_ctz(static_cast<unsigned>(mask));
  }
#endif
  while (p < end && !kStatementStops[static_cast<unsigned char>(*p)]) ++p;
  return p;
}

}  // namespace

void Cursor::skipStatement() {
  SourceLoc start = loc();
  unsigned braces = 0;  // vector operands: `ld.v4.u8 {%rs5, %rs6, %rs7, %rs8}, [p];`
  for (;;) {
    p_ = findStatementStop(p_, end_);
    if (p_ == end_) break;
    switch (*p_) {
      case ';':
        ++p_;
        return;
      case '{':
        ++braces;
        ++p_;
        break;
      case '\n':
        newline(p_);
        ++p_;
        break;
      case '"':
        stringLiteral();
        break;
      case '/':
        if (!skipComment()) ++p_;
        break;
      case '}':
        // An unbalanced `}` ends the body: the statement lacks its `;`.
        if (braces == 0) fail(loc(), "expected ';' before '}'");
        --braces;
        ++p_;
        break;
      default:
        ++p_;
    }
  }
  fail(start, "unterminated statement: expected ';' before end of file");
}

std::string_view Cursor::stringLiteral() {
  SourceLoc start = loc();
  if (peek() != '"') fail("expected a string");
  const char* s = ++p_;
  while (p_ < end_) {
    char c = *p_;
    if (c == '"') {
      std::string_view v(s, static_cast<size_t>(p_ - s));
      ++p_;
      return v;
    }
    if (c == '\n') break;
    if (c == '\\' && p_ + 1 < end_ && p_[1] != '\n') ++p_;
    ++p_;
  }
  fail(start, "unterminated string");
}

uint64_t Cursor::unsignedNumber(const char* what) {
  NumberScan n = scanNumberFast(p_, end_);
  if (!n.end) fail(std::string("expected ") + what);
  if (n.overflow) fail(std::string(what) + " does not fit in 64 bits");
  p_ = n.end;
  return n.value;
}

void Cursor::expect(char c, const char* context) {
  if (!consume(c)) {
    std::string m = "expected '";
    m += c;
    m += "' ";
    m += context;
    fail(std::move(m));
  }
}

}  // namespace ptxdwarf::ptx
