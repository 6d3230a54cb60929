#include "ptxdwarf/write/ptx_writer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "ptxdwarf/format.h"
#include "../parallel.h"
#include "ptx_writer_internal.h"

namespace ptxdwarf::write {

using namespace ptx_text;

std::string_view styleName(Style s) {
  switch (s) {
    case Style::packed: return "packed";
    case Style::onePerLine: return "one-per-line";
    case Style::verbose: return "verbose";
    case Style::dense: return "dense";
  }
  return "?";
}

std::optional<Style> parseStyle(std::string_view s) {
  if (s == "packed") return Style::packed;
  if (s == "one-per-line" || s == "onePerLine" || s == "one_per_line") return Style::onePerLine;
  if (s == "verbose") return Style::verbose;
  if (s == "dense") return Style::dense;
  return std::nullopt;
}

namespace {

// ---- validation -------------------------------------------------------------

bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isIdentChar(char c) { return isAlpha(c) || (c >= '0' && c <= '9') || c == '_' || c == '$'; }
bool allIdentChars(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return isIdentChar(c); });
}

// A PTX identifier: [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+.
bool isIdentifier(std::string_view s) {
  if (s.empty()) return false;
  if (isAlpha(s[0])) return allIdentChars(s.substr(1));
  return (s[0] == '_' || s[0] == '$' || s[0] == '%') && s.size() >= 2 && allIdentChars(s.substr(1));
}

// A symbolic operand: an identifier, or a section name `.debug_abbrev`
// (ptxas and our reader read `.` followed by identifier characters).
bool isSymbol(std::string_view s) {
  if (s.starts_with('.')) return s.size() >= 2 && allIdentChars(s.substr(1));
  return isIdentifier(s);
}

bool isSectionName(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return isIdentChar(c) || c == '.'; });
}

Diagnostic& fault(Diagnostics& diags, const SectionImage& image, uint64_t offset, std::string message) {
  Diagnostic& d = writeError(diags, image.locate(offset), image.name, std::move(message));
  d.offset = static_cast<int64_t>(offset);
  return d;
}

// An unset version is held to every rule: the writer cannot know that the
// PTX around the sections is recent enough.
std::string versionText(const ptx::Version& v) {
  if (!v.present) return "not given: set WriteOptions::version to the .version of the PTX the sections go into";
  return std::to_string(v.major) + "." + std::to_string(v.minor);
}

// `sectionLabels`: every label defined inside the sections being written.
// ptxas 13 computes `A-B` only when both are such labels ("label 'X' invalid"
// for code labels, at every .version).
bool validateImage(const SectionImage& image, const ptx::Version& version,
                   const std::unordered_set<std::string_view>& sectionLabels, const ptx::Module* module,
                   Diagnostics& diags) {
  const size_t before = diags.errorCount();
  if (!isSectionName(image.name))
    writeError(diags, image.loc, image.name, "cannot write section name '" + image.name + "' in PTX");
  const uint64_t size = image.bytes.size();
  uint64_t prevEnd = 0;
  for (const Relocation& r : image.relocations) {
    // Made only for a fault: a large section has hundreds of thousands of relocations.
    auto what = [&] { return "relocation '" + r.expression() + "' at " + image.name + "+" + std::to_string(r.offset); };
    if (r.size != 4 && r.size != 8) {
      fault(diags, image, r.offset,
            what() + ": a symbolic operand must be .b32 or .b64 (ptxas: \"Illegal type for dwarf data\"), not " +
                std::to_string(r.size) + " byte(s)");
      continue;
    }
    if (r.offset < prevEnd) fault(diags, image, r.offset, what() + ": overlaps or precedes the previous relocation");
    const uint64_t end = uint64_t{r.offset} + r.size;
    if (end > size)
      fault(diags, image, r.offset, what() + ": extends past the end of the section (" + std::to_string(size) + " bytes)");
    prevEnd = std::max(prevEnd, end);
    if (!isSymbol(r.symbol) || (r.isDifference() && !isIdentifier(r.minus())))
      fault(diags, image, r.offset, what() + ": not a valid PTX symbol name");
    if (module)  // ptxas itself accepts an undefined label and writes 0 there
      for (std::string_view name : {r.symbol, r.minus()})
        if (!name.empty() && !name.starts_with(".debug") && !module->definesSymbol(name) && !sectionLabels.contains(name))
          fault(diags, image, r.offset, what() + ": '" + std::string(name) + "' is not defined in the PTX module");
    if (r.isDifference()) {
      if (r.addend() != 0)
        fault(diags, image, r.offset,
              what() + ": ptxas accepts a label difference only without an addend (`A-B+N` is a syntax error)");
      if (!version.present || !version.atLeast(7, 5))
        fault(diags, image, r.offset,
              what() + ": a label difference needs PTX .version 7.5 or later (target is " + versionText(version) + ")");
      if (!sectionLabels.contains(r.symbol) || !sectionLabels.contains(r.minus()))
        fault(diags, image, r.offset,
              what() + ": ptxas computes a label difference only between labels defined inside debug sections "
                     "(code labels give \"label invalid\")");
    } else if (r.addend() < 0) {
      fault(diags, image, r.offset,
            what() + ": ptxas cannot read a negative addend (`sym-N` is a syntax error at every .version)");
    }
  }
  for (const SectionLabel& l : image.labels) {
    auto what = [&] { return "label '" + l.name + "' at " + image.name + "+" + std::to_string(l.offset); };
    if (!isIdentifier(l.name)) fault(diags, image, l.offset, what() + ": not a valid PTX label name");
    if (l.offset > size)
      fault(diags, image, l.offset, what() + ": past the end of the section (" + std::to_string(size) + " bytes)");
    if (!version.present || !version.atLeast(7, 0))
      fault(diags, image, l.offset,
            what() + ": labels inside a section need PTX .version 7.0 or later (target is " + versionText(version) +
                ")");
    if (const Relocation* r = image.relocationOverlapping(l.offset, 1); r && r->offset < l.offset)
      fault(diags, image, l.offset, what() + ": inside the relocated operand '" + r->expression() + "'");
  }
  return diags.errorCount() == before;
}

// ---- text output --------------------------------------------------------------

struct ByteText {
  char text[4];
  uint8_t len;
};
struct ByteTable {
  ByteText t[256];
  constexpr ByteTable() : t{} {
    for (unsigned v = 0; v < 256; ++v) {
      unsigned n = 0;
      if (v >= 100) t[v].text[n++] = char('0' + v / 100);
      if (v >= 10) t[v].text[n++] = char('0' + v / 10 % 10);
      t[v].text[n++] = char('0' + v % 10);
      t[v].len = uint8_t(n);
    }
  }
};
constexpr ByteTable kBytes;

// ", N" for every byte N in 8 chars that are copied whole (one 8-byte copy
// per byte of a packed line; only `len` of them count).
struct SeparatedByteTable {
  char text[256][8];
  uint8_t len[256];
  constexpr SeparatedByteTable() : text{}, len{} {
    for (unsigned v = 0; v < 256; ++v) {
      text[v][0] = ',';
      text[v][1] = ' ';
      for (unsigned i = 0; i < kBytes.t[v].len; ++i) text[v][2 + i] = kBytes.t[v].text[i];
      len[v] = uint8_t(2 + kBytes.t[v].len);
    }
  }
};
constexpr SeparatedByteTable kSeparated;

void appendByte(std::string& out, uint8_t b) { out.append(kBytes.t[b].text, kBytes.t[b].len); }

// Two lowercase hex digits for every byte.
struct HexPairs {
  char text[512];
  constexpr HexPairs() : text{} {
    constexpr char kDigits[] = "0123456789abcdef";
    for (unsigned v = 0; v < 256; ++v) {
      text[2 * v] = kDigits[v >> 4];
      text[2 * v + 1] = kDigits[v & 15];
    }
  }
};
constexpr HexPairs kHexPairs;

// The same pairs as 16-bit values whose bytes, little-endian, are the two
// characters: four of them make a word's eight digits in a 64-bit value.
struct HexPairWords {
  uint16_t pair[256];
  constexpr HexPairWords() : pair{} {
    for (unsigned v = 0; v < 256; ++v)
      pair[v] = static_cast<uint16_t>(uint8_t(kHexPairs.text[2 * v]) | uint8_t(kHexPairs.text[2 * v + 1]) << 8);
  }
};
constexpr HexPairWords kHexPairWords;

// A 32-bit word of dense data at `p`, which must have room for 10 bytes
// whatever the value; returns the end of it. Below 10 its decimal digit,
// else `0x` and its hex digits without leading zeros: two digits a byte from
// a table, put together in a 64-bit value, and the count from the bit width,
// no division and no branch on the length. Decimal digits would be half a
// character shorter a word on average, but making them (divisions, a length
// std::to_chars mispredicts on such data) cost more than the longer text to
// write.
char* appendWord(char* p, uint32_t v) {
  if (v < 10) {
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  const unsigned count = (static_cast<unsigned>(std::bit_width(v)) + 3) / 4;  // v >= 10: 1 to 8
  p[0] = '0';
  p[1] = 'x';
  if constexpr (std::endian::native == std::endian::little) {
    // The eight digits in memory order, the leading zeros shifted out.
    uint64_t digits = uint64_t{kHexPairWords.pair[v >> 24]} | uint64_t{kHexPairWords.pair[(v >> 16) & 0xff]} << 16 |
                      uint64_t{kHexPairWords.pair[(v >> 8) & 0xff]} << 32 |
                      uint64_t{kHexPairWords.pair[v & 0xff]} << 48;
    digits >>= 8 * (8 - count);
    std::memcpy(p + 2, &digits, 8);
  } else {
    char digits[16] = {};  // eight digits, and eight bytes the fixed-size copy below may read past them
    std::memcpy(digits + 0, kHexPairs.text + 2 * (v >> 24), 2);
    std::memcpy(digits + 2, kHexPairs.text + 2 * ((v >> 16) & 0xff), 2);
    std::memcpy(digits + 4, kHexPairs.text + 2 * ((v >> 8) & 0xff), 2);
    std::memcpy(digits + 6, kHexPairs.text + 2 * (v & 0xff), 2);
    std::memcpy(p + 2, digits + 8 - count, 8);
  }
  return p + 2 + count;
}

uint64_t readLe(const std::vector<uint8_t>& b, uint64_t off, unsigned size) {
  uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= uint64_t(b[off + i]) << (8 * i);
  return v;
}

class SectionWriter {
 public:
  // `sorted`: the image's labels in offset order (sortedLabels), which the
  // writers of parts of one section share. `flush`, when given, takes the
  // text made so far (and empties `out`) whenever it passes kStreamChunk bytes.
  SectionWriter(std::string& out, const SectionImage& image, const WriteOptions& options,
                std::span<const SectionLabel* const> sorted, const std::function<void(std::string&)>* flush)
      : out_(out), image_(image), opt_(options), nl_(options.crlf ? "\r\n" : "\n"), labels_(sorted), flush_(flush) {
    perLine_ = std::clamp(options.bytesPerLine, 1u, 4096u);
  }

  static std::vector<const SectionLabel*> sortedLabels(const SectionImage& image) {
    std::vector<const SectionLabel*> labels;
    labels.reserve(image.labels.size());
    for (const SectionLabel& l : image.labels) labels.push_back(&l);
    std::stable_sort(labels.begin(), labels.end(),
                     [](const SectionLabel* a, const SectionLabel* b) { return a->offset < b->offset; });
    return labels;
  }

  // Bytes [begin, end) of a non-verbose section, with the block's opening
  // when `first` and its close when `last`. `begin` must be where the whole
  // section's text starts a line (0 or a relocation: see cutPoints), so that
  // the parts put together are the whole text.
  void writePart(bool indent, uint64_t begin, uint64_t end, bool first, bool last) {
    if (first) opening(indent);
    pos_ = begin;
    li_ = static_cast<size_t>(
        std::lower_bound(labels_.begin(), labels_.end(), begin,
                         [](const SectionLabel* l, uint64_t offset) { return l->offset < offset; }) -
        labels_.begin());
    ri_ = static_cast<size_t>(
        std::lower_bound(image_.relocations.begin(), image_.relocations.end(), begin,
                         [](const Relocation& r, uint64_t offset) { return r.offset < offset; }) -
        image_.relocations.begin());
    range(end, dataStyle(), {});
    if (!last) return;
    labelsAt(image_.bytes.size());
    out_ += "\t}";
  }

  // A verbose section: a line per field, the bytes between fields one per line.
  void writeFields(bool indent, const std::vector<Field>& fields) {
    opening(indent);
    for (const Field& f : fields) {
      if (f.offset < pos_) continue;  // overlapping field: dropped
      if (f.offset > pos_) range(f.offset, Style::onePerLine, {});
      if (f.fixed && !relocationIn(f.offset, f.offset + f.size) && !labelInside(f.offset, f.offset + f.size)) {
        labelsAt(pos_);
        out_ += f.size == 8 ? ".b64 " : ".b32 ";
        appendDec(out_, readLe(image_.bytes, f.offset, unsigned(f.size)));
        comment(f.comment);
        out_ += nl_;
        pos_ = f.offset + f.size;
      } else {
        range(f.offset + f.size, Style::packed, f.comment);
      }
    }
    range(image_.bytes.size(), Style::onePerLine, {});
    labelsAt(image_.bytes.size());
    out_ += "\t}";
  }

 private:
  void opening(bool indent) {
    if (indent) out_ += '\t';
    out_ += ".section\t";
    out_ += image_.name;
    out_ += nl_;
    out_ += "\t{";
    out_ += nl_;
  }

  void comment(std::string_view c) {
    if (c.empty()) return;
    out_ += "\t// ";
    out_ += c;
  }

  void labelsAt(uint64_t offset) {
    while (li_ < labels_.size() && labels_[li_]->offset <= offset) {
      out_ += labels_[li_]->name;
      out_ += ':';
      out_ += nl_;
      ++li_;
    }
  }
  uint64_t nextLabel() const { return li_ < labels_.size() ? labels_[li_]->offset : UINT64_MAX; }
  bool labelInside(uint64_t begin, uint64_t end) const {
    for (size_t i = li_; i < labels_.size() && labels_[i]->offset < end; ++i)
      if (labels_[i]->offset > begin) return true;
    return false;
  }
  const Relocation* nextReloc() {
    while (ri_ < image_.relocations.size() && image_.relocations[ri_].offset < pos_) ++ri_;
    return ri_ < image_.relocations.size() ? &image_.relocations[ri_] : nullptr;
  }
  bool relocationIn(uint64_t begin, uint64_t end) { return image_.relocationOverlapping(begin, end - begin) != nullptr; }

  // Writes bytes [pos_, end) with labels and relocations; `comment` goes on the first line.
  void range(uint64_t end, Style style, std::string_view firstComment) {
    bool commented = firstComment.empty();
    while (pos_ < end) {
      labelsAt(pos_);
      const Relocation* r = nextReloc();
      if (r && r->offset == pos_) {
        out_ += r->size == 8 ? ".b64 " : ".b32 ";
        out_ += r->symbol;
        if (r->isDifference()) {
          out_ += '-';
          out_ += r->minus();
        } else if (r->addend() > 0) {
          out_ += '+';
          appendDec(out_, uint64_t(r->addend()));
        }
        pos_ += r->size;
        endLine(commented, firstComment);
        continue;
      }
      uint64_t stop = std::min({end, nextLabel(), r ? r->offset : UINT64_MAX});
      const uint8_t* b = image_.bytes.data();
      if (style == Style::onePerLine) {
        for (; pos_ < stop; ++pos_) {
          out_ += ".b8 ";
          appendByte(out_, b[pos_]);
          endLine(commented, firstComment);
        }
      } else {
        if (style == Style::dense) {
          while (stop - pos_ >= 4) {
            wordLine(std::min<uint64_t>((stop - pos_) / 4, std::max(1u, perLine_ / 4)));
            endLine(commented, firstComment);
          }
        }
        while (pos_ < stop) {
          byteLine(std::min<uint64_t>(stop, pos_ + perLine_));
          endLine(commented, firstComment);
        }
      }
    }
  }

  // The lines are formatted in a buffer and appended once: most of the text
  // annotate writes is these lines.
  char* lineBuffer() {
    // 5 chars a byte (", 255") or 12 a word (", 4294967295"), and 8 bytes of slack for the stores.
    if (line_.empty()) line_.resize(16 + 5 * size_t{perLine_} + 12);
    return line_.data();
  }

  // `.b8 a, b, c` for bytes [pos_, lineEnd).
  void byteLine(uint64_t lineEnd) {
    const uint8_t* b = image_.bytes.data();
    char* p = lineBuffer();
    std::memcpy(p, ".b8 ", 4);
    p += 4;
    std::memcpy(p, kBytes.t[b[pos_]].text, 4);  // the table entry's 4 chars; len of them count
    p += kBytes.t[b[pos_++]].len;
    for (; pos_ < lineEnd; ++pos_) {
      std::memcpy(p, kSeparated.text[b[pos_]], 8);
      p += kSeparated.len[b[pos_]];
    }
    out_.append(line_.data(), static_cast<size_t>(p - line_.data()));
  }

  // `.b32 w, x, y` for `words` little-endian words from pos_: the same bytes
  // in fewer characters (a word of zeros is "0", four letters "0x64636261").
  void wordLine(uint64_t words) {
    const uint8_t* b = image_.bytes.data();
    char* p = lineBuffer();
    std::memcpy(p, ".b32 ", 5);
    p += 5;
    for (uint64_t i = 0; i < words; ++i, pos_ += 4) {
      if (i) *p++ = ',', *p++ = ' ';
      uint32_t w;
      std::memcpy(&w, b + pos_, 4);
      if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);  // the bytes are little-endian
      p = appendWord(p, w);
    }
    out_.append(line_.data(), static_cast<size_t>(p - line_.data()));
  }

  void endLine(bool& commented, std::string_view firstComment) {
    if (!commented) comment(firstComment), commented = true;
    out_ += nl_;
    if (flush_ && out_.size() >= kStreamChunk) (*flush_)(out_);
  }

  // The style of the stretches of plain bytes (verbose writes those it cannot
  // attribute one per line).
  Style dataStyle() const { return opt_.style == Style::verbose ? Style::onePerLine : opt_.style; }

  std::string& out_;
  const SectionImage& image_;
  const WriteOptions& opt_;
  std::string_view nl_;
  unsigned perLine_ = 16;
  std::span<const SectionLabel* const> labels_;
  std::vector<char> line_;  // one packed line being formatted (5 chars per byte at most, and ".b8 ")
  const std::function<void(std::string&)>* flush_;
  size_t li_ = 0, ri_ = 0;
  uint64_t pos_ = 0;
};

// A section's text into `out`; `flush`, when given, takes it as it grows.
void render(std::string& out, const SectionImage& image, const WriteOptions& options, bool indent,
            const std::function<void(std::string&)>* flush) {
  const std::vector<const SectionLabel*> labels = SectionWriter::sortedLabels(image);
  SectionWriter w(out, image, options, labels, flush);
  if (options.style != Style::verbose) return w.writePart(indent, 0, image.bytes.size(), true, true);
  w.writeFields(indent, options.dwarf ? verboseFields(*options.dwarf, image) : std::vector<Field>{});
}

// Where a large section's text is cut into parts rendered on two threads:
// relocations about kPartBytes apart (a relocation starts a line, and
// rendering from one on gives the same lines as rendering the whole).
// Just {0, size} when the section is small, verbose, or one thread it is.
std::vector<uint64_t> cutPoints(const SectionImage& image, const WriteOptions& options) {
  constexpr uint64_t kWorthAThread = uint64_t{2} << 20;  // bytes of section: about 6 MB of text
  constexpr uint64_t kPartBytes = uint64_t{512} << 10;   // a part's text: 1.5 to 2.5 MB
  const uint64_t size = image.bytes.size();
  std::vector<uint64_t> cuts{0};
  if (options.style != Style::verbose && size >= kWorthAThread && threadCount(options.threads) >= 2) {
    auto next = image.relocations.begin();
    for (uint64_t target = kPartBytes; target < size;) {
      next = std::lower_bound(next, image.relocations.end(), target,
                              [](const Relocation& r, uint64_t offset) { return r.offset < offset; });
      if (next == image.relocations.end()) break;
      cuts.push_back(next->offset);
      target = next->offset + kPartBytes;
    }
  }
  cuts.push_back(size);
  return cuts;
}

// A large section's parts [cuts[k], cuts[k+1]), rendered two at a time and
// handed to the sink in order, always from the caller's thread: the caller
// hands over the odd part made before and renders the next even one (its
// text goes through `flush` as it grows) while a kept thread, when one can
// be had (runBeside), renders the odd one after it into one of two texts.
// The memory is a few parts' text, not the section's.
void renderInParts(const std::function<void(std::string_view)>& sink, const SectionImage& image,
                   const WriteOptions& options, const std::vector<uint64_t>& cuts, std::string& buffer,
                   const std::function<void(std::string&)>& flush, bool indent) {
  const size_t parts = cuts.size() - 1;
  const std::vector<const SectionLabel*> labels = SectionWriter::sortedLabels(image);
  auto renderPart = [&](std::string& out, size_t k, const std::function<void(std::string&)>* through) {
    SectionWriter(out, image, options, labels, through).writePart(indent, cuts[k], cuts[k + 1], k == 0, k + 1 == parts);
  };
  std::array<std::string, 2> odd;  // part k + 1 goes into odd[k / 2 % 2]
  auto handOverOdd = [&](size_t k) {  // part k (odd), after what the caller rendered
    if (!buffer.empty()) flush(buffer);
    sink(odd[(k - 1) / 2 % 2]);
  };
  for (size_t k = 0; k < parts; k += 2) {
    auto even = [&] {
      if (k > 0) handOverOdd(k - 1);
      renderPart(buffer, k, &flush);
    };
    if (k + 1 == parts) {
      even();
      break;
    }
    runBeside(even, [&] {
      std::string& next = odd[k / 2 % 2];
      next.clear();
      renderPart(next, k + 1, nullptr);
    });
  }
  if (parts % 2 == 0) handOverOdd(parts - 1);
}

}  // namespace

namespace ptx_text {

Diagnostic& writeError(Diagnostics& diags, SourceLoc at, const std::string& section, std::string message) {
  Diagnostic& d = diags.error(at, std::move(message));
  d.rule = "ptx-write";
  d.section = section;
  return d;
}

// Comment text is printed after `// `: no line breaks, no backslashes (a trailing
// one could splice lines in a preprocessor), printable ASCII only.
void appendCommentText(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += char(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
}

size_t estimateSize(const SectionImage& image, Style style) {
  const size_t perByte = style == Style::dense ? 3 : style == Style::packed ? 5 : style == Style::onePerLine ? 8 : 10;
  return 32 + image.name.size() + image.bytes.size() * perByte + image.relocations.size() * 40 +
         image.labels.size() * 24;
}

SinkOutput::SinkOutput(const std::function<void(std::string_view)>& sink, const WriteOptions& options)
    : sink_(sink), options_(options) {
  buffer_.reserve(kStreamChunk + 64 * 1024);
}

void SinkOutput::section(const SectionImage& image, bool indent) {
  const std::vector<uint64_t> cuts = cutPoints(image, options_);
  if (cuts.size() < 3) render(buffer_, image, options_, indent, &flushing_);
  else renderInParts(counted_, image, options_, cuts, buffer_, flushing_, indent);
}

void SinkOutput::hand(std::string_view piece) {
  if (piece.empty()) return;
  last_ = piece.back();
  sink_(piece);
}

void SinkOutput::flush(std::string& text) {
  hand(text);
  text.clear();
}

}  // namespace ptx_text

bool validate(std::span<const SectionImage> images, const WriteOptions& options, Diagnostics& diags) {
  bool ok = true;
  // A set: every relocation naming a label is looked up in it (LLVM 22
  // names each location list by a label inside .debug_loc).
  std::unordered_set<std::string_view> sectionLabels;
  for (const SectionImage& image : images)
    for (const SectionLabel& l : image.labels) sectionLabels.insert(l.name);
  for (const SectionImage& image : images)
    ok = validateImage(image, options.version, sectionLabels, options.module, diags) && ok;
  return ok;
}

bool writeSections(std::string& out, std::span<const SectionImage> images, const WriteOptions& options,
                   Diagnostics& diags) {
  size_t need = out.size();
  for (const SectionImage& image : images) need += estimateSize(image, options.style);
  out.reserve(need);
  return streamSections([&](std::string_view piece) { out += piece; }, images, options, diags);
}

bool streamSections(const std::function<void(std::string_view)>& sink, std::span<const SectionImage> images,
                    const WriteOptions& options, Diagnostics& diags) {
  if (!validate(images, options, diags)) return false;
  SinkOutput out(sink, options);
  for (const SectionImage& image : images) {
    out.section(image, true);
    out.text(options.crlf ? "\r\n" : "\n");
  }
  out.finish();
  return true;
}

bool writeSection(std::string& out, const SectionImage& image, const WriteOptions& options, Diagnostics& diags) {
  return writeSections(out, std::span<const SectionImage>(&image, 1), options, diags);
}

bool writeSections(std::ostream& out, std::span<const SectionImage> images, const WriteOptions& options,
                   Diagnostics& diags) {
  std::string text;
  if (!writeSections(text, images, options, diags)) return false;
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(out);
}

std::string writeSections(std::span<const SectionImage> images, const WriteOptions& options, Diagnostics& diags) {
  std::string out;
  writeSections(out, images, options, diags);
  return out;
}

}  // namespace ptxdwarf::write
