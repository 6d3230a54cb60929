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
