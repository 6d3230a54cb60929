// How much of a line row's inline stack a listing shows: ptxdump's text and
// JSON, the C API and the Python package, for a PTX file's `.loc` rows and
// a cubin's `.debug_line` rows alike.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptxdwarf {

// Real stacks are tens of frames deep, but one may be as deep as the table
// has rows (each row inlined into the one before), and every row's whole
// stack would be output quadratic in the table (20,000 such rows: 9 GB). A
// listing shows the innermost frames up to this many and counts the rest.
inline constexpr size_t kInlineFramesShown = 64;

// The frames of a stack `depth` deep that a listing leaves out.
constexpr uint32_t inlineFramesOmitted(uint32_t depth) {
  return depth > kInlineFramesShown ? depth - static_cast<uint32_t>(kInlineFramesShown) : 0;
}

}  // namespace ptxdwarf
