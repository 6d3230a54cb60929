// Capacity reserved up front for vectors that grow with their input.
//
// A vector that grows by doubling copies itself at each step and leaves the
// old buffer behind: it touches about twice the memory it ends up holding.
// Reserving for the most the input could hold costs address space, not
// memory -- pages never written are never mapped in -- so the vector fills
// in place and touches each page once. The vectors are filled with
// push_back; how the pages come in is the allocator's and the kernel's
// business.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptxdwarf {

// Reserves `v` for `items` elements, capped so that a huge input does not
// ask for more address space than a small machine will promise (past the
// cap the vector grows as usual).
template <class T>
void reserveUpTo(std::vector<T>& v, uint64_t items) {
  constexpr uint64_t kMaxReservedBytes = uint64_t{256} << 20;
  const uint64_t count = std::min<uint64_t>(items, kMaxReservedBytes / sizeof(T));
  if (count > v.capacity()) v.reserve(static_cast<size_t>(count));
}

}  // namespace ptxdwarf
