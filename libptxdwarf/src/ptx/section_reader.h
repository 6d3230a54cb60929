// The body of a `.section` block: data directives, their operands and
// labels, appended to the section's image. Internal to the PTX reader.
#pragma once

#include <cstdint>
#include <functional>

#include "lexer.h"
#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::ptx {

// Tells the caller (ReadOptions::consumed) which text the read has passed
// for good, about every ReadOptions::consumedStep bytes.
class ConsumedText {
 public:
  // `from`: where the text this reader passes begins.
  explicit ConsumedText(const ReadOptions& options, uint64_t from = 0) : options_(options), from_(from) {}
  // The read stands at `offset`, between two statements.
  void passed(uint64_t offset) {
    if (!options_.consumed || offset - from_ < options_.consumedStep) return;
    options_.consumed(from_, offset);
    from_ = offset;
  }
  // The read is over at `offset`.
  void finish(uint64_t offset) {
    if (options_.consumed && offset > from_) options_.consumed(from_, offset);
  }

 private:
  const ReadOptions& options_;
  uint64_t from_;
};

// What follows a `.section` directive up to its block's `{`: the name
// (identifier characters and dots) and where the brace stands. A syntax
// error throws ParseError.
struct SectionHeader {
  std::string_view name;
  SourceLoc brace;
};
SectionHeader readSectionHeader(Cursor& cur);

// The text from the cursor (just past a block's `{`) to the next '}': where
// the block ends, unless a comment holds one.
uint64_t blockTextBound(const Cursor& cur);

// Names a new section at `at` and reserves its vectors for a block of
// `blockBytes` of text (blockTextBound).
void startSectionImage(SectionImage& image, std::string_view name, SourceLoc at, uint64_t blockBytes);

// Reads a section's body from after its `{` to past its `}` into `image`:
// bytes, relocations, labels and each operand's position. `open` is where
// an unterminated body is reported; a syntax error throws ParseError.
void readSectionBody(Cursor& cur, SectionImage& image, SourceLoc open, Diagnostics& diagnostics,
                     ConsumedText& consumed);

}  // namespace ptxdwarf::ptx
