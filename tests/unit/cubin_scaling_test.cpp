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
#include "work.h"

using namespace ptxdwarf;

namespace {

// ---- bytes ----

using Bytes = std::vector<uint8_t>;

void put(Bytes& b, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void putString(Bytes& b, std::string_view s) {
  b.insert(b.end(), s.begin(), s.end());
  b.push_back(0);
}
void putUleb(Bytes& b, uint64_t v) {
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    b.push_back(static_cast<uint8_t>(byte | (v ? 0x80 : 0)));
  } while (v);
}

// ---- a test-only ELF64 writer ----

struct Rela {
  uint64_t offset = 0;  // in the section it relocates
  uint32_t symbol = 0;
  int64_t addend = 0;
  uint32_t type = elf::R_CUDA_64;
};

struct TestSection {
  std::string name;
  uint32_t type = elf::SHT_PROGBITS;
  Bytes bytes;
  uint32_t link = 0, info = 0;
  uint64_t align = 1, entrySize = 0;
};

// Sections (index 1 on; the section name table is added last), laid out one
// after the other behind the header, the section header table at the end.
class ElfWriter {
 public:
  uint32_t add(TestSection s) {
    sections_.push_back(std::move(s));
    return static_cast<uint32_t>(sections_.size());
  }
  // A symbol table of one STT_SECTION symbol per section index in `sections` (symbol i + 1 for sections[i]).
  uint32_t addSectionSymbols(const std::vector<uint32_t>& sections) {
    TestSection strtab{".strtab", elf::SHT_STRTAB, {0}};
    const uint32_t strings = add(std::move(strtab));
    TestSection symtab{".symtab", elf::SHT_SYMTAB, Bytes(24, 0), strings, 1, 8, 24};
    for (uint32_t index : sections) {
      put(symtab.bytes, 0, 4);     // no name
      symtab.bytes.push_back(3);   // STB_LOCAL, STT_SECTION
      symtab.bytes.push_back(0);
      put(symtab.bytes, index, 2);
      put(symtab.bytes, 0, 8);
      put(symtab.bytes, 0, 8);
    }
    return add(std::move(symtab));
  }
  // `.rela<name of target>`: RELA entries against `symtab`.
  uint32_t addRela(uint32_t target, uint32_t symtab, const std::vector<Rela>& relocations) {
    TestSection rela{".rela" + sections_[target - 1].name, elf::SHT_RELA, {}, symtab, target, 8, 24};
    for (const Rela& r : relocations) {
      put(rela.bytes, r.offset, 8);
      put(rela.bytes, uint64_t{r.symbol} << 32 | r.type, 8);
      put(rela.bytes, static_cast<uint64_t>(r.addend), 8);
    }
    return add(std::move(rela));
  }
  std::string bytes() const {
    std::vector<TestSection> all = sections_;
    TestSection names{".shstrtab", elf::SHT_STRTAB, {0}};
    std::vector<uint32_t> nameAt;
    for (const TestSection& s : all) {
      nameAt.push_back(static_cast<uint32_t>(names.bytes.size()));
      putString(names.bytes, s.name);
    }
    nameAt.push_back(static_cast<uint32_t>(names.bytes.size()));
    putString(names.bytes, names.name);
    all.push_back(std::move(names));
    Bytes file(64, 0);
    std::vector<uint64_t> offsets;
    for (const TestSection& s : all) {
      offsets.push_back(file.size());
      file.insert(file.end(), s.bytes.begin(), s.bytes.end());
    }
    while (file.size() % 8) file.push_back(0);
    const uint64_t shoff = file.size();
    file.resize(file.size() + 64, 0);  // section 0
    for (size_t i = 0; i < all.size(); ++i) {
      const TestSection& s = all[i];
      put(file, nameAt[i], 4);
      put(file, s.type, 4);
      put(file, 0, 8);  // flags
      put(file, 0, 8);  // address
      put(file, offsets[i], 8);
      put(file, s.bytes.size(), 8);
      put(file, s.link, 4);
      put(file, s.info, 4);
      put(file, s.align, 8);
      put(file, s.entrySize, 8);
    }
    const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x41};
    std::copy(std::begin(ident), std::end(ident), file.begin());
    Bytes header;
    put(header, elf::ET_EXEC, 2);
    put(header, elf::EM_CUDA, 2);
    std::copy(header.begin(), header.end(), file.begin() + 16);
    Bytes tail;
    put(tail, shoff, 8);
    std::copy(tail.begin(), tail.end(), file.begin() + 40);
    Bytes counts;
    put(counts, 64, 2);                      // e_ehsize
    put(counts, 0, 2), put(counts, 0, 2);    // no program headers
    put(counts, 64, 2);                      // e_shentsize
    put(counts, all.size() + 1, 2);          // e_shnum
    put(counts, all.size(), 2);              // e_shstrndx: the name table, last
    std::copy(counts.begin(), counts.end(), file.begin() + 52);
    return std::string(file.begin(), file.end());
  }

 private:
  std::vector<TestSection> sections_;
};

// ---- the DWARF of a cubin ----

// 1 compile_unit (children; name), 2 subprogram (children; name, low_pc addr,
// high_pc data4), 3 variable (name, location block1), 4 lexical_block
// (children; low_pc addr, high_pc data4), 5 variable (name, location data4:
// a .debug_loc list).
Bytes abbreviations() {
  return {1, 0x11, 1, 0x03, 0x08, 0, 0,
          2, 0x2e, 1, 0x03, 0x08, 0x11, 0x01, 0x12, 0x06, 0, 0,
          3, 0x34, 0, 0x03, 0x08, 0x02, 0x0a, 0, 0,
          4, 0x0b, 1, 0x11, 0x01, 0x12, 0x06, 0, 0,
          5, 0x34, 0, 0x03, 0x08, 0x02, 0x06, 0, 0,
          0};
}

// `DW_OP_regx <register packed>` as a block1.
void putRegisterLocation(Bytes& b, std::string_view reg) {
  Bytes expr{0x90};
  putUleb(expr, *cuda::packRegister(reg));
  b.push_back(static_cast<uint8_t>(expr.size()));
  b.insert(b.end(), expr.begin(), expr.end());
}

// One function of the generated cubins.
struct Function {
  std::string name;
  uint64_t size = 0x100;  // bytes of SASS
  // Variables straight in the subprogram: (name, register).
  std::vector<std::pair<std::string, std::string>> variables;
  // Variables each in a lexical block inside the one before, block k
  // covering from 0x10 * k to the function's end.
  std::vector<std::pair<std::string, std::string>> nested;
  // Variables each in a lexical block of its own, side by side, block k
  // covering [0x10 * k, 0x10 * k + 0x10).
  std::vector<std::pair<std::string, std::string>> siblings;
  // A variable `y` straight in the subprogram with a location list: each
  // range [begin, end) in a register.
  struct ListRange {
    uint32_t begin = 0, end = 0;
    std::string reg = "%r1";
  };
  std::vector<ListRange> listRanges;
  // Map entries: (register, location, start, end).
  struct Entry {
    std::string reg;
    uint32_t location = 0, start = 0, end = 0;
  };
  std::vector<Entry> entries;
  // Line rows, one per 0x10 bytes from 0: (line, context) -- context 0 is not inlined.
  std::vector<std::pair<uint32_t, uint32_t>> rows;
};

constexpr uint32_t kFull = 5u << 24;

// A cubin of `functions`: `.text.<name>` each, the DIE tree (low_pc
// relocated against its code), `.debug_line` (set_address relocated),
// `.debug_str` (the inlined functions' names) and `.nv_debug_info_reg_sass`.
std::string cubinOf(const std::vector<Function>& functions) {
  ElfWriter w;
  std::vector<uint32_t> code;
  for (const Function& f : functions) code.push_back(w.add({".text." + f.name, elf::SHT_PROGBITS, Bytes(f.size, 0), 0, 0, 4}));
  const uint32_t symtab = w.addSectionSymbols(code);
  // .debug_info, .debug_loc
  Bytes body, loc;
  std::vector<Rela> infoRelocations, locRelocations;
  body.push_back(1);
  putString(body, "a.cu");
  for (size_t i = 0; i < functions.size(); ++i) {
    const Function& f = functions[i];
    body.push_back(2);
    putString(body, f.name);
    infoRelocations.push_back({11 + body.size(), static_cast<uint32_t>(i + 1)});
    put(body, 0, 8);
    put(body, f.size, 4);
    for (const auto& [name, reg] : f.variables) {
      body.push_back(3);
      putString(body, name);
      putRegisterLocation(body, reg);
    }
    if (!f.listRanges.empty()) {
      body.push_back(5);
      putString(body, "y");
      put(body, loc.size(), 4);
      for (const auto& [begin, end, reg] : f.listRanges) {
        locRelocations.push_back({loc.size(), static_cast<uint32_t>(i + 1), begin});
        put(loc, 0, 8);
        locRelocations.push_back({loc.size(), static_cast<uint32_t>(i + 1), end});
        put(loc, 0, 8);
        Bytes expr;
        putRegisterLocation(expr, reg);
        put(loc, expr.size() - 1, 2);
        loc.insert(loc.end(), expr.begin() + 1, expr.end());  // the block's bytes, not its length
      }
      put(loc, 0, 8);  // the list's end: two zero addresses
      put(loc, 0, 8);
    }
    for (size_t k = 0; k < f.nested.size(); ++k) {
      const auto& [name, reg] = f.nested[k];
      body.push_back(4);
      infoRelocations.push_back({11 + body.size(), static_cast<uint32_t>(i + 1), static_cast<int64_t>(0x10 * k)});
      put(body, 0, 8);
      put(body, f.size - 0x10 * k, 4);
      body.push_back(3);
      putString(body, name);
      putRegisterLocation(body, reg);
    }
    for (size_t k = 0; k < f.nested.size(); ++k) body.push_back(0);
    for (size_t k = 0; k < f.siblings.size(); ++k) {
      const auto& [name, reg] = f.siblings[k];
      body.push_back(4);
      infoRelocations.push_back({11 + body.size(), static_cast<uint32_t>(i + 1), static_cast<int64_t>(0x10 * k)});
      put(body, 0, 8);
      put(body, 0x10, 4);
      body.push_back(3);
      putString(body, name);
      putRegisterLocation(body, reg);
      body.push_back(0);
    }
    body.push_back(0);
  }
  body.push_back(0);
  Bytes info;
  put(info, 7 + body.size(), 4);
  put(info, 2, 2);
  put(info, 0, 4);
  info.push_back(8);
  info.insert(info.end(), body.begin(), body.end());
  w.add({".debug_abbrev", elf::SHT_PROGBITS, abbreviations()});
  const uint32_t infoIndex = w.add({".debug_info", elf::SHT_PROGBITS, info});
  w.addRela(infoIndex, symtab, infoRelocations);
  if (!loc.empty()) w.addRela(w.add({".debug_loc", elf::SHT_PROGBITS, loc}), symtab, locRelocations);
  // .debug_str: the inlined function's name at 0 (the line table's base).
  w.add({".debug_str", elf::SHT_PROGBITS, Bytes{'g', 0}});
  // .debug_line: version 2, one file, NVIDIA's names base; a sequence per function.
  Bytes header{1, 1, 0xfb, 14, 10, 0, 1, 1, 1, 1, 0, 0, 0, 1};
  header.push_back(0);  // no include directory
  putString(header, "a.cu");
  header.insert(header.end(), {0, 0, 0});
  header.push_back(0);
  put(header, 0, 4);
  Bytes program;
  std::vector<Rela> lineRelocations;
  for (size_t i = 0; i < functions.size(); ++i) {
    const Function& f = functions[i];
    if (f.rows.empty()) continue;
    program.insert(program.end(), {0, 9, 2});
    lineRelocations.push_back({10 + header.size() + program.size(), static_cast<uint32_t>(i + 1)});
    put(program, 0, 8);
    uint32_t line = 1;
    for (size_t r = 0; r < f.rows.size(); ++r) {
      const auto [want, context] = f.rows[r];
      if (context) {
        Bytes op{0x90};
        putUleb(op, context);
        putUleb(op, 0);
        program.push_back(0);
        putUleb(program, op.size());
        program.insert(program.end(), op.begin(), op.end());
      }
      if (r) program.insert(program.end(), {2, 0x10});
      program.push_back(3);
      Bytes advance;
      int64_t by = int64_t{want} - int64_t{line};
      for (bool more = true; more;) {  // SLEB128
        uint8_t byte = by & 0x7f;
        by >>= 7;
        more = !((by == 0 && !(byte & 0x40)) || (by == -1 && (byte & 0x40)));
        program.push_back(static_cast<uint8_t>(byte | (more ? 0x80 : 0)));
      }
      line = want;
      program.push_back(1);
    }
    program.insert(program.end(), {2, 0x10, 0, 1, 1});
  }
  Bytes lineSection;
  put(lineSection, 2 + 4 + header.size() + program.size(), 4);
  put(lineSection, 2, 2);
  put(lineSection, header.size(), 4);
  lineSection.insert(lineSection.end(), header.begin(), header.end());
  lineSection.insert(lineSection.end(), program.begin(), program.end());
  const uint32_t lineIndex = w.add({".debug_line", elf::SHT_PROGBITS, lineSection});
  w.addRela(lineIndex, symtab, lineRelocations);
  // .nv_debug_info_reg_sass
  Bytes map;
  for (const Function& f : functions) {
    putString(map, f.name);
    put(map, f.entries.size(), 4);
    for (const Function::Entry& e : f.entries) {
      put(map, 0, 4);
      putString(map, e.reg);
      put(map, e.location, 4);
      put(map, e.start, 4);
      put(map, e.end, 4);
    }
  }
  w.add({".nv_debug_info_reg_sass", elf::SHT_PROGBITS, map});
  return w.bytes();
}

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
