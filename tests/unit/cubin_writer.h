// A test-only writer of cubin ELF64 bytes as ptxas lays them out: sections,
// a symbol table, `.rela` sections, a DIE tree, `.debug_line` with NVIDIA's
// inlined calls and the register map (`.nv_debug_info_reg_sass`), so that
// tests can make any shape of cubin, hostile ones included, without ptxas.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxdwarf/elf/elf.h"

namespace ptxdwarf::testcubin {

// ---- bytes ----

using Bytes = std::vector<uint8_t>;

void put(Bytes& b, uint64_t v, unsigned size);
void putString(Bytes& b, std::string_view s);
void putUleb(Bytes& b, uint64_t v);

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
Bytes abbreviations();

// `DW_OP_regx <register packed>` as a block1.
void putRegisterLocation(Bytes& b, std::string_view reg);

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

// A register map location of class 5, a full register: kFull | N is RN.
inline constexpr uint32_t kFull = 5u << 24;

// A cubin of `functions`: `.text.<name>` each, the DIE tree (low_pc
// relocated against its code), `.debug_line` (set_address relocated),
// `.debug_str` (the inlined functions' names) and `.nv_debug_info_reg_sass`.
std::string cubinOf(const std::vector<Function>& functions);

}  // namespace ptxdwarf::testcubin
