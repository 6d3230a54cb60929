// decode -> encode -> decode must give the same model; see properties.h.
#include <cstdio>
#include <cstdlib>

#include "properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string why;
  if (!ptxdwarf::fuzz::roundTrips(data, size, &why)) {
    std::fprintf(stderr, "property broken: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}
