// Reading a text in parallel parts gives exactly the one-thread read: the same
// module, positions and diagnostics, whether the cuts hold (the parts are
// joined) or not (the text is read again on one thread).
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "corpus.h"
#include "module_text.h"
#include "ptx/chunks.h"
#include "ptxdwarf/ptx/module.h"

using namespace ptxdwarf;
using namespace ptxdwarf::ptx;
using ptxdwarf::testsupport::moduleText;

namespace {

// `functions` functions with registers, labels, .loc lines (some inlined),
// parameters and locals, `{ }` blocks, module variables, then debug sections
// that name the labels.
std::string program(int functions) {
  std::string t = ".version 7.5\n.target sm_75, debug\n.address_size 64\n.file 1 \"a.cu\"\n";
  for (int i = 0; i < functions; ++i) {
    std::string n = std::to_string(i);
    t += ".global .align 4 .b32 g" + n + "[4];\n";
    t += ".visible .func (.param .b32 ret" + n + ") f" + n + "(.param .b64 p" + n + ")\n{\n";
    t += "\t.local .align 8 .b8 __local_depot" + n + "[16];\n\t.reg .b32 %r<9>;\n\t.reg .pred %p1;\n";
    t += "$L__func_begin" + n + ":\n\t.loc 1 " + std::to_string(10 + i) + " 3\n";
    t += "\tadd.s32 %r1, %r2, %r3; // a comment\n$L__tmp" + n + ":\n\t@%p1 bra $L__tmp" + n + ";\n";
    t += "\t.loc 1 20 3, function_name $L__str" + std::to_string(i % 3) + ", inlined_at 1 " + std::to_string(10 + i) +
         " 3\n";
    t += "\t{ .reg .b32 %q; .param .b32 x; st.param.b32 [x], %r1; }\n\tret;\n$L__func_end" + n + ":\n}\n";
  }
  t += ".section .debug_abbrev\n{\n.b8 1\n.b8 17\n.b8 0\n}\n";
  t += ".section .debug_info\n{\n.b32 12\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8\n";
  for (int i = 0; i < functions; ++i) {
    std::string n = std::to_string(i);
    t += ".b64 $L__func_begin" + n + "\n.b64 $L__func_end" + n + "\n.b32 .debug_loc+" + std::to_string(16 * i) +
         "\n.b8 -1\n";
  }
  t += "}\n.section .debug_loc\n{\n";
  for (int i = 0; i < functions; ++i) t += ".b64 $L__tmp" + std::to_string(i) + "\n.b64 0\n";
  t += "}\n";
  return t;
}

ReadResult readInParts(std::string_view text, unsigned threads) {
  ReadOptions options;
  options.threads = threads;
  options.minChunk = 256;
  return read(text, "t.ptx", options);
}

void expectSameAsOneThread(std::string_view text, unsigned threads) {
  ReadResult one = readInParts(text, 1);
  ReadResult parts = readInParts(text, threads);
  EXPECT_EQ(one.parts, 1u);
  EXPECT_EQ(moduleText(one), moduleText(parts));
}

}  // namespace

TEST(ReaderThreads, PartsJoinIntoTheOneThreadRead) {
  std::string text = program(40);
  for (unsigned threads : {2u, 3u, 8u, 64u}) {
    SCOPED_TRACE(threads);
    expectSameAsOneThread(text, threads);
    EXPECT_GT(readInParts(text, threads).parts, 1u);
  }
}

TEST(ReaderThreads, IndentedSectionsAreCutsToo) {
  // nvcc writes `\t.section\t.debug_info`; here no other line can be a cut.
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n";
  for (const char* name : {".debug_abbrev", ".debug_info", ".debug_loc", ".debug_str"}) {
    text += "\t.section\t" + std::string(name) + "\n\t{\n";
    for (int i = 0; i < 100; ++i) text += "\t\t.b8 " + std::to_string(i) + "\n";
    text += "\t}\n";
  }
  expectSameAsOneThread(text, 4);
  EXPECT_GT(readInParts(text, 4).parts, 1u);
}

TEST(ReaderThreads, ConsumedRangesCoverTheTextOnce) {
  std::string text = program(40);
  ReadOptions options;
  options.threads = 4;
  options.minChunk = 256;
  options.consumedStep = 100;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  std::mutex lock;
  options.consumed = [&](uint64_t begin, uint64_t end) {
    std::lock_guard<std::mutex> guard(lock);
    ranges.emplace_back(begin, end);
  };
  ReadResult r = read(text, "t.ptx", options);
  ASSERT_GT(r.parts, 1u);
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = 0;
  for (auto [begin, end] : ranges) {
    EXPECT_EQ(begin, covered);  // disjoint, no gaps
    EXPECT_LT(begin, end);
    covered = end;
  }
  EXPECT_EQ(covered, text.size());
}

TEST(ReaderThreads, ACutInsideACommentFallsBackToOneThread) {
  // Every line that could start a part after the first function is inside a
  // comment, so whichever one the cutter picks, the part before runs past it.
  std::string text = program(1) + "/*\n";
  for (int i = 0; i < 200; ++i) text += ".visible .func commented" + std::to_string(i) + "();\n";
  text += "*/\n";
  for (int i = 0; i < 200; ++i) text += ".global .b32 tail" + std::to_string(i) + ";\n";
  expectSameAsOneThread(text, 4);
  EXPECT_EQ(readInParts(text, 4).parts, 1u);
}

TEST(ReaderThreads, ASectionInTwoPartsFallsBackToOneThread) {
  std::string text = program(20) + program(20).substr(program(20).find(".section .debug_abbrev"));
  ReadResult r = readInParts(text, 4);
  EXPECT_EQ(r.parts, 1u);
  expectSameAsOneThread(text, 4);
  EXPECT_NE(moduleText(r).find("second non-empty block"), std::string::npos);
}

namespace {

// One module-scope statement: a .debug_info section of `lines` lines of every
// kind a section holds -- `.b8 N` lines, operand lists (nvcc's and packed),
// wide constants, negative operands, symbols, label differences, addends,
// labels, comments -- so that a cut at any line finds something different
// on each side.
std::string oneSection(int lines) {
  std::string t = ".version 7.5\n.target sm_75\n.address_size 64\n\t.section\t.debug_info\n\t{\n";
  for (int i = 0; i < lines; ++i) {
    const std::string n = std::to_string(i);
    switch (i % 9) {
      case 0: t += ".b8 " + std::to_string(i % 256) + "\n"; break;
      case 1: t += ".b8 104,101,108,108,111," + std::to_string(i % 200) + "\n"; break;
      case 2: t += "\t.b32 " + n + ", 0x" + std::to_string(i % 90 + 10) + " // a comment\n"; break;
      case 3: t += ".b64 $L__tmp" + n + "\n"; break;
      case 4: t += "$L__sec" + n + ":\n.b32 $L__sec" + n + "-$L__sec" + std::to_string(i - 9 < 0 ? 4 : i - 9) + "\n"; break;
      case 5: t += ".b32 .debug_loc+" + n + "\n"; break;
      case 6: t += ".b8 -" + std::to_string(i % 100 + 1) + ", 7\n"; break;
      case 7: t += "/* a comment\n   over lines */ .b16 " + std::to_string(i % 60000) + "\n"; break;
      default: t += ".b8 1, 2, 3, 4, 5, 6, 7, 8\n"; break;
    }
  }
  return t + "\t}\n";
}

}  // namespace

// A text that is one section can only be cut inside it: the parts read its
// pieces and join them into the one-thread read, wherever the cuts fall.
TEST(ReaderThreads, ASectionCutInsideJoinsIntoTheOneThreadRead) {
  for (int lines : {400, 401, 407, 1000}) {
    const std::string text = oneSection(lines);
    for (unsigned threads : {2u, 3u, 4u, 7u, 16u}) {
      SCOPED_TRACE(std::to_string(lines) + " lines, " + std::to_string(threads) + " threads");
      expectSameAsOneThread(text, threads);
      EXPECT_GT(readInParts(text, threads).parts, 1u);
    }
  }
}

// The cuts of a program's sections go inside them too when the work is even
// there, and the parts after them read code and other sections on.
TEST(ReaderThreads, CutsInsideSectionsAndBetweenStatementsJoin) {
  std::string text = program(30);
  text += oneSection(3000).substr(oneSection(0).find("\t.section"));
  text += program(10).substr(program(10).find(".global"));
  int cutInside = 0, cutBetween = 0;
  for (unsigned threads : {2u, 3u, 5u, 9u}) {
    SCOPED_TRACE(threads);
    expectSameAsOneThread(text, threads);
    const std::vector<Chunk> chunks = chunksOf(text, threads, 256, scanText(text, threads, 256, 1));
    for (size_t i = 1; i < chunks.size(); ++i) ++(chunks[i].continues.empty() ? cutBetween : cutInside);
  }
  EXPECT_GT(cutInside, 0);
  EXPECT_GT(cutBetween, 0);
}

// A comment that spans the cut (`/*` before it, `*/` after): the part before
// runs into the end of its text inside the comment, and the text is read
// again on one thread.
TEST(ReaderThreads, ACutInsideACommentInASectionFallsBackToOneThread) {
  std::string text = ".version 7.5\n\t.section\t.debug_info\n\t{\n/*\n";
  for (int i = 0; i < 400; ++i) text += ".b8 " + std::to_string(i % 256) + "\n";
  text += "*/\n.b8 1\n\t}\n";
  expectSameAsOneThread(text, 4);
  EXPECT_EQ(readInParts(text, 4).parts, 1u);
}

// An error in a section read in parts: whichever side of a cut it falls on,
// the result is the one-thread read's, error and all.
TEST(ReaderThreads, AnErrorInASectionCutInsideIsReportedAsOnOneThread) {
  for (const char* bad : {".b8 300\n", ".b8 1,\n", ".b32 $\n", "}\n"}) {
    for (int at : {50, 200, 390}) {
      SCOPED_TRACE(std::string(bad) + " at line " + std::to_string(at));
      std::string text = oneSection(400);
      size_t line = text.find("\t{\n") + 3;
      for (int i = 0; i < at; ++i) line = text.find('\n', line) + 1;
      text.insert(line, bad);
      expectSameAsOneThread(text, 4);
    }
  }
}

TEST(ReaderThreads, AnErrorInALaterPartIsReportedWhereOneThreadReportsIt) {
  std::string text = program(40);
  text.insert(text.rfind(".b64 0"), ".b8 300\n");  // out of range, in the last section
  expectSameAsOneThread(text, 4);
  EXPECT_GT(readInParts(text, 4).parts, 1u);
  EXPECT_FALSE(readInParts(text, 4).ok());
}

TEST(ReaderThreads, AnErrorInAnEarlierPartEndsTheRead) {
  std::string text = program(40);
  text.insert(text.find("$L__tmp3:"), "}\n");  // closes f3 early: a stray '}' follows at module scope
  text.insert(text.rfind(".b64 0"), ".b8 300\n");
  ReadResult r = readInParts(text, 4);
  ASSERT_EQ(r.diagnostics.errorCount(), 1u);
  expectSameAsOneThread(text, 4);
}

TEST(ReaderThreads, CorpusFilesReadTheSameInParts) {
  int read = 0;
  for (const testsupport::CorpusEntry& e : testsupport::corpusEntries()) {
    if (e.producer != testsupport::Producer::fixture) continue;
    std::optional<std::string> text = testsupport::readFile(e.source);
    ASSERT_TRUE(text) << e.source;
    SCOPED_TRACE(e.id);
    expectSameAsOneThread(*text, 4);
    ++read;
  }
  EXPECT_GT(read, 3);
}

TEST(ReaderThreads, AFailedTargetInALaterPartMovesTheTargetLocation) {
  // The reader records a .target's position before reading its names, so a
  // .target without any still moves it; the joined read must agree.
  std::string text = program(40);
  text.insert(text.find(".section .debug_abbrev"), ".target .debug_info\n");
  ReadResult r = readInParts(text, 4);
  EXPECT_GT(r.parts, 1u);
  EXPECT_FALSE(r.ok());
  expectSameAsOneThread(text, 4);
}

TEST(ReaderThreads, ANulByteIsFoundInAnyPartAndReportedOnce) {
  // The byte sits at offsets across a 16-byte block in turn, in the first,
  // a middle and the last part (the scan reads blocks of 16 and 8 bytes),
  // and in a short tail.
  const std::string text = program(40);
  ASSERT_GT(text.size(), 4 * 255 * 16u);  // each part's lane counters are summed at least once midway
  for (size_t at : {size_t{30}, text.size() / 2, text.size() / 2 + 1, text.size() / 2 + 3, text.size() / 2 + 7,
                    text.size() / 2 + 9, text.size() / 2 + 15, text.size() - 12, text.size() - 1}) {
    SCOPED_TRACE(at);
    std::string withNul = text;
    withNul[at] = '\0';
    ReadResult one = readInParts(withNul, 1), parts = readInParts(withNul, 4);
    ASSERT_EQ(parts.diagnostics.items.size(), 1u);
    EXPECT_EQ(moduleText(one), moduleText(parts));
    const size_t lineStart = withNul.rfind('\n', at - 1);
    const auto line = static_cast<uint32_t>(std::count(withNul.begin(), withNul.begin() + static_cast<ptrdiff_t>(at), '\n') + 1);
    EXPECT_EQ(parts.diagnostics.items[0].loc.line, line);
    EXPECT_EQ(parts.diagnostics.items[0].loc.col, static_cast<uint32_t>(at - lineStart));
    EXPECT_NE(parts.diagnostics.items[0].message.find("NUL byte"), std::string::npos);
  }
}

// ReadOptions::bodies off: the same sections, module scope and diagnostics,
// nothing of the bodies, on one thread and in parts.
TEST(ReaderThreads, BodiesOffKeepsTheSectionsAndTheErrors) {
  std::string text = program(40);
  std::string broken = text;
  broken.insert(broken.find("\tret;"), "\t.reg .b32 %bad<0>;\n");  // an error inside a body
  for (unsigned threads : {1u, 4u}) {
    SCOPED_TRACE(threads);
    ReadOptions options;
    options.threads = threads;
    options.minChunk = 256;
    ReadResult all = read(text, "t.ptx", options);
    options.bodies = false;
    ReadResult sectionsOnly = read(text, "t.ptx", options);
    ASSERT_TRUE(sectionsOnly.ok());
    EXPECT_TRUE(sectionsOnly.module.instructions.empty());
    EXPECT_TRUE(sectionsOnly.module.labels.empty());
    EXPECT_TRUE(sectionsOnly.module.locs.empty());
    ASSERT_EQ(all.module.sections.size(), sectionsOnly.module.sections.size());
    for (size_t i = 0; i < all.module.sections.size(); ++i) {
      const SectionImage &a = all.module.sections[i], &b = sectionsOnly.module.sections[i];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.bytes, b.bytes);
      ASSERT_EQ(a.relocations.size(), b.relocations.size());
      for (size_t r = 0; r < a.relocations.size(); ++r)
        EXPECT_EQ(a.relocations[r].expression(), b.relocations[r].expression());
    }
    ASSERT_EQ(all.module.functions.size(), sectionsOnly.module.functions.size());
    for (const Function& f : sectionsOnly.module.functions) {
      EXPECT_TRUE(sectionsOnly.module.registersOf(f).empty());
      EXPECT_EQ(f.firstLabel, f.endLabel);
    }
    size_t moduleScope = 0;
    for (const Variable& v : all.module.variables) moduleScope += v.function < 0;
    EXPECT_EQ(sectionsOnly.module.variables.size(), moduleScope);

    ReadResult brokenAll = readInParts(broken, threads);
    options.bodies = false;
    ReadResult brokenSectionsOnly = read(broken, "t.ptx", options);
    ASSERT_FALSE(brokenAll.ok());
    ASSERT_EQ(brokenSectionsOnly.diagnostics.items.size(), brokenAll.diagnostics.items.size());
    EXPECT_EQ(brokenSectionsOnly.diagnostics.items[0].format("t.ptx"), brokenAll.diagnostics.items[0].format("t.ptx"));
  }
}
