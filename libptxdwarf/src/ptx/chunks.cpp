#include "chunks.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../parallel.h"
#include "lexer.h"
#include "ptxdwarf/work.h"

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

// What one pass over a block of the text finds: its newlines, its commas
// and its first NUL byte. Sixteen or eight bytes at a time: tens of
// megabytes of text.
struct BlockScan {
  uint32_t newlines = 0;
  uint32_t commas = 0;
  size_t firstNul = std::string_view::npos;  // from the block's start
};

BlockScan scanBlock(std::string_view text) {
  BlockScan scan;
  constexpr uint64_t kOnes = 0x0101010101010101ull, kLow7 = 0x7f7f7f7f7f7f7f7full;
  // The high bit of each byte of `word` that is zero.
  auto zeroBytes = [](uint64_t word) { return ~(((word & kLow7) + kLow7) | word) & ~kLow7; };
  // How many bytes of `word` are `c`, summed in the top byte.
  auto countOf = [&](uint64_t word, char c) {
    return ((zeroBytes(word ^ (kOnes * static_cast<uint8_t>(c))) >> 7) * kOnes) >> 56;
  };
  uint64_t newlines = 0, commas = 0, nuls = 0;
  size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes a step where every x86-64 has the instructions for it:
  // each byte lane counts its matches (a match is -1, subtracted) for up to
  // 255 steps, then the lanes are summed.
  const __m128i newline = _mm_set1_epi8('\n'), comma = _mm_set1_epi8(','), zero = _mm_setzero_si128();
  __m128i newlineLanes = zero, commaLanes = zero, nulLanes = zero;
  auto sum = [&](__m128i& lanes) {
    const __m128i sums = _mm_sad_epu8(lanes, zero);  // two 64-bit sums of eight lanes each
    lanes = zero;
    return static_cast<uint64_t>(_mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  };
  for (unsigned steps = 0; i + 16 <= text.size(); i += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    newlineLanes = _mm_sub_epi8(newlineLanes, _mm_cmpeq_epi8(chunk, newline));
    commaLanes = _mm_sub_epi8(commaLanes, _mm_cmpeq_epi8(chunk, comma));
    nulLanes = _mm_or_si128(nulLanes, _mm_cmpeq_epi8(chunk, zero));
    if (++steps == 255) {
      newlines += sum(newlineLanes);
      commas += sum(commaLanes);
      steps = 0;
    }
  }
  newlines += sum(newlineLanes);
  commas += sum(commaLanes);
  nuls = static_cast<uint64_t>(_mm_movemask_epi8(nulLanes));
#endif
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    nuls |= zeroBytes(word);
    newlines += countOf(word, '\n');
    commas += countOf(word, ',');
  }
  const std::string_view tail = text.substr(i);
  scan.newlines = static_cast<uint32_t>(newlines + static_cast<uint64_t>(std::count(tail.begin(), tail.end(), '\n')));
  scan.commas = static_cast<uint32_t>(commas + static_cast<uint64_t>(std::count(tail.begin(), tail.end(), ',')));
  // Rare: found again where it is (the words only say whether there is one).
  if (nuls || tail.find('\0') != std::string_view::npos) scan.firstNul = text.find('\0');
  return scan;
}

// The reading work of a stretch of text, in bytes: its bytes, kLineWeight
// more a line and kOperandWeight more a comma. A statement costs more than
// its characters, and a debug section is a statement a short line (`.b8 N`);
// a section written an operand list a line (`.b8 1, 2, 3`) costs by its
// operands instead. Fitted to the reading times of this project's bench
// shapes (tests/bench/run.sh) on one thread, within 15% for nvcc's, packed
// and template-heavy layouts; nvcc's -O3 code and one long kernel read
// faster than their weight and dense `.b32 0x...` sections slower.
constexpr uint64_t kLineWeight = 14;
constexpr uint64_t kOperandWeight = 24;

// The work of the text before each block (and, last, of the whole text).
std::vector<uint64_t> workBeforeBlocks(std::string_view text, const TextScan& scan) {
  std::vector<uint64_t> before(scan.newlines.size() + 1);
  for (size_t b = 0; b < scan.newlines.size(); ++b) {
    const uint64_t bytes = std::min<uint64_t>(TextScan::kBlock, text.size() - b * TextScan::kBlock);
    before[b + 1] = before[b] + bytes + kLineWeight * scan.newlines[b] + kOperandWeight * scan.commas[b];
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
    const size_t line = at;
    at = text.find('\n', at);
    work::step(work::cutSearch, std::min(at, text.size()) - std::min(line, text.size()));
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
    work::step(work::cutSearch, at - (newline == std::string_view::npos ? 0 : newline));
    if (newline == std::string_view::npos || newline < floor) return std::string_view::npos;
    at = newline + 1;
    if (startsModuleStatement(text.substr(at, 32))) return at;
  }
  return std::string_view::npos;
}

// A cut inside a section costs the join a copy of the smaller of the
// section's two parts: it is made only when the nearest statement is
// further than this fraction of a chunk's work from where the work is even.
constexpr uint64_t kInsideSectionSlack = 16;

// The name of the section the line at `statement` opens (`.section NAME`);
// empty when it opens something else.
std::string_view sectionOpenedAt(std::string_view text, size_t statement) {
  std::string_view rest = text.substr(statement);
  rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
  constexpr std::string_view kSection = ".section";
  if (!rest.starts_with(kSection)) return {};
  rest.remove_prefix(kSection.size());
  rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
  size_t n = 0;  // as the reader takes a section's name
  while (n < rest.size() && (isIdentChar(rest[n]) || rest[n] == '.')) ++n;
  return rest.substr(0, n);
}

// The last `c` in text[from, at), or npos.
size_t lastBetween(std::string_view text, char c, size_t from, size_t at) {
  if (at <= from) return std::string_view::npos;
#if defined(__GLIBC__)
  const void* p = memrchr(text.data() + from, c, at - from);  // a section's megabytes: vector instructions
  const size_t found = p ? static_cast<size_t>(static_cast<const char*>(p) - text.data()) : std::string_view::npos;
#else
  size_t found = text.rfind(c, at - 1);
  if (found < from) found = std::string_view::npos;
#endif
  work::step(work::cutSearch, at - (found == std::string_view::npos ? from : found));
  return found;
}

// The first `c` in text[at, end), or npos.
size_t firstBetween(std::string_view text, char c, size_t at, size_t end) {
  const void* p = at < end ? std::memchr(text.data() + at, c, end - at) : nullptr;
  const size_t found = p ? static_cast<size_t>(static_cast<const char*>(p) - text.data()) : std::string_view::npos;
  work::step(work::cutSearch, (found == std::string_view::npos ? end : found) - std::min(at, end));
  return found;
}

// The start of the line holding `at`.
size_t lineStartOf(std::string_view text, size_t at) {
  const size_t newline = lastBetween(text, '\n', 0, at);
  return newline == std::string_view::npos ? 0 : newline + 1;
}

// A section whose body holds a place in the text: its name, the line of its
// `.section` and its closing brace.
struct SectionAround {
  std::string_view name{};  // empty: no section's body holds the place
  size_t opened = 0;
  size_t closed = 0;
};

// The section whose body holds `at`, where the chunk that holds `at` begins
// at `from` inside `before` (or at a statement: `before` empty). Either
// `before` still holds it, or the last '{' in [from, at) opens a section's
// body (a data section's body holds no brace but its last, as nvcc, LLVM
// and this library write them; one in a comment costs the cut, which then
// does not join), on the `.section` line or the line after it, and no '}'
// lies between. Each search stays inside the chunk or goes on to the end of
// the section found, so cutting a text into many parts reads it about once.
SectionAround sectionAround(std::string_view text, size_t from, size_t at, const SectionAround& before) {
  if (at >= text.size()) return {};
  if (!before.name.empty() && at < before.closed) return before;
  const size_t brace = lastBetween(text, '{', from, at);
  if (brace == std::string_view::npos || firstBetween(text, '}', brace, at) != std::string_view::npos) return {};
  SectionAround s;
  s.opened = lineStartOf(text, brace);
  s.name = sectionOpenedAt(text, s.opened);
  if (s.name.empty() && s.opened > 0 && text.find_first_not_of(" \t", s.opened) == brace) {  // `{` alone
    s.opened = lineStartOf(text, s.opened - 1);
    s.name = sectionOpenedAt(text, s.opened);
  }
  if (s.name.empty()) return {};  // a function's body: not searched on to its end
  s.closed = firstBetween(text, '}', at, text.size());
  return s.closed == std::string_view::npos ? SectionAround{} : s;
}

// The first line after `at` whose first non-blank characters are a data
// directive (`.b8`, `.b16`, `.b32`, `.b64`): in a section's body, where one
// reader may stop and another go on. Looks at a few lines only (a body is
// data lines, with a label here and there); npos when none is there.
size_t dataLineAfter(std::string_view text, size_t at) {
  constexpr int kLines = 64;
  for (int n = 0; n < kLines; ++n) {
    at = firstBetween(text, '\n', at, text.size());
    if (at == std::string_view::npos) return at;
    ++at;
    const size_t first = text.find_first_not_of(" \t", at);
    if (first == std::string_view::npos) return first;
    const std::string_view d = text.substr(first, 4);
    if (d.size() == 4 && d[0] == '.' && d[1] == 'b' && (d[2] == '8' || d[2] == '1' || d[2] == '3' || d[2] == '6'))
      return at;
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
  scan.commas.resize(blocks);
  for (size_t i = 0; i < blocks; ++i) {
    scan.newlines[i] = scans[i].newlines;
    scan.commas[i] = scans[i].commas;
    if (scans[i].firstNul != std::string_view::npos && scan.firstNul == std::string_view::npos)
      scan.firstNul = i * TextScan::kBlock + scans[i].firstNul;
  }
  return scan;
}

// Cuts `text` into at most `parts` chunks of at least `minChunk` bytes and
// about equal work, each starting at a line startsModuleStatement() accepts:
// the one before or after where the work is even, whichever is nearer in
// work. A debug section is one statement of megabytes (a template-heavy
// file's .debug_info is 40% of it): where the even point lies inside one and
// neither of its ends is near, the cut goes inside it, at a data line.
std::vector<Chunk> chunksOf(std::string_view text, unsigned parts, uint64_t minChunk, const TextScan& scan) {
  std::vector<Chunk> chunks(1);
  if (scan.newlines.empty()) return chunks;
  const std::vector<uint64_t> before = workBeforeBlocks(text, scan);
  const uint64_t slack = before.back() / parts / kInsideSectionSlack;
  SectionAround inside;  // the section the last chunk begins inside, if it does
  for (unsigned i = 1; i < parts; ++i) {
    const uint64_t target = before.back() / parts * i;
    const size_t floor = chunks.back().begin + minChunk;
    const size_t even = std::max<size_t>(offsetOfWork(text, before, target), floor);
    if (even >= text.size()) break;  // the chunks so far are as small as they may be
    auto distance = [&](size_t offset) {
      const uint64_t work = workAt(text, before, offset);
      return work > target ? work - target : target - work;
    };
    // Inside a section's body the statements nearest are its own line and
    // the first after its end: its lines are not searched one by one.
    const SectionAround section = sectionAround(text, chunks.back().begin, even, inside);
    inside = {};
    size_t at = std::string_view::npos;
    if (!section.name.empty()) {
      // A statement after its end further than the slack is not taken: the
      // cut goes inside (and the search stays short however many parts).
      if (section.opened >= floor) at = section.opened;
      const uint64_t reach = at == std::string_view::npos ? slack : std::min<uint64_t>(slack, distance(at));
      const size_t limit = static_cast<size_t>(std::min<uint64_t>(text.size(), section.closed + reach));
      const size_t after = nextModuleStatement(text, section.closed, limit);
      if (after != std::string_view::npos && (at == std::string_view::npos || distance(after) < distance(at)))
        at = after;
      const size_t line = at == std::string_view::npos || distance(at) > slack ? dataLineAfter(text, even)
                                                                              : std::string_view::npos;
      if (line != std::string_view::npos && line < section.closed && text.size() - line >= minChunk / 2) {
        chunks.back().stop = text.find_first_not_of(" \t", line);
        chunks.back().stopsInSection = true;
        chunks.push_back({line, UINT64_MAX, 0, std::string(section.name), false});
        inside = section;
        continue;
      }
    } else {
      // The statement before first: a later one is no nearer once it lies
      // further on in bytes than that one is off in work (a byte is at
      // least a unit of work), so the search forward stops there.
      at = previousModuleStatement(text, even + 1, floor);
      const size_t limit = at == std::string_view::npos ? text.size() : even + distance(at);
      const size_t later = nextModuleStatement(text, even, limit);
      if (later != std::string_view::npos && (at == std::string_view::npos || distance(later) < distance(at)))
        at = later;
    }
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
