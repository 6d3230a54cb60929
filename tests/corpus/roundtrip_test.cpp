// Round trips on every corpus file: decode -> preserve-mode encode must give
// the same section images, bytes and relocations; decode -> canonical encode
// must give a DWARF tree the decoder reads back with the same DIEs and values.
#include <gtest/gtest.h>

#include "corpus.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
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


class RoundTrip : public testing::TestWithParam<CorpusEntry> {};

// Tag, name and the (attribute, value) pairs that do not depend on layout.
std::vector<std::string> semanticTree(const read::Dwarf& d) {
  std::vector<std::string> out;
  for (const read::Die& die : d.dies) {
    if (die.isNull()) continue;
    std::string line = std::to_string(die.depth) + " " + std::string(dw::tagName(die.tag));
    for (const read::AttrValue& v : d.attributes(die)) {
      line += " " + std::string(dw::attributeName(v.name)) + "=";
      if (v.isString()) line += std::string(v.string());
      else if (v.isReference()) line += d.dieAt(v.value) ? std::string(dw::tagName(d.dieAt(v.value)->tag)) + ":" +
                                                               std::string(d.name(*d.dieAt(v.value)))
                                                         : "?";
      else if (v.isBlock()) line += std::to_string(v.block().size()) + "b";
      else if (v.reloc) line += d.offsetIn(".debug_loc", v.value, v.reloc) ? ".debug_loc" : v.reloc->expression();
      else line += std::to_string(v.value);
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_P(RoundTrip, PreserveIsByteIdenticalAndCanonicalKeepsTheTree) {
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  // The PTX's own sections, re-encoded: what ptxas makes of them does not enter.
  ASSERT_NE(p.status, PreparedEntry::Status::failed) << p.message;
  std::optional<std::string> text = readFile(p.ptxPath);
  ASSERT_TRUE(text);
  ptx::ReadResult r = ptx::read(*text, p.ptxPath);
  if (GetParam().expectPtxasFailure && !r.ok()) {
    // A file ptxas rejects (LLVM 19's debug-ptx-symbols) may be one the reader
    // rejects too, at the same place: then there is nothing to round-trip.
    ASSERT_TRUE(r.diagnostics.hasErrors());
    return;
  }
  ASSERT_TRUE(r.ok()) << r.diagnostics.items[0].format(p.ptxPath);
  read::Dwarf dwarf = read::decode(r.module.sections);
  ASSERT_FALSE(dwarf.diagnostics.hasErrors()) << dwarf.diagnostics.items[0].format(p.ptxPath);

  Diagnostics diags;
  std::vector<SectionImage> preserved = write::encodePreserve(dwarf, diags);
  EXPECT_FALSE(diags.hasErrors());
  std::optional<write::ImageDifference> diff = write::compareImages(r.module.sections, preserved);
  EXPECT_FALSE(diff) << diff->section << "+" << diff->offset << ": " << diff->message;

  if (refersAcrossUnits(dwarf)) GTEST_SKIP() << "preserve mode checked; canonical re-encoding keeps no reference into another unit";
  std::vector<SectionImage> canonical = write::encodeCanonical(dwarf, diags);
  EXPECT_FALSE(diags.hasErrors()) << diags.items[0].message;
  read::Dwarf again = read::decode(canonical);
  EXPECT_FALSE(again.diagnostics.hasErrors()) << again.diagnostics.items[0].message;
  EXPECT_EQ(semanticTree(again), semanticTree(dwarf));
  ASSERT_EQ(again.pubnameSets.size(), dwarf.pubnameSets.size());
  for (size_t i = 0; i < dwarf.pubnameSets.size(); ++i) {
    ASSERT_EQ(again.pubnameSets[i].entries.size(), dwarf.pubnameSets[i].entries.size());
    for (size_t k = 0; k < dwarf.pubnameSets[i].entries.size(); ++k)
      EXPECT_EQ(again.pubnameSets[i].entries[k].name, dwarf.pubnameSets[i].entries[k].name);
  }
}

// The re-encoded images share the source sections' name store rather than
// copying every name: they must stay whole after the module and the model
// are gone (AddressSanitizer checks the reads below).
TEST_P(RoundTrip, PreservedImagesOutliveTheirSource) {
  PreparedEntry p = prepare(GetParam());
  if (p.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p.message;
  ASSERT_NE(p.status, PreparedEntry::Status::failed) << p.message;
  std::optional<std::string> text = readFile(p.ptxPath);
  ASSERT_TRUE(text);
  std::vector<SectionImage> preserved;
  std::vector<std::string> expected;
  {
    ptx::ReadResult r = ptx::read(*text, p.ptxPath);
    // LLVM 19's debug-ptx-symbols output: a name ptxas cannot parse either.
    if (!r.ok() && p.status == PreparedEntry::Status::ptxasRejected) GTEST_SKIP() << "the reader rejects it as ptxas does";
    ASSERT_TRUE(r.ok());
    read::Dwarf dwarf = read::decode(r.module.sections);
    Diagnostics diags;
    for (const SectionImage& s : dwarf.sections) preserved.push_back(write::encodePreserve(dwarf, s, diags));
    for (const SectionImage& s : r.module.sections)
      for (const Relocation& rel : s.relocations) expected.push_back(s.name + " " + rel.expression());
  }
  std::vector<std::string> actual;
  for (const SectionImage& s : preserved)
    for (const Relocation& rel : s.relocations) actual.push_back(s.name + " " + rel.expression());
  EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(Corpus, RoundTrip, testing::ValuesIn(corpusEntries()),
                         [](const testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; });
