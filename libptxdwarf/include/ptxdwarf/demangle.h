// C++ names as a debugger shows them.
#pragma once

#include <string>
#include <string_view>

namespace ptxdwarf {

// The demangled form of an Itanium-mangled name (`_Z3fooii` -> `foo(int, int)`);
// the name itself when it is not one, or when the C++ runtime offers no demangler.
std::string demangle(std::string_view name);

}  // namespace ptxdwarf
