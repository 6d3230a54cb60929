// The ELF64 reader: well-formed files built here section by section, then
// every kind of damage a file can carry (truncation, sections outside the
// file or overlapping, names without a NUL, relocations outside their
// section) answered with an error, never a read outside the bytes.
#include <gtest/gtest.h>

#include <cstring>

#include "ptxdwarf/elf/elf.h"

namespace elf = ptxdwarf::elf;

namespace {

void put(std::vector<uint8_t>& b, size_t at, uint64_t v, unsigned size) {
  if (b.size() < at + size) b.resize(at + size);
  for (unsigned i = 0; i < size; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

struct SectionSpec {
  std::string name;
  uint32_t type = elf::SHT_PROGBITS;
  std::vector<uint8_t> bytes;
  uint32_t link = 0, info = 0;
};

// An ELF64 little-endian EM_CUDA file: header, the sections' bytes one after
// another, a section name table, then the section header table.
struct Built {
  std::vector<uint8_t> file;
  uint64_t shoff = 0;
};

Built build(std::vector<SectionSpec> sections) {
  std::string names(1, '\0');
  std::vector<uint32_t> nameOffsets;
  for (const SectionSpec& s : sections) {
    nameOffsets.push_back(static_cast<uint32_t>(names.size()));
    names += s.name;
    names += '\0';
  }
  const uint32_t shstrName = static_cast<uint32_t>(names.size());
  names += ".shstrtab";
  names += '\0';
  Built out;
  std::vector<uint8_t>& f = out.file;
  f.assign(64, 0);
  f[0] = 0x7f, f[1] = 'E', f[2] = 'L', f[3] = 'F', f[4] = 2, f[5] = 1, f[6] = 1, f[7] = 0x41;
  put(f, 16, elf::ET_EXEC, 2);
  put(f, 18, elf::EM_CUDA, 2);
  std::vector<uint64_t> offsets;
  for (const SectionSpec& s : sections) {
    offsets.push_back(f.size());
    f.insert(f.end(), s.bytes.begin(), s.bytes.end());
  }
  const uint64_t namesAt = f.size();
  f.insert(f.end(), names.begin(), names.end());
  out.shoff = f.size();
  const size_t count = sections.size() + 2;
  f.resize(f.size() + count * 64, 0);
  auto header = [&](size_t i, uint32_t name, uint32_t type, uint64_t offset, uint64_t size, uint32_t link,
                    uint32_t info) {
    const size_t at = out.shoff + i * 64;
    put(f, at, name, 4);
    put(f, at + 4, type, 4);
    put(f, at + 24, offset, 8);
    put(f, at + 32, size, 8);
    put(f, at + 40, link, 4);
    put(f, at + 44, info, 4);
  };
  for (size_t i = 0; i < sections.size(); ++i)
    header(i + 1, nameOffsets[i], sections[i].type, offsets[i], sections[i].bytes.size(), sections[i].link,
           sections[i].info);
  header(count - 1, shstrName, elf::SHT_STRTAB, namesAt, names.size(), 0, 0);
  put(f, 40, out.shoff, 8);
  put(f, 58, 64, 2);
  put(f, 60, count, 2);
  put(f, 62, count - 1, 2);
  return out;
}

std::vector<uint8_t> symbolTable(std::vector<std::pair<uint32_t, uint64_t>> nameAndValue) {
  std::vector<uint8_t> t(24, 0);  // symbol 0: the null symbol
  for (auto [name, value] : nameAndValue) {
    const size_t at = t.size();
    t.resize(at + 24, 0);
    put(t, at, name, 4);
    put(t, at + 8, value, 8);
  }
  return t;
}

std::vector<uint8_t> relaEntry(uint64_t offset, uint32_t type, uint32_t symbol, int64_t addend) {
  std::vector<uint8_t> e;
  put(e, 0, offset, 8);
  put(e, 8, uint64_t{symbol} << 32 | type, 8);
  put(e, 16, static_cast<uint64_t>(addend), 8);
  return e;
}

std::optional<elf::File> parse(const std::vector<uint8_t>& f, elf::Error& e) { return elf::File::parse(f, e); }

// A file with a .debug_info whose bytes two relocations rewrite.
Built relocatedFile(std::vector<uint8_t> rela, uint32_t relType = elf::SHT_RELA) {
  std::vector<uint8_t> info(16, 0);
  put(info, 8, 0x10, 8);  // REL's implicit addend
  const std::string strtab = std::string("\0func\0", 6);
  return build({{".debug_info", elf::SHT_PROGBITS, info},
                {".strtab", elf::SHT_STRTAB, std::vector<uint8_t>(strtab.begin(), strtab.end())},
                {".symtab", elf::SHT_SYMTAB, symbolTable({{1, 0x1000}}), 2, 0},
                {relType == elf::SHT_RELA ? ".rela.debug_info" : ".rel.debug_info", relType, rela, 3, 1}});
}

TEST(ElfReader, MagicTellsACubinFromPtxText) {
  EXPECT_TRUE(elf::hasElfMagic(std::string_view("\x7f" "ELF\x02", 5)));
  EXPECT_FALSE(elf::hasElfMagic(std::string_view(".version 8.0\n")));
  EXPECT_FALSE(elf::hasElfMagic(std::string_view("\x7f" "EL", 3)));
}

TEST(ElfReader, ReadsHeaderSectionsAndNames) {
  Built b = build({{".debug_abbrev", elf::SHT_PROGBITS, {1, 2, 3}}, {".nv_debug_ptx_txt", elf::SHT_PROGBITS, {'x', 0}}});
  elf::Error e;
  std::optional<elf::File> f = parse(b.file, e);
  ASSERT_TRUE(f) << elf::describe(e);
  EXPECT_EQ(f->header().machine, elf::EM_CUDA);
  EXPECT_EQ(f->header().type, elf::ET_EXEC);
  EXPECT_EQ(f->header().osabi, 0x41);
  ASSERT_EQ(f->sections().size(), 4u);
  const elf::Section* abbrev = f->find(".debug_abbrev");
  ASSERT_NE(abbrev, nullptr);
  EXPECT_EQ(abbrev->index, 1u);
  EXPECT_EQ(std::vector<uint8_t>(f->contents(*abbrev).begin(), f->contents(*abbrev).end()),
            (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_NE(f->find(".nv_debug_ptx_txt"), nullptr);
  EXPECT_EQ(f->find(".debug_info"), nullptr);
}

TEST(ElfReader, AppliesRelaAsSymbolPlusAddend) {
  std::vector<uint8_t> rela = relaEntry(0, elf::R_CUDA_64, 1, 0x280);
  std::vector<uint8_t> second = relaEntry(8, elf::R_CUDA_32, 1, 4);
  rela.insert(rela.end(), second.begin(), second.end());
  Built b = relocatedFile(rela);
  elf::Error e;
  std::optional<elf::File> f = parse(b.file, e);
  ASSERT_TRUE(f) << elf::describe(e);
  elf::RelocationReport report;
  std::optional<std::vector<uint8_t>> bytes = f->relocatedContents(*f->find(".debug_info"), e, &report);
  ASSERT_TRUE(bytes) << elf::describe(e);
  EXPECT_EQ(report.applied, 2u);
  uint64_t first = 0;
  std::memcpy(&first, bytes->data(), 8);
  EXPECT_EQ(first, 0x1280u);
  uint32_t four = 0;
  std::memcpy(&four, bytes->data() + 8, 4);
  EXPECT_EQ(four, 0x1004u);
  EXPECT_EQ((*bytes)[12], 0);  // R_CUDA_32 writes four bytes, no more
}

TEST(ElfReader, AppliesRelWithTheAddendInPlace) {
  std::vector<uint8_t> rel;
  put(rel, 0, 8, 8);
  put(rel, 8, uint64_t{1} << 32 | elf::R_CUDA_64, 8);
  Built b = relocatedFile(rel, elf::SHT_REL);
  elf::Error e;
  std::optional<elf::File> f = parse(b.file, e);
  ASSERT_TRUE(f) << elf::describe(e);
  std::optional<std::vector<uint8_t>> bytes = f->relocatedContents(*f->find(".debug_info"), e);
  ASSERT_TRUE(bytes) << elf::describe(e);
  uint64_t v = 0;
  std::memcpy(&v, bytes->data() + 8, 8);
  EXPECT_EQ(v, 0x1010u);
}

TEST(ElfReader, ReportsUnknownRelocationTypesAndLeavesTheirBytes) {
  Built b = relocatedFile(relaEntry(0, 77, 1, 5));
  elf::Error e;
  std::optional<elf::File> f = parse(b.file, e);
  ASSERT_TRUE(f);
  elf::RelocationReport report;
  std::optional<std::vector<uint8_t>> bytes = f->relocatedContents(*f->find(".debug_info"), e, &report);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(report.applied, 0u);
  EXPECT_EQ(report.unappliedTypes, std::vector<uint32_t>{77});
  EXPECT_EQ((*bytes)[0], 0);
}

TEST(ElfReader, RelocationOutsideItsSectionIsAnError) {
  Built b = relocatedFile(relaEntry(12, elf::R_CUDA_64, 1, 0));  // 8 bytes at 12 of 16
  elf::Error e;
  std::optional<elf::File> f = parse(b.file, e);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->relocatedContents(*f->find(".debug_info"), e));
  EXPECT_NE(e.message.find("outside .debug_info"), std::string::npos) << e.message;
}

TEST(ElfReader, RelocationNamingNoSymbolIsAnError) {
  Built b = relocatedFile(relaEntry(0, elf::R_CUDA_64, 9, 0));
  elf::Error e;
  std::optional<elf::File> f = parse(b.file, e);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->relocatedContents(*f->find(".debug_info"), e));
  EXPECT_NE(e.message.find("names symbol 9"), std::string::npos) << e.message;
}

TEST(ElfReader, EveryTruncationIsAnErrorNotARead) {
  Built b = build({{".debug_abbrev", elf::SHT_PROGBITS, {1, 2, 3}}});
  for (size_t n = 0; n < b.file.size(); ++n) {
    // A copy of exactly n bytes: ASan sees any read past it.
    std::vector<uint8_t> cut(b.file.begin(), b.file.begin() + static_cast<ptrdiff_t>(n));
    cut.shrink_to_fit();
    elf::Error e;
    EXPECT_FALSE(parse(cut, e)) << n << " bytes";
    EXPECT_FALSE(e.message.empty());
  }
}

TEST(ElfReader, SectionPastTheEndOfTheFile) {
  Built b = build({{".debug_abbrev", elf::SHT_PROGBITS, {1, 2, 3}}});
  put(b.file, b.shoff + 64 + 32, uint64_t{1} << 40, 8);  // section 1's size
  elf::Error e;
  EXPECT_FALSE(parse(b.file, e));
  EXPECT_NE(e.message.find("run past the end of the file"), std::string::npos) << e.message;
  put(b.file, b.shoff + 64 + 32, 3, 8);
  put(b.file, b.shoff + 64 + 24, UINT64_MAX - 1, 8);  // offset + size overflows
  EXPECT_FALSE(parse(b.file, e));
}

TEST(ElfReader, OverlappingSections) {
  Built b = build({{".a", elf::SHT_PROGBITS, {1, 2, 3, 4}}, {".b", elf::SHT_PROGBITS, {5, 6}}});
  put(b.file, b.shoff + 2 * 64 + 24, 64 + 2, 8);  // .b starts inside .a
  elf::Error e;
  EXPECT_FALSE(parse(b.file, e));
  EXPECT_NE(e.message.find("overlap"), std::string::npos) << e.message;
}

// ptxas -c writes .nv.global and .nv.shared.<kernel> with NVIDIA's own
// types at the offset of the section after them (measured: CUDA 13.0,
// cccl_libcudacxx -rdc): they hold no bytes, so they neither overlap nor run
// past the end -- in an EM_CUDA file. Elsewhere the types mean nothing to us.
TEST(ElfReader, NvidiaUninitializedSectionsHoldNoBytesOfTheFile) {
  for (uint32_t type : {elf::SHT_CUDA_GLOBAL, elf::SHT_CUDA_LOCAL, elf::SHT_CUDA_SHARED}) {
    Built b = build({{".a", elf::SHT_PROGBITS, {1, 2, 3, 4}}, {".nv.shared.k", type, {5, 6}}});
    put(b.file, b.shoff + 2 * 64 + 24, 64 + 2, 8);  // placed inside .a
    put(b.file, b.shoff + 2 * 64 + 32, 0x608, 8);   // and larger than the file
    elf::Error e;
    std::optional<elf::File> f = parse(b.file, e);
    ASSERT_TRUE(f) << e.message;
    const elf::Section* shared = f->find(".nv.shared.k");
    ASSERT_NE(shared, nullptr);
    EXPECT_FALSE(shared->inFile);
    EXPECT_TRUE(f->contents(*shared).empty());
    EXPECT_EQ(f->contents(*f->find(".a")).size(), 4u);
    put(b.file, 18, 62, 2);  // EM_X86_64: the same type is a processor's own, with bytes
    EXPECT_FALSE(parse(b.file, e));
  }
}

TEST(ElfReader, NameWithoutNulOrOutsideTheNameTable) {
  Built b = build({{".debug_abbrev", elf::SHT_PROGBITS, {1}}});
  // The name table is the last section: make it end before its last NUL.
  const size_t last = 2;
  uint64_t size = 0;
  std::memcpy(&size, b.file.data() + b.shoff + last * 64 + 32, 8);
  put(b.file, b.shoff + last * 64 + 32, size - 1, 8);
  elf::Error e;
  EXPECT_FALSE(parse(b.file, e));
  EXPECT_NE(e.message.find("no terminating NUL"), std::string::npos) << e.message;
  put(b.file, b.shoff + last * 64 + 32, size, 8);
  put(b.file, b.shoff + 64, 5000, 4);  // section 1's name offset
  EXPECT_FALSE(parse(b.file, e));
  EXPECT_NE(e.message.find("outside the section name table"), std::string::npos) << e.message;
}

TEST(ElfReader, Rejects32BitBigEndianAndForeignHeaderSizes) {
  Built b = build({});
  elf::Error e;
  std::vector<uint8_t> f = b.file;
  f[4] = 1;
  EXPECT_FALSE(parse(f, e));
  EXPECT_NE(e.message.find("64-bit"), std::string::npos);
  f = b.file;
  f[5] = 2;
  EXPECT_FALSE(parse(f, e));
  EXPECT_NE(e.message.find("little-endian"), std::string::npos);
  f = b.file;
  put(f, 58, 40, 2);
  EXPECT_FALSE(parse(f, e));
  f = b.file;
  put(f, 62, 200, 2);  // name table index past the table
  EXPECT_FALSE(parse(f, e));
}

TEST(ElfReader, SymbolNameWithoutNul) {
  const std::string strtab = std::string("\0fun", 4);  // no NUL after "fun"
  Built b = build({{".strtab", elf::SHT_STRTAB, std::vector<uint8_t>(strtab.begin(), strtab.end())},
                   {".symtab", elf::SHT_SYMTAB, symbolTable({{1, 0}}), 1, 0}});
  elf::Error e;
  std::optional<elf::File> f = parse(b.file, e);
  ASSERT_TRUE(f) << elf::describe(e);
  EXPECT_FALSE(f->symbols(*f->find(".symtab"), e));
  EXPECT_NE(e.message.find("NUL-terminated"), std::string::npos) << e.message;
}

}  // namespace
