// The library's memory helpers (libptxdwarf/src/reserve.h): advice to the
// kernel must never change what a vector holds.
#include "reserve.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <span>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ptxdwarf {
namespace {

// A vector whose final size is known is reserved for it and its future pages
// mapped in: what it held stays, and it fills to that size without moving.
TEST(Reserve, ReservingExactlyKeepsContentsAndFillsInPlace) {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < 1000; ++i) v.push_back(i * 3);
  const size_t size = size_t{4} << 20;  // 16 MB: far past the 64 KB below which nothing is mapped in ahead
  reserveExactly(v, size);
  ASSERT_GE(v.capacity(), size);
  const uint32_t* data = v.data();
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(v[i], i * 3) << i;
  for (uint32_t i = 1000; i < size; ++i) v.push_back(i * 3);
  EXPECT_EQ(v.data(), data);  // filled in place
  for (uint32_t i = 0; i < size; i += 4099) ASSERT_EQ(v[i], i * 3) << i;
  reserveExactly(v, 10);  // smaller than it holds: nothing changes
  EXPECT_EQ(v.size(), size);
  EXPECT_EQ(v.data(), data);
}

// Prefaulting memory that already holds data (the partly used first page, a
// range mapped in before) leaves the data as it was.
TEST(Reserve, PrefaultingWrittenMemoryLeavesItAsItWas) {
  std::vector<uint8_t> bytes(size_t{1} << 20);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 13 + 1);
  prefault(bytes.data() + 5, bytes.size() - 5);
  prefault(bytes.data(), 100);  // less than a whole page: nothing to map
  for (size_t i = 0; i < bytes.size(); ++i) ASSERT_EQ(bytes[i], static_cast<uint8_t>(i * 13 + 1)) << i;
}

#if defined(__linux__)
// How many of the whole pages in [begin, end) are resident.
size_t residentPages(const void* begin, const void* end) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t from = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  const uintptr_t to = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (to <= from) return 0;
  std::vector<unsigned char> in((to - from) / page);
  if (mincore(reinterpret_cast<void*>(from), to - from, in.data()) != 0) return 0;
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

// Pushes 0, 1, 2, ... onto `v` through fillAhead until it holds `bytes`.
void fillTo(std::vector<uint64_t>& v, size_t bytes) {
  while (v.size() * sizeof(uint64_t) < bytes) {
    v.push_back(v.size());
    fillAhead(v);
  }
}

// The end of the step that `p` lies in.
uintptr_t stepEndOf(const void* p) { return (reinterpret_cast<uintptr_t>(p) & ~(kFillStep - 1)) + kFillStep; }

// Whether the kernel gives huge pages unasked (then a write maps in up to
// 2 MiB around it, whatever fillAhead did).
bool hugePagesAlways() {
  std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return false;
  char line[128] = {};
  const bool always = std::fgets(line, sizeof line, f) && std::strstr(line, "[always]");
  std::fclose(f);
  return always;
}

// A reservation filled through fillAhead holds what was pushed; all along,
// the next kFillMargin bytes past its end are mapped in (the next push does
// not fault), and nothing past the step they reach: the reservation (64 MB
// here, as the reader makes them for the most a text could hold) costs its
// contents and at most a step more.
TEST(Reserve, FillingAheadKeepsAMarginMappedAndNoMoreThanItsStep) {
  std::vector<uint64_t> v;
  reserveUpTo(v, size_t{8} << 20);
  ASSERT_GE(v.capacity(), size_t{8} << 20);
  const uint64_t* data = v.data();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t items = (size_t{3} << 20) / sizeof(uint64_t) + 17;  // 3 MB and a bit
  const char* limit = reinterpret_cast<const char*>(v.data() + v.capacity());
  for (size_t i = 0; i < items; ++i) {
    v.push_back(i * 7);
    fillAhead(v);
    if (i % 3001 != 0 || v.size() * sizeof(uint64_t) < kFaultedBytes) continue;
    const char* end = reinterpret_cast<const char*>(v.data() + v.size());
    const uintptr_t firstWhole = (reinterpret_cast<uintptr_t>(end) + page - 1) & ~(page - 1);
    const uintptr_t marginEnd = (reinterpret_cast<uintptr_t>(end) + kFillMargin) & ~(page - 1);
    ASSERT_EQ(residentPages(end, end + kFillMargin), (marginEnd - firstWhole) / page) << i;
    if (!hugePagesAlways()) {
      ASSERT_EQ(residentPages(reinterpret_cast<const char*>(stepEndOf(end + kFillMargin)), limit), 0u) << i;
    }
  }
  EXPECT_EQ(v.data(), data);
  for (size_t i = 0; i < items; i += 997) ASSERT_EQ(v[i], i * 7) << i;
  const char* end = reinterpret_cast<const char*>(v.data() + v.size());
  // Past two steps, and past a huge page for kernels that give them unasked.
  EXPECT_EQ(residentPages(end + 2 * kFillStep + (size_t{2} << 20), limit), 0u);
}

// A vector is left to faults while it is small; once it holds
// kFaultedBytes, the rest of its step (and the next, when the end is within
// kFillMargin of it) is mapped in at once.
TEST(Reserve, FillingAheadMapsTheFirstStepOnceAVectorIsNoLongerSmall) {
  std::vector<uint64_t> v;
  reserveUpTo(v, size_t{8} << 20);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  fillTo(v, kFaultedBytes - sizeof(uint64_t));
  const char* end = reinterpret_cast<const char*>(v.data() + v.size());
  // Not mapped ahead yet, unless the end came near a new step on the way.
  if (stepEndOf(v.data()) > reinterpret_cast<uintptr_t>(end) + kFillMargin) {
    EXPECT_EQ(residentPages(end + 2 * page, reinterpret_cast<const char*>(stepEndOf(end))), 0u);
  }
  fillTo(v, kFaultedBytes + sizeof(uint64_t));
  end = reinterpret_cast<const char*>(v.data() + v.size());
  const char* through = reinterpret_cast<const char*>(stepEndOf(end + kFillMargin));
  const uintptr_t firstWhole = (reinterpret_cast<uintptr_t>(end) + page - 1) & ~(page - 1);
  EXPECT_EQ(residentPages(end, through), (reinterpret_cast<uintptr_t>(through) - firstWhole) / page);
  if (!hugePagesAlways()) {
    EXPECT_EQ(residentPages(through, through + kFillStep), 0u);
  }
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i);
}

// A vector that reaches its first page has the rest of its first
// kFaultedBytes mapped in with a call; before that, nothing ahead of it.
TEST(Reserve, FillingAheadMapsTheFirstSixteenKilobytesAtTheFirstPage) {
  // A reservation whose first 64 KB lie in one step, more than kFillMargin
  // before its end: nearing the next step maps it, which this test must not
  // mistake for the first page's mapping. (Each reservation is its own mapping, a page or
  // so further on than the last: one of the first few is placed so. 64 MB,
  // past glibc's largest mmap threshold: a smaller one may come from heap
  // pages an earlier test left resident.)
  std::vector<std::vector<uint64_t>> tried;
  auto wellPlaced = [](const std::vector<uint64_t>& v) {
    return (reinterpret_cast<uintptr_t>(v.data()) & (kFillStep - 1)) + 4 * kFaultedBytes + kFillMargin <= kFillStep;
  };
  do {
    tried.emplace_back();
    reserveUpTo(tried.back(), size_t{8} << 20);
  } while (!wellPlaced(tried.back()) && tried.size() < 64);
  ASSERT_TRUE(wellPlaced(tried.back()));
  std::vector<uint64_t>& v = tried.back();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const char* data = reinterpret_cast<const char*>(v.data());
  fillTo(v, kFirstPageBytes - sizeof(uint64_t));
  const char* end = reinterpret_cast<const char*>(v.data() + v.size());
  EXPECT_EQ(residentPages(end + page, data + kFaultedBytes), 0u);
  fillTo(v, kFirstPageBytes);
  end = reinterpret_cast<const char*>(v.data() + v.size());
  const uintptr_t firstWhole = (reinterpret_cast<uintptr_t>(end) + page - 1) & ~(page - 1);
  const uintptr_t lastWhole = (reinterpret_cast<uintptr_t>(data) + kFaultedBytes) & ~(page - 1);
  EXPECT_EQ(residentPages(end, data + kFaultedBytes), (lastWhole - firstWhole) / page);
  // And no further than that.
  EXPECT_EQ(residentPages(reinterpret_cast<const char*>(lastWhole + page), data + 4 * kFaultedBytes), 0u);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i);
}

// The same for a buffer filled front to back (StringStore's chunks).
TEST(Reserve, FillingAheadABufferStaysInsideIt) {
  std::vector<char> buffer(size_t{2} << 20);  // written whole: resident, but only its own pages
  std::span<char> rest(buffer);
  for (size_t i = 0; rest.size() >= 100; ++i) {
    std::fill(rest.begin(), rest.begin() + 100, static_cast<char>(i));
    rest = rest.subspan(100);
    fillAhead(rest, 100);  // never maps past the buffer's end
  }
  for (size_t i = 0; i + 100 <= buffer.size(); i += 100) ASSERT_EQ(buffer[i], static_cast<char>(i / 100)) << i;
}
#endif

}  // namespace
}  // namespace ptxdwarf
