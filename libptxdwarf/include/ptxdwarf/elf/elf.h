// A bounds-checked reader of ELF64 little-endian files, as ptxas writes
// cubins: the header, the section headers and their names, the symbols, and
// the relocation sections (SHT_REL, SHT_RELA) applied to the sections they
// relocate. Every offset, size and index is checked against the file before
// it is followed: a bad file gets an error naming what is wrong and where,
// never a read outside the bytes it was given. Views (names, contents) point
// into those bytes, which must outlive the File.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxdwarf::elf {

inline constexpr uint32_t SHT_NULL = 0, SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_RELA = 4,
                          SHT_NOBITS = 8, SHT_REL = 9;
inline constexpr uint16_t EM_CUDA = 190;
// NVIDIA's types, in a cubin, for memory the driver allocates without
// contents: like SHT_NOBITS they hold no bytes of the file. `ptxas -c`
// (relocatable) writes `.nv.global` and `.nv.shared.<kernel>` with these at
// the offset of the next section; a linked cubin says SHT_NOBITS.
inline constexpr uint32_t SHT_CUDA_GLOBAL = 0x70000007, SHT_CUDA_LOCAL = 0x70000009, SHT_CUDA_SHARED = 0x7000000a;
inline constexpr uint16_t ET_REL = 1, ET_EXEC = 2;
// NVIDIA's relocation types that a debug section holds: a 32- and a 64-bit
// absolute value (S + A).
inline constexpr uint32_t R_CUDA_32 = 1, R_CUDA_64 = 2;

// Does `bytes` start with the ELF magic (\x7fELF)? What tells a cubin from
// PTX text wherever a file is loaded.
bool hasElfMagic(std::span<const uint8_t> bytes);
bool hasElfMagic(std::string_view bytes);

struct Header {
  uint16_t type = 0;     // e_type: ET_EXEC (ptxas -o), ET_REL (ptxas -c)
  uint16_t machine = 0;  // e_machine: EM_CUDA
  uint32_t flags = 0;    // e_flags: the SM version among other bits
  uint8_t osabi = 0;     // e_ident[EI_OSABI]: 0x41 for CUDA
  uint8_t abiVersion = 0;
};

struct Section {
  uint32_t index = 0;  // in the section header table
  std::string_view name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t address = 0;
  uint64_t offset = 0;  // in the file
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t addressAlign = 0;
  uint64_t entrySize = 0;
  bool inFile = false;  // its bytes are in the file: not SHT_NULL, SHT_NOBITS or NVIDIA's kinds of them
};

struct Symbol {
  std::string_view name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t info = 0;  // binding << 4 | type
  uint8_t other = 0;
  uint16_t sectionIndex = 0;
};

struct Relocation {
  uint64_t offset = 0;  // in the section it relocates
  uint32_t type = 0;
  uint32_t symbol = 0;  // index in the linked symbol table
  int64_t addend = 0;   // SHT_RELA's; SHT_REL's is the bytes in place
  bool explicitAddend = false;
};

// What applying one section's relocations did: how many were applied, and
// the types left unapplied (their bytes are as the file has them).
struct RelocationReport {
  size_t applied = 0;
  std::vector<uint32_t> unappliedTypes;  // each once
};

// An error with where in the file it was found.
struct Error {
  std::string message;
  uint64_t offset = 0;  // in the file
};

class File {
 public:
  // Reads the header and the section headers and checks them: the header
  // inside the file, every section's bytes (those `inFile`) inside the file,
  // no two sections' bytes partly overlapping (the same bytes under two names are fine), every name a NUL-terminated string
  // of the section name table. nullopt with `error` set otherwise.
  static std::optional<File> parse(std::span<const uint8_t> bytes, Error& error);

  const Header& header() const { return header_; }
  std::span<const Section> sections() const { return sections_; }
  // The first section of that name; nullptr when none.
  const Section* find(std::string_view name) const;
  // The section's bytes in the file (checked by parse); empty unless `inFile`.
  std::span<const uint8_t> contents(const Section& s) const;

  // The symbols of a SHT_SYMTAB section, names from its linked string table.
  std::optional<std::vector<Symbol>> symbols(const Section& symtab, Error& error) const;
  // The entries of a SHT_REL or SHT_RELA section.
  std::optional<std::vector<Relocation>> relocations(const Section& rel, Error& error) const;
  // The bytes of `target` with every relocation section that names it
  // (sh_info) applied as llvm-dwarfdump's resolver applies them: S + A,
  // A being the RELA addend or, for REL, the value in place; R_CUDA_32
  // writes 4 bytes and R_CUDA_64 8; other types stay as they are and are
  // reported. A relocation outside the section or naming no symbol is an
  // error.
  // `sectionAddresses` (indexed by section header index; a section past
  // its end is at 0) is where each section is loaded: a symbol's value is
  // added to its section's address, as a loader that places the sections
  // at distinct addresses resolves S.
  // Work: the relocation sections of `target` and their entries; the
  // sections are grouped by target and each symbol table decoded once, at
  // the first call, however many sections are relocated: the File keeps
  // them, hence not const.
  std::optional<std::vector<uint8_t>> relocatedContents(const Section& target, Error& error,
                                                        RelocationReport* report = nullptr,
                                                        std::span<const uint64_t> sectionAddresses = {});

 private:
  // The relocation sections of each section (by sh_info), in header order.
  const std::vector<std::vector<uint32_t>>& relocationSectionsByTarget();
  // The symbols of the symbol table at `index`, decoded at the first call.
  const std::vector<Symbol>* cachedSymbols(uint32_t index, Error& error);

  std::span<const uint8_t> bytes_;
  Header header_;
  std::vector<Section> sections_;
  std::optional<std::vector<std::vector<uint32_t>>> relocationSections_;
  std::map<uint32_t, std::vector<Symbol>> symbols_;
};

// "truncated ELF header" and the like, as `file: error: <message> (at file offset 0x...)`.
std::string describe(const Error& error);

}  // namespace ptxdwarf::elf
