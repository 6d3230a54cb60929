// Cutting a text for threads (libptxdwarf/src/ptx/chunks.h): cuts fall on
// module-scope statements where the reading work, not the byte count, is
// even, or inside a section's body where no statement is near, and each
// chunk knows its first line.
#include "ptx/chunks.h"
#include "ptxdwarf/work.h"

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
    EXPECT_EQ(chunks[i - 1].stopsInSection, !c.continues.empty());
    const std::string_view line = std::string_view(text).substr(text.find_first_not_of(" \t", c.begin), 32);
    if (c.continues.empty()) EXPECT_TRUE(startsModuleStatement(line));
    else EXPECT_TRUE(line.starts_with(".b")) << line;  // a data directive
    EXPECT_EQ(chunks[i - 1].stop, text.find_first_not_of(" \t", c.begin));
    EXPECT_EQ(c.line, 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(c.begin), '\n'));
  }
}

// `parts` well-formed chunks, each starting about where its share of a text
// of even work begins.
void expectEvenCuts(const std::string& text, const std::vector<Chunk>& chunks, unsigned parts) {
  expectWellFormed(text, chunks);
  ASSERT_EQ(chunks.size(), parts);
  for (unsigned i = 1; i < parts; ++i) {
    const double share = static_cast<double>(chunks[i].begin) / static_cast<double>(text.size());
    EXPECT_NEAR(share, static_cast<double>(i) / parts, 0.01);
  }
}

}  // namespace

// The work is even in the middle of a small section between two halves of
// code: one of its ends is near enough, and the cut is there, not inside it.
TEST(Chunks, ACutNearASectionsEndGoesToTheEnd) {
  const std::string head = code(1000), body = section(".debug_info", 1000);
  const std::string text = head + body + code(1000);
  const std::vector<Chunk> chunks = cut(text, 2);
  expectWellFormed(text, chunks);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_TRUE(chunks[1].continues.empty());
  EXPECT_TRUE(chunks[1].begin == head.size() || chunks[1].begin == head.size() + body.size()) << chunks[1].begin;
}

// Most of the work lies in one section: its ends are far from where the
// work is even, and the cut goes inside it, at a `.b8` line near there.
TEST(Chunks, AFarCutGoesInsideTheSection) {
  const std::string head = code(700);
  const std::string text = head + section(".debug_info", 24000) + section(".debug_abbrev", 10);
  const std::vector<Chunk> chunks = cut(text, 2);
  expectWellFormed(text, chunks);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1].continues, ".debug_info");
  EXPECT_TRUE(chunks[0].stopsInSection);
  EXPECT_GT(chunks[1].begin, head.size() + 1000);
  EXPECT_LT(chunks[1].begin, text.size() - 1000);
}

// A text that is one section is cut inside it as many times as asked, each
// chunk but the last stopping inside it and each but the first going on.
TEST(Chunks, OneSectionIsCutSeveralTimes) {
  const std::string text = ".version 7.5\n" + section(".debug_loc", 50000);
  for (unsigned parts : {2u, 3u, 5u}) {
    SCOPED_TRACE(parts);
    const std::vector<Chunk> chunks = cut(text, parts);
    expectEvenCuts(text, chunks, parts);
    for (unsigned i = 1; i < chunks.size(); ++i) EXPECT_EQ(chunks[i].continues, ".debug_loc");
    EXPECT_FALSE(chunks.back().stopsInSection);
  }
}

// Cutting a text into many parts searches it about once, not once a part:
// a cut inside the section the part before began inside does not look for
// the section's ends again, one inside a function's body does not look for
// the body's end, and the search for a statement after a section goes no
// further than the slack.
TEST(Chunks, ManyPartsSearchTheTextAboutOnce) {
  std::string kernel = ".visible .entry k()\n{\n";  // one body of 20,000 lines, no brace inside
  for (int i = 0; i < 20000; ++i) kernel += "\tadd.s32 %r1, %r2, %r3;\n";
  kernel += "}\n";
  const std::string text = ".version 7.5\n" + section(".debug_info", 150000) + code(3000) + kernel +
                           section(".debug_loc", 150000) + "\t.global .b32 g;\n" + section(".debug_str", 20000);
  std::vector<uint64_t> searched;
  for (unsigned parts : {4u, 64u}) {
    SCOPED_TRACE(parts);
    ptxdwarf::work::reset();
    const std::vector<Chunk> chunks = cut(text, parts);
    searched.push_back(ptxdwarf::work::steps(ptxdwarf::work::cutSearch));
    expectWellFormed(text, chunks);
    EXPECT_EQ(chunks.size(), parts);
  }
  // 3.16 MB of 3.15 (4 parts: 4.36); 6.33 when a cut in the kernel searched
  // on to its end, 89.6 when each cut searched afresh.
  EXPECT_LT(searched[1], text.size() * 3 / 2) << searched[0] << " bytes for 4 parts";
}

// A section written with an operand list a line costs by its operands: the
// cut between code and such a section falls where the work, operands
// counted, is even, not where the bytes and lines alone would put it.
TEST(Chunks, OperandListsCountAsWork) {
  std::string packed = "\t.section\t.debug_info\n\t{\n";
  for (int i = 0; i < 6000; ++i) packed += ".b8 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16\n";
  packed += "\t}\n";
  const std::string head = code(4000);
  const std::string text = head + packed;
  const std::vector<Chunk> chunks = cut(text, 2);
  expectWellFormed(text, chunks);
  ASSERT_EQ(chunks.size(), 2u);
  // Bytes and lines alone would put the cut in the code, a quarter before the section.
  EXPECT_GT(chunks[1].begin, head.size());
}

// Code alone: work follows bytes, and the cut falls at the function
// boundary nearest the middle, before or after it.
TEST(Chunks, CodeIsCutNearItsMiddle) {
  const std::string text = code(12000);  // over a megabyte: several scan blocks
  ASSERT_GT(text.size(), 4 * TextScan::kBlock);
  for (unsigned parts : {2u, 3u, 5u}) {
    SCOPED_TRACE(parts);
    const std::vector<Chunk> chunks = cut(text, parts);
    expectEvenCuts(text, chunks, parts);
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
