// Raw bytes -> the ELF64 reader: header, section headers and names, every
// symbol table, and every section with its relocations applied; then the
// cubin decoders on every section's bytes (line programs with NVIDIA's
// inlined-call extension and their inline stacks, the register map). Bad
// input must come back as an error or a problem; any read outside the input
// is ASan's to catch.
#include <cstddef>
#include <cstdint>
#include <span>

#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/regmap.h"
#include "ptxdwarf/elf/elf.h"

namespace {

void decodeAsCubinSection(std::span<const uint8_t> bytes, std::span<const uint8_t> str) {
  namespace cubin = ptxdwarf::cubin;
  for (const cubin::LineTable& t : cubin::decodeLinePrograms(bytes)) {
    // Every row's stack: bounded by the rows before it (no loop).
    for (size_t i = 0; i < t.rows.size() && i < 4096; ++i) (void)cubin::inlineStack(t, i, str);
    for (size_t f = 1; f <= t.header.files.size() + 1; ++f) (void)t.header.filePath(f);
  }
  cubin::RegMap map = cubin::decodeRegMap(bytes);
  for (const cubin::RegMapFunction& f : map.functions)
    for (const cubin::RegMapEntry& e : f.entries) (void)cubin::sassLocation(e.location);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace elf = ptxdwarf::elf;
  const std::span<const uint8_t> input(data, size);
  elf::Error error;
  std::optional<elf::File> file = elf::File::parse(input, error);
  if (!file) {
    decodeAsCubinSection(input, input);  // the decoders on the raw bytes too
    return 0;
  }
  for (const elf::Section& s : file->sections()) {
    if (s.type == elf::SHT_SYMTAB) (void)file->symbols(s, error);
    if (s.type == elf::SHT_REL || s.type == elf::SHT_RELA) (void)file->relocations(s, error);
    elf::RelocationReport report;
    std::optional<std::vector<uint8_t>> bytes = file->relocatedContents(s, error, &report);
    if (bytes) decodeAsCubinSection(*bytes, file->contents(s));
  }
  return 0;
}
