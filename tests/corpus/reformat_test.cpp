// For every corpus entry and every writer style: reformat the PTX (every
// `.section` block rewritten by write::reformat), assemble it with ptxas the way
// the corpus assembled the original, and require the cubin's debug sections
// (`.debug_*`, and the `.nv.merc.debug_*` copies on sm_100) to be byte-identical
// to those of the original's cubin. The reformatted PTX must also re-read to the
// same section images. Skips when nvcc/clang/ptxas are absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "corpus.h"
#include "elf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/write/ptx_writer.h"
#include "tools.h"
#include "missing_tool.h"

namespace {

using ptxdwarf::SectionImage;
using ptxdwarf::testsupport::CorpusEntry;
using ptxdwarf::testsupport::PreparedEntry;
using ptxdwarf::write::Style;
namespace ts = ptxdwarf::testsupport;

// One test case; printed as its name (not a byte dump) in gtest messages.
struct Case {
  CorpusEntry entry;
  Style style = Style::packed;
};

std::string styleId(Style s) {
  switch (s) {
    case Style::packed: return "packed";
    case Style::onePerLine: return "onePerLine";
    case Style::verbose: return "verbose";
    case Style::dense: return "dense";
  }
  return "unknown";
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.entry.id << "_" << styleId(c.style); }

std::string paramName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.entry.id + "_" + styleId(info.param.style);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const CorpusEntry& e : ts::assembledEntries())
    for (Style s : {Style::packed, Style::onePerLine, Style::verbose, Style::dense}) out.push_back({e, s});
  return out;
}

bool isDebugSection(const std::string& name) { return name.find(".debug_") != std::string::npos; }
bool isRelocationSection(const std::string& name) { return name.rfind(".rel", 0) == 0; }

using Sections = std::map<std::string, std::vector<uint8_t>>;

uint64_t le(const std::vector<uint8_t>& b, size_t at, unsigned size) {
  uint64_t v = 0;
  for (unsigned i = 0; i < size && at + i < b.size(); ++i) v |= uint64_t(b[at + i]) << (8 * i);
  return v;
}

// The entries of a `.rel`/`.rela` section with symbol indices replaced by names:
// ptxas numbers symbols by its own table, which may differ between two cubins whose
// debug content is the same (`.b32 .debug_info+0` makes ptxas 13 add an undefined
// symbol named ".debug_info+0"; our writer prints `.debug_info`).
std::vector<std::string> relocationEntries(const Sections& elf, const std::string& name) {
  const std::vector<uint8_t>& rel = elf.at(name);
  const auto symtab = elf.find(".symtab"), strtab = elf.find(".strtab");
  const bool rela = name.rfind(".rela", 0) == 0;
  const size_t size = rela ? 24 : 16;
  std::vector<std::string> out;
  for (size_t at = 0; at + size <= rel.size(); at += size) {
    const uint64_t info = le(rel, at + 8, 8);
    std::string symbol = "#" + std::to_string(info >> 32);
    if (symtab != elf.end() && strtab != elf.end() && (info >> 32) * 24 + 24 <= symtab->second.size()) {
      const uint64_t nameOff = le(symtab->second, (info >> 32) * 24, 4);
      symbol.clear();
      for (size_t i = nameOff; i < strtab->second.size() && strtab->second[i] != 0; ++i)
        symbol += char(strtab->second[i]);
    }
    out.push_back("offset " + std::to_string(le(rel, at, 8)) + " type " + std::to_string(info & 0xffffffffu) +
                  " " + symbol + (rela ? " + " + std::to_string(int64_t(le(rel, at + 16, 8))) : std::string()));
  }
  return out;
}

std::string diagnosticsText(const ptxdwarf::Diagnostics& d, const std::string& file) {
  std::string s;
  for (const auto& i : d.items) s += i.format(file) + "\n";
  return s;
}

class ReformatTest : public ::testing::TestWithParam<Case> {};

TEST_P(ReformatTest, CubinDebugSectionsUnchanged) {
  const CorpusEntry& entry = GetParam().entry;
  const Style style = GetParam().style;
  const PreparedEntry prepared = ts::prepare(entry);
  if (prepared.status == PreparedEntry::Status::skipped) GTEST_SKIP() << prepared.message;
  ASSERT_EQ(prepared.status, PreparedEntry::Status::ready) << prepared.message;
  const auto ptxas = ts::findTool("ptxas");
  if (!ptxas) PTXDWARF_MISSING_TOOL("ptxas not found");

  std::string error;
  const auto text = ts::readFile(prepared.ptxPath, &error);
  ASSERT_TRUE(text.has_value()) << error;
  const auto original = ptxdwarf::ptx::read(*text, prepared.ptxPath);
  ASSERT_TRUE(original.ok()) << diagnosticsText(original.diagnostics, prepared.ptxPath);
  const auto& sections = original.module.sections;

  ptxdwarf::write::WriteOptions options;
  options.style = style;
  const ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(sections);
  options.dwarf = &dwarf;
  ptxdwarf::Diagnostics diags;
  const auto out = ptxdwarf::write::reformat(*text, original.module, sections, options, diags);
  ASSERT_TRUE(out.has_value()) << diagnosticsText(diags, prepared.ptxPath);

  const std::filesystem::path dir = std::filesystem::path(ts::workDir()) / "reformat";
  std::filesystem::create_directories(dir);
  const std::string base = (dir / (entry.id + "." + styleId(style))).string();
  const std::string ptxPath = base + ".ptx", cubinPath = base + ".cubin";
  ASSERT_TRUE(ts::writeFile(ptxPath, *out, &error)) << error;

  // The reformatted text holds the same images (each name once, in one block).
  const auto again = ptxdwarf::ptx::read(*out, ptxPath);
  ASSERT_TRUE(again.ok()) << diagnosticsText(again.diagnostics, ptxPath);
  ASSERT_EQ(again.module.sections.size(), sections.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    const SectionImage &a = sections[i], &b = again.module.sections[i];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.bytes, b.bytes);
    ASSERT_EQ(a.relocations.size(), b.relocations.size());
    for (size_t k = 0; k < a.relocations.size(); ++k) {
      EXPECT_EQ(a.relocations[k].offset, b.relocations[k].offset);
      EXPECT_EQ(a.relocations[k].expression(), b.relocations[k].expression());
    }
    ASSERT_EQ(a.labels.size(), b.labels.size());
    for (size_t k = 0; k < a.labels.size(); ++k) {
      EXPECT_EQ(a.labels[k].name, b.labels[k].name);
      EXPECT_EQ(a.labels[k].offset, b.labels[k].offset);
    }
    EXPECT_EQ(b.blocks.size(), 1u);
  }

  std::filesystem::remove(cubinPath);
  const auto assembled = ts::runCommand({*ptxas, "-arch=" + entry.arch, "-g", ptxPath, "-o", cubinPath});
  ASSERT_TRUE(assembled.ok()) << "ptxas rejects the " << styleId(style) << " reformat of " << prepared.ptxPath
                              << " (" << ptxPath << "): " << assembled.summary();

  const auto want = ts::readElfSections(prepared.cubinPath, &error);
  ASSERT_TRUE(want.has_value()) << error;
  const auto got = ts::readElfSections(cubinPath, &error);
  ASSERT_TRUE(got.has_value()) << error;
  size_t compared = 0, bytes = 0;
  for (const auto& [name, data] : *want) {
    if (!isDebugSection(name)) continue;
    const auto it = got->find(name);
    if (it == got->end()) {
      ADD_FAILURE() << name << " (" << data.size() << " bytes) is missing from " << cubinPath;
      continue;
    }
    ++compared;
    bytes += data.size();
    if (it->second == data) continue;
    if (isRelocationSection(name) && relocationEntries(*want, name) == relocationEntries(*got, name)) continue;
    size_t at = 0;
    while (at < data.size() && at < it->second.size() && data[at] == it->second[at]) ++at;
    ADD_FAILURE() << name << " differs from the original's cubin at offset " << at << " (sizes " << data.size()
                  << " and " << it->second.size() << "); PTX: " << ptxPath;
  }
  for (const auto& [name, data] : *got)
    if (isDebugSection(name) && want->count(name) == 0)
      ADD_FAILURE() << "the reformatted cubin has an extra " << name << " (" << data.size() << " bytes)";
  std::printf("[ reformat ] %s %s: %zu debug sections, %zu bytes identical; PTX %zu -> %zu bytes\n",
              entry.id.c_str(), styleId(style).c_str(), compared, bytes, text->size(), out->size());
}

INSTANTIATE_TEST_SUITE_P(Corpus, ReformatTest, ::testing::ValuesIn(cases()), paramName);

}  // namespace
