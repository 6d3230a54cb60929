#include "reserve.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ptxdwarf {

void adviseHugePages(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // madvise wants whole pages: the ones inside the range.
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: failure is harmless
#else
  (void)data;
  (void)bytes;
#endif
}

void releaseUnusedTail(const void* data, size_t usedBytes, size_t capacityBytes) {
#if defined(__linux__)
  constexpr size_t kWorthIt = size_t{2} << 20;  // below a huge page there is no huge page to split
  if (capacityBytes < kWorthIt) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + usedBytes + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + capacityBytes) & ~(page - 1);
  // The pages hold no element: dropping them loses nothing (advice: failure is harmless).
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
#else
  (void)data;
  (void)usedBytes;
  (void)capacityBytes;
#endif
}

}  // namespace ptxdwarf
