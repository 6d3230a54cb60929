// The library's strip, remap and source lookup: -ffile-prefix-map's rules,
// gdb's candidate order, the exact text strip leaves, and a remap that
// lengthens a unit's name moving every reference after it.
#include <gtest/gtest.h>

#include <filesystem>

#include "ptxdwarf/check/check.h"
#include "ptxdwarf/check/sources.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/remap.h"
#include "ptxdwarf/write/strip.h"
#include "tools.h"

using namespace ptxdwarf;

namespace {

std::string chapter6() {
  return testsupport::readFile(std::string(PTXDWARF_FIXTURES) + "/chapter6.ptx").value_or("");
}

}  // namespace

TEST(PathPrefixMap, SplitsAtTheFirstEqualsSign) {
  std::optional<write::PathPrefixMap> m = write::parsePathPrefixMap("/a=b=/c");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->from, "/a");
  EXPECT_EQ(m->to, "b=/c");
  EXPECT_FALSE(write::parsePathPrefixMap("/no/sign"));
  EXPECT_TRUE(write::parsePathPrefixMap("=/x"));  // an empty OLD matches every path, as in GCC
}

TEST(PathPrefixMap, TheLastMatchWinsAndPrefixesAreCharacters) {
  const std::vector<write::PathPrefixMap> maps{{"/tmp", "/A"}, {"/tmp/x", "/B"}, {"/other", "/C"}};
  EXPECT_EQ(write::remapPath("/tmp/x/k.cu", maps), "/B/k.cu");
  EXPECT_EQ(write::remapPath("/tmp/y.cu", maps), "/A/y.cu");
  EXPECT_EQ(write::remapPath("/tmpfoo/k.cu", maps), "/Afoo/k.cu");  // not a directory-name match
  EXPECT_EQ(write::remapPath("k.cu", maps), std::nullopt);
  const std::vector<write::PathPrefixMap> reversed{{"/tmp/x", "/B"}, {"/tmp", "/A"}};
  EXPECT_EQ(write::remapPath("/tmp/x/k.cu", reversed), "/A/x/k.cu");
}

TEST(SourceCandidates, FollowGdbsOrder) {
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(check::sourceCandidates("/tmp/k.cu", "/build", "/dir"),
            (std::vector<std::string>{"/tmp/k.cu", "/dir/tmp/k.cu", "/build/tmp/k.cu", cwd + "/tmp/k.cu",
                                      "/build/tmp/k.cu", "/dir/build/tmp/k.cu", "/build/build/tmp/k.cu",
                                      cwd + "/build/tmp/k.cu", "/dir/k.cu", "/build/k.cu", cwd + "/k.cu"}));
  EXPECT_EQ(check::sourceCandidates("./k.cu", "", ""), (std::vector<std::string>{cwd + "/k.cu", cwd + "/k.cu"}));
  EXPECT_EQ(check::sourceCandidates("/./k.cu", "", "/d")[1], "/d/k.cu");  // '/' and "./" stripped in turn
}

TEST(Strip, AllLeavesTheCodeLineForLine) {
  const std::string text =
      ".version 7.0\n.target sm_80, debug\n.address_size 64\n.file 1 \"k.cu\"\n"
      ".visible .entry k()\n{\n\t.loc 1 2 3\n\tret;\n}\n"
      ".section .debug_abbrev\n{\n.b8 0\n}\n.section .debug_str\n{\n.b8 0\n}\n";
  ptx::ReadResult r = ptx::read(text, "k.ptx");
  ASSERT_TRUE(r.ok());
  write::Stripped all = write::strip(text, r.module, write::StripMode::all);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.ptx, ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n");
  EXPECT_EQ(all.stats.sectionBlocks, 2u);
  EXPECT_EQ(all.stats.files, 1u);
  EXPECT_EQ(all.stats.locs, 1u);
  EXPECT_TRUE(all.stats.targetDebug);
  write::Stripped lines = write::strip(text, r.module, write::StripMode::keepLines);
  ASSERT_TRUE(lines.ok());
  // No function_name names a string: .debug_str goes too.
  EXPECT_EQ(lines.ptx,
            ".version 7.0\n.target sm_80\n.address_size 64\n.file 1 \"k.cu\"\n"
            ".visible .entry k()\n{\n\t.loc 1 2 3\n\tret;\n}\n");
}

TEST(Strip, DebugFirstOnTheTarget) {
  const std::string text = ".version 7.0\n.target debug, sm_80\n.address_size 64\n";
  ptx::ReadResult r = ptx::read(text, "k.ptx");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(write::strip(text, r.module).ptx, ".version 7.0\n.target sm_80\n.address_size 64\n");
}

TEST(Remap, ALongerUnitNameMovesEveryOffsetAfterIt) {
  const std::string text = chapter6();
  ASSERT_FALSE(text.empty());
  ptx::ReadResult r = ptx::read(text, "chapter6.ptx");
  ASSERT_TRUE(r.ok());
  read::Dwarf before = read::decode(r.module.sections);
  const std::string longer = "/a/much/longer/directory/for/the/example/";
  const std::vector<write::PathPrefixMap> maps{{"call", longer + "call"}};  // .file "call_example.cu", DW_AT_name "call1.cu"
  write::Remapped m = write::remapPaths(text, r.module, before, maps);
  ASSERT_TRUE(m.ok()) << (m.diagnostics.items.empty() ? "" : m.diagnostics.items[0].message);
  EXPECT_EQ(m.stats.files, 1u);
  EXPECT_EQ(m.stats.strings, 1u);  // the unit's DW_AT_name
  ptx::ReadResult again = ptx::read(m.ptx, "remapped.ptx");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.module.files[0].path, longer + "call_example.cu");
  read::Dwarf after = read::decode(again.module.sections);
  ASSERT_FALSE(after.diagnostics.hasErrors());
  ASSERT_EQ(after.units.size(), before.units.size());
  const uint64_t delta = longer.size();
  EXPECT_EQ(after.units[0].length, before.units[0].length + delta);
  ASSERT_EQ(after.dies.size(), before.dies.size());
  EXPECT_EQ(after.name(after.dies[0]), longer + "call1.cu");
  for (size_t i = 1; i < before.dies.size(); ++i) {
    EXPECT_EQ(after.dies[i].offset, before.dies[i].offset + delta);
    EXPECT_EQ(after.dies[i].tag, before.dies[i].tag);
    EXPECT_EQ(after.name(after.dies[i]), before.name(before.dies[i]));
    std::optional<read::AttrValue> t0 = before.attribute(before.dies[i], dw::DW_AT_type);
    std::optional<read::AttrValue> t1 = after.attribute(after.dies[i], dw::DW_AT_type);
    ASSERT_EQ(t0.has_value(), t1.has_value());
    if (t0) {
      EXPECT_EQ(t1->value, t0->value + delta);  // references moved with their targets
    }
  }
  // The pubnames entries still name their DIEs, and check finds nothing it did not before.
  EXPECT_EQ(check::run(again.module, after).errorCount(), check::run(r.module, before).errorCount());
}

TEST(Remap, APathThatCannotBeWrittenIsRefused) {
  const std::string text = chapter6();
  ptx::ReadResult r = ptx::read(text, "chapter6.ptx");
  ASSERT_TRUE(r.ok());
  read::Dwarf d = read::decode(r.module.sections);
  const std::vector<write::PathPrefixMap> maps{{"call", "a\"b"}};
  write::Remapped m = write::remapPaths(text, r.module, d, maps);
  EXPECT_FALSE(m.ok());
  EXPECT_TRUE(m.ptx.empty());
  ASSERT_FALSE(m.diagnostics.items.empty());
  EXPECT_EQ(m.diagnostics.items[0].loc.line, 5u);  // the .file line
}
