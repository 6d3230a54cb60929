// The cubin paths under the complexity rule (issue 45): each test writes the
// same cubin shape at n and at 4n -- ELF64 bytes made here, as ptxas lays
// them out (sections, a symbol table, `.rela` sections, the DWARF and
// NVIDIA's sections) -- and compares the work counters (libptxdwarf/src/work.h)
// of the pass: linear costs about 4x, quadratic 16x. No tool is needed, and
// the shapes can be the hostile ones: one register with n map entries, n line
// rows in one inline chain, n variables in n nested blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "ptxdwarf/check/cubin.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/locate.h"
#include "ptxdwarf/cubin/regmap.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/elf/elf.h"
#include "ptxdwarf/load.h"
#include "ptxdwarf/print/dump.h"
#include "ptxdwarf/ptxdwarf.h"
#include "ptxdwarf/view/lookup.h"
#include "cubin_writer.h"
#include "work.h"

using namespace ptxdwarf;
using namespace ptxdwarf::testcubin;

namespace {

// ---- n and 4n ----

uint64_t stepsOf(work::Pass pass, const std::function<void()>& run) {
  work::reset();
  run();
  return work::steps(pass);
}

// Four times the input may cost at most `limit` times the work (linear: 4; quadratic: 16).
void expectLinear(work::Pass pass, const std::function<void(size_t)>& runAt, size_t n, double limit = 6.0) {
  const uint64_t small = stepsOf(pass, [&] { runAt(n); });
  const uint64_t large = stepsOf(pass, [&] { runAt(4 * n); });
  std::printf("steps at n = %zu: %llu, at 4n: %llu (x%.2f)\n", n, static_cast<unsigned long long>(small),
              static_cast<unsigned long long>(large), static_cast<double>(large) / static_cast<double>(small));
  ASSERT_GT(small, 0u) << "the pass did not run";
  EXPECT_LE(static_cast<double>(large), limit * static_cast<double>(small))
      << "n: " << small << " steps, 4n: " << large << " steps";
}

cubin::ReadResult readCubin(const std::string& bytes, bool placeCode = false) {
  cubin::ReadOptions options;
  options.placeCode = placeCode;
  cubin::ReadResult r = cubin::read(bytes, "t.cubin", options);
  EXPECT_TRUE(r.ok()) << (r.diagnostics.items.empty() ? "" : r.diagnostics.items[0].message);
  return r;
}

std::string reg(const char* prefix, size_t i) { return prefix + std::to_string(i); }

// ---- ELF: many sections, many relocations ----

// n debug sections (`.nv_debug_x.<i>`, as `ptxas -c` suffixes them), each
// relocated by a section of its own against a symbol of its own.
std::string manyRelocatedSections(size_t n) {
  ElfWriter w;
  std::vector<uint32_t> targets;
  for (size_t i = 0; i < n; ++i) targets.push_back(w.add({".nv_debug_x." + std::to_string(i), elf::SHT_PROGBITS, Bytes(8, 0)}));
  const uint32_t symtab = w.addSectionSymbols(targets);
  for (size_t i = 0; i < n; ++i) w.addRela(targets[i], symtab, {{0, static_cast<uint32_t>(i + 1)}});
  return w.bytes();
}

TEST(CubinScaling, ManyRelocatedSections) {
  expectLinear(work::elfScan, [](size_t n) { readCubin(manyRelocatedSections(n)); }, 500);
  const cubin::ReadResult r = readCubin(manyRelocatedSections(20));
  EXPECT_EQ(r.module.sections.size(), 20u);
  EXPECT_EQ(r.module.sections[7].name, ".nv_debug_x.7");
}

// One debug section of n 8-byte values, each relocated.
std::string manyRelocations(size_t n) {
  ElfWriter w;
  const uint32_t target = w.add({".debug_loc", elf::SHT_PROGBITS, Bytes(8 * n, 0)});
  const uint32_t code = w.add({".text.f", elf::SHT_PROGBITS, Bytes(16, 0)});
  const uint32_t symtab = w.addSectionSymbols({code});
  std::vector<Rela> relocations;
  for (size_t i = 0; i < n; ++i) relocations.push_back({8 * i, 1});
  w.addRela(target, symtab, relocations);
  return w.bytes();
}

TEST(CubinScaling, ManyRelocations) {
  expectLinear(work::elfScan, [](size_t n) { readCubin(manyRelocations(n), true); }, 2000);
  const cubin::ReadResult r = readCubin(manyRelocations(3), /*placeCode=*/true);
  const SectionImage* loc = r.module.section(".debug_loc");
  ASSERT_TRUE(loc);
  EXPECT_EQ(loc->bytes[16 + 2], 1u);  // 0x10000: where .text.f is placed
}

// ---- .debug_line with NVIDIA's inlined calls ----

// One function of n rows: each row after the first inlined from the one
// before it (a chain as deep as the table).
Function inlineChain(size_t n) {
  Function f;
  f.name = "f";
  f.size = 0x10 * (n + 1);
  for (uint32_t r = 0; r < n; ++r) f.rows.emplace_back(r + 1, r == 0 ? 0 : r);
  return f;
}

// And n rows each inlined from the first row (many frames at depth one).
Function repeatedContext(size_t n) {
  Function f;
  f.name = "f";
  f.size = 0x10 * (n + 1);
  for (uint32_t r = 0; r < n; ++r) f.rows.emplace_back(r + 1, r == 0 ? 0 : 1);
  return f;
}

void decodeWithStacks(const std::string& bytes) {
  const cubin::ReadResult r = readCubin(bytes);
  const SectionImage* line = r.module.section(".debug_line");
  const SectionImage* str = r.module.section(".debug_str");
  ASSERT_TRUE(line && str);
  for (const cubin::LineTable& t : cubin::decodeLinePrograms(line->bytes))
    for (size_t i = 0; i < t.rows.size(); ++i) (void)cubin::inlineStack(t, i, str->bytes, nullptr, 64);
}

TEST(CubinScaling, LineRowsInOneInlineChain) {
  expectLinear(work::cubinLineRows, [](size_t n) { decodeWithStacks(cubinOf({inlineChain(n)})); }, 300);
  expectLinear(work::cubinLineRows, [](size_t n) { decodeWithStacks(cubinOf({repeatedContext(n)})); }, 300);
  const cubin::ReadResult r = readCubin(cubinOf({inlineChain(100)}));
  const std::vector<cubin::LineTable> tables = cubin::decodeLinePrograms(r.module.section(".debug_line")->bytes);
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 101u);  // and the end of the sequence
  EXPECT_EQ(tables[0].rows[99].inlineDepth, 99u);
  const std::vector<cubin::InlineFrame> stack =
      cubin::inlineStack(tables[0], 99, r.module.section(".debug_str")->bytes, nullptr, 64);
  ASSERT_EQ(stack.size(), 64u);
  EXPECT_EQ(stack[0].function, "g");
  EXPECT_EQ(stack[0].callLine, 99u);
}

// The C API's rows hold a listing's stack (ptxdwarf/inline_frames.h): at
// most 64 frames a row, the rest counted, so opening a cubin of n rows in one
// chain keeps O(n) frames, not O(n^2).
TEST(CubinScaling, CApiRowsKeepAtMostAListingsFrames) {
  const std::string bytes = cubinOf({inlineChain(100)});
  ptxdwarf_module* m = nullptr;
  ASSERT_EQ(ptxdwarf_module_read(bytes.data(), bytes.size(), "chain.cubin", &m), PTXDWARF_OK) << ptxdwarf_last_error();
  ptxdwarf_cubin* c = nullptr;
  ASSERT_EQ(ptxdwarf_cubin_open(m, &c), PTXDWARF_OK) << ptxdwarf_last_error();
  ASSERT_EQ(ptxdwarf_cubin_line_count(c), 101u);
  ptxdwarf_line_row row;
  ASSERT_EQ(ptxdwarf_cubin_line(c, 99, &row), PTXDWARF_OK);
  EXPECT_EQ(row.inline_depth, kInlineFramesShown);
  EXPECT_EQ(row.inline_frames_omitted, 99u - kInlineFramesShown);
  ptxdwarf_inline_frame frame;
  ASSERT_EQ(ptxdwarf_cubin_inline_frame(c, 99, 0, &frame), PTXDWARF_OK);
  EXPECT_STREQ(frame.function, "g");
  EXPECT_EQ(frame.call_line, 99u);
  EXPECT_EQ(ptxdwarf_cubin_inline_frame(c, 99, kInlineFramesShown, &frame), PTXDWARF_E_NOT_FOUND);
  ASSERT_EQ(ptxdwarf_cubin_line(c, 64, &row), PTXDWARF_OK);
  EXPECT_EQ(row.inline_depth, 64u);
  EXPECT_EQ(row.inline_frames_omitted, 0u);
  ptxdwarf_cubin_free(c);
  ptxdwarf_module_free(m);
}

// ---- .nv_debug_info_reg_sass ----

// n functions of two entries each.
std::vector<Function> manyMappedFunctions(size_t n) {
  std::vector<Function> functions;
  for (size_t i = 0; i < n; ++i) {
    Function f;
    f.name = reg("f", i);
    f.entries = {{"%r1", kFull | 1, 0, 0x40}, {"%rd1", kFull | 2, 0x10, 0x80}};
    functions.push_back(std::move(f));
  }
  return functions;
}

TEST(CubinScaling, RegisterMapOfManyFunctions) {
  expectLinear(work::regmapScan, [](size_t n) {
    const cubin::ReadResult r = readCubin(cubinOf(manyMappedFunctions(n)));
    const cubin::RegMap map = cubin::decodeRegMap(r.module.section(".nv_debug_info_reg_sass")->bytes);
    ASSERT_EQ(map.functions.size(), n);
    ASSERT_EQ(map.entryCount(), 2 * n);
  }, 300);
}

// ---- lookup at FUNCTION+0xPC ----

// One function with n variables, each in a register of its own, and the map
// holding n entries: each variable's register found among all of them.
Function manyVariables(size_t n) {
  Function f;
  f.name = "f";
  f.size = 0x100;
  for (size_t i = 0; i < n; ++i) {
    f.variables.emplace_back(reg("v", i), reg("%r", i));
    f.entries.push_back({reg("%r", i), kFull | static_cast<uint32_t>(i % 200), 0, 0xf0});
  }
  return f;
}

// One variable in %r1, which the map moves through n registers, one after
// the other (and n other registers of other variables, never at this PC).
Function oneRegisterManyEntries(size_t n) {
  Function f;
  f.name = "f";
  f.size = 0x10 * (n + 1);
  f.variables.emplace_back("x", "%r1");
  for (uint32_t i = 0; i < n; ++i) f.entries.push_back({"%r1", kFull | (i % 200), 0x10 * i, 0x10 * i + 8});
  return f;
}

view::LookupResult lookupIn(const std::string& bytes, std::string_view at) {
  return view::lookupCubin(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                           "t.cubin", at);
}

TEST(CubinScaling, LookupOfManyVariablesAtFunctionPlusPc) {
  expectLinear(work::regmapScan, [](size_t n) { lookupIn(cubinOf({manyVariables(n)}), "f+0x10"); }, 300);
  const view::LookupResult r = lookupIn(cubinOf({manyVariables(50)}), "f+0x10");
  ASSERT_EQ(r.matches.size(), 1u) << r.error;
  ASSERT_EQ(r.matches[0].variables.size(), 50u);
  EXPECT_EQ(r.matches[0].variables[42].name, "v42");
  EXPECT_EQ(*r.matches[0].variables[42].sass, std::vector<std::string>{"R42"});
}

TEST(CubinScaling, LookupOfARegisterWithManyEntries) {
  expectLinear(work::regmapScan, [](size_t n) { lookupIn(cubinOf({oneRegisterManyEntries(n)}), "f+0x10"); }, 300);
  const view::LookupResult r = lookupIn(cubinOf({oneRegisterManyEntries(50)}), "f+0x1a0");
  ASSERT_EQ(r.matches.size(), 1u) << r.error;
  ASSERT_EQ(r.matches[0].variables.size(), 1u);
  EXPECT_EQ(*r.matches[0].variables[0].sass, std::vector<std::string>{"R26"});
  EXPECT_FALSE(lookupIn(cubinOf({oneRegisterManyEntries(50)}), "f+0x1a9").matches[0].variables[0].available);
}

// ---- lookup at FILE:LINE ----

// n functions, each with rows of lines 5 and 6 and a variable in %r1: a:5
// stops once in each.
std::vector<Function> manyFunctionsOnALine(size_t n) {
  std::vector<Function> functions;
  for (size_t i = 0; i < n; ++i) {
    Function f;
    f.name = reg("f", i);
    f.size = 0x40;
    f.rows = {{4, 0}, {5, 0}, {6, 0}};
    f.variables.emplace_back("x", "%r1");
    f.entries = {{"%r1", kFull | static_cast<uint32_t>(i % 200), 0, 0x30}};
    functions.push_back(std::move(f));
  }
  return functions;
}

// One function of n nested blocks, a variable in each, whose line 5 has n / 2
// rows, all inside the innermost block (one stop, at the first).
Function oneLineManyRows(size_t n) {
  Function f;
  f.name = "f";
  f.size = 0x10 * (2 * n + 1);
  for (size_t i = 0; i < n; ++i) f.rows.emplace_back(i == 0 ? 4 : 6, 0);
  for (size_t i = 0; i < n; ++i) f.rows.emplace_back(i % 2 ? 5 : 6, 0);
  for (size_t i = 0; i < n; ++i) {
    f.nested.emplace_back(reg("v", i), reg("%r", i));
    f.entries.push_back({reg("%r", i), kFull | static_cast<uint32_t>(i % 200), 0, static_cast<uint32_t>(f.size)});
  }
  return f;
}

TEST(CubinScaling, LookupAtALineOfManyFunctions) {
  expectLinear(work::regmapScan, [](size_t n) { lookupIn(cubinOf(manyFunctionsOnALine(n)), "a.cu:5"); }, 200);
  const view::LookupResult r = lookupIn(cubinOf(manyFunctionsOnALine(30)), "a.cu:5");
  ASSERT_EQ(r.matches.size(), 30u) << r.error;
  EXPECT_EQ(r.matches[17].function, "f17");
  EXPECT_EQ(r.matches[17].pc, 0x10u);
  EXPECT_EQ(*r.matches[17].variables[0].sass, std::vector<std::string>{"R17"});
}

TEST(CubinScaling, LookupAtALineOfManyRowsInNestedBlocks) {
  expectLinear(work::regmapScan, [](size_t n) { lookupIn(cubinOf({oneLineManyRows(n)}), "a.cu:5"); }, 100);
  expectLinear(work::scopeLookup, [](size_t n) { lookupIn(cubinOf({oneLineManyRows(n)}), "a.cu:5"); }, 100);
  // Line 5's first row in the innermost block, at 0x10 * (n + 1) (n = 40): every
  // block's variable seen there.
  const view::LookupResult r = lookupIn(cubinOf({oneLineManyRows(40)}), "a.cu:5");
  ASSERT_EQ(r.matches.size(), 1u) << r.error;
  EXPECT_EQ(r.matches[0].pc, 0x10u * 41);
  EXPECT_EQ(r.matches[0].scopes.size(), 41u);
  ASSERT_EQ(r.matches[0].variables.size(), 40u);
  EXPECT_EQ(*r.matches[0].variables[0].sass, std::vector<std::string>{"R39"});  // innermost first
}

// One function of n blocks side by side, each with a row of line 5 and a
// variable `x` in %r1, which the map has at n places, one in each block: a:5
// stops n times, and at each %r1 is found among its n entries.
Function oneRegisterAtManyStops(size_t n) {
  Function f;
  f.name = "f";
  f.size = 0x10 * (n + 1);
  for (uint32_t k = 0; k < n; ++k) {
    f.siblings.emplace_back("x", "%r1");
    f.rows.emplace_back(5, 0);
    f.entries.push_back({"%r1", kFull | (k % 200), 0x10 * k, 0x10 * k + 8});
  }
  return f;
}

TEST(CubinScaling, LookupAtManyStopsOfARegisterWithManyEntries) {
  expectLinear(work::regmapScan, [](size_t n) { lookupIn(cubinOf({oneRegisterAtManyStops(n)}), "a.cu:5"); }, 200);
  const view::LookupResult r = lookupIn(cubinOf({oneRegisterAtManyStops(30)}), "a.cu:5");
  ASSERT_EQ(r.matches.size(), 30u) << r.error;
  EXPECT_EQ(r.matches[21].pc, 0x10u * 21);
  ASSERT_EQ(r.matches[21].variables.size(), 1u);
  EXPECT_EQ(*r.matches[21].variables[0].sass, std::vector<std::string>{"R21"});
}

TEST(CubinScaling, LookupAtManyStopsOfAListOfManyRanges) {
  // `y`'s location list has a range per stop: each stop finds its range
  // without going through the list.
  const auto shape = [](size_t n) {
    Function f = oneRegisterAtManyStops(n);
    for (uint32_t k = 0; k < n; ++k) f.listRanges.push_back({0x10 * k, 0x10 * k + 0x10});
    return f;
  };
  expectLinear(work::locListEntries, [&](size_t n) { lookupIn(cubinOf({shape(n)}), "a.cu:5"); }, 200);
  Function gap = shape(30);
  gap.listRanges.erase(gap.listRanges.begin() + 7);
  // Stop 7's range last, after one of the whole function in %r9 (which the map has nowhere).
  gap.listRanges.push_back({0, 0x10 * 30, "%r9"});
  gap.listRanges.push_back({0x70, 0x80});
  const view::LookupResult r = lookupIn(cubinOf({gap}), "a.cu:5");
  ASSERT_EQ(r.matches.size(), 30u) << r.error;
  ASSERT_EQ(r.matches[21].variables.size(), 2u);
  EXPECT_EQ(r.matches[21].variables[1].name, "y");
  EXPECT_EQ(*r.matches[21].variables[1].sass, std::vector<std::string>{"R21"});
  // At stop 7 the whole function's range comes first in the list: the one taken.
  EXPECT_FALSE(r.matches[7].variables[1].available);
  EXPECT_NE(r.matches[7].variables[1].location.find("%r9"), std::string::npos) << r.matches[7].variables[1].location;
  EXPECT_EQ(*r.matches[8].variables[1].sass, std::vector<std::string>{"R8"});
}

TEST(CubinScaling, ExtrapolatedRangesOfARegisterWithManyEntries) {
  // cuda-gdb's value extrapolation extends each entry to the next one's
  // start: found for every entry at once, not by comparing each with all.
  const auto locateEverywhere = [](size_t n) {
    const Function shape = oneRegisterManyEntries(n);
    std::vector<cubin::RegMapEntry> entries;
    for (const Function::Entry& e : shape.entries) {
      cubin::RegMapEntry& x = entries.emplace_back();
      x.reg = e.reg;
      x.location = e.location;
      x.start = e.start;
      x.end = e.end;
    }
    cubin::RegMapFunction f;
    f.entries = entries;
    const cubin::FunctionRegisters registers(f);
    for (uint32_t k = 0; k + 1 < n; ++k) {
      const cubin::RegisterAt at = registers.locate("%r1", 0x10 * k + 0xc, true);  // past the entry's end
      ASSERT_EQ(at.sass, std::vector<std::string>{cubin::sassLocation(kFull | (k % 200))}) << k;
      ASSERT_FALSE(registers.locate("%r1", 0x10 * k + 0xc).available);
    }
    // The last entry: only to the function's last mapped address, its own end.
    ASSERT_FALSE(registers.locate("%r1", 0x10 * (n - 1) + 0xc, true).available);
  };
  expectLinear(work::regmapScan, locateEverywhere, 200);
}

// cuda-gdb's rule (locate.h) by its letter, entry by entry: what the index
// must answer on every map.
cubin::RegisterAt locateByScanning(const cubin::RegMapFunction& f, std::string_view reg, uint64_t pc, bool extrapolate) {
  std::vector<const cubin::RegMapEntry*> named, covering;
  uint32_t highestPiece = 0, lastEnd = 0;
  for (const cubin::RegMapEntry& e : f.entries) {
    if (!e.usableByCudaGdb()) continue;
    lastEnd = std::max(lastEnd, e.end);
    if (e.reg != reg) continue;
    named.push_back(&e);
    highestPiece = std::max(highestPiece, e.piece & 3);
  }
  for (const cubin::RegMapEntry* e : named) {
    uint32_t end = e->end;
    if (extrapolate) {
      uint32_t extended = lastEnd;
      bool blocked = false;
      for (const cubin::RegMapEntry* other : named) {
        if (other == e) continue;
        if (other->start >= e->end) extended = std::min(extended, other->start);
        else if (other->end > e->end) blocked = true;
      }
      end = blocked ? e->end : std::max(extended, e->end);
    }
    if (pc >= e->start && pc <= end && (e->piece & 3) <= 1) covering.push_back(e);
  }
  cubin::RegisterAt at;
  if (named.empty() || covering.empty()) return at;
  std::stable_sort(covering.begin(), covering.end(),
                   [](const cubin::RegMapEntry* a, const cubin::RegMapEntry* b) { return (a->piece & 3) < (b->piece & 3); });
  const bool single = covering.size() == 1 && (covering[0]->classCode() == 5 || covering[0]->classCode() == 11);
  for (uint32_t piece = 0; !single && piece <= highestPiece; ++piece)
    if (std::none_of(covering.begin(), covering.end(), [&](const cubin::RegMapEntry* e) { return (e->piece & 3) == piece; }))
      return at;
  at.available = true;
  for (const cubin::RegMapEntry* e : covering) at.sass.push_back(cubin::sassLocation(e->location));
  return at;
}

TEST(CubinScaling, TheIndexAnswersAsTheRuleOnRandomMaps) {
  uint64_t seed = 45;
  const auto next = [&](uint32_t below) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    return static_cast<uint32_t>((seed >> 33) % below);
  };
  const char* names[] = {"%r1", "%r2", "%rd3", "%very_long_name"};
  for (int round = 0; round < 300; ++round) {
    cubin::RegMapFunction f;
    const uint32_t count = 1 + next(12);
    for (uint32_t i = 0; i < count; ++i) {
      cubin::RegMapEntry& e = f.entries.emplace_back();
      e.reg = names[next(4)];
      e.piece = next(3);
      e.location = (next(2) ? kFull : 6u << 24) | next(8);
      e.start = next(40);
      e.end = e.start + next(3) * next(16);  // empty ranges too
    }
    const cubin::FunctionRegisters registers(f);
    for (const char* reg : names)
      for (uint64_t pc = 0; pc < 64; ++pc)
        for (bool extrapolate : {false, true}) {
          const cubin::RegisterAt want = locateByScanning(f, reg, pc, extrapolate);
          const cubin::RegisterAt got = registers.locate(reg, pc, extrapolate);
          ASSERT_EQ(got.available, want.available) << round << " " << reg << " +" << pc << " " << extrapolate;
          ASSERT_EQ(got.sass, want.sass) << round << " " << reg << " +" << pc << " " << extrapolate;
        }
  }
}

// ---- check::runCubin ----

// The PTX the cubin was compiled from: `f` declaring each register on its
// own line, `.loc` lines 1..lines before instructions.
std::string sourcePtx(size_t registers, size_t lines) {
  std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n.file 1 \"a.cu\"\n.visible .entry f()\n{\n";
  for (size_t i = 0; i < registers; ++i) text += ".reg .b32 " + reg("%r", i) + ";\n";
  for (size_t i = 0; i < lines; ++i) text += ".loc 1 " + std::to_string(i + 1) + " 0\nmov.u32 %r0, 0;\n";
  return text + "ret;\n}\n";
}

Diagnostics checkAgainst(const std::string& cubinBytes, const std::string& ptxText) {
  const Loaded cubin = loadText(cubinBytes, "t.cubin");
  const Loaded source = loadText(ptxText, "t.ptx");
  EXPECT_TRUE(cubin.ok() && source.ok());
  return check::runCubin(cubin, {source.module(), nullptr});
}

// n variables in n registers of which the map has no entry: each finding
// stands at its register's declaration.
Function unmappedVariables(size_t n) {
  Function f = manyVariables(n);
  f.entries.clear();
  f.entries.push_back({"%r0", kFull, 0, 0x10});
  return f;
}

TEST(CubinScaling, CheckOfManyUnmappedRegisters) {
  expectLinear(work::registerLookup, [](size_t n) { checkAgainst(cubinOf({unmappedVariables(n)}), sourcePtx(n, 1)); }, 200);
  const Diagnostics d = checkAgainst(cubinOf({unmappedVariables(20)}), sourcePtx(20, 1));
  size_t unavailable = 0;
  for (const Diagnostic& x : d.items)
    if (x.rule == "cubin-variable-unavailable") {
      ++unavailable;
      if (x.message.starts_with("'v13'")) {
        EXPECT_EQ(x.loc.line, 7u + 13) << x.message;
      }
    }
  EXPECT_EQ(unavailable, 19u);  // all but v0
}

TEST(CubinScaling, CheckOfManyRegistersAtManyPcs) {
  // Each register mapped at n ranges: whether any meets the scope.
  const auto shape = [](size_t n) {
    Function f = manyVariables(n);
    f.size = 0x10 * (n + 1);
    f.entries.clear();
    for (size_t i = 0; i < n; ++i)
      for (uint32_t k = 0; k < 4; ++k)
        f.entries.push_back({reg("%r", i), kFull | k, 0x10 * (static_cast<uint32_t>(i) + k), 0x10 * (static_cast<uint32_t>(i) + k) + 8});
    return f;
  };
  expectLinear(work::regmapScan, [&](size_t n) { checkAgainst(cubinOf({shape(n)}), sourcePtx(n, 1)); }, 200);
  const Diagnostics d = checkAgainst(cubinOf({shape(20)}), sourcePtx(20, 1));
  for (const Diagnostic& x : d.items) EXPECT_NE(x.rule, "cubin-variable-unavailable") << x.message;
}

TEST(CubinScaling, CheckOfVariablesInDeeplyNestedBlocks) {
  const auto shape = [](size_t n) {
    Function f = oneLineManyRows(n);
    return f;
  };
  expectLinear(work::enclosingWalk, [&](size_t n) { checkAgainst(cubinOf({shape(n)}), sourcePtx(n, 1)); }, 200);
  const Diagnostics d = checkAgainst(cubinOf({shape(20)}), sourcePtx(20, 1));
  for (const Diagnostic& x : d.items) EXPECT_NE(x.rule, "cubin-variable-unavailable") << x.message;
}

TEST(CubinScaling, CheckOfManyLines) {
  const auto shape = [](size_t n) {
    Function f;
    f.name = "f";
    f.size = 0x10 * (n + 1);
    for (uint32_t line = 1; line <= n; ++line)
      if (line % 10) f.rows.emplace_back(line, 0);  // every tenth line has no address
    return f;
  };
  expectLinear(work::cubinLineRows, [&](size_t n) { checkAgainst(cubinOf({shape(n)}), sourcePtx(1, n)); }, 300);
  const Diagnostics d = checkAgainst(cubinOf({shape(50)}), sourcePtx(1, 50));
  size_t unplaced = 0;
  for (const Diagnostic& x : d.items) unplaced += x.rule == "cubin-line-unplaced";
  EXPECT_EQ(unplaced, 5u);
}

// ---- the dump ----

std::string dumpOf(const std::string& bytes, bool json) {
  const Loaded file = loadText(bytes, "t.cubin");
  EXPECT_TRUE(file.ok());
  print::FileDumpOptions options;
  options.sections.line = true;
  options.sections.loc = true;
  options.regmap = true;
  options.format = json ? print::DumpFormat::json : print::DumpFormat::text;
  std::string out;
  print::dumpFile("t.cubin", file.module(), file.dwarf, options, out);
  return out;
}

TEST(CubinScaling, DumpOfLineRowsInOneInlineChain) {
  for (bool json : {false, true}) {
    expectLinear(work::cubinLineRows, [&](size_t n) { dumpOf(cubinOf({inlineChain(n)}), json); }, 300);
    // The output itself: at most 64 frames a row.
    const size_t small = dumpOf(cubinOf({inlineChain(300)}), json).size();
    const size_t large = dumpOf(cubinOf({inlineChain(1200)}), json).size();
    EXPECT_LE(large, 5 * small) << small << " bytes, then " << large;
  }
  EXPECT_NE(dumpOf(cubinOf({inlineChain(100)}), false).find("(35 more inline frames)"), std::string::npos);
}

TEST(CubinScaling, DumpOfARegisterMapOfManyEntries) {
  expectLinear(work::regmapScan, [](size_t n) { dumpOf(cubinOf({oneRegisterManyEntries(n)}), false); }, 300);
  const std::string out = dumpOf(cubinOf({oneRegisterManyEntries(10)}), false);
  EXPECT_NE(out.find("Function: f (10 entries)"), std::string::npos) << out;
}

// ---- memory: the file's bytes handed back as they are copied ----

TEST(CubinMemory, ReleasedStretchesAreNeverReadAgain) {
  const std::string bytes = cubinOf({oneLineManyRows(20), oneRegisterAtManyStops(10)});
  const cubin::ReadResult kept = readCubin(bytes);
  // A read whose bytes are overwritten as they are released reads the same: it never looks at them again.
  std::string scratch = bytes;
  std::vector<std::pair<uint64_t, uint64_t>> released;
  cubin::ReadOptions options;
  options.release = [&](uint64_t begin, uint64_t end) {
    ASSERT_LE(begin, end);
    ASSERT_LE(end, scratch.size());
    released.emplace_back(begin, end);
    std::fill(scratch.begin() + static_cast<ptrdiff_t>(begin), scratch.begin() + static_cast<ptrdiff_t>(end), '\xa5');
  };
  const cubin::ReadResult r = cubin::read(scratch, "t.cubin", options);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.module.sections.size(), kept.module.sections.size());
  for (size_t i = 0; i < kept.module.sections.size(); ++i) {
    EXPECT_EQ(r.module.sections[i].name, kept.module.sections[i].name);
    EXPECT_EQ(r.module.sections[i].bytes, kept.module.sections[i].bytes) << kept.module.sections[i].name;
  }
  ASSERT_FALSE(released.empty());
  EXPECT_EQ(released.back(), std::make_pair(uint64_t{0}, uint64_t{bytes.size()}));  // the whole file, at the end
}

TEST(CubinMemory, AMappedCubinLoadedWithItsPagesReleasedDumpsTheSame) {
  const std::string bytes = cubinOf({inlineChain(200), oneRegisterManyEntries(100)});
  const std::string path = ::testing::TempDir() + "cubin_memory_test.cubin";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_TRUE(f);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  std::string dumps[2];
  for (bool release : {false, true}) {
    const Loaded file = load(path, {.releaseText = release});
    ASSERT_TRUE(file.ok());
    EXPECT_TRUE(file.text.mapped());
    print::FileDumpOptions options;
    options.sections.line = true;
    options.regmap = true;
    print::dumpFile(path, file.module(), file.dwarf, options, dumps[release]);
    // The text is still the file's bytes (pages dropped are read back from it).
    EXPECT_EQ(file.text.view(), bytes);
  }
  std::remove(path.c_str());
  EXPECT_EQ(dumps[0], dumps[1]);
  EXPECT_NE(dumps[1].find("(135 more inline frames)"), std::string::npos);
}

}  // namespace
