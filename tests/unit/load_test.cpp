// ptxdwarf::load (ptxdwarf/load.h) and write::reformat of a loaded file
// (ptxdwarf/write/reformat.h): the read path ptxdump, the C API and bindings
// share gives what ptx::read and read::decode give, with its errors as
// diagnostics; reformat of a Loaded gives the writer's text.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>

#include "corpus.h"
#include "ptxdwarf/load.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/write/reformat.h"

using namespace ptxdwarf;
using ptxdwarf::testsupport::readFixture;

namespace {

const std::string kChapter6 = std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx";

void expectSameSections(const ptx::Module& a, const ptx::Module& b) {
  ASSERT_EQ(a.sections.size(), b.sections.size());
  for (size_t i = 0; i < a.sections.size(); ++i) {
    EXPECT_EQ(a.sections[i].name, b.sections[i].name);
    EXPECT_EQ(a.sections[i].bytes, b.sections[i].bytes) << a.sections[i].name;
    EXPECT_EQ(a.sections[i].relocations.size(), b.sections[i].relocations.size()) << a.sections[i].name;
  }
}

TEST(Load, AFileGivesWhatReadAndDecodeGive) {
  const std::string text = readFixture("chapter6.ptx");
  const ptx::ReadResult want = ptx::read(text, "chapter6.ptx");
  const read::Dwarf wantDwarf = read::decode(want.module.sections);
  for (bool map : {true, false}) {
    for (bool release : {false, true}) {
      const Loaded got = load(kChapter6, {.map = map, .releaseText = release});
      ASSERT_TRUE(got.ok()) << got.read.diagnostics.items[0].format(got.path);
      EXPECT_EQ(got.path, kChapter6);
      EXPECT_EQ(got.text.mapped(), map);
      EXPECT_EQ(got.text.view(), text) << "released pages read back from the file";
      expectSameSections(got.read.module, want.module);
      EXPECT_EQ(got.dwarf.dies.size(), wantDwarf.dies.size());
      EXPECT_EQ(got.dwarf.units.size(), 1u);
      EXPECT_FALSE(got.dwarf.diagnostics.hasErrors());
      // The name index is built unless asked not to (check and lookup resolve names with it).
      ASSERT_NE(got.read.module.findFunction("_Z4testPi"), nullptr);
    }
  }
  const Loaded noIndex = load(kChapter6, {.nameIndex = false});
  EXPECT_EQ(noIndex.read.module.findFunction("_Z4testPi"), nullptr);
  EXPECT_EQ(noIndex.dwarf.dies.size(), wantDwarf.dies.size());
}

TEST(Load, OnTwoThreadsTheResultIsTheSame) {
  const Loaded one = load(kChapter6);
  const Loaded two = load(kChapter6, {.threads = 2});
  ASSERT_TRUE(two.ok());
  expectSameSections(two.read.module, one.read.module);
  EXPECT_EQ(two.dwarf.dies.size(), one.dwarf.dies.size());
  EXPECT_NE(two.read.module.findFunction("_Z4testPi"), nullptr);
}

TEST(Load, AFileThatCannotBeReadIsOneError) {
  const Loaded missing = load("/nonexistent/k.ptx");
  EXPECT_FALSE(missing.ok());
  ASSERT_EQ(missing.read.diagnostics.items.size(), 1u);
  EXPECT_EQ(missing.read.diagnostics.items[0].format(missing.path),
            "/nonexistent/k.ptx: error: cannot read file: No such file or directory");
  EXPECT_TRUE(missing.dwarf.dies.empty());

  const Loaded directory = load(PTXDWARF_FIXTURES);
  ASSERT_EQ(directory.read.diagnostics.items.size(), 1u);
  EXPECT_EQ(directory.read.diagnostics.items[0].message, "cannot read file: it is a directory, not a PTX file");
}

TEST(Load, ATextWithoutVersionIsNotPtx) {
  for (std::string_view text : {std::string_view(""), std::string_view(".target sm_80\n")}) {
    const Loaded l = loadText(text, "k.ptx");
    EXPECT_FALSE(l.ok());
    ASSERT_EQ(l.read.diagnostics.items.size(), 1u);
    EXPECT_EQ(l.read.diagnostics.items[0].format(l.path),
              "k.ptx:1:1: error: no .version directive: this is not PTX (ptxas rejects a file without one)");
  }
  const Loaded syntax = loadText(".version 8.0\n.entry k(\n", "bad.ptx");
  EXPECT_FALSE(syntax.ok());
  ASSERT_FALSE(syntax.read.diagnostics.items.empty());
  EXPECT_EQ(syntax.read.diagnostics.items[0].loc.line, 3u) << syntax.read.diagnostics.items[0].format("bad.ptx");
}

TEST(Load, ATextInMemoryIsBorrowed) {
  const std::string text = readFixture("chapter6.ptx");
  const Loaded l = loadText(text, "chapter6.ptx");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l.text.view().data(), text.data());
  EXPECT_EQ(l.text.view().size(), text.size());
  const Loaded moved = std::move(const_cast<Loaded&>(l));
  EXPECT_EQ(moved.text.view().data(), text.data()) << "a moved Loaded views the same text";
  EXPECT_EQ(moved.dwarf.dies.size(), read::decode(ptx::read(text).module.sections).dies.size());
}

// write::reformat(Loaded) is the writer's reformat of the file's debug
// sections; streamed, the same text in pieces; re-encoded and verbose, the
// comments of the re-encoded bytes.
TEST(Load, ReformatOfALoadedFileIsTheWritersText) {
  const Loaded in = load(kChapter6);
  ASSERT_TRUE(in.ok());
  for (write::Style style : {write::Style::packed, write::Style::verbose, write::Style::dense}) {
    write::WriteOptions w;
    w.style = style;
    w.dwarf = &in.dwarf;
    Diagnostics diags;
    std::vector<SectionImage> debug;
    for (const SectionImage& s : in.read.module.sections)
      if (s.name.starts_with(".debug")) debug.push_back(s);
    const std::optional<std::string> want = write::reformat(in.text.view(), in.read.module, debug, w, diags);
    ASSERT_TRUE(want.has_value());
    const write::Reformatted got = write::reformat(in, {.style = style});
    EXPECT_TRUE(got.written);
    EXPECT_EQ(got.ptx, *want) << write::styleName(style);
    std::string streamed;
    const write::Reformatted pieces =
        write::reformat(in, {.style = style, .releaseText = true}, [&](std::string_view p) { streamed += p; });
    EXPECT_TRUE(pieces.written);
    EXPECT_TRUE(pieces.ptx.empty()) << "the sink took the text";
    EXPECT_EQ(streamed, *want);
  }
  const write::Reformatted reencoded = write::reformat(in, {.style = write::Style::verbose, .reencode = true});
  ASSERT_TRUE(reencoded.written);
  const Loaded back = loadText(reencoded.ptx, "reencoded.ptx");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.dwarf.dies.size(), in.dwarf.dies.size());
  EXPECT_NE(reencoded.ptx.find("// DW_AT_name"), std::string::npos) << "verbose comments of the re-encoded bytes";
}

// A refusal is reported and nothing is handed over.
TEST(Load, ReformatRefusesWhatTheVersionCannotHold) {
  // A label inside a section needs .version 7.0.
  const std::string text =
      ".version 6.4\n.target sm_70\n.address_size 64\n"
      ".section .debug_abbrev { .b8 1, 17, 0, 0, 0, 0 }\n"
      ".section .debug_info {\nstart:\n.b32 8\n.b8 2, 0\n.b32 .debug_abbrev\n.b8 8, 1 }\n";
  const Loaded in = loadText(text, "old.ptx");
  ASSERT_TRUE(in.ok()) << in.read.diagnostics.items[0].format("old.ptx");
  ASSERT_FALSE(in.dwarf.diagnostics.hasErrors()) << in.dwarf.diagnostics.items[0].format("old.ptx");
  bool handed = false;
  const write::Reformatted r = write::reformat(in, {}, [&](std::string_view) { handed = true; });
  EXPECT_FALSE(r.written);
  EXPECT_FALSE(handed);
  ASSERT_TRUE(r.diagnostics.hasErrors());
  EXPECT_NE(r.diagnostics.items[0].message.find("start"), std::string::npos) << r.diagnostics.items[0].message;
}

// load() guards its mappings against SIGBUS (a file truncated while it is
// read); a SIGBUS about anything else still goes where it went before: to
// the handler the process had installed, or the default action.
void exitSeven(int) { _exit(7); }

// Without another handler, a SIGBUS kills the process. A sanitizer runtime
// installs its own before main(): that is then the handler the process had,
// and it reports the fault and exits.
bool killedByTheDefaultSigbusAction(int status) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return WIFEXITED(status) && WEXITSTATUS(status) != 0;
#else
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
#endif
}

TEST(Load, ASigbusNotAboutAMappingGoesWhereItWent) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        struct sigaction sa {};
        sa.sa_handler = exitSeven;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGBUS, &sa, nullptr);
        const Loaded l = load(kChapter6);  // maps the file: installs the guard
        if (!l.text.mapped()) _exit(3);
        raise(SIGBUS);
        _exit(0);
      },
      testing::ExitedWithCode(7), "");
  EXPECT_EXIT(
      {
        const Loaded l = load(kChapter6);
        if (!l.text.mapped()) _exit(3);
        raise(SIGBUS);
        _exit(0);
      },
      killedByTheDefaultSigbusAction, "");
}

}  // namespace
