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

// streamSections hands the text over in pieces of about this size.
inline constexpr size_t kStreamChunk = size_t{1} << 20;

// One DWARF field of a section, for verbose output.
struct Field {
  uint64_t offset = 0;
  uint64_t size = 0;
  bool fixed = false;  // a 4- or 8-byte value: one `.b32`/`.b64` directive
  std::string comment;
};

// Decimal and 0x-hexadecimal digits of a value.
void appendUnsigned(std::string& out, uint64_t v);
void appendHex(std::string& out, uint64_t v);

// Comment text is printed after `// `: no line breaks, no backslashes (a trailing
// one could splice lines in a preprocessor), printable ASCII only.
void appendCommentText(std::string& out, std::string_view s);

// The DWARF fields of a section the model read (`dwarf`), for verbose output;
// none when the section is not one of those read, or not the same bytes.
std::optional<std::vector<Field>> verboseFields(const read::Dwarf& dwarf, const SectionImage& image);

// About how many characters a section's text takes in a style.
size_t estimateSize(const SectionImage& image, Style style);

void render(std::string& out, const SectionImage& image, const WriteOptions& options, bool indent,
            const std::function<void(std::string&)>* flush = nullptr);

std::vector<uint64_t> cutPoints(const SectionImage& image, const WriteOptions& options);

void renderInParts(const std::function<void(std::string_view)>& sink, const SectionImage& image,
                   const WriteOptions& options, const std::vector<uint64_t>& cuts, std::string& buffer,
                   const std::function<void(std::string&)>& flush, bool indent);

}  // namespace ptxdwarf::write::ptx_text
