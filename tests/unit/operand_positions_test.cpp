// A section read without its operands' positions (ReadOptions::
// OperandPositions::fromText) finds them again in the text the first time
// one is asked for: every offset of every section locates where the read
// that recorded them says, in every writer's style, read on one thread or
// in parts; a text that changed since gives the section's own position.
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "corpus.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/work.h"

using namespace ptxdwarf;
using namespace ptxdwarf::ptx;

namespace ptxdwarf {
// Failure messages show `line:col`.
void PrintTo(const SourceLoc& at, std::ostream* os) { *os << at.line << ':' << at.col; }
}  // namespace ptxdwarf

namespace {

using Positions = ReadOptions::OperandPositions;

ReadResult readWith(std::string_view text, Positions positions, unsigned threads) {
  ReadOptions options;
  options.operandPositions = positions;
  options.threads = threads;
  options.minChunk = 256;  // parts from a few hundred bytes on
  return read(text, "t.ptx", options);
}

// Where each byte of each section, and one past its end, was written.
std::vector<std::vector<SourceLoc>> located(const Module& m) {
  std::vector<std::vector<SourceLoc>> all;
  for (const SectionImage& s : m.sections) {
    std::vector<SourceLoc>& at = all.emplace_back();
    for (uint64_t offset = 0; offset <= s.size(); ++offset) at.push_back(s.locate(offset));
  }
  return all;
}

// The positions a read that recorded them gives, found again from the text
// by reads on one thread and in parts.
void expectFoundAsRecorded(std::string_view text) {
  const ReadResult recorded = readWith(text, Positions::recorded, 1);
  ASSERT_TRUE(recorded.ok()) << (recorded.diagnostics.items.empty() ? "" : recorded.diagnostics.items[0].message);
  const std::vector<std::vector<SourceLoc>> expected = located(recorded.module);
  for (unsigned threads : {1u, 2u, 4u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const ReadResult found = readWith(text, Positions::fromText, threads);
    ASSERT_TRUE(found.ok());
    for (const SectionImage& s : found.module.sections) {
      EXPECT_TRUE(s.sourceMap.empty()) << s.name << ": recorded as it was read";
      EXPECT_TRUE(s.source) << s.name;
    }
    EXPECT_EQ(located(found.module), expected);
  }
}

// One line of a section in each of the forms writers use, cycling.
std::string sectionLine(int i) {
  const std::string n = std::to_string(i);
  switch (i % 12) {
    case 0: return ".b8 " + std::to_string(i % 256) + "\n";  // nvcc's
    case 1: return ".b8 104,101,108,108,111," + std::to_string(i % 200) + "\n";
    case 2: return "\t.b32 " + n + ", 0x" + std::to_string(i % 90 + 10) + " // a comment\n";
    case 3: return ".b64 $L__tmp" + n + "\n";
    case 4: return "$L__sec" + n + ":\n.b32 $L__sec" + n + "-$L__sec4\n";  // a label, a difference
    case 5: return ".b32 .debug_loc+" + n + "\n";
    case 6: return ".b8 -" + std::to_string(i % 100 + 1) + ", 7\n";  // the general path
    case 7: return "/* a comment\n   over lines */ .b16 " + std::to_string(i % 60000) + "\n";
    case 8: return "\t.b8\t2\t\t// DWARF version number\n";  // LLVM's verbose asm
    case 9: return "  .b8  0x1f  \n";  // blanks around a hexadecimal byte
    case 10: return ".b8 3; .b8 4\n";  // two statements on a line
    default: return ".b8 1, 2, 3, 4, 5, 6, 7, 8\n";
  }
}

// `lines` of .debug_info, a third as many of .debug_loc, and with
// `secondBlock` another block of .debug_info (which a read in parts reads
// again on one thread when the blocks fall in two parts).
std::string sections(int lines, const std::string& newline = "\n", bool secondBlock = true) {
  std::string t = ".version 7.5\n.target sm_75\n.address_size 64\n";
  auto block = [&](const char* name, int from, int to) {
    t += std::string("\t.section\t") + name + "\n\t{\n";
    for (int i = from; i < to; ++i) t += sectionLine(i);
    t += "\t}\n";
  };
  block(".debug_info", 0, lines);
  block(".debug_loc", 0, lines / 3);
  t += "\t.section .debug_str { .b8 97, 98, 0 }\n";  // operands on the line of the `{`
  if (secondBlock) block(".debug_info", lines, lines + 30);  // goes on with the first block's bytes
  if (newline == "\n") return t;
  std::string crlf;
  for (char c : t) crlf += c == '\n' ? newline : std::string(1, c);
  return crlf;
}

}  // namespace

TEST(OperandPositions, FoundAgainWhereTheReadRecordsThem) {
  for (int lines : {0, 1, 12, 400, 2000}) {
    SCOPED_TRACE(std::to_string(lines) + " lines");
    expectFoundAsRecorded(sections(lines));
  }
}

TEST(OperandPositions, FoundAgainInCrlfText) { expectFoundAsRecorded(sections(600, "\r\n")); }

// A section cut between parts: its second part's body begins where the
// part does, and is read again with the first.
TEST(OperandPositions, FoundAgainInASectionReadInParts) {
  const std::string text = sections(3000, "\n", false);
  ASSERT_GT(readWith(text, Positions::fromText, 4).parts, 1u);
  expectFoundAsRecorded(text);
}

TEST(OperandPositions, FoundAgainInTheCorpus) {
  int files = 0;
  for (const testsupport::CorpusEntry& e : testsupport::corpusEntries()) {
    if (e.producer != testsupport::Producer::fixture) continue;
    std::optional<std::string> text = testsupport::readFile(e.source);
    ASSERT_TRUE(text) << e.source;
    if (!readWith(*text, Positions::recorded, 1).ok()) continue;  // a fixture of a read error
    SCOPED_TRACE(e.id);
    expectFoundAsRecorded(*text);
    ++files;
  }
  EXPECT_GT(files, 10);
}

// A text that no longer holds the bytes read from it, no longer reads, or
// has moved gives the bytes read again from a changed stretch the section's
// own position, not one that is wrong; the stretches a change of a byte
// missed still find theirs.
TEST(OperandPositions, ATextChangedSinceGivesTheSectionsPosition) {
  const std::string original = sections(2000);
  const std::vector<SourceLoc> recorded = located(readWith(original, Positions::recorded, 1).module).front();
  struct Change {
    std::string from, to;
    bool changesByteOne;  // the byte of `104` (the second of .debug_info)
  };
  for (const Change& change : {Change{".b8 104,101", ".b8 105,101", true},  // another byte, the same length
                               Change{".b8 104,101", ".b8 104,1010", true},  // out of range: no longer reads
                               Change{"\t}\n", "\t\n", false}}) {       // the first block runs into the next
    SCOPED_TRACE(change.to);
    std::string text = original;
    text.reserve(text.size() + 16);  // changed where it lies: the sections view it
    const ReadResult r = readWith(text, Positions::fromText, 1);
    ASSERT_TRUE(r.ok());
    text.replace(text.find(change.from), change.from.size(), change.to);
    const SectionImage& info = r.module.sections.front();
    int lost = 0;
    for (uint64_t offset = 0; offset <= info.size(); ++offset) {
      const SourceLoc at = info.locate(offset);
      if (at == info.loc) {
        ++lost;
      } else {
        EXPECT_EQ(at, recorded[offset]) << offset;
      }
    }
    EXPECT_GT(lost, 0);
    if (change.to.size() == change.from.size()) {
      EXPECT_LT(lost, 2 * static_cast<int>(SectionSource::kPlaceEvery));  // a stretch, not the section
    }
    if (change.changesByteOne) {
      EXPECT_EQ(info.locate(1), info.loc);
    }
  }
}

// The check's rules run on several threads and may ask for the first
// position at once: one finds them, and each gets them.
TEST(OperandPositions, AskedOnSeveralThreadsAtOnce) {
  const std::string text = sections(2000);
  const std::vector<std::vector<SourceLoc>> expected = located(readWith(text, Positions::recorded, 1).module);
  for (int round = 0; round < 4; ++round) {
    const ReadResult r = readWith(text, Positions::fromText, 1);
    std::vector<std::vector<std::vector<SourceLoc>>> seen(4);
    std::vector<std::thread> threads;
    for (auto& s : seen) threads.emplace_back([&r, &s] { s = located(r.module); });
    for (std::thread& t : threads) t.join();
    for (const auto& s : seen) EXPECT_EQ(s, expected);
  }
}

// Each stretch between two places is read again once, however many of its
// bytes are asked about: a section of one statement of n operands (no place
// inside it) asked about at every byte reads 4n bytes again at 4n, not 16n.
TEST(OperandPositions, EachStretchIsReadAgainOnce) {
  auto readAgain = [](size_t n) {
    std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n.section .debug_str {\n.b8 1";
    for (size_t i = 1; i < n; ++i) text += ", " + std::to_string(i % 256);
    text += "\n.b8 0\n}\n";
    const ReadResult r = readWith(text, Positions::fromText, 1);
    EXPECT_TRUE(r.ok());
    work::reset();
    const SectionImage& s = r.module.sections.front();
    for (uint64_t offset = 0; offset <= s.size(); ++offset) EXPECT_EQ(s.locate(offset).line, offset < n ? 5u : 6u);
    return work::steps(work::positionsRead);
  };
  const uint64_t small = readAgain(2000), large = readAgain(8000);
  EXPECT_EQ(small, 2001u);
  EXPECT_EQ(large, 8001u);
}
