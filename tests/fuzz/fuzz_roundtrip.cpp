// decode -> encode -> decode must give the same model; see properties.h.
#include <cstdlib>

#include "properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string why;
  if (!ptxdwarf::fuzz::roundTrips(data, size, &why)) std::abort();
  return 0;
}
