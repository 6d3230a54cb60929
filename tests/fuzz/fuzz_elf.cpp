// Raw bytes -> the ELF64 reader, lookup and the cubin decoders (properties.h,
// readAsCubin). Findings go to fixtures/malformed/fuzz/*.elf, replayed by
// the unit tests.
#include <cstddef>
#include <cstdint>
#include <span>

#include "properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ptxdwarf::fuzz::readAsCubin(std::span<const uint8_t>(data, size));
  return 0;
}
