// Cutting a text for threads (libptxdwarf/src/ptx/chunks.h): cuts fall on
// module-scope statements where the reading work, not the byte count, is
// even, and each chunk knows its first line.
#include "ptx/chunks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ptxdwarf::ptx;

namespace {

// `n` functions of a few instruction lines each.
std::string code(int n) {
  std::string t;
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    t += ".visible .func f" + k + "()\n{\n\t.reg .b32 %r<4>;\n\tadd.s32 %r1, %r2, %r3;\n";
    t += "\tmov.u32 %r2, %r1;\n\tret;\n}\n";
  }
  return t;
}

// A debug section of `lines` `.b8 N` lines, as nvcc writes them.
std::string section(const std::string& name, int lines) {
  std::string t = "\t.section\t" + name + "\n\t{\n";
  for (int i = 0; i < lines; ++i) t += ".b8 " + std::to_string(i % 200) + "\n";
  return t + "\t}\n";
}

std::vector<Chunk> cut(const std::string& text, unsigned parts, uint64_t minChunk = 1024) {
  const TextScan scan = scanText(text, parts, minChunk, 2);
  std::vector<Chunk> chunks = chunksOf(text, parts, minChunk, scan);
  numberFirstLines(text, scan, chunks);
  return chunks;
}

void expectWellFormed(const std::string& text, const std::vector<Chunk>& chunks) {
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks[0].begin, 0u);
  EXPECT_EQ(chunks[0].line, 1u);
  for (size_t i = 1; i < chunks.size(); ++i) {
    const Chunk& c = chunks[i];
    EXPECT_GT(c.begin, chunks[i - 1].begin);
    EXPECT_EQ(text[c.begin - 1], '\n');
    EXPECT_TRUE(startsModuleStatement(std::string_view(text).substr(c.begin, 32)));
    EXPECT_EQ(chunks[i - 1].stop, text.find_first_not_of(" \t", c.begin));
    EXPECT_EQ(c.line, 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(c.begin), '\n'));
  }
}

}  // namespace

// Half the bytes fall inside the big section; half the work (a short line
// costs more than its bytes) is nearer its start than its end: the cut is
// there, not after the section.
TEST(Chunks, ACutInsideASectionGoesToItsNearerEnd) {
  const std::string head = code(700);
  const std::string text = head + section(".debug_info", 24000) + section(".debug_abbrev", 10);
  ASSERT_GT(text.size() / 2, head.size());  // the byte midpoint is inside .debug_info
  const std::vector<Chunk> chunks = cut(text, 2);
  expectWellFormed(text, chunks);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1].begin, head.size());
}

// Code alone: work follows bytes, and the cut falls at the function
// boundary nearest the middle, before or after it.
TEST(Chunks, CodeIsCutNearItsMiddle) {
  const std::string text = code(12000);  // over a megabyte: several scan blocks
  ASSERT_GT(text.size(), 4 * TextScan::kBlock);
  const std::string oneFunction = code(1);
  for (unsigned parts : {2u, 3u, 5u}) {
    SCOPED_TRACE(parts);
    const std::vector<Chunk> chunks = cut(text, parts);
    expectWellFormed(text, chunks);
    ASSERT_EQ(chunks.size(), parts);
    for (unsigned i = 1; i < parts; ++i) {
      const double share = static_cast<double>(chunks[i].begin) / static_cast<double>(text.size());
      EXPECT_NEAR(share, static_cast<double>(i) / parts, 0.01);
    }
  }
}

// A text too small for two chunks of `minChunk` is not scanned for lines,
// only for a NUL; a larger one reports its first NUL wherever it lies.
TEST(Chunks, TheScanFindsTheFirstNul) {
  std::string text = code(3000);
  EXPECT_EQ(scanText(text, 2, 1024, 2).firstNul, std::string::npos);
  const size_t at = text.size() - 1000;
  text[at] = '\0';
  text[at + 10] = '\0';
  for (uint64_t minChunk : {uint64_t{1024}, uint64_t{1} << 30}) {
    const TextScan scan = scanText(text, 2, minChunk, 2);
    EXPECT_EQ(scan.firstNul, at);
    EXPECT_EQ(scan.newlines.empty(), minChunk > text.size());
  }
}
