#include "ptxdwarf/demangle.h"

#include <cstdlib>
#include <memory>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define PTXDWARF_HAVE_CXXABI 1
#endif

namespace ptxdwarf {

std::string demangle(std::string_view name) {
#ifdef PTXDWARF_HAVE_CXXABI
  if (!name.starts_with("_Z")) return std::string(name);
  std::string z(name);  // the runtime wants a NUL-terminated name
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(z.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
  if (status == 0 && out) return out.get();
#endif
  return std::string(name);
}

}  // namespace ptxdwarf
