#include <gtest/gtest.h>

#include <vector>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/leb128.h"

using ptxdwarf::ByteReader;

TEST(Leb128, UnsignedValues) {
  std::vector<uint8_t> b = {0x02, 0x7f, 0x80, 0x01, 0xe5, 0x8e, 0x26, 0xb1, 0xe4, 0x95, 0x01};
  ByteReader r(b);
  EXPECT_EQ(r.uleb(), 2u);
  EXPECT_EQ(r.uleb(), 127u);
  EXPECT_EQ(r.uleb(), 128u);
  EXPECT_EQ(r.uleb(), 624485u);
  EXPECT_EQ(r.uleb(), 0x257231u);  // "%r1" packed
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.atEnd());
}

TEST(Leb128, SignedValues) {
  std::vector<uint8_t> b = {0x02, 0x7e, 0xff, 0x00, 0x81, 0x7f, 0x80, 0x7f, 0x70};
  ByteReader r(b);
  EXPECT_EQ(r.sleb(), 2);
  EXPECT_EQ(r.sleb(), -2);
  EXPECT_EQ(r.sleb(), 127);
  EXPECT_EQ(r.sleb(), -127);
  EXPECT_EQ(r.sleb(), -128);
  EXPECT_EQ(r.sleb(), -16);
  EXPECT_TRUE(r.ok());
}

TEST(Leb128, MaximumAndOverlong) {
  std::vector<uint8_t> max = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  ByteReader r(max);
  EXPECT_EQ(r.uleb(), UINT64_MAX);
  EXPECT_TRUE(r.ok());
  // 11 bytes, or a 10th byte with bits beyond 64: rejected, not wrapped.
  std::vector<uint8_t> eleven(10, 0x80);
  eleven.push_back(0);
  ByteReader r2(eleven);
  r2.uleb();
  EXPECT_FALSE(r2.ok());
  std::vector<uint8_t> wide = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  ByteReader r3(wide);
  r3.uleb();
  EXPECT_FALSE(r3.ok());
}

TEST(Leb128, TruncatedReadsFailWithoutReadingPastTheEnd) {
  std::vector<uint8_t> b = {0x80, 0x80};
  ByteReader r(b);
  EXPECT_EQ(r.uleb(), 0u);
  EXPECT_FALSE(r.ok());
  ByteReader r2(b);
  r2.u32();
  EXPECT_FALSE(r2.ok());
  std::vector<uint8_t> s = {'a', 'b'};
  ByteReader r3(s);
  EXPECT_EQ(r3.cstring(), "");
  EXPECT_FALSE(r3.ok());
}

TEST(Leb128, CStringsEndAtTheirNulAndNotPastTheLimit) {
  const std::vector<uint8_t> b = {'a', 'b', 0, 0, 'c', 0, 'd', 'e', 'f', 0};
  ByteReader r(b);
  EXPECT_EQ(r.cstring(), "ab");
  EXPECT_EQ(r.cstring(), "");
  EXPECT_EQ(r.cstring(), "c");
  EXPECT_EQ(r.offset(), 6u);
  EXPECT_EQ(r.cstring(), "def");
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.atEnd());
  EXPECT_EQ(r.cstring(), "");  // nothing left
  EXPECT_FALSE(r.ok());
  ByteReader limited(b, 6);
  limited.limit(8);  // the NUL at 9 lies past the limit
  EXPECT_EQ(limited.cstring(), "");
  EXPECT_FALSE(limited.ok());
  EXPECT_EQ(limited.cstring(), "");  // a failed reader stays failed
}

TEST(Leb128, FixedWidthReadsAreLittleEndianAtEveryWidth) {
  const std::vector<uint8_t> b = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x10};
  for (unsigned width = 1; width <= 8; ++width) {
    for (size_t at = 0; at + width <= b.size(); ++at) {
      uint64_t expected = 0;
      for (unsigned i = 0; i < width; ++i) expected |= uint64_t{b[at + i]} << (8 * i);
      ByteReader r(b, at);
      EXPECT_EQ(r.fixed(width), expected) << "width " << width << " at " << at;
      EXPECT_TRUE(r.ok());
      EXPECT_EQ(r.offset(), at + width);
    }
    ByteReader past(b, b.size() - width + 1);  // one byte short
    EXPECT_EQ(past.fixed(width), 0u);
    EXPECT_FALSE(past.ok());
  }
}

TEST(Leb128, EncodedSizes) {
  EXPECT_EQ(ptxdwarf::ulebSize(0), 1u);
  EXPECT_EQ(ptxdwarf::ulebSize(127), 1u);
  EXPECT_EQ(ptxdwarf::ulebSize(128), 2u);
  EXPECT_EQ(ptxdwarf::ulebSize(0x257231), 4u);
  EXPECT_EQ(ptxdwarf::ulebSize(UINT64_MAX), 10u);
  EXPECT_EQ(ptxdwarf::slebSize(-1), 1u);
  EXPECT_EQ(ptxdwarf::slebSize(63), 1u);
  EXPECT_EQ(ptxdwarf::slebSize(64), 2u);
  EXPECT_EQ(ptxdwarf::slebSize(-65), 2u);
}

TEST(Leb128, AppendLittleEndianPadsPastEightBytes) {
  std::vector<uint8_t> out;
  ptxdwarf::appendLittleEndian(out, 0x0102, 2);
  ptxdwarf::appendLittleEndian(out, 0x0807060504030201, 10);  // a damaged 10-byte field
  EXPECT_EQ(out, (std::vector<uint8_t>{2, 1, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0}));
}

TEST(Leb128, StoreLittleEndianAtEveryWidth) {
  const uint64_t v = 0x0123456789abcdefull;
  for (size_t width = 0; width <= 12; ++width) {
    std::vector<uint8_t> out(width + 2, 0xee);  // a guard byte each side
    ptxdwarf::storeLittleEndian(std::span(out).subspan(1, width), v);
    EXPECT_EQ(out.front(), 0xee) << width;
    EXPECT_EQ(out.back(), 0xee) << width;
    for (size_t i = 0; i < width; ++i)
      EXPECT_EQ(out[1 + i], i < 8 ? static_cast<uint8_t>(v >> (8 * i)) : 0) << "width " << width << " byte " << i;
  }
}

TEST(CudaRegisters, PackAndUnpack) {
  using namespace ptxdwarf::cuda;
  EXPECT_EQ(packRegister("%r1"), 0x257231u);
  EXPECT_EQ(packRegister("%rd10"), 0x2572643130u);
  EXPECT_EQ(packRegister("r1"), std::nullopt);         // no leading %
  EXPECT_EQ(packRegister("%abcdefgh"), std::nullopt);  // 9 bytes
  EXPECT_EQ(unpackRegister(0x257231), "%r1");
  EXPECT_EQ(unpackRegister(0x25723135), "%r15");
  EXPECT_EQ(unpackRegister(5), std::nullopt);
  // The by-value form: the same answers, 8 bytes at most.
  EXPECT_EQ(unpackRegisterName(0x257231)->view(), "%r1");
  EXPECT_EQ(unpackRegisterName(0x2566643132333435)->view(), "%fd12345");  // all 8 bytes
  EXPECT_EQ(unpackRegisterName(0x25), std::nullopt);        // '%' alone
  EXPECT_EQ(unpackRegisterName(0x257200), std::nullopt);    // a zero byte inside
  EXPECT_EQ(unpackRegisterName(0x7231), std::nullopt);      // no leading '%'
  EXPECT_EQ(unpackRegisterName(5), std::nullopt);
  EXPECT_EQ(unpackRegisterName(0), std::nullopt);
  EXPECT_EQ(unpackRegisterName(0x25723100), std::nullopt);  // a zero byte last
  EXPECT_EQ(unpackRegisterName(0x252d31), std::nullopt);    // '-' is no name character
  EXPECT_EQ(unpackRegisterName(0x2524)->view(), "%$");
  EXPECT_EQ(addressClassName(2), "ADDR_reg_space");
  EXPECT_EQ(addressClassName(12), "ADDR_generic_space");
  EXPECT_EQ(addressClassName(13), "");
}
