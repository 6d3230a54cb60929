// LEB128 and fixed-width little-endian reads over a bounded byte range.
// Every read checks its bounds; a failed read leaves the cursor's error flag set
// and returns 0, so decoders can read a whole record and test once.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace ptxdwarf {

class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(std::span<const uint8_t> data, uint64_t offset = 0) : data_(data), pos_(offset) {
    if (pos_ > data_.size()) fail();
  }

  uint64_t offset() const { return pos_; }
  void seek(uint64_t offset) {
    if (offset > data_.size()) fail(); else pos_ = offset;
  }
  uint64_t remaining() const { return pos_ <= data_.size() ? data_.size() - pos_ : 0; }
  bool ok() const { return !failed_; }
  // Why the first failed read failed: the data ended, or a LEB128 ran past 10 bytes / 64 bits.
  bool overlong() const { return overlong_; }
  bool atEnd() const { return pos_ >= data_.size(); }
  std::span<const uint8_t> data() const { return data_; }
  // Restricts reading to [.., end): later reads past `end` fail.
  void limit(uint64_t end) {
    if (end < data_.size()) data_ = data_.first(end);
  }

  uint8_t u8() { return static_cast<uint8_t>(fixed(1)); }
  uint16_t u16() { return static_cast<uint16_t>(fixed(2)); }
  uint32_t u32() { return static_cast<uint32_t>(fixed(4)); }
  uint64_t u64() { return fixed(8); }
  // 1, 2, 4 or 8 bytes, little-endian.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
// GCC 12 warns of reads past a small constant buffer on paths where the
// width is more than remains, which the first line of fixed() returns from.
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
  uint64_t fixed(unsigned size) {
    if (failed_ || size > remaining()) return fail();
    const uint8_t* p = data_.data() + pos_;
    pos_ += size;
    switch (size) {  // one load each (the decode reads hundreds of thousands of values)
      case 1: return p[0];
      case 2: return load16(p);
      case 4: return load32(p);
      case 8: return load64(p);
      default: break;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < size; ++i) v |= uint64_t{p[i]} << (8 * i);
    return v;
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  // At most 10 bytes; bits beyond 64 must be zero (sign bits for sleb).
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; ++i) {
      if (failed_ || pos_ >= data_.size()) return fail();
      uint8_t b = data_[pos_++];
      uint64_t bits = b & 0x7f;
      if (i == 9 && bits > 1) return failOverlong();
      v |= bits << (7 * i);
      if (!(b & 0x80)) return v;
    }
    return failOverlong();
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    for (unsigned i = 0; i < 10; ++i) {
      if (failed_ || pos_ >= data_.size()) return static_cast<int64_t>(fail());
      uint8_t b = data_[pos_++];
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      shift += 7;
      if (!(b & 0x80)) {
        if (shift < 64 && (b & 0x40)) v |= ~uint64_t{0} << shift;
        return static_cast<int64_t>(v);
      }
    }
    return static_cast<int64_t>(failOverlong());
  }
  // NUL-terminated string; the view excludes the terminator.
  std::string_view cstring() {
    if (failed_ || pos_ >= data_.size()) {
      fail();
      return {};
    }
    // memchr, not a loop a byte a step: the rules skip every DW_FORM_string
    // name again (420,000 in a check of a 20 MB nvcc -G file, mangled names
    // of tens of characters among them).
    const uint8_t* at = data_.data() + pos_;
    const void* nul = std::memchr(at, 0, static_cast<size_t>(data_.size() - pos_));
    if (!nul) {
      fail();
      return {};
    }
    const size_t length = static_cast<size_t>(static_cast<const uint8_t*>(nul) - at);
    pos_ += length + 1;
    return {reinterpret_cast<const char*>(at), length};
  }
  std::span<const uint8_t> bytes(uint64_t n) {
    if (failed_ || n > remaining()) {
      fail();
      return {};
    }
    auto s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  void skip(uint64_t n) {
    if (n > remaining()) fail(); else pos_ += n;
  }

 private:
  // Spelled out byte by byte, which compilers merge into one load where the
  // machine is little-endian (a loop they leave as a loop).
  static uint64_t load16(const uint8_t* p) { return uint64_t{p[0]} | uint64_t{p[1]} << 8; }
  static uint64_t load32(const uint8_t* p) { return load16(p) | load16(p + 2) << 16; }
  static uint64_t load64(const uint8_t* p) { return load32(p) | load32(p + 4) << 32; }
  uint64_t fail() {
    failed_ = true;
    return 0;
  }
  uint64_t failOverlong() {
    if (!failed_) overlong_ = true;
    return fail();
  }
  std::span<const uint8_t> data_;
  uint64_t pos_ = 0;
  bool failed_ = false;
  bool overlong_ = false;
};

// Number of bytes of the ULEB128 encoding of v.
inline unsigned ulebSize(uint64_t v) {
  unsigned n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline unsigned slebSize(int64_t v) {
  unsigned n = 1;
  for (;;) {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) return n;
    ++n;
  }
}

// Hands the bytes of v's ULEB128 / SLEB128 encoding to put(uint8_t), in
// order: one encoder for every writer, whatever it writes into.
template <class Put>
void encodeUleb(uint64_t v, Put&& put) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    put(static_cast<uint8_t>(v ? (b | 0x80) : b));
  } while (v);
}
template <class Put>
void encodeSleb(int64_t v, Put&& put) {
  for (;;) {
    uint8_t b = v & 0x7f;
    v >>= 7;
    const bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
    put(static_cast<uint8_t>(done ? b : (b | 0x80)));
    if (done) return;
  }
}

// Appends `v` as `size` little-endian bytes. Fields wider than eight bytes
// (a 16-byte address pair of a damaged header) get zeros past the eighth.
inline void appendLittleEndian(std::vector<uint8_t>& out, uint64_t v, unsigned size) {
  for (unsigned i = 0; i < size; ++i) out.push_back(i < 8 ? static_cast<uint8_t>(v >> (8 * i)) : 0);
}
// Overwrites `out` with `v`, little-endian, likewise zero past the eighth byte.
inline void storeLittleEndian(std::span<uint8_t> out, uint64_t v) {
  // The usual widths spelled out, which compilers merge into one store.
  auto put = [&](size_t i) { out[i] = static_cast<uint8_t>(v >> (8 * i)); };
  switch (out.size()) {
    case 1: put(0); return;
    case 2: put(0), put(1); return;
    case 4: put(0), put(1), put(2), put(3); return;
    case 8: put(0), put(1), put(2), put(3), put(4), put(5), put(6), put(7); return;
    default: break;
  }
  for (size_t i = 0; i < out.size(); ++i) out[i] = i < 8 ? static_cast<uint8_t>(v >> (8 * i)) : 0;
}

}  // namespace ptxdwarf
