// The PTX writer: SectionImages back to `.section NAME { ... }` text.
//
// Every byte of an image is written exactly once, in order; relocations are
// written back symbolically (`.b32 .debug_abbrev`, `.b64 func_begin0`,
// `.b32 .debug_loc+138`, `.b32 A-B`) and section labels (`name:`) at their
// offsets, so `ptx::read` of the output gives the same bytes, relocations and
// labels. The bytes under a relocation are not written (ptxas fills them in);
// the reader zero-fills them.
//
// What ptxas 13 accepts inside a debug section (verified with CUDA 13.0):
//   - labels need `.version` >= 7.0, `A-B` needs >= 7.5;
//   - `sym-8`, `A-B+4` and `A-B-4` are syntax errors at every version, so a
//     negative addend, or an addend on a label difference, is an error here;
//   - symbolic operands only in `.b32` / `.b64`.
// An image that needs what the target cannot express is reported (diagnostic
// naming the section, the offset and the label or relocation) and nothing is
// written: the writer never produces PTX that ptxas would reject or misread.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/section.h"

namespace ptxdwarf::read {
class Dwarf;
}

namespace ptxdwarf::write {

enum class Style : uint8_t {
  // `.b8 a, b, c` runs (bytesPerLine per line), `.b32`/`.b64` for relocated
  // operands, labels on their own lines. Every byte can be read off.
  packed,
  // One operand per directive per line: `.b8 1` lines (the nvcc/LLVM layout).
  onePerLine,
  // One DWARF field per line with a comment naming it (LLVM's NVPTX verbose asm):
  // needs WriteOptions::dwarf for field boundaries; whatever it cannot
  // attribute is written one byte per line.
  verbose,
  // As packed, but the data between labels and relocations goes as `.b32`
  // words in hex (little-endian: the same bytes; `.b32 0x106, 0x66335a5f`,
  // below 10 a decimal digit), bytesPerLine / 4 a line, and only the last
  // one to three bytes of a stretch as `.b8`: about 2.9 characters a byte
  // against packed's 4.1 on annotate's DWARF, for output nobody reads byte
  // by byte. (`.b64` words would be smaller still, but ptxas 13 keeps only
  // the low 32 bits of a non-negative `.b64` constant.)
  dense,
};

std::string_view styleName(Style s);                 // "packed", "one-per-line", "verbose", "dense"
std::optional<Style> parseStyle(std::string_view s);  // accepts the names above and "onePerLine"

struct WriteOptions {
  Style style = Style::packed;
  // The `.version` of the PTX the sections go into; its rules decide what may
  // be written (labels in sections need 7.0, `A-B` 7.5). When !present,
  // reformat() uses the module's version; writeSections() holds the sections
  // to every rule (as for a PTX older than 7.0) and says to set the version.
  ptx::Version version{};
  // The PTX module the sections go into (its code, functions and variables;
  // read it with ptx::read before the sections are added). When set, every
  // symbolic operand must name something it defines, a label of the sections
  // being written, or a debug section: ptxas accepts an undefined name without
  // a word and writes 0 there. reformat() leaves it to the caller.
  const ptx::Module* module = nullptr;
  // The decoded DWARF of these images (verbose only; ignored by other styles).
  // A section is annotated only when the Dwarf's section of that name holds the
  // same bytes as the image being written.
  const read::Dwarf* dwarf = nullptr;
  // `.b8` operands per line in packed style, bytes per line in dense style
  // (1..4096; clamped).
  unsigned bytesPerLine = 16;
  // Line ending; reformat() uses "\r\n" when the original text's first line ends so.
  bool crlf = false;
  // 1 (the default): rendered on the caller's thread only. Otherwise
  // (`threads` >= 2, or 0 when the process may use two CPUs) a section of
  // megabytes is rendered in parts on two threads. The text is the same.
  unsigned threads = 1;
};

// Checks that `images` can be written for `options.version`; adds one error per
// problem to `diags` (section, offset, label/relocation name). True when writable.
bool validate(std::span<const SectionImage> images, const WriteOptions& options, Diagnostics& diags);

// Appends the rendered sections to `out` (one `.section` block per image, in
// order). On any validation error `out` is left unchanged and false is returned.
bool writeSections(std::string& out, std::span<const SectionImage> images, const WriteOptions& options,
                   Diagnostics& diags);
bool writeSection(std::string& out, const SectionImage& image, const WriteOptions& options, Diagnostics& diags);

// The same text handed to `sink` in pieces of about 1 MB as it is made, so a
// caller writing a file never holds the whole of it. Nothing is handed over
// on a validation error.
bool streamSections(const std::function<void(std::string_view)>& sink, std::span<const SectionImage> images,
                    const WriteOptions& options, Diagnostics& diags);

// The rendered sections as a new string; empty on error (see diags).
std::string writeSections(std::span<const SectionImage> images, const WriteOptions& options, Diagnostics& diags);
// The same, onto a stream (nothing is written when there is an error).
bool writeSections(std::ostream& out, std::span<const SectionImage> images, const WriteOptions& options,
                   Diagnostics& diags);

// New PTX text for `text` (from which `module` was read) with its `.section`
// blocks replaced by `sections`: for every name in `sections` that the module
// has, the first block of that name becomes the rendered section and the other
// blocks of that name are removed. A name the module does not have is appended
// after the last block of the file (at the end of the text when there is none).
// Blocks of names absent from `sections` are kept as they are; every byte outside
// the replaced blocks is unchanged. Returns nullopt on error (see diags).
std::optional<std::string> reformat(std::string_view text, const ptx::Module& module,
                                    std::span<const SectionImage> sections, const WriteOptions& options,
                                    Diagnostics& diags);
// The same text handed to `sink` in order, in pieces (most about 1 MB, a
// part of a large section rendered on a second thread a few MB, a long run
// of the original text one view of `text`), so that a caller writing a file
// never holds the whole output. Every error is found before
// the first piece: on false nothing was handed over.
bool reformat(std::string_view text, const ptx::Module& module, std::span<const SectionImage> sections,
              const WriteOptions& options, Diagnostics& diags, const std::function<void(std::string_view)>& sink);

}  // namespace ptxdwarf::write
