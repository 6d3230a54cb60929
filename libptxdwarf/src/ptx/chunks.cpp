#include "chunks.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../parallel.h"

namespace ptxdwarf::ptx {

// Does `line` open a statement that only module scope holds? (nvcc indents
// `.section` with a tab.)
bool startsModuleStatement(std::string_view line) {
  static constexpr std::string_view starts[] = {".section", ".entry", ".func", ".visible", ".weak"};
  while (!line.empty() && (line[0] == ' ' || line[0] == '\t')) line.remove_prefix(1);
  // What every one of them starts with: a cut searched through a section
  // passes hundreds of thousands of `.b8` lines.
  if (line.size() < 2 || line[0] != '.' || std::string_view("sefvw").find(line[1]) == std::string_view::npos)
    return false;
  for (std::string_view s : starts) {
    if (line.starts_with(s) && line.size() > s.size() && (line[s.size()] == ' ' || line[s.size()] == '\t'))
      return true;
  }
  return false;
}

namespace {

// What one pass over a block of the text finds: its newlines and its first
// NUL byte. Sixteen or eight bytes at a time: tens of megabytes of text.
struct BlockScan {
  uint32_t newlines = 0;
  size_t firstNul = std::string_view::npos;  // from the block's start
};

BlockScan scanBlock(std::string_view text) {
  BlockScan scan;
  constexpr uint64_t kOnes = 0x0101010101010101ull, kLow7 = 0x7f7f7f7f7f7f7f7full;
  // The high bit of each byte of `word` that is zero.
  auto zeroBytes = [](uint64_t word) { return ~(((word & kLow7) + kLow7) | word) & ~kLow7; };
  uint64_t count = 0, nuls = 0;
  size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes a step where every x86-64 has the instructions for it:
  // each byte lane counts its newlines (a match is -1, subtracted) for up to
  // 255 steps, then the lanes are summed.
  const __m128i newline = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
  __m128i lanes = zero, nulLanes = zero;
  auto addLanes = [&] {
    const __m128i sums = _mm_sad_epu8(lanes, zero);  // two 64-bit sums of eight lanes each
    count += static_cast<uint64_t>(_mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
    lanes = zero;
  };
  for (unsigned steps = 0; i + 16 <= text.size(); i += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(chunk, newline));
    nulLanes = _mm_or_si128(nulLanes, _mm_cmpeq_epi8(chunk, zero));
    if (++steps == 255) {
      addLanes();
      steps = 0;
    }
  }
  addLanes();
  nuls = static_cast<uint64_t>(_mm_movemask_epi8(nulLanes));
#endif
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    nuls |= zeroBytes(word);
    count += ((zeroBytes(word ^ (kOnes * '\n')) >> 7) * kOnes) >> 56;  // the newlines, summed in the top byte
  }
  const std::string_view tail = text.substr(i);
  scan.newlines = static_cast<uint32_t>(count + static_cast<uint64_t>(std::count(tail.begin(), tail.end(), '\n')));
  // Rare: found again where it is (the words only say whether there is one).
  if (nuls || tail.find('\0') != std::string_view::npos) scan.firstNul = text.find('\0');
  return scan;
}

// The reading work of a stretch of text, in bytes: its bytes and
// kLineWeight more a line. A statement costs more than its characters, and
// a debug section is a statement a short line (`.b8 N`): cut at half the
// bytes of a 20 MB nvcc -G file, the part holding the sections took 44-49
// ms against 31-37 for the other (about 1.9 ms a MB plus 27 ms a million
// lines: 14 bytes a line).
constexpr uint64_t kLineWeight = 14;

// The work of the text before each block (and, last, of the whole text).
std::vector<uint64_t> workBeforeBlocks(std::string_view text, const TextScan& scan) {
  std::vector<uint64_t> before(scan.newlines.size() + 1);
  for (size_t b = 0; b < scan.newlines.size(); ++b) {
    const uint64_t bytes = std::min<uint64_t>(TextScan::kBlock, text.size() - b * TextScan::kBlock);
    before[b + 1] = before[b] + bytes + kLineWeight * scan.newlines[b];
  }
  return before;
}

// The work of the text before `at` (linear inside its block).
uint64_t workAt(std::string_view text, const std::vector<uint64_t>& before, uint64_t at) {
  const size_t b = std::min<size_t>(static_cast<size_t>(at / TextScan::kBlock), before.size() - 2);
  const uint64_t begin = b * TextScan::kBlock, bytes = std::min<uint64_t>(TextScan::kBlock, text.size() - begin);
  return before[b] + (before[b + 1] - before[b]) * std::min(at - begin, bytes) / bytes;
}

// Where the work before it reaches `target` (linear inside a block).
uint64_t offsetOfWork(std::string_view text, const std::vector<uint64_t>& before, uint64_t target) {
  const size_t b = static_cast<size_t>(std::upper_bound(before.begin(), before.end() - 1, target) - before.begin()) - 1;
  const uint64_t begin = b * TextScan::kBlock, bytes = std::min<uint64_t>(TextScan::kBlock, text.size() - begin);
  const uint64_t work = before[b + 1] - before[b];
  return work == 0 ? begin : begin + std::min(bytes, (target - before[b]) * bytes / work);
}

// The first line starting after `at` and at most at `limit` that
// startsModuleStatement() accepts; npos when none.
size_t nextModuleStatement(std::string_view text, size_t at, size_t limit) {
  for (;;) {
    at = text.find('\n', at);
    if (at == std::string_view::npos || at >= limit) return std::string_view::npos;
    ++at;
    if (startsModuleStatement(text.substr(at, 32))) return at;
  }
}

// The last line starting after `floor` and before `at` that
// startsModuleStatement() accepts; npos when none.
size_t previousModuleStatement(std::string_view text, size_t at, size_t floor) {
  while (at > floor + 1) {
    const size_t newline = text.rfind('\n', at - 2);  // ending the line before the one at `at`
    if (newline == std::string_view::npos || newline < floor) return std::string_view::npos;
    at = newline + 1;
    if (startsModuleStatement(text.substr(at, 32))) return at;
  }
  return std::string_view::npos;
}

}  // namespace

// Scans the text in blocks, a block a task, for where to cut it into up to
// `parts` chunks (none when it is one) and for a NUL byte. Done before any
// chunk is read: a reader releases the text behind it as it goes
// (ReadOptions::consumed), and a later chunk counting from the start of the
// text would map all of that in again.
TextScan scanText(std::string_view text, unsigned parts, uint64_t minChunk, unsigned threads) {
  TextScan scan;
  if (std::min<uint64_t>(parts, text.size() / std::max<uint64_t>(minChunk, 1)) < 2) {
    scan.firstNul = text.find('\0');
    return scan;
  }
  const size_t blocks = static_cast<size_t>((text.size() + TextScan::kBlock - 1) / TextScan::kBlock);
  std::vector<BlockScan> scans(blocks);
  runTasks(blocks, threads, [&](size_t i) { scans[i] = scanBlock(text.substr(i * TextScan::kBlock, TextScan::kBlock)); });
  scan.newlines.resize(blocks);
  for (size_t i = 0; i < blocks; ++i) {
    scan.newlines[i] = scans[i].newlines;
    if (scans[i].firstNul != std::string_view::npos && scan.firstNul == std::string_view::npos)
      scan.firstNul = i * TextScan::kBlock + scans[i].firstNul;
  }
  return scan;
}

// Cuts `text` into at most `parts` chunks of at least `minChunk` bytes and
// about equal work, each starting at a line startsModuleStatement() accepts:
// the one before or after where the work is even, whichever is nearer in
// work (a debug section is one statement of megabytes: the cut that falls
// inside it goes to its start or its end).
std::vector<Chunk> chunksOf(std::string_view text, unsigned parts, uint64_t minChunk, const TextScan& scan) {
  std::vector<Chunk> chunks(1);
  if (scan.newlines.empty()) return chunks;
  const std::vector<uint64_t> before = workBeforeBlocks(text, scan);
  for (unsigned i = 1; i < parts; ++i) {
    const uint64_t target = before.back() / parts * i;
    const size_t floor = chunks.back().begin + minChunk;
    const size_t even = std::max<size_t>(offsetOfWork(text, before, target), floor);
    auto distance = [&](size_t offset) {
      const uint64_t work = workAt(text, before, offset);
      return work > target ? work - target : target - work;
    };
    // The statement before first: a later one is no nearer once it lies
    // further on in bytes than that one is off in work (a byte is at least
    // a unit of work), so the search forward stops there, not at the end of
    // a section of megabytes.
    size_t at = previousModuleStatement(text, even + 1, floor);
    const size_t limit = at == std::string_view::npos ? text.size() : even + distance(at);
    const size_t later = nextModuleStatement(text, even, limit);
    if (later != std::string_view::npos && (at == std::string_view::npos || distance(later) < distance(at)))
      at = later;
    if (at == std::string_view::npos || text.size() - at < minChunk / 2) break;
    // The part before stops at the directive; this one starts at its line.
    chunks.back().stop = text.find_first_not_of(" \t", at);
    chunks.push_back({at, UINT64_MAX, 0});
  }
  return chunks;
}

// Each chunk's first line, from the scan's newlines before it.
void numberFirstLines(std::string_view text, const TextScan& scan, std::vector<Chunk>& chunks) {
  size_t block = 0;
  uint64_t newlines = 0;
  for (Chunk& c : chunks) {
    for (; (block + 1) * TextScan::kBlock <= c.begin; ++block) newlines += scan.newlines[block];
    const std::string_view partial = text.substr(block * TextScan::kBlock, c.begin - block * TextScan::kBlock);
    c.line = static_cast<uint32_t>(1 + newlines + static_cast<uint64_t>(std::count(partial.begin(), partial.end(), '\n')));
  }
}

}  // namespace ptxdwarf::ptx
