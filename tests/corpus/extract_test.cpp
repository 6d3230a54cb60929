// For every corpus entry: read the PTX with our reader and compare each debug
// section it returns with the section of the same name that ptxas wrote to the
// cubin. Bytes must be identical except
//   - operands our reader keeps as relocations (zero-filled by us, filled by ptxas);
//     section-name operands (`.debug_loc+138`) must come out as their addend and
//     label differences inside one section (`A-B`) as the computed distance;
//   - the 9-byte `DW_OP_addr __local_depotN` spans, which ptxas rewrites into
//     DW_OP_fbreg <sleb> followed by DW_OP_nop padding (checked for that shape).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "corpus.h"
#include "elf.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/section.h"
#include "tools.h"
#include "missing_tool.h"

namespace {

using ptxdwarf::SectionImage;
using ptxdwarf::testsupport::CorpusEntry;
using ptxdwarf::testsupport::PreparedEntry;

constexpr uint8_t kDwOpAddr = 0x03;
constexpr uint8_t kDwOpFbreg = 0x91;
constexpr uint8_t kDwOpNop = 0x96;

// Debug sections ptxas builds by itself (from .file/.loc and the SASS), never from a
// PTX `.section` block.
const std::set<std::string> kPtxasOwnSections = {".debug_frame", ".debug_line"};

struct Totals {
  uint64_t entries = 0, sections = 0, bytes = 0, comparedBytes = 0, relocations = 0, depotRewrites = 0,
           differences = 0, mercCopies = 0;
  void add(const Totals& t) {
    entries += t.entries;
    sections += t.sections;
    bytes += t.bytes;
    comparedBytes += t.comparedBytes;
    relocations += t.relocations;
    depotRewrites += t.depotRewrites;
    differences += t.differences;
    mercCopies += t.mercCopies;
  }
  std::string str() const {
    std::ostringstream s;
    s << sections << " sections, " << bytes << " bytes (" << comparedBytes << " compared exactly), "
      << relocations << " relocations (" << differences << " label differences checked), " << depotRewrites
      << " __local_depot rewrites, " << mercCopies << " .nv.merc copies";
    return s.str();
  }
};
Totals gTotals;

class TotalsPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    if (gTotals.entries > 1)
      std::printf("[ corpus   ] %llu entries compared: %s\n", (unsigned long long)gTotals.entries,
                  gTotals.str().c_str());
  }
};
const auto* const kTotalsEnv = ::testing::AddGlobalTestEnvironment(new TotalsPrinter);

uint64_t readLe(const std::vector<uint8_t>& b, uint64_t off, unsigned size) {
  uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= uint64_t(b[off + i]) << (8 * i);
  return v;
}

uint64_t truncate(uint64_t v, unsigned size) { return size >= 8 ? v : v & ((uint64_t(1) << (8 * size)) - 1); }

// Where a section label is defined: (section name, offset).
std::map<std::string, std::pair<std::string, uint64_t>> sectionLabels(const std::vector<SectionImage>& sections) {
  std::map<std::string, std::pair<std::string, uint64_t>> out;
  for (const auto& s : sections)
    for (const auto& l : s.labels) out.emplace(l.name, std::make_pair(s.name, l.offset));
  return out;
}

std::string hexBytes(const std::vector<uint8_t>& b, uint64_t from, uint64_t to) {
  std::string s;
  char buf[4];
  for (uint64_t i = from; i < to && i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
  }
  return s;
}

// DW_OP_fbreg <sleb128> DW_OP_nop* filling exactly `span` bytes.
bool isFbregRewrite(const std::vector<uint8_t>& b, uint64_t at, uint64_t span) {
  if (at + span > b.size() || b[at] != kDwOpFbreg) return false;
  uint64_t i = at + 1;
  while (i < at + span && (b[i] & 0x80)) ++i;
  if (i >= at + span) return false;
  for (++i; i < at + span; ++i)
    if (b[i] != kDwOpNop) return false;
  return true;
}

std::string paramName(const ::testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; }

class CorpusTest : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(CorpusTest, ReaderMatchesPtxas) {
  const CorpusEntry& entry = GetParam();
  const PreparedEntry prepared = ptxdwarf::testsupport::prepare(entry);
  if (prepared.status == PreparedEntry::Status::skipped) GTEST_SKIP() << prepared.message;
  ASSERT_NE(prepared.status, PreparedEntry::Status::failed) << prepared.message;

  std::string error;
  const auto text = ptxdwarf::testsupport::readFile(prepared.ptxPath, &error);
  ASSERT_TRUE(text.has_value()) << error;
  const auto result = ptxdwarf::ptx::read(*text, prepared.ptxPath);
  std::string diagnostics;
  for (const auto& d : result.diagnostics.items) diagnostics += d.format(prepared.ptxPath) + "\n";

  if (prepared.status == PreparedEntry::Status::ptxasRejected) {
    // ptxas refuses this file (see fixtures/variants/README.md); our reader must still
    // read it without crashing. Nothing to compare against.
    std::printf("[ corpus   ] %s: ptxas rejects it as expected (%s); reader: %zu diagnostic(s)\n%s",
                entry.id.c_str(), entry.expectedPtxasMessage.c_str(), result.diagnostics.items.size(),
                diagnostics.c_str());
    return;
  }
  ASSERT_TRUE(result.ok()) << "our reader rejects a file ptxas accepts:\n" << diagnostics;

  const auto elf = ptxdwarf::testsupport::readElfSections(prepared.cubinPath, &error);
  ASSERT_TRUE(elf.has_value()) << error;
  // Duplicate section headers: ptxas 13 writes an extra empty one for an empty PTX
  // block that precedes the real block of that name. At most one copy may hold bytes.
  const auto list = ptxdwarf::testsupport::readElfSectionList(prepared.cubinPath, &error);
  ASSERT_TRUE(list.has_value()) << error;
  std::map<std::string, std::pair<int, int>> copies;  // name -> (headers, non-empty headers)
  for (const auto& s : *list) {
    auto& c = copies[s.name];
    ++c.first;
    if (!s.bytes.empty()) ++c.second;
  }
  for (const auto& [name, c] : copies) {
    if (c.first < 2) continue;
    EXPECT_LE(c.second, 1) << name << " appears " << c.first << " times with bytes in " << c.second;
    std::printf("[ corpus   ] %s: the cubin has %d section headers named %s (%d non-empty)\n", entry.id.c_str(),
                c.first, name.c_str(), c.second);
  }

  const auto& sections = result.module.sections;
  const auto labels = sectionLabels(sections);
  std::set<std::string> ours;
  for (const auto& s : sections) ours.insert(s.name);

  Totals t;
  t.entries = 1;
  for (const SectionImage& s : sections) {
    SCOPED_TRACE("section " + s.name);
    const auto it = elf->find(s.name);
    if (s.bytes.empty()) {
      EXPECT_EQ(it, elf->end()) << "an empty PTX section should produce no ELF section";
      continue;
    }
    ASSERT_NE(it, elf->end()) << "ptxas wrote no " << s.name << " for a " << s.bytes.size() << "-byte PTX section";
    const std::vector<uint8_t>& theirs = it->second;
    ASSERT_EQ(s.bytes.size(), theirs.size()) << "section sizes differ";
    ++t.sections;
    t.bytes += s.bytes.size();

    std::vector<bool> masked(s.bytes.size(), false);
    for (const auto& r : s.relocations) {
      ++t.relocations;
      ASSERT_TRUE(r.size == 1 || r.size == 2 || r.size == 4 || r.size == 8) << r.expression();
      ASSERT_LE(r.offset + r.size, s.bytes.size()) << r.expression() << " at " << r.offset;
      for (uint64_t i = r.offset; i < r.offset + r.size; ++i) masked[i] = true;
      const uint64_t value = readLe(theirs, r.offset, r.size);
      const auto where = [&] {
        const auto loc = s.locate(r.offset);
        return prepared.ptxPath + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + " (" + s.name +
               "+" + std::to_string(r.offset) + ", " + r.expression() + ")";
      };

      if (r.isDifference()) {
        const auto a = labels.find(std::string(r.symbol)), b = labels.find(std::string(r.minus()));
        if (a != labels.end() && b != labels.end() && a->second.first == b->second.first) {
          ++t.differences;
          const uint64_t expected =
              truncate(a->second.second - b->second.second + uint64_t(r.addend()), r.size);
          EXPECT_EQ(value, expected) << where() << ": ptxas resolved the label difference differently";
        }
        continue;
      }
      if (r.symbol.starts_with("__local_depot") && r.size == 8 && r.offset >= 1 &&
          s.bytes[r.offset - 1] == kDwOpAddr) {
        ++t.depotRewrites;
        masked[r.offset - 1] = true;
        EXPECT_TRUE(isFbregRewrite(theirs, r.offset - 1, 9))
            << where() << ": expected DW_OP_fbreg <sleb> DW_OP_nop... for DW_OP_addr " << r.symbol << ", ELF has "
            << hexBytes(theirs, r.offset - 1, r.offset + 8);
        continue;
      }
      if (ours.count(std::string(r.symbol)) != 0 || kPtxasOwnSections.count(std::string(r.symbol)) != 0) {
        // A section-relative operand: every section starts at 0 in a cubin.
        EXPECT_EQ(value, truncate(uint64_t(r.addend()), r.size)) << where();
      }
    }

    uint64_t mismatches = 0;
    for (uint64_t i = 0; i < s.bytes.size(); ++i) {
      if (masked[i]) continue;
      ++t.comparedBytes;
      if (s.bytes[i] != theirs[i] && ++mismatches <= 10) {
        const auto loc = s.locate(i);
        ADD_FAILURE() << prepared.ptxPath << ":" << loc.line << ":" << loc.col << ": " << s.name << "+" << i
                      << ": ours 0x" << hexBytes(s.bytes, i, i + 1) << ", ptxas 0x" << hexBytes(theirs, i, i + 1);
      }
    }
    EXPECT_EQ(mismatches, 0u) << "bytes differ in " << s.name;

    // sm_100 cubins carry a ".nv.merc" copy of every debug section; it must match.
    if (const auto merc = elf->find(".nv.merc" + s.name); merc != elf->end()) {
      ++t.mercCopies;
      EXPECT_EQ(merc->second, theirs) << ".nv.merc" << s.name << " differs from " << s.name;
    }
  }

  // Every debug section in the cubin must come from a PTX block, unless ptxas makes it itself.
  for (const auto& [name, bytes] : *elf) {
    if (name.rfind(".debug_", 0) != 0 || kPtxasOwnSections.count(name) != 0) continue;
    bool nonEmpty = false;
    for (const auto& s : sections)
      if (s.name == name && !s.bytes.empty()) nonEmpty = true;
    EXPECT_TRUE(nonEmpty) << "the cubin has " << name << " (" << bytes.size()
                          << " bytes) but our reader returned no such section";
  }

  gTotals.add(t);
  RecordProperty("sections", int(t.sections));
  RecordProperty("bytes", int(t.bytes));
  RecordProperty("relocations", int(t.relocations));
  std::printf("[ corpus   ] %s (%s %s%s): %s\n", entry.id.c_str(),
              std::string(ptxdwarf::testsupport::producerName(entry.producer)).c_str(), entry.arch.c_str(),
              prepared.fromCache ? ", cached" : "", t.str().c_str());
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(ptxdwarf::testsupport::corpusEntries()),
                         paramName);

// The corpus itself must be there: at least 8 programs × 4 producers and the variants.
TEST(CorpusInventory, HasProgramsAndVariants) {
  const auto entries = ptxdwarf::testsupport::corpusEntries();
  std::set<std::string> programs;
  size_t variants = 0;
  for (const auto& e : entries) {
    if (e.producer != ptxdwarf::testsupport::Producer::fixture) programs.insert(e.program);
    if (e.id.rfind("variant_", 0) == 0) ++variants;
  }
  EXPECT_GE(programs.size(), 8u);
  EXPECT_GE(variants, 10u);
}

}  // namespace

namespace {

// The ELF reader is bounds-checked: every truncation of a real cubin and a few
// corrupted headers are rejected with a message, never read out of bounds.
TEST(ElfReader, RejectsTruncatedAndCorruptCubins) {
  const auto entries = ptxdwarf::testsupport::corpusEntries();
  const auto it = std::find_if(entries.begin(), entries.end(),
                               [](const CorpusEntry& e) { return e.id == "fixture_chapter6"; });
  ASSERT_NE(it, entries.end());
  const PreparedEntry prepared = ptxdwarf::testsupport::prepare(*it);
  if (prepared.status == PreparedEntry::Status::skipped) GTEST_SKIP() << prepared.message;
  ASSERT_EQ(prepared.status, PreparedEntry::Status::ready) << prepared.message;
  const auto file = ptxdwarf::testsupport::readFile(prepared.cubinPath);
  ASSERT_TRUE(file.has_value());
  const std::vector<uint8_t> bytes(file->begin(), file->end());

  std::string error;
  const auto whole = ptxdwarf::testsupport::parseElfSections(bytes, &error);
  ASSERT_TRUE(whole.has_value()) << error;
  ASSERT_EQ(whole->count(".debug_info"), 1u);
  EXPECT_EQ(whole->at(".debug_info").size(), 266u);  // 262 + the 4-byte unit length

  // Any truncation before the end of the section header table must be rejected
  // (program headers may follow it; the reader does not need them).
  const uint64_t shoff = readLe(bytes, 0x28, 8), shnum = readLe(bytes, 0x3c, 2), shentsize = readLe(bytes, 0x3a, 2);
  const uint64_t tableEnd = shoff + shnum * shentsize;
  ASSERT_LE(tableEnd, bytes.size());
  for (size_t n = 0; n < tableEnd; n += (n < 128 || n + 128 > tableEnd ? 1 : 97)) {
    error.clear();
    const std::span<const uint8_t> cut(bytes.data(), n);
    EXPECT_FALSE(ptxdwarf::testsupport::parseElfSections(cut, &error).has_value()) << "truncated at " << n;
    EXPECT_FALSE(error.empty()) << "truncated at " << n;
  }
  auto corrupt = [&](size_t at, uint8_t value) {
    std::vector<uint8_t> b = bytes;
    b[at] = value;
    return ptxdwarf::testsupport::parseElfSections(b, &error).has_value();
  };
  EXPECT_FALSE(corrupt(4, 1));     // ELFCLASS32
  EXPECT_FALSE(corrupt(5, 2));     // big-endian
  EXPECT_FALSE(corrupt(0x2f, 0x7f));  // e_shoff far past the end
  EXPECT_FALSE(corrupt(0x3e, 0xfe));  // e_shstrndx out of range
}

}  // namespace

namespace {

// ptxas 13 writes a non-negative .b32/.b64 constant as its low 32 bits and a
// negative one in full; our reader must give the same bytes (and warn where
// bits are lost).
TEST(WideConstants, ReaderWritesWhatPtxasWrites) {
  const auto ptxas = ptxdwarf::testsupport::findTool("ptxas");
  if (!ptxas) PTXDWARF_MISSING_TOOL("ptxas not found");
  const std::string text =
      ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n"
      ".section .debug_loc\n{\n"
      ".b8 1, 2\n.b64 0x1122334455667788\n.b32 0x112233445566\n.b64 -4294967297\n.b64 -1\n"
      ".b64 0xffffffff\n.b64 18446744073709551615\n.b32 -2147483648\n.b64 0x8877665544332211\n}\n";
  std::error_code ec;
  std::filesystem::create_directories(ptxdwarf::testsupport::workDir(), ec);
  const std::string base = ptxdwarf::testsupport::workDir() + "/wide_constants_" + std::to_string(getpid());
  ASSERT_TRUE(ptxdwarf::testsupport::writeFile(base + ".ptx", text));
  const auto assembled = ptxdwarf::testsupport::runCommand({*ptxas, "-arch=sm_80", "-g", base + ".ptx", "-o", base + ".cubin"});
  ASSERT_TRUE(assembled.ok()) << assembled.summary();
  std::string error;
  const auto elf = ptxdwarf::testsupport::readElfSections(base + ".cubin", &error);
  std::remove((base + ".ptx").c_str());
  std::remove((base + ".cubin").c_str());
  ASSERT_TRUE(elf.has_value()) << error;
  ASSERT_TRUE(elf->count(".debug_loc"));

  const auto result = ptxdwarf::ptx::read(text, "wide.ptx");
  ASSERT_TRUE(result.ok());
  const ptxdwarf::SectionImage* loc = result.module.section(".debug_loc");
  ASSERT_NE(loc, nullptr);
  EXPECT_EQ(loc->bytes, elf->at(".debug_loc"));
  size_t wide = 0;
  for (const auto& d : result.diagnostics.items) wide += d.rule == "wide-constant";
  EXPECT_EQ(wide, 4u);  // 0x1122334455667788, 0x112233445566, 18446744073709551615, 0x8877665544332211
}

}  // namespace
