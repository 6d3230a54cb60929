// `reformat --reencode` on every corpus file: the canonical encoder's output
// assembles, and llvm-dwarfdump reads the same DIE tree from its cubin as from
// the original's -- offsets, unit lengths and abbreviation codes aside.
#include <gtest/gtest.h>

#include <regex>

#include "corpus.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "ptxdwarf/write/reencode.h"
#include "missing_tool.h"

using namespace ptxdwarf;
using namespace ptxdwarf::testsupport;

namespace {

// A DW_FORM_ref_addr into another unit (LLVM 19/22: `.b64 .debug_info+N` in a
// module of two units): the canonical encoder lays each unit out on its own
// and keeps no such reference (it says so, and drops it).
bool refersAcrossUnits(const ptxdwarf::read::Dwarf& dwarf) {
  for (const ptxdwarf::read::Die& die : dwarf.dies) {
    if (die.isNull()) continue;
    const ptxdwarf::read::Unit& u = dwarf.unitOf(die);
    for (const ptxdwarf::read::AttrValue& v : dwarf.attributes(die)) {
      const std::optional<uint64_t> at = v.form == ptxdwarf::dw::DW_FORM_ref_addr ? dwarf.referenceTarget(v) : std::nullopt;
      if (at && (*at < u.offset || *at >= u.end)) return true;
    }
  }
  return false;
}


// llvm-dwarfdump --debug-info with everything that depends on layout removed:
// DIE offsets, unit lengths, references (kept as the target's name), list offsets.
std::string layoutFree(const std::string& dump) {
  static const std::regex dieOffset(R"((^|\n)0x[0-9a-f]{8}: )");
  static const std::regex unitHeader(R"(length = 0x[0-9a-f]+|abbr_offset = 0x[0-9a-f]+|next unit at 0x[0-9a-f]+)");
  static const std::regex reference(
      R"(((DW_AT_type|DW_AT_sibling|DW_AT_specification|DW_AT_abstract_origin|DW_AT_containing_type|DW_AT_import|DW_AT_object_pointer|DW_AT_friend)\t\()0x[0-9a-f]{8})");
  static const std::regex listOffset(R"(\t\(0x[0-9a-f]{8}: )");
  std::string s = std::regex_replace(dump, dieOffset, "$1");
  s = std::regex_replace(s, unitHeader, "");
  s = std::regex_replace(s, reference, "$1");
  return std::regex_replace(s, listOffset, "\t(");
}

class Reencode : public testing::TestWithParam<CorpusEntry> {};

TEST_P(Reencode, CubinHasTheSameDieTree) {
  std::optional<std::string> ptxas = findTool("ptxas"), dwarfdump = findTool("llvm-dwarfdump");
  if (!ptxas || !dwarfdump) PTXDWARF_MISSING_TOOL("ptxas or llvm-dwarfdump not found");
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  ASSERT_EQ(p.status, PreparedEntry::Status::ready) << p.message;

  std::string text = *readFile(p.ptxPath);
  ptx::ReadResult r = ptx::read(text, p.ptxPath);
  ASSERT_TRUE(r.ok());
  read::Dwarf dwarf = read::decode(r.module.sections);
  if (refersAcrossUnits(dwarf)) GTEST_SKIP() << "canonical re-encoding keeps no reference into another unit";
  Diagnostics diags;
  std::vector<SectionImage> images = write::encodeCanonical(dwarf, diags);
  ASSERT_FALSE(diags.hasErrors()) << diags.items[0].message;
  std::optional<std::string> reencoded = write::reformat(text, r.module, images, {}, diags);
  ASSERT_TRUE(reencoded) << (diags.items.empty() ? "" : diags.items[0].message);

  std::string base = workDir() + "/reencode_" + GetParam().id;
  ASSERT_TRUE(writeFile(base + ".ptx", *reencoded));
  CommandResult assembled = runCommand({*ptxas, "-arch=" + GetParam().arch, "-g", base + ".ptx", "-o", base + ".cubin"});
  ASSERT_TRUE(assembled.ok()) << assembled.summary();

  CommandResult before = runCommand({*dwarfdump, "--debug-info", p.cubinPath});
  CommandResult after = runCommand({*dwarfdump, "--debug-info", base + ".cubin"});
  ASSERT_EQ(before.exitCode, 0);
  ASSERT_EQ(after.exitCode, 0);
  std::string a = layoutFree(before.out.substr(before.out.find('\n'))), b = layoutFree(after.out.substr(after.out.find('\n')));
  EXPECT_EQ(a, b);
  // A line-tables-only build (nvcc -lineinfo, clang -gline-tables-only, Numba's
  // lineinfo=True) has no DIE tree to compare; the others have a real one.
  if (!isLineTablesOnly(GetParam().producer) && !dwarf.units.empty()) {
    EXPECT_GT(std::count(a.begin(), a.end(), '\n'), 10);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, Reencode, testing::ValuesIn(assembledEntries()),
                         [](const testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; });

}  // namespace
