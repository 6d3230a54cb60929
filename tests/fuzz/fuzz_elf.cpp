// Raw bytes -> the ELF64 reader: header, section headers and names, every
// symbol table, and every section with its relocations applied. Bad ELF must
// come back as an error; any read outside the input is ASan's to catch.
#include <cstddef>
#include <cstdint>
#include <span>

#include "ptxdwarf/elf/elf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace elf = ptxdwarf::elf;
  elf::Error error;
  std::optional<elf::File> file = elf::File::parse(std::span<const uint8_t>(data, size), error);
  if (!file) return 0;
  for (const elf::Section& s : file->sections()) {
    if (s.type == elf::SHT_SYMTAB) (void)file->symbols(s, error);
    if (s.type == elf::SHT_REL || s.type == elf::SHT_RELA) (void)file->relocations(s, error);
    elf::RelocationReport report;
    (void)file->relocatedContents(s, error, &report);
  }
  return 0;
}
