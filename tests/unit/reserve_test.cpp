// The library's memory helpers (libptxdwarf/src/reserve.h): advice to the
// kernel must never change what a vector holds.
#include "reserve.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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
  prefault(bytes.data(), 100);  // below the size worth a call
  for (size_t i = 0; i < bytes.size(); ++i) ASSERT_EQ(bytes[i], static_cast<uint8_t>(i * 13 + 1)) << i;
}

}  // namespace
}  // namespace ptxdwarf
