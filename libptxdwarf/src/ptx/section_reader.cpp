// Reading a `.section` block's body. The hot loop of a large nvcc -G file:
// a million `.b8 N` lines, read in runs (Cursor::nvccByteLines), and the
// other plain data lines of each producer's style (Cursor::plainDataLine),
// beside the general path that checks each operand.
#include "section_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <span>
#include <string>

#include "ptxdwarf/format.h"
#include "ptxdwarf/leb128.h"
#include "../position_encodings.h"
#include "../reserve.h"
#include "../work.h"

namespace ptxdwarf::ptx {
namespace {

// Width in bytes of a data directive inside a section, 0 if it is not one.
unsigned dataWidth(std::string_view d) {
  if (d.size() < 3 || d[1] != 'b') return 0;  // one test for the rest of the file's directives
  if (d == ".b8") return 1;
  if (d == ".b16") return 2;
  if (d == ".b32") return 4;
  if (d == ".b64") return 8;
  return 0;
}

class SectionBodyReader {
 public:
  SectionBodyReader(Cursor& cur, Diagnostics& diagnostics, ConsumedText& consumed)
      : cur_(cur), diagnostics_(diagnostics), consumed_(consumed) {}

  void body(SectionImage& image, SourceLoc open) {
    for (;;) {
      cur_.skipSpace();
      if (cur_.atEnd()) cur_.fail(open, "unterminated section " + image.name + ": expected '}'");
      char c = cur_.peek();
      if (c == '}') {
        cur_.advance();
        return;
      }
      if (c == ';') {  // tolerated separator: `.b8 1; .b8 2` (ptxas 13 itself rejects it)
        cur_.advance();
        continue;
      }
      SourceLoc at = cur_.loc();
      if (c == '.') {
        consumed_.passed(cur_.offset());
        if (plainLines(image)) continue;
        unsigned width = dataDirective();
        if (width != 0) {
          dataOperands(image, width, kDataDirectives[width]);
          continue;
        }
        std::string_view d = cur_.directive();
        width = dataWidth(d);
        if (width == 0) {
          if (d.empty()) cur_.fail(at, "expected a data directive in section " + image.name);
          cur_.fail(at, "unknown directive '" + std::string(d) + "' inside section " + image.name +
                            " (expected .b8, .b16, .b32 or .b64)");
        }
        dataOperands(image, width, d);
        continue;
      }
      if (isIdentStart(c)) {
        std::string_view label = cur_.identifier();
        cur_.skipInlineSpace();
        if (!cur_.consume(':'))
          cur_.fail(at, "expected a data directive or a label in section " + image.name);
        image.labels.push_back({std::string(label), image.bytes.size(), at});
        continue;
      }
      cur_.fail(at, std::string("unexpected '") + c + "' in section " + image.name);
    }
  }

 private:
  // A run of plain data lines -- `.b8 N` a line (Cursor::byteLines), and
  // the other lines of nvcc, LLVM and this library's styles
  // (Cursor::plainDataLine) -- read without the general path's per-operand
  // checks: what the run stores is what dataOperands would have. False when
  // the cursor is not at one.
  bool plainLines(SectionImage& image) {
    // Each form is looked for where it fails fastest: nvcc's `.b8 N` lines,
    // then the other data lines -- and byte lines of the other forms first
    // once the other data lines meet one (a section written in them has few
    // else).
    bool any = false, anyForm = false;
    for (;; consumed_.passed(cur_.offset())) {
      if (byteRun(image, anyForm)) {
        any = true;
      } else if (const std::optional<Cursor::DataLine> data = cur_.plainDataLine(lineOperands_);
                 data && image.bytes.size() + uint64_t{data->width} * data->operands <= UINT32_MAX) {
        plainDataLine(image, *data);
        cur_.passLine(*data);
        anyForm = data->width == 1 && data->operands == 1;  // a byte line nvcc's form did not match
        any = true;
      } else {
        return any;  // past 4 GiB the general path says which operand does not fit
      }
    }
  }

  // A run of `.b8 N` lines (a million in a 20 MB nvcc -G file, a few at a
  // time between its other lines): their bytes stored at once, and their
  // positions as the first operand's and one column for the rest.
  bool byteRun(SectionImage& image, bool anyForm) {
    uint8_t values[256];
    const SourceLoc directive = cur_.loc();
    Cursor::ByteRun run{cur_.nvccByteLines(values), {directive.line, directive.col + 4}, 5};
    if (anyForm) cur_.byteLines(values, run);
    if (run.count == 0) return false;  // most lines of a packed section: nothing to store
    const uint64_t offset = image.bytes.size();
    if (offset + run.count > UINT32_MAX) {
      const uint64_t i = UINT32_MAX - offset;
      cur_.fail(i == 0 ? run.first : SourceLoc{run.first.line + static_cast<uint32_t>(i), run.col},
                "section " + image.name + " exceeds 4 GiB");
    }
    SourceMapEncoding::add(image.sourceMap, static_cast<uint32_t>(offset), run.first.line, run.first.col);
    SourceMapEncoding::addLines(image.sourceMap, static_cast<uint32_t>(offset + 1), run.first.line + 1, run.col,
                                static_cast<uint32_t>(run.count - 1));
    image.bytes.insert(image.bytes.end(), values, values + run.count);
    return true;
  }

  // The operands of a line plainDataLine matched (in lineOperands_, as many
  // as it holds): literals the width holds, and plain symbols.
  void plainDataLine(SectionImage& image, const Cursor::DataLine& line) {
    const uint32_t begin = static_cast<uint32_t>(image.bytes.size());
    const uint32_t size = line.width * line.operands;
    image.bytes.resize(begin + size);  // zeros: a symbol's bytes, and a .b64 constant's high half
    uint32_t offset = begin;
    PlainOperand op;
    for (uint32_t i = 0; i < line.operands; ++i, offset += line.width) {
      op = i < lineOperands_.size() ? lineOperands_[i] : nextPlainOperand(op, line);
      const SourceLoc at = cur_.locAt(op.begin);
      SourceMapEncoding::add(image.sourceMap, offset, at.line, at.col);
      if (op.symbol)
        image.addRelocation(offset, static_cast<uint8_t>(line.width),
                            std::string_view(op.begin, static_cast<size_t>(op.end - op.begin)), {}, 0);
      else
        storeLittleEndian(std::span(image.bytes).subspan(offset, std::min(line.width, 4u)), op.value);
    }
  }
  // The operand after `before` on a line plainDataLine matched.
  static PlainOperand nextPlainOperand(const PlainOperand& before, const Cursor::DataLine& line) {
    const char* p = before.end;
    while (*p != ',') ++p;  // blanks, then the comma: the line matched
    do ++p;
    while (isSpaceOrTab(*p));
    return plainOperand(p, line.newline, line.width, plainOperandMost(line.width));
  }
  // `.b8`, `.b16`, `.b32` or `.b64` at the cursor (nearly every line of a
  // debug section), matched by its bytes: the cursor moves past it and the
  // width comes back. 0, the cursor unmoved, for anything else.
  unsigned dataDirective() {
    if (cur_.peekAt(1) != 'b') return 0;
    const char a = cur_.peekAt(2), b = cur_.peekAt(3);
    unsigned width = 0, length = 4;
    if (a == '8') {
      width = 1;
      length = 3;
    } else if (a == '1' && b == '6') {
      width = 2;
    } else if (a == '3' && b == '2') {
      width = 4;
    } else if (a == '6' && b == '4') {
      width = 8;
    }
    if (width == 0 || isIdentChar(cur_.peekAt(length))) return 0;
    cur_.advance(length);
    return width;
  }
  static constexpr std::string_view kDataDirectives[9] = {"", ".b8", ".b16", "", ".b32", "", "", "", ".b64"};

  void dataOperands(SectionImage& image, unsigned width, std::string_view directive) {
    work::step(work::sectionLinesByOperand);
    for (;;) {
      cur_.skipSpace();
      dataOperand(image, width, directive);
      cur_.skipSpace();
      if (!cur_.consume(',')) return;
    }
  }

  void dataOperand(SectionImage& image, unsigned width, std::string_view directive) {
    SourceLoc at = cur_.loc();
    uint64_t offset = image.bytes.size();
    if (offset + width > UINT32_MAX) cur_.fail(at, "section " + image.name + " exceeds 4 GiB");
    SourceMapEncoding::add(image.sourceMap, static_cast<uint32_t>(offset), at.line, at.col);
    char c = cur_.peek();
    if (isDigit(c) || c == '-') {
      if (c == '-') image.negativeOperands.push_back(static_cast<uint32_t>(offset));
      appendValue(image, width, integerOperand(width, directive, at));
    } else if (isIdentStart(c) || (c == '.' && isIdentChar(cur_.peekAt(1)))) {
      symbolOperand(image, width, directive, at);
    } else if (c == '}' || c == '\0' || c == ',') {
      cur_.fail(at, "expected an operand after " + std::string(directive));
    } else {
      cur_.fail(at, std::string("unexpected '") + c + "' in an operand of " + std::string(directive));
    }
  }

  // The operand's value as ptxas 13 writes it: negative numbers in two's
  // complement, range-checked as ptxas does ([-2^(w-1), 2^w - 1] for .b8 and
  // .b16). A non-negative .b32 or .b64 constant keeps only its low 32 bits
  // (measured: `.b64 0x1122334455667788` is written 88 77 66 55 00 00 00 00,
  // `.b32 0x112233445566` is accepted as 0x33445566); a negative one keeps
  // all 64 (`.b64 -4294967297` is ff ff ff ff fe ff ff ff). A constant that
  // loses bits is read as ptxas writes it, with a warning.
  uint64_t integerOperand(unsigned width, std::string_view directive, SourceLoc at) {
    bool negative = cur_.consume('-');
    if (negative) cur_.skipSpace();
    const char* s = cur_.pos();
    NumberScan n = scanNumberFast(s, cur_.end());
    if (!n.end) cur_.fail(at, "invalid number in " + std::string(directive) + " operand");
    if (n.overflow)
      cur_.fail(at, "constant overflow: " + std::string(s, n.end) + " does not fit in 64 bits");
    cur_.advance(static_cast<size_t>(n.end - s));  // a literal holds no newline
    const unsigned bits = width * 8;
    const uint64_t mask = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    const uint64_t maxNegative = uint64_t{1} << (bits - 1);
    if (!negative && width >= 4 && n.value > UINT32_MAX) {
      diagnostics_.warning(at, std::string(directive) + " " + std::string(s, n.end) +
                                   ": ptxas 13 keeps only the low 32 bits of a non-negative " +
                                   std::string(directive) + " constant and writes " +
                                   hex(n.value & UINT32_MAX) + "; write the bytes with .b8 (or a negative number)")
          .rule = "wide-constant";
      return n.value & UINT32_MAX;
    }
    if (negative ? n.value > maxNegative : n.value > mask) {
      cur_.fail(at, "value out of range for type " + std::string(directive) + ": " +
                        (negative ? "-" : "") + std::to_string(n.value));
    }
    return (negative ? (~n.value + 1) : n.value) & mask;
  }

  void symbolOperand(SectionImage& image, unsigned width, std::string_view directive, SourceLoc at) {
    if (width < 4)
      cur_.fail(at, "symbolic operand in " + std::string(directive) +
                        ": ptxas accepts symbols only in .b32 and .b64 (\"Illegal type for dwarf data\")");
    const uint64_t offset = image.bytes.size();
    const std::string_view symbol = symbolName();
    std::string_view minus;
    int64_t addend = 0;
    cur_.skipInlineSpace();
    char c = cur_.peek();
    if (c == '+' || c == '-') {
      cur_.advance();
      cur_.skipInlineSpace();
      SourceLoc termLoc = cur_.loc();
      if (isDigit(cur_.peek())) {
        const char* s = cur_.pos();
        NumberScan n = scanNumber(s, cur_.end());
        if (!n.end) cur_.fail(termLoc, "invalid number in a symbolic operand");
        if (n.overflow || n.value > static_cast<uint64_t>(INT64_MAX))
          cur_.fail(termLoc, "addend out of range");
        cur_.moveTo(n.end);
        addend = c == '+' ? static_cast<int64_t>(n.value) : -static_cast<int64_t>(n.value);
      } else if (c == '-' && isIdentStart(cur_.peek())) {
        minus = symbolName();
      } else {
        cur_.fail(termLoc, std::string("expected a number") + (c == '-' ? " or a label" : "") +
                               " after '" + c + "'");
      }
    }
    image.addRelocation(offset, static_cast<uint8_t>(width), symbol, minus, addend);
    appendValue(image, width, 0);
  }

  std::string_view symbolName() {
    // Section names (`.debug_abbrev`) are symbols too.
    if (cur_.peek() == '.') return cur_.directive();
    return cur_.identifier();
  }

  static void appendValue(SectionImage& image, unsigned width, uint64_t value) {
    appendLittleEndian(image.bytes, value, width);
  }

  Cursor& cur_;
  Diagnostics& diagnostics_;  // warnings (an error is thrown)
  ConsumedText& consumed_;
  // The operands of the plain data line being read (plainDataLine): this
  // library's lines hold at most 16, nvcc's all but a few of its strings
  // (one line in 900,000 of a 20 MB nvcc -G file holds more than 32; the
  // rest of it is read again from the last operand held).
  std::array<PlainOperand, 32> lineOperands_{};
};

}  // namespace

SectionHeader readSectionHeader(Cursor& cur) {
  cur.skipInlineSpace();
  SourceLoc nameLoc = cur.loc();
  const char* s = cur.pos();
  while (!cur.atEnd() && (isIdentChar(cur.peek()) || cur.peek() == '.')) cur.advance();
  std::string_view name(s, static_cast<size_t>(cur.pos() - s));
  if (name.empty()) cur.fail(nameLoc, "expected a section name");
  // ptxas also takes `.section .name, "flags"`-less forms only; attributes are not PTX.
  cur.skipSpace();
  SourceLoc brace = cur.loc();
  cur.expect('{', ("to open section " + std::string(name)).c_str());
  return {name, brace};
}

// The text a section's vectors are reserved for when it is first named (a
// block that a comment's '}' cuts short grows past the reservation). The
// rest of the text alone made every section of a file of many tiny ones
// reserve for all that follows it: address space quadratic in their number,
// and a page or more of memory each.
uint64_t blockTextBound(const Cursor& cur) {
  const char* from = cur.pos();
  const size_t rest = static_cast<size_t>(cur.end() - from);
  const void* brace = std::memchr(from, '}', rest);
  return brace ? static_cast<uint64_t>(static_cast<const char*>(brace) - from) : rest;
}

void startSectionImage(SectionImage& image, std::string_view name, SourceLoc at, uint64_t rest) {
  image.name = std::string(name);
  image.loc = at;
  reserveUpTo(image.bytes, rest / 2 + 1);                 // `0,` a byte
  SourceMapEncoding::reserve(image.sourceMap, rest / 2);  // an entry per operand
  reserveUpTo(image.relocations, rest / 4 + 1);           // `.b32 a` and a newline
}

void readSectionBody(Cursor& cur, SectionImage& image, SourceLoc open, Diagnostics& diagnostics,
                     ConsumedText& consumed) {
  SectionBodyReader(cur, diagnostics, consumed).body(image, open);
}

}  // namespace ptxdwarf::ptx
