// The library starts no thread unless its caller asks for some: every entry
// point called with its default options runs on the caller's thread. This
// file is its own test program (ptxdwarf_threads_test): threads another test
// asked for (kept between batches, workers.h) would be counted before the
// first call here and hide any this one started.
#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "corpus.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/load.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/annotate.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/write/reformat.h"

using namespace ptxdwarf;
using ptxdwarf::testsupport::readFixture;

namespace {

// The threads of this process now (/proc/self/task holds one entry each).
size_t threadsNow() {
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return 0;
  size_t count = 0;
  while (const dirent* e = readdir(dir))
    if (e->d_name[0] != '.') ++count;
  closedir(dir);
  return count;
}

// Runs `call` and expects the process to have as many threads after it as
// before: a thread the library kept (its parallel work's pool) would stay.
template <class Call>
void expectNoNewThread(const char* what, Call&& call) {
  const size_t before = threadsNow();
  ASSERT_GE(before, 1u) << "cannot count threads in /proc/self/task";
  call();
  EXPECT_EQ(threadsNow(), before) << what << " started a thread with its default options";
}

// A module whose every step is large enough to run in parallel when it may:
// over 20,000 instructions (annotate builds its DWARF beside the code), over
// 1 MiB of text (read in parts), and its annotated DWARF is a unit the
// encoder would split.
std::string largeModule() {
  std::string text = ".version 7.5\n.target sm_80\n.address_size 64\n.global .align 4 .b8 g[16];\n";
  for (int f = 0; f < 400; ++f) {
    const std::string n = std::to_string(f);
    text += ".visible .entry k" + n + "(.param .u64 p" + n + ")\n{\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f" + n + ";\n";
    for (int i = 0; i < 200; ++i)
      text += "\tadd.s32 %r" + std::to_string(i % 40) + ", %r" + std::to_string((i + 1) % 40) + ", 1;\n";
    text += "\tmov.f32 %f" + n + ", 0f00000000;\n\tret;\n}\n";
  }
  return text;
}

// A unit of over 50,000 DIEs: encode() writes it in parts when it may.
void buildLargeUnit(write::Builder& b) {
  using namespace ptxdwarf::write;
  b.compileUnit({.name = "k.ptx", .stmtList = true});
  const DieId u32 = b.baseType("unsigned int", dw::DW_ATE_unsigned, 4);
  for (int f = 0; f < 3000; ++f) {
    const std::string name = "k" + std::to_string(f);
    const std::string label = "$f" + std::to_string(f);
    const DieId sp = b.subprogram({.name = name, .linkageName = name, .declFile = 1, .declLine = unsigned(f),
                                   .lowPc = SymbolRef{label}, .highPc = SymbolRef{label, 64}});
    b.registerVariables(sp, {.stem = "%r", .count = 20, .declFile = 1, .declLine = 7, .type = u32});
  }
}

// A .debug_info of 3 MiB with a relocation every 997 bytes: the writer
// renders it in parts when it may.
SectionImage largeSection() {
  SectionImage s;
  s.name = ".debug_info";
  s.bytes.resize(3u << 20);
  for (size_t i = 0; i < s.bytes.size(); ++i) s.bytes[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  for (uint32_t o = 100; o + 4 < s.bytes.size(); o += 997) {
    for (uint32_t k = 0; k < 4; ++k) s.bytes[o + k] = 0;
    s.relocations.push_back({o, 4, SymbolName(".debug_abbrev")});
  }
  return s;
}

// Every library call a producer or a tool makes, each with default options.
void callEverything(std::string_view text, std::string_view name) {
  ptx::ReadResult r;
  expectNoNewThread("ptx::read", [&] { r = ptx::read(text, name); });
  ASSERT_TRUE(r.ok()) << name;
  read::Dwarf dwarf;
  expectNoNewThread("read::decode", [&] { dwarf = read::decode(r.module.sections); });
  expectNoNewThread("check::run", [&] { (void)check::run(r.module, dwarf); });
  write::Annotated annotated;
  expectNoNewThread("write::annotate", [&] { annotated = write::annotate(text, r.module, {.replace = true}); });
  ASSERT_TRUE(annotated.written()) << name << (annotated.diagnostics.items.empty() ? "" : annotated.diagnostics.items[0].format(name));
  ptx::ReadResult again = ptx::read(annotated.ptx, name);
  ASSERT_TRUE(again.ok()) << name;
  const read::Dwarf annotatedDwarf = read::decode(again.module.sections);
  write::WriteOptions options;
  options.dwarf = &annotatedDwarf;
  Diagnostics diags;
  std::optional<std::string> reformatted;
  expectNoNewThread("write::reformat", [&] {
    reformatted = write::reformat(annotated.ptx, again.module, again.module.sections, options, diags);
  });
  EXPECT_TRUE(reformatted.has_value()) << name;
  Loaded loaded;
  expectNoNewThread("ptxdwarf::loadText", [&] { loaded = loadText(annotated.ptx, name); });
  ASSERT_TRUE(loaded.ok()) << name;
  expectNoNewThread("write::reformat(Loaded)", [&] {
    EXPECT_TRUE(write::reformat(loaded, {.style = write::Style::verbose, .reencode = true}).written) << name;
  });
}

TEST(LibraryThreads, NoCallStartsAThreadUnlessAsked) {
  // A real file (the DWARF spec's chapter 6 example), then a large one.
  callEverything(readFixture("chapter6.ptx"), "chapter6.ptx");
  const std::string large = largeModule();
  ASSERT_GT(large.size(), size_t{1} << 20);
  callEverything(large, "large.ptx");

  write::Builder b({.policy = write::FormPolicy::compact});
  buildLargeUnit(b);
  ASSERT_GE(b.unit().dieCount(), 50000u);
  std::vector<SectionImage> sections;
  Diagnostics diags;
  expectNoNewThread("write::encode", [&] { sections = write::encode(b.unit(), {}, diags); });
  ASSERT_FALSE(diags.hasErrors());

  const SectionImage section = largeSection();
  write::WriteOptions options;
  options.version = ptx::Version{7, 5, true};
  for (write::Style style : {write::Style::dense, write::Style::packed}) {
    options.style = style;
    size_t bytes = 0;
    expectNoNewThread("write::streamSections", [&] {
      EXPECT_TRUE(write::streamSections([&](std::string_view piece) { bytes += piece.size(); },
                                        std::span<const SectionImage>(&section, 1), options, diags));
    });
    EXPECT_GT(bytes, section.bytes.size());
    std::string text;
    expectNoNewThread("write::writeSections", [&] { write::writeSections(text, std::span(&section, 1), options, diags); });
    EXPECT_EQ(text.size(), bytes);
  }
}

// Asked for, the threads are there and the count above sees them: each call,
// in a process of its own (a death test re-run alone, so that no earlier
// call's kept threads are there), ends with more threads than it began with
// (the library's pool keeps them after a batch). The old defaults (0: every
// CPU) took these paths.
template <class Call>
void expectNewThreadInAFreshProcess(Call&& call) {
  const size_t before = threadsNow();
  call();
  std::exit(threadsNow() > before ? 0 : 1);
}

TEST(LibraryThreads, AskedForThreadsTheCountSeesThem) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(expectNewThreadInAFreshProcess([] {
                write::Builder b({.policy = write::FormPolicy::compact});
                buildLargeUnit(b);
                Diagnostics diags;
                (void)write::encode(b.unit(), {.threads = 2}, diags);
              }),
              testing::ExitedWithCode(0), "")
      << "write::encode with 2 threads";
  EXPECT_EXIT(expectNewThreadInAFreshProcess([] {
                const std::string large = largeModule();
                const ptx::ReadResult r = ptx::read(large, "large.ptx");
                (void)write::annotate(large, r.module, {.replace = true, .threads = 2});
              }),
              testing::ExitedWithCode(0), "")
      << "write::annotate with 2 threads";
  EXPECT_EXIT(expectNewThreadInAFreshProcess([] {
                const SectionImage section = largeSection();
                write::WriteOptions options;
                options.version = ptx::Version{7, 5, true};
                options.threads = 2;
                Diagnostics diags;
                (void)write::streamSections([](std::string_view) {}, std::span<const SectionImage>(&section, 1),
                                            options, diags);
              }),
              testing::ExitedWithCode(0), "")
      << "write::streamSections with 2 threads";
}

}  // namespace
