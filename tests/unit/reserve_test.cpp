// The library's memory helpers (libptxdwarf/src/reserve.h): advice to the
// kernel must never change what a vector holds.
#include "reserve.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// A reservation filled through fillAhead holds what was pushed, and nothing
// past a step beyond its end is mapped in: the reservation (64 MB here, as
// the reader makes them for the most a text could hold) costs its contents.
TEST(Reserve, FillingAheadMapsAtMostAStepPastTheEnd) {
  std::vector<uint64_t> v;
  reserveUpTo(v, size_t{8} << 20);
  ASSERT_GE(v.capacity(), size_t{8} << 20);
  const uint64_t* data = v.data();
  const size_t items = (size_t{3} << 20) / sizeof(uint64_t) + 17;  // 3 MB and a bit
  for (size_t i = 0; i < items; ++i) {
    v.push_back(i * 7);
    fillAhead(v);
  }
  EXPECT_EQ(v.data(), data);
  for (size_t i = 0; i < items; i += 997) ASSERT_EQ(v[i], i * 7) << i;
  const char* end = reinterpret_cast<const char*>(v.data() + v.size());
  const char* limit = reinterpret_cast<const char*>(v.data() + v.capacity());
  // Past two steps, and past a huge page for kernels that give them unasked.
  EXPECT_EQ(residentPages(end + 2 * kFillStep + (size_t{2} << 20), limit), 0u);
}

// A vector is left to faults while it is small; once it holds
// kFaultedBytes, the rest of its step and the next are mapped in at once.
TEST(Reserve, FillingAheadMapsTheFirstStepOnceAVectorIsNoLongerSmall) {
  std::vector<uint64_t> v;
  reserveUpTo(v, size_t{8} << 20);
  const uintptr_t step = kFillStep;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  fillTo(v, kFaultedBytes - sizeof(uint64_t));
  const char* end = reinterpret_cast<const char*>(v.data() + v.size());
  const uintptr_t stepEnd = (reinterpret_cast<uintptr_t>(end) & ~(step - 1)) + step;
  // Not mapped ahead yet, unless the vector's start lay in the step before
  // (entering this step mapped the next one, as it always does).
  if ((reinterpret_cast<uintptr_t>(v.data()) & ~(step - 1)) + step > reinterpret_cast<uintptr_t>(end)) {
    EXPECT_EQ(residentPages(end + 2 * page, reinterpret_cast<const char*>(stepEnd)), 0u);
  }
  fillTo(v, kFaultedBytes + sizeof(uint64_t));
  end = reinterpret_cast<const char*>(v.data() + v.size());
  const char* through = reinterpret_cast<const char*>((reinterpret_cast<uintptr_t>(end) & ~(step - 1)) + 2 * step);
  const uintptr_t firstWhole = (reinterpret_cast<uintptr_t>(end) + page - 1) & ~(page - 1);
  EXPECT_EQ(residentPages(end, through), (reinterpret_cast<uintptr_t>(through) - firstWhole) / page);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i);
}

// A vector that reaches its first page has the rest of its first
// kFaultedBytes mapped in with a call; before that, nothing ahead of it.
TEST(Reserve, FillingAheadMapsTheFirstSixteenKilobytesAtTheFirstPage) {
  // A reservation whose first 64 KB lie in one step: entering the next
  // step maps the one after it, which this test must not mistake for the
  // first page's mapping. (Each reservation is its own mapping, a page or
  // so further on than the last: one of the first few is placed so. 64 MB,
  // past glibc's largest mmap threshold: a smaller one may come from heap
  // pages an earlier test left resident.)
  std::vector<std::vector<uint64_t>> tried;
  auto wellPlaced = [](const std::vector<uint64_t>& v) {
    return (reinterpret_cast<uintptr_t>(v.data()) & (kFillStep - 1)) + 4 * kFaultedBytes <= kFillStep;
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
