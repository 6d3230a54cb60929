// Raw section bytes -> DWARF decode -> both printers, every section.
#include "properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ptxdwarf::fuzz::decodeAndDump(data, size);
  return 0;
}
