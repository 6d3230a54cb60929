// The DIE bytes of encoded records, made as the encoder writes them: a
// register run's DIEs synthesised from its first one. Internal to the
// library (the encoder, and tests through the library's source path).
#pragma once

#include <cstring>
#include <span>

#include "ptxdwarf/write/unit.h"

namespace ptxdwarf::write {

template <class Put>
void Unit::makeRegisterRun(const RegisterRun& r, uint32_t count, std::span<const uint8_t> first, Put&& put) {
  // DIE k: the stem, k's digits and a NUL; the values up to the location as
  // the first DIE has them; the location (its size, DW_OP_regx, the packed
  // name as a ULEB); the values after it as the first DIE has them. The
  // parts that do not change are copied in blocks of fixed size (cheaper
  // than a copy of each one's size), from buffers with room for them.
  const size_t between = r.stemSize + 2, location = r.locationAt;
  const size_t after = location + 1 + size_t{first[location]};
  const size_t middleSize = location - between, tailSize = first.size() - after;
  uint8_t middle[64] = {}, tail[64] = {};  // addRegisterRun: a DIE of under 64 bytes
  std::memcpy(middle, first.data() + between, middleSize);
  std::memcpy(tail, first.data() + after, tailSize);
  uint8_t die[3 * 64];
  std::memcpy(die, first.data(), r.stemSize);
  uint8_t digits[10] = {'0'};
  size_t digitCount = 1;
  for (uint32_t k = 0; k < count; ++k) {
    size_t size = r.stemSize;
    uint64_t packed = r.stem;
    for (size_t i = 0; i < digitCount; ++i) {
      die[size++] = digits[i];
      packed = packed << 8 | digits[i];
    }
    die[size++] = 0;
    std::memcpy(die + size, middle, sizeof middle);
    size += middleSize;
    const size_t lengthAt = size++;
    die[size++] = 0x90;  // DW_OP_regx
    do {
      const uint8_t low = packed & 0x7f;
      packed >>= 7;
      die[size++] = packed ? (low | 0x80) : low;
    } while (packed);
    die[lengthAt] = static_cast<uint8_t>(size - lengthAt - 1);
    std::memcpy(die + size, tail, sizeof tail);
    size += tailSize;
    put(std::span<const uint8_t>(die, size));
    size_t i = digitCount;  // k + 1
    while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
    if (i > 0) {
      ++digits[i - 1];
    } else {
      std::memmove(digits + 1, digits, digitCount++);
      digits[0] = '1';
    }
  }
}

template <class F>
void Unit::forEachEncodedDie(DieId id, F&& f) const {
  const Die& d = die(id);
  const std::span<const uint8_t> all = encodedBytes(id);
  if (d.registerRun) {
    makeRegisterRun(registerRunOf(id), d.count, all, f);
    return;
  }
  size_t at = 0;
  for (uint32_t k = 0; k < d.count; ++k) {
    const size_t size = d.count == 1 ? all.size() : encodedDieSize(d.shape - 1, all.subspan(at));
    f(all.subspan(at, size));
    at += size;
  }
}

}  // namespace ptxdwarf::write
