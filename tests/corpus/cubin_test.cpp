// Cubins read as the model (cubin::read): on every corpus program, the cubin
// ptxas -g makes and the one ptxas -lineinfo makes --
//  - the dump of its DWARF equals llvm-dwarfdump's on the same cubin, DIE
//    for DIE and attribute for attribute, up to the two CUDA spellings
//    (address class names, `DW_OP_regx %r5`);
//  - its .debug_line rows equal llvm-dwarfdump --debug-line's (address,
//    line, file, is_stmt, end_sequence);
//  - for nvcc -lineinfo -O3 (inlined code), each row's inline stack as
//    NVIDIA's extension gives it (the context numbered as ptxas numbers rows)
//    equals the `.loc ... inlined_at` chain at the PTX line
//    .nv_debug_line_sass maps the row's address to;
//  - its register map decodes whole: every entry's register declared in its
//    function in the embedded PTX, every range inside the function's code.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <span>
#include <sstream>

#include "corpus.h"
#include "dwarfdump_text.h"
#include "ptxdwarf/print/dump.h"
#include "missing_tool.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/regmap.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/lines.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

using namespace ptxdwarf::testsupport;
namespace cubin = ptxdwarf::cubin;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}


struct Tally {
  std::string producer;
  int cubins = 0, dies = 0, attrs = 0, lines = 0, rows = 0, inlinedRows = 0, inlineAgreed = 0, instructionRows = 0,
      instructionAgreed = 0, cudaGdbDiffers = 0, regmapEntries = 0, routineEntries = 0;
};
// Declared before `report`, so destroyed after it prints them.
std::map<std::string, Tally> tallyByProducer;
std::map<std::string, Tally>& tallies() { return tallyByProducer; }
struct Report {
  ~Report() {
    for (auto& [name, t] : tallyByProducer)
      std::printf("cubin %-14s: %d cubins; dump = llvm-dwarfdump on %d DIEs, %d attributes (%d lines); %d line rows = "
                  "llvm's; %d/%d inlined rows' stacks = the PTX's inlined_at (%d/%d instructions' rows; cuda-gdb's "
                  "numbering names another call site in %d); %d register map entries checked (%d of ptxas's "
                  "inlined routines)\n",
                  name.c_str(), t.cubins, t.dies, t.attrs, t.lines, t.rows, t.inlineAgreed, t.inlinedRows,
                  t.instructionAgreed, t.instructionRows, t.cudaGdbDiffers, t.regmapEntries, t.routineEntries);
  }
} report;

Tally& tallyFor(const CorpusEntry& e) { return tallies()[std::string(producerName(e.producer))]; }

// The cubin ptxas -lineinfo (optimizing) makes of the entry's PTX, beside it.
std::optional<std::string> lineinfoCubin(const PreparedEntry& p, const CorpusEntry& e, std::string& why) {
  std::optional<std::string> ptxas = findTool("ptxas");
  if (!ptxas) {
    why = "ptxas not found";
    return std::nullopt;
  }
  const std::string out = p.cubinPath + ".lineinfo.cubin";
  CommandResult r = runCommand({*ptxas, "-arch=" + e.arch, "-lineinfo", p.ptxPath, "-o", out});
  if (!r.ok()) {
    why = "ptxas -lineinfo failed: " + r.summary();
    return std::nullopt;
  }
  return out;
}

cubin::ReadResult readCubin(const std::string& path, std::string& bytes, bool applyRelocations = true) {
  bytes = *readFile(path);
  return cubin::read(bytes, path, {.applyRelocations = applyRelocations});
}

class CubinCorpus : public testing::TestWithParam<CorpusEntry> {
 protected:
  void SetUp() override {
    if (!findTool("llvm-dwarfdump")) PTXDWARF_MISSING_TOOL("llvm-dwarfdump not found");
    p_ = prepare(GetParam());
    if (p_.status == PreparedEntry::Status::skipped) GTEST_SKIP() << p_.message;
    ASSERT_EQ(p_.status, PreparedEntry::Status::ready) << p_.message;
  }
  PreparedEntry p_;
};
// Each property runs on the cubins it is about: the DWARF and the register
// map on -g builds (a line-tables-only cubin has neither), the inline stacks
// on nvcc -lineinfo -O3 builds (the only ones with inlined rows and .loc
// inlined_at to hold them against).
class CubinDebugInfo : public CubinCorpus {};
class CubinInlining : public CubinCorpus {};

std::vector<CorpusEntry> entriesWhere(bool (*keep)(const CorpusEntry&)) {
  std::vector<CorpusEntry> out;
  for (const CorpusEntry& e : assembledEntries())
    if (keep(e)) out.push_back(e);
  return out;
}

// llvm-dwarfdump applies no relocation to a cubin (no EM_CUDA resolver):
// the bytes as the file holds them.
void expectDumpAsLlvm(const std::string& path, Tally& t) {
  std::string bytes;
  cubin::ReadResult r = readCubin(path, bytes, false);
  ASSERT_TRUE(r.ok()) << r.diagnostics.items.front().message;
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  if (dwarf.dies.empty()) GTEST_SKIP() << "no .debug_info in the cubin";
  std::string ours;
  ptxdwarf::print::dumpText(
      r.module, dwarf, {.info = true, .abbrev = true, .pubnames = true, .aranges = true, .loc = true, .str = true}, ours);
  CommandResult llvm = runCommand({*findTool("llvm-dwarfdump"), "--debug-info", "--debug-abbrev", "--debug-loc",
                                   "--debug-aranges", "--debug-str", "--debug-pubnames", path});
  ASSERT_EQ(llvm.exitCode, 0) << llvm.summary();
  std::vector<std::string> a = lines(ours), b = lines(llvm.out);
  ASSERT_EQ(a.size(), b.size()) << "line counts differ";
  static const std::regex dieLine(R"(^0x[0-9a-f]{8}: +(DW_TAG|NULL))");
  static const std::regex attrLine(R"(^ +DW_AT_)");
  ++t.cubins;
  for (size_t i = 1; i < a.size(); ++i) {  // line 0 names the file
    EXPECT_EQ(llvmSpelling(a[i]), b[i]) << "line " << i + 1;
    t.dies += std::regex_search(b[i], dieLine);
    t.attrs += std::regex_search(b[i], attrLine);
    ++t.lines;
  }
}

TEST_P(CubinDebugInfo, DumpEqualsLlvmDwarfdumpDieForDie) { expectDumpAsLlvm(p_.cubinPath, tallyFor(GetParam())); }

// Relocated as the driver relocates it, each function's address range lies
// inside its code (its .text section; CCCL's functions end before their
// section's padding).
void expectRangesInsideTheirCode(const std::string& path) {
  std::string bytes;
  cubin::ReadResult r = readCubin(path, bytes);
  ASSERT_TRUE(r.ok()) << r.diagnostics.items.front().message;
  ptxdwarf::read::Dwarf dwarf = ptxdwarf::read::decode(r.module.sections);
  int checked = 0;
  for (const ptxdwarf::read::Die& d : dwarf.dies) {
    if (d.tag != ptxdwarf::dw::DW_TAG_subprogram) continue;
    std::optional<ptxdwarf::read::AttrValue> low = dwarf.attribute(d, ptxdwarf::dw::DW_AT_low_pc);
    std::optional<ptxdwarf::read::AttrValue> high = dwarf.attribute(d, ptxdwarf::dw::DW_AT_high_pc);
    std::string_view name = dwarf.linkageName(d).empty() ? dwarf.name(d) : dwarf.linkageName(d);
    const cubin::CodeSection* code = r.cubin.codeOf(name);
    if (!low || !high || !code || high->form != ptxdwarf::dw::DW_FORM_addr) continue;
    EXPECT_EQ(low->value, 0u) << name;
    EXPECT_LE(high->value, code->size) << name;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no function with an address range and code";
}

TEST_P(CubinDebugInfo, RelocatedHighPcIsTheFunctionsCodeSize) { expectRangesInsideTheirCode(p_.cubinPath); }

struct LlvmRow {
  uint64_t address = 0;
  unsigned line = 0, file = 0;
  bool isStmt = false, endSequence = false;
};

std::vector<LlvmRow> llvmRows(const std::string& text) {
  static const std::regex row(R"(^0x([0-9a-f]{16}) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(.*)$)");
  std::vector<LlvmRow> out;
  for (const std::string& l : lines(text)) {
    std::smatch m;
    if (!std::regex_match(l, m, row)) continue;
    LlvmRow r;
    r.address = std::stoull(m[1].str(), nullptr, 16);
    r.line = static_cast<unsigned>(std::stoul(m[2].str()));
    r.file = static_cast<unsigned>(std::stoul(m[4].str()));
    r.isStmt = m[7].str().find("is_stmt") != std::string::npos;
    r.endSequence = m[7].str().find("end_sequence") != std::string::npos;
    out.push_back(r);
  }
  return out;
}

void expectRowsAsLlvm(const std::string& path, const CorpusEntry& e) {
  std::string bytes;
  cubin::ReadResult r = readCubin(path, bytes);
  ASSERT_TRUE(r.ok());
  const ptxdwarf::SectionImage* line = r.module.section(".debug_line");
  ASSERT_NE(line, nullptr) << "ptxas writes .debug_line with -g and -lineinfo";
  std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(line->bytes);
  std::vector<cubin::LineRow> ours;
  for (const cubin::LineTable& t : tables) {
    EXPECT_TRUE(t.problems.empty()) << t.problems.front();
    ours.insert(ours.end(), t.rows.begin(), t.rows.end());
  }
  CommandResult llvm = runCommand({*findTool("llvm-dwarfdump"), "--debug-line", path});
  ASSERT_EQ(llvm.exitCode, 0) << llvm.summary();
  std::vector<LlvmRow> theirs = llvmRows(llvm.out);
  ASSERT_EQ(ours.size(), theirs.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    EXPECT_EQ(ours[i].address, theirs[i].address);
    EXPECT_EQ(ours[i].line, theirs[i].line);
    EXPECT_EQ(ours[i].file, theirs[i].file);
    EXPECT_EQ(ours[i].isStmt, theirs[i].isStmt);
    EXPECT_EQ(ours[i].endSequence, theirs[i].endSequence);
  }
  tallyFor(e).rows += static_cast<int>(ours.size());
}

TEST_P(CubinCorpus, LineRowsEqualLlvmDwarfdumps) {
  expectRowsAsLlvm(p_.cubinPath, GetParam());
  if (!isLineTablesOnly(GetParam().producer)) return;
  std::string why;
  std::optional<std::string> optimized = lineinfoCubin(p_, GetParam(), why);
  ASSERT_TRUE(optimized) << why;
  expectRowsAsLlvm(*optimized, GetParam());
}

// The PTX line table row in force at PTX line `ptxLine`: the last `.loc`
// at or before it.
std::optional<uint32_t> rowAtPtxLine(const ptxdwarf::ptx::Module& m, const ptxdwarf::ptx::LineTable& t,
                                     uint32_t ptxLine) {
  std::optional<uint32_t> best;
  for (uint32_t i = 0; i < t.rows.size(); ++i)
    if (m.locs[t.rows[i].loc].loc.line <= ptxLine) best = i;  // rows are in text order
  return best;
}

// One frame of an inline stack, as both sides can spell it: the inlined
// function and the call site's file (a path) and line.
struct Frame {
  std::string function, callFile;
  unsigned callLine = 0;
  // What the inline stack is: the functions and their call lines. The call
  // files are compared on their own (filesAgree): ptxas writes some rows with
  // another file than their `.loc`'s.
  friend bool operator==(const Frame& a, const Frame& b) {
    return a.function == b.function && a.callLine == b.callLine;
  }
};
bool filesAgree(const std::vector<Frame>& a, std::span<const Frame> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Frame& x, const Frame& y) { return x.callFile == y.callFile; });
}
std::string spell(const std::vector<Frame>& frames) {
  std::string s = "[";
  for (const Frame& f : frames) s += (s.size() > 1 ? ", " : "") + f.function + " at " + f.callFile + ":" + std::to_string(f.callLine);
  return s + "]";
}

// How a cubin's inline stacks compare with the PTX's: `rows` counts the rows
// where either side has a stack; `instructionRows` and `instructionAgreed`
// the same for the last row at each address (the one the instruction there
// takes; the rows before it at that address are the call sites ptxas writes
// to give it its context).
struct InlineAgreement {
  int rows = 0, agreed = 0, instructionRows = 0, instructionAgreed = 0, cudaGdbDiffers = 0;
  // Rows whose stack agrees but names a call site's file other than the
  // PTX's, every one at an instruction whose own row ptxas wrote with another
  // file than its `.loc`'s (checked): the table's file, not the decoding.
  int miswrittenFiles = 0;
  std::vector<std::string> disagreements;
};

// Holds every row's inline stack in `cubinPath`'s .debug_line (decoded as
// ptxas numbers the rows) against the PTX's `.loc ... inlined_at` chain at the
// PTX line .nv_debug_line_sass maps the row's address to. The last row at an
// address must carry that whole chain; a row before it at the same address,
// a tail of the chain whose frame above it was called from that row's line
// (or the whole chain, for a repeat of the last row).
InlineAgreement compareInlineStacks(const std::string& cubinPath, const std::string& ptxPath) {
  InlineAgreement out;
  std::string bytes;
  cubin::ReadResult r = readCubin(cubinPath, bytes);
  EXPECT_TRUE(r.ok());
  if (!r.ok()) return out;
  const ptxdwarf::SectionImage* str = r.module.section(".debug_str");
  std::span<const uint8_t> strBytes = str ? std::span<const uint8_t>(str->bytes) : std::span<const uint8_t>();
  const ptxdwarf::SectionImage* lineSection = r.module.section(".debug_line");
  const ptxdwarf::SectionImage* sassSection = r.module.section(".nv_debug_line_sass");
  EXPECT_TRUE(lineSection && sassSection) << cubinPath;
  if (!lineSection || !sassSection) return out;
  std::vector<cubin::LineTable> source = cubin::decodeLinePrograms(lineSection->bytes);
  std::vector<cubin::LineTable> sass = cubin::decodeLinePrograms(sassSection->bytes);
  EXPECT_EQ(source.size(), 1u);
  EXPECT_EQ(sass.size(), 1u);
  if (source.size() != 1 || sass.size() != 1) return out;
  const cubin::LineTable& table = source[0];
  // The PTX ptxas compiled: the embedded text's line numbers are the file's
  // (ptxas keeps one line per line), and .nv_debug_line_sass's.
  std::string original = *readFile(ptxPath);
  ptxdwarf::ptx::ReadResult ptx = ptxdwarf::ptx::read(original, ptxPath);
  EXPECT_TRUE(ptx.ok());
  if (!ptx.ok()) return out;
  ptxdwarf::ptx::LineTable ptxLines = ptxdwarf::ptx::buildLineTable(ptx.module);
  auto ptxPathOf = [&](unsigned file) {
    const ptxdwarf::ptx::FileEntry* f = ptx.module.findFile(file);
    return f ? f->path : std::string("?");
  };
  // Sequences are per function, in the same order in both tables.
  auto sequences = [](const cubin::LineTable& t) {
    std::vector<std::vector<size_t>> seqs(1);
    for (size_t i = 0; i < t.rows.size(); ++i) {
      seqs.back().push_back(i);
      if (t.rows[i].endSequence) seqs.emplace_back();
    }
    seqs.pop_back();
    return seqs;
  };
  std::vector<std::vector<size_t>> src = sequences(table), map = sequences(sass[0]);
  EXPECT_EQ(src.size(), map.size());
  if (src.size() != map.size()) return out;
  auto hexOf = [](uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return std::string(buf);
  };
  for (size_t s = 0; s < src.size(); ++s) {
    for (size_t i : src[s]) {
      const cubin::LineRow& row = table.rows[i];
      if (row.endSequence) continue;
      // The last row at this address: the instruction's.
      size_t last = i;
      while (!table.rows[last + 1].endSequence && table.rows[last + 1].address == row.address) ++last;
      // The PTX line of the instruction at this address, and the PTX's chain there.
      std::optional<uint32_t> ptxLine;
      for (size_t k : map[s])
        if (!sass[0].rows[k].endSequence && sass[0].rows[k].address <= row.address) ptxLine = sass[0].rows[k].line;
      if (!ptxLine) continue;
      std::optional<uint32_t> ptxRow = rowAtPtxLine(ptx.module, ptxLines, *ptxLine);
      if (!ptxRow) continue;
      std::vector<Frame> expected;
      for (uint32_t k : ptxLines.inlineStack(*ptxRow)) {
        const ptxdwarf::ptx::LocRecord& loc = ptx.module.locs[ptxLines.rows[k].loc];
        if (!loc.isInlined()) break;
        const ptxdwarf::ptx::LocInlining& in = ptx.module.inliningOf(loc);
        expected.push_back({ptxLines.functionNames[in.functionName].value_or(""), ptxPathOf(in.inlinedAt.file),
                            in.inlinedAt.line});
      }
      bool broken = false;
      std::vector<Frame> got;
      for (const cubin::InlineFrame& f : cubin::inlineStack(table, i, strBytes, &broken))
        got.push_back({std::string(f.function), table.header.filePath(f.callFile), f.callLine});
      EXPECT_FALSE(broken) << cubinPath << " row " << i;
      if (expected.empty() && got.empty()) continue;
      if (row.cudaGdbCallSite != row.callSite) ++out.cudaGdbDiffers;
      bool agrees = false, sameFiles = false;
      if (i == last) {
        agrees = got == expected;
        sameFiles = filesAgree(got, expected);
      } else {
        // A call site (or a repeat) of the instruction's row: a tail of its chain.
        for (size_t k = 0; k <= expected.size() && !agrees; ++k) {
          const std::span<const Frame> tail(expected.begin() + static_cast<ptrdiff_t>(k), expected.end());
          if (!std::equal(got.begin(), got.end(), tail.begin(), tail.end())) continue;
          agrees = k == 0 ? row.line == table.rows[last].line : expected[k - 1].callLine == row.line;
          sameFiles = filesAgree(got, tail) &&
                      (k == 0 || expected[k - 1].callFile == table.header.filePath(row.file));
        }
      }
      if (agrees && !sameFiles) {
        // Only where ptxas wrote the instruction's own row with another file than its `.loc`'s.
        const ptxdwarf::ptx::LocRecord& loc = ptx.module.locs[ptxLines.rows[*ptxRow].loc];
        EXPECT_NE(table.header.filePath(table.rows[last].file), ptxPathOf(loc.file))
            << cubinPath << " row " << i << ": the call site's file differs from the PTX's: " << spell(got) << " vs "
            << spell(expected);
        ++out.miswrittenFiles;
      }
      ++out.rows;
      out.agreed += agrees;
      if (i == last) {
        ++out.instructionRows;
        out.instructionAgreed += agrees;
      }
      if (!agrees && out.disagreements.size() < 5)
        out.disagreements.push_back("row " + std::to_string(i) + " at " + hexOf(row.address) + " (" +
                                    table.header.filePath(row.file) + ":" + std::to_string(row.line) +
                                    ") at PTX line " + std::to_string(*ptxLine) + ": decoded " + spell(got) +
                                    ", PTX " + spell(expected));
    }
  }
  return out;
}

// Both cubins of an nvcc -lineinfo -O3 program: ptxas -lineinfo's (optimized
// SASS) and ptxas -g's, each held whole against the PTX.
TEST_P(CubinInlining, InlineStacksAgreeWithThePtxInlinedAt) {
  std::string why;
  std::optional<std::string> optimized = lineinfoCubin(p_, GetParam(), why);
  ASSERT_TRUE(optimized) << why;
  Tally& tally = tallyFor(GetParam());
  for (const std::string& path : {*optimized, p_.cubinPath}) {
    SCOPED_TRACE(path);
    InlineAgreement a = compareInlineStacks(path, p_.ptxPath);
    tally.inlinedRows += a.rows;
    tally.inlineAgreed += a.agreed;
    tally.instructionRows += a.instructionRows;
    tally.instructionAgreed += a.instructionAgreed;
    tally.cudaGdbDiffers += a.cudaGdbDiffers;
    if (a.rows != 0)
      std::printf("%s: %d of %d inlined rows agree (%d of %d instructions' rows; %d with a call site's file ptxas "
                  "wrote as another); cuda-gdb's numbering names another call site in %d\n",
                  std::filesystem::path(path).filename().c_str(), a.agreed, a.rows, a.instructionAgreed,
                  a.instructionRows, a.miswrittenFiles, a.cudaGdbDiffers);
    EXPECT_EQ(a.agreed, a.rows) << testing::PrintToString(a.disagreements);
  }
}

TEST_P(CubinDebugInfo, RegisterMapDecodesWholeAndNamesDeclaredRegisters) {
  std::string bytes;
  cubin::ReadResult r = readCubin(p_.cubinPath, bytes);
  ASSERT_TRUE(r.ok());
  const ptxdwarf::SectionImage* section = r.module.section(".nv_debug_info_reg_sass");
  if (!section) GTEST_SKIP() << "no register map (no function with registers)";
  cubin::RegMap map = cubin::decodeRegMap(section->bytes);
  EXPECT_TRUE(map.problem.empty()) << map.problem;
  // The embedded PTX, read: every entry names a register its function declares.
  std::optional<std::string> text = cubin::embeddedPtx(r.module);
  ASSERT_TRUE(text);
  ptxdwarf::ptx::ReadResult ptx = ptxdwarf::ptx::read(*text, p_.cubinPath + ":.nv_debug_ptx_txt");
  ASSERT_TRUE(ptx.ok()) << ptx.diagnostics.items.front().message;
  size_t declared = 0;
  int routineEntries = 0;
  for (const cubin::RegMapFunction& f : map.functions) {
    declared += f.declaredCount;
    // ptxas's own routines (`__cuda_sm70_shflsync_up_p`, `__cuda_sm20_div_u32`)
    // have maps of their own and no PTX in the file.
    if (f.name.starts_with("__cuda_")) {
      routineEntries += static_cast<int>(f.entries.size());
      continue;
    }
    const ptxdwarf::ptx::Function* fn = ptx.module.findFunction(f.name);
    ASSERT_NE(fn, nullptr) << f.name << " is not a function of the embedded PTX";
    const cubin::CodeSection* code = r.cubin.codeOf(f.name);
    ASSERT_NE(code, nullptr) << f.name << " has no .text section";
    // ptxas also maps the registers of the math routines it inlines
    // (`%__cuda_sm20_div_u32_ra0`, `%fdnum___cuda_sm20_div_rn_f64_fast`, and
    // their `%fd18`, `r0`, `temp64`, `addr1`): no PTX of the function declares
    // them. In a function whose map names no such routine, every register
    // is one the function declares; in the others, those are counted.
    const bool inlinesPtxasRoutines = std::any_of(f.entries.begin(), f.entries.end(), [](const cubin::RegMapEntry& e) {
      return e.reg.find("__cuda_") != std::string_view::npos;
    });
    for (const cubin::RegMapEntry& e : f.entries) {
      const bool isDeclared = ptx.module.declaresRegister(*fn, e.reg);
      if (!inlinesPtxasRoutines) {
        EXPECT_TRUE(isDeclared) << f.name << ": " << e.reg;
      }
      routineEntries += !isDeclared;
      EXPECT_LE(e.start, e.end) << f.name << ": " << e.reg;
      EXPECT_LT(e.end, code->size) << f.name << ": " << e.reg << " ends past the code (cuda-gdb: end inclusive)";
    }
  }
  EXPECT_EQ(map.entryCount(), declared);
  tallyFor(GetParam()).regmapEntries += static_cast<int>(map.entryCount());
  tallyFor(GetParam()).routineEntries += routineEntries;
}

// `ptxas -c` (what nvcc -rdc=true links later): an ET_REL cubin, its
// `.nv_debug_ptx_txt` suffixed, `.nv.global`/`.nv.shared` in NVIDIA's own
// section types. The same three properties hold of it.
class CubinRelocatable : public CubinCorpus {};

TEST_P(CubinRelocatable, DumpLinesAndRangesHoldOfTheRelocatableCubin) {
  std::optional<std::string> ptxas = findTool("ptxas");
  ASSERT_TRUE(ptxas);
  const std::string path = p_.cubinPath + ".relocatable.cubin";
  CommandResult r = runCommand({*ptxas, "-arch=" + GetParam().arch, "-g", "-c", p_.ptxPath, "-o", path});
  ASSERT_TRUE(r.ok()) << r.summary();
  std::string bytes;
  cubin::ReadResult read = readCubin(path, bytes);
  ASSERT_TRUE(read.ok()) << read.diagnostics.items.front().message;
  ASSERT_EQ(read.cubin.header.type, ptxdwarf::elf::ET_REL);
  EXPECT_TRUE(cubin::embeddedPtx(read.module)) << "the suffixed .nv_debug_ptx_txt.<n>";
  Tally ignored;  // the tallies count the linked cubins
  expectDumpAsLlvm(path, ignored);
  expectRowsAsLlvm(path, GetParam());
  expectRangesInsideTheirCode(path);
}

std::string entryName(const testing::TestParamInfo<CorpusEntry>& info) { return info.param.id; }

INSTANTIATE_TEST_SUITE_P(Corpus, CubinCorpus, testing::ValuesIn(assembledEntries()), entryName);
INSTANTIATE_TEST_SUITE_P(Corpus, CubinDebugInfo,
                         testing::ValuesIn(entriesWhere([](const CorpusEntry& e) { return !isLineTablesOnly(e.producer); })),
                         entryName);
// nvcc -G builds for sm_90 (every program once, the -rdc one among them).
INSTANTIATE_TEST_SUITE_P(Corpus, CubinRelocatable,
                         testing::ValuesIn(entriesWhere([](const CorpusEntry& e) {
                           return e.producer == Producer::nvcc && e.arch == "sm_90";
                         })),
                         entryName);
INSTANTIATE_TEST_SUITE_P(Corpus, CubinInlining,
                         testing::ValuesIn(entriesWhere([](const CorpusEntry& e) { return e.producer == Producer::nvccLineinfo; })),
                         entryName);

}  // namespace
