// Cutting a PTX text into chunks that threads read on their own: where the
// cuts may fall (a line only a module-scope statement starts), where the
// reading work is even, and each chunk's first line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxdwarf::ptx {

// Where one reader starts in the text and where it stops: at the first
// module-scope statement at or after `stop`, or, where the cut falls inside a
// section's body (a section of megabytes is one statement), at `stop` itself,
// the data directive that the next chunk starts its section's rest with.
struct Chunk {
  uint64_t begin = 0;
  uint64_t stop = UINT64_MAX;
  uint32_t line = 1;  // of `begin`
  std::string continues{};  // the section whose body `begin` lies inside; empty: none
  bool stopsInSection = false;  // `stop` lies inside a section's body (the next chunk continues it)
};

// What one pass over the text finds before it is cut: the newlines and
// commas of each block of kBlock bytes (where the work lies, and each
// chunk's first line) and the first NUL byte.
struct TextScan {
  static constexpr uint64_t kBlock = uint64_t{256} << 10;
  std::vector<uint32_t> newlines;  // per block; empty when the text is read as one chunk
  std::vector<uint32_t> commas;    // per block, as newlines
  size_t firstNul = std::string_view::npos;
};

// Scans the text in blocks, a block a task on up to `threads` threads: the
// newlines and commas of each when it is to be cut into `parts` chunks of at least
// `minChunk` bytes (none when it is one chunk), and the first NUL byte.
TextScan scanText(std::string_view text, unsigned parts, uint64_t minChunk, unsigned threads);

// Does `line` open a statement that only module scope holds?
bool startsModuleStatement(std::string_view line);

// Cuts `text` into at most `parts` chunks of at least `minChunk` bytes and
// about equal reading work, each starting at a line startsModuleStatement()
// accepts or, where the work is even inside a section's body and no
// statement is near, at a line there that starts a data directive.
std::vector<Chunk> chunksOf(std::string_view text, unsigned parts, uint64_t minChunk, const TextScan& scan);

// Sets each chunk's first line, from the scan's newlines before it.
void numberFirstLines(std::string_view text, const TextScan& scan, std::vector<Chunk>& chunks);

}  // namespace ptxdwarf::ptx
