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

void prefault(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // Whole pages only: the partly used first and last ones may hold other data
  // (populating writes nothing, but the range must be whole pages).
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);  // advice
#else
  (void)data;
  (void)bytes;
#endif
}

void mapStepAt(const void* at, const void* limit) {
  const uintptr_t from = reinterpret_cast<uintptr_t>(at) & ~(kFillStep - 1);
  const uintptr_t to = std::min(from + kFillStep, reinterpret_cast<uintptr_t>(limit));
  if (to > from) prefault(reinterpret_cast<const void*>(from), to - from);
}

void mapAhead(const void* end, const void* limit) {
  const uintptr_t stepEnd = ((reinterpret_cast<uintptr_t>(end) + kFillMargin) & ~(kFillStep - 1)) + kFillStep;
  const uintptr_t to = std::min(stepEnd, reinterpret_cast<uintptr_t>(limit));
  if (to > reinterpret_cast<uintptr_t>(end)) prefault(end, to - reinterpret_cast<uintptr_t>(end));
}

void mapThrough(const void* end, const void* through, const void* limit) {
  const uintptr_t to = std::min(reinterpret_cast<uintptr_t>(through), reinterpret_cast<uintptr_t>(limit));
  if (to > reinterpret_cast<uintptr_t>(end)) prefault(end, to - reinterpret_cast<uintptr_t>(end));
}

void releaseUnusedTail(const void* data, size_t usedBytes, size_t capacityBytes) {
  constexpr size_t kWorthIt = size_t{2} << 20;  // below a huge page there is no huge page to split
  if (capacityBytes < kWorthIt) return;
  releasePages(static_cast<const char*>(data) + usedBytes, capacityBytes - usedBytes);
}

void releasePages(const void* data, size_t bytes) {
#if defined(__linux__)
  if (!data) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(page - 1);
  // The pages hold nothing: dropping them loses nothing (advice: failure is harmless).
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace ptxdwarf
