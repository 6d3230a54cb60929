#pragma once

// Internal to the PTX writer (src/write/ptx_*.cpp): what its section layout
// (ptx_writer.cpp), its verbose comments (ptx_verbose.cpp) and its reformat
// (ptx_reformat.cpp) share. Not part of the library's interface.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/section.h"
#include "ptxdwarf/write/ptx_writer.h"

namespace ptxdwarf::write::ptx_text {

// SinkOutput hands the text over in pieces of about this size.
inline constexpr size_t kStreamChunk = size_t{1} << 20;

// One DWARF field of a section, for verbose output.
struct Field {
  uint64_t offset = 0;
  uint64_t size = 0;
  bool fixed = false;  // a 4- or 8-byte value: one `.b32`/`.b64` directive
  std::string comment;
};

// An error of the writer's (rule "ptx-write") about section `section`.
Diagnostic& writeError(Diagnostics& diags, SourceLoc at, const std::string& section, std::string message);

// Whether the text's first line ends in "\r\n": its other lines are taken to.
inline bool firstLineEndsInCrlf(std::string_view text) {
  const size_t nl = text.find('\n');
  return nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r';
}

// Comment text is printed after `// `: no line breaks, no backslashes (a trailing
// one could splice lines in a preprocessor), printable ASCII only.
void appendCommentText(std::string& out, std::string_view s);

// The DWARF fields of a section the model read (`dwarf`), for verbose output;
// none when the section is not one of those read, or not the same bytes.
std::vector<Field> verboseFields(const read::Dwarf& dwarf, const SectionImage& image);

// About how many characters a section's text takes in a style.
size_t estimateSize(const SectionImage& image, Style style);

// Text handed to a sink in pieces of about kStreamChunk, so that a caller
// writing a file never holds the whole of it: a long run of a caller's text
// as it is (a view, not a copy), sections rendered into a buffer handed over
// as it fills, a large section rendered in parts on two threads.
class SinkOutput {
 public:
  SinkOutput(const std::function<void(std::string_view)>& sink, const WriteOptions& options);
  // Inline: annotate hands over its code a token or a line at a time.
  void text(std::string_view t) {
    if (t.size() >= kStreamChunk) {
      flush(buffer_);
      hand(t);
      return;
    }
    buffer_ += t;
    if (buffer_.size() >= kStreamChunk) flush(buffer_);
  }
  void section(const SectionImage& image, bool indent);
  // Whether what was handed over and buffered so far is empty or ends a line.
  bool endsLine() const { return buffer_.empty() ? last_ == 0 || last_ == '\n' : buffer_.back() == '\n'; }
  void finish() { flush(buffer_); }

 private:
  void hand(std::string_view piece);
  void flush(std::string& text);

  const std::function<void(std::string_view)>& sink_;
  const WriteOptions& options_;
  std::string buffer_;
  char last_ = 0;  // the last byte handed over; 0 before the first
  // hand() and flush() as the section writers take them.
  const std::function<void(std::string_view)> counted_ = [this](std::string_view piece) { hand(piece); };
  const std::function<void(std::string&)> flushing_ = [this](std::string& text) { flush(text); };
};

}  // namespace ptxdwarf::write::ptx_text
