// The `.section` blocks read on a second thread (ptx/sections_ahead.h) give
// exactly the one-thread read: the same module, operand positions and
// diagnostics, whether the reader takes a block read ahead or reads it
// itself (a block in a comment, a repeated name, one that fails to read).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "module_text.h"
#include "ptx/sections_ahead.h"
#include "ptxdwarf/ptx/module.h"
#include "work.h"

using namespace ptxdwarf;
using namespace ptxdwarf::ptx;
using ptxdwarf::testsupport::moduleText;

namespace {

std::string functions(int count) {
  std::string t = ".version 7.5\n.target sm_75, debug\n.address_size 64\n.file 1 \"a.cu\"\n";
  for (int i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    t += ".visible .func f" + n + "()\n{\n\t.reg .b32 %r<4>;\n$L__func_begin" + n + ":\n\t.loc 1 " +
         std::to_string(10 + i) + " 3\n\tadd.s32 %r1, %r2, %r3; // a comment\n\tret;\n$L__func_end" + n + ":\n}\n";
  }
  return t;
}

// Sections in the forms nvcc and LLVM write, naming the functions' labels.
std::string sections(int count) {
  std::string t = "\t.section\t.debug_abbrev\n\t{\n.b8 1\n.b8 17\n.b8 0\n\t}\n";
  t += "\t.section\t.debug_info\n\t{\n.b32 12\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8\n";
  for (int i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    t += ".b64 $L__func_begin" + n + "\n.b64 $L__func_end" + n + "\n.b32 .debug_loc+" + std::to_string(16 * i) +
         "\n.b8 -1\ninfo" + n + ":\n.b8 104,101,108,108,111,0\n";
  }
  t += "\t}\n\t.section\t.debug_loc\n\t{\n";
  for (int i = 0; i < count; ++i) t += ".b64 $L__func_begin" + std::to_string(i) + "\n.b64 0\n";
  t += "\t}\n";
  return t;
}

ReadResult readInLine(std::string_view text) { return read(text, "t.ptx"); }

ReadOptions twoThreads() {
  ReadOptions options;
  options.threads = 2;
  return options;
}

// Every block read ahead first, then the reader: what it takes is there
// however the threads would have run. Returns how many blocks it took.
uint64_t expectSameReadAhead(std::string_view text, uint64_t minBlockBytes = 1) {
  work::reset();
  const ReadResult ahead = readWithSectionsAhead(text, "t.ptx", twoThreads(), minBlockBytes, AheadSchedule::first);
  const uint64_t taken = work::steps(work::sectionsReadAhead);
  EXPECT_EQ(moduleText(readInLine(text)), moduleText(ahead));
  return taken;
}

std::string fileText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

TEST(SectionsAhead, EveryFixtureReadsTheSameWithItsBlocksReadAhead) {
  uint64_t taken = 0;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(PTXDWARF_FIXTURES)) {
    if (entry.path().extension() != ".ptx") continue;
    SCOPED_TRACE(entry.path().string());
    taken += expectSameReadAhead(fileText(entry.path()));
    ++files;
  }
  EXPECT_GT(files, 50);
  EXPECT_GT(taken, 100u);  // most fixtures have sections, and they were taken
}

TEST(SectionsAhead, TheReaderTakesTheBlocksAfterTheFunctions) {
  const std::string text = functions(20) + sections(20);
  EXPECT_EQ(expectSameReadAhead(text), 3u);
}

TEST(SectionsAhead, SmallBlocksAreLeftToTheReader) {
  const std::string text = functions(20) + sections(20);
  EXPECT_EQ(expectSameReadAhead(text, 1000), 1u);  // .debug_info alone is over 1000 bytes
  EXPECT_EQ(expectSameReadAhead(text, text.size()), 0u);
}

TEST(SectionsAhead, ABlockInACommentIsReadAheadButNotTaken) {
  const std::string text = functions(3) + "/*\n\t.section .debug_str\n\t{\n.b8 1\n\t}\n*/\n" + sections(3);
  EXPECT_EQ(expectSameReadAhead(text), 3u);
  EXPECT_EQ(readInLine(text).module.sections.size(), 3u);
}

TEST(SectionsAhead, ASectionAfterOtherTextOnItsLineIsReadInLine) {
  std::string text = functions(2) + sections(2);
  text += "// .section .debug_str { .b8 1 }\n\t.section .debug_str { .b8 1 } .section .debug_ranges\n{\n.b8 2\n}\n";
  EXPECT_EQ(expectSameReadAhead(text), 4u);  // .debug_str's block starts its line; .debug_ranges' does not
  EXPECT_EQ(readInLine(text).module.sections.size(), 5u);
}

TEST(SectionsAhead, ARepeatedNameIsReadInLineAndStillWarned) {
  const std::string text = functions(2) + sections(2) + "\t.section .debug_abbrev\n\t{\n.b8 9\n\t}\n";
  EXPECT_EQ(expectSameReadAhead(text), 3u);
  const ReadResult r = readInLine(text);
  ASSERT_EQ(r.diagnostics.items.size(), 1u);
  EXPECT_EQ(r.diagnostics.items[0].rule, "split-section");
}

TEST(SectionsAhead, ABlockThatFailsToReadEndsTheReadAheadAndTheReaderSaysWhy) {
  const std::string text = functions(2) + "\t.section .debug_abbrev\n\t{\n.b8 1\n.b16 x y\n\t}\n" + sections(2);
  EXPECT_EQ(expectSameReadAhead(text), 0u);
  const ReadResult r = readInLine(text);
  ASSERT_FALSE(r.ok());
  const std::string before = text.substr(0, text.find(".b16 x y"));
  EXPECT_EQ(r.diagnostics.items.back().loc.line, std::count(before.begin(), before.end(), '\n') + 1);
}

TEST(SectionsAhead, WarningsOfABlockReadAheadKeepTheirPlace) {
  // A negative operand is read with a warning; a warning before the block
  // and one after it stay on either side of it.
  const std::string text = functions(1) + "\t.section .debug_abbrev\n\t{\n.b8 1\n\t}\n" +
                           "\t.section .debug_info\n\t{\n.b8 -1\n.b32 0x1ffffffff\n\t}\n" +
                           "\t.section .debug_abbrev\n\t{\n.b8 2\n\t}\n";
  EXPECT_EQ(expectSameReadAhead(text), 2u);
  EXPECT_FALSE(readInLine(text).diagnostics.items.empty());
}

TEST(SectionsAhead, SectionsBeforeTheFunctionsAreTakenToo) {
  const std::string text = functions(0) + sections(4) + functions(4).substr(functions(0).size());
  EXPECT_EQ(expectSameReadAhead(text), 3u);
}

// The text the second thread goes over (searched or read as a block), for
// make(n) read with every block read ahead: about the text once, whatever
// hides a `.section` where it is not one.
uint64_t textReadAhead(const std::function<std::string(size_t)>& make, size_t n) {
  const std::string text = make(n);
  work::reset();
  readWithSectionsAhead(text, "t.ptx", twoThreads(), 1, AheadSchedule::first);
  const uint64_t bytes = work::steps(work::textReadAhead);
  EXPECT_LE(bytes, 2 * text.size());
  return bytes;
}

void expectLinearReadAhead(const std::function<std::string(size_t)>& make) {
  const uint64_t small = textReadAhead(make, 200), large = textReadAhead(make, 800);
  ASSERT_GT(small, 0u);
  EXPECT_LE(large, 5 * small) << small << " bytes at n, " << large << " at 4n";
}

TEST(SectionsAhead, ManySmallSectionsAreSearchedOnce) {
  expectLinearReadAhead([](size_t n) {
    std::string t = functions(1);
    for (size_t i = 0; i < n; ++i) t += ".section .debug_s" + std::to_string(i) + " { .b8 1 }\n";
    return t;
  });
}

TEST(SectionsAhead, SectionsInsideCommentsInsideBlocksAreReadOnce) {
  // Each block holds a commented-out `.section` at a line's start, and the
  // text after the blocks a commented-out block with another inside.
  expectLinearReadAhead([](size_t n) {
    std::string t = functions(1);
    for (size_t i = 0; i < n; ++i) {
      const std::string k = std::to_string(i);
      t += ".section .debug_a" + k + "\n{\n/*\n.section .debug_b" + k + "\n{\n*/\n.b8 1\n}\n";
    }
    for (size_t i = 0; i < n; ++i) t += "/*\n.section .debug_c" + std::to_string(i) + " {\n.section .x {\n*/\n";
    return t;
  });
}

TEST(SectionsAhead, BesideTheReaderOnTwoThreadsTheReadIsTheSame) {
  // Whatever the threads' timing: the blocks taken, waited for, or read in line.
  const std::string text = functions(3000) + sections(3000);
  const std::string expected = moduleText(readInLine(text));
  for (uint64_t minBlockBytes : {uint64_t{1}, uint64_t{4096}, SectionsAhead::kMinBlockBytes}) {
    SCOPED_TRACE(minBlockBytes);
    for (int run = 0; run < 3; ++run)
      EXPECT_EQ(expected, moduleText(readWithSectionsAhead(text, "t.ptx", twoThreads(), minBlockBytes)));
  }
}
