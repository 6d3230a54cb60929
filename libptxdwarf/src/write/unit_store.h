// How a write::Unit stores what it is given, and what the encoder reads of
// it beyond the public API: attribute records, shapes, encoded DIEs, and a
// register run's DIEs synthesised from its first one. Internal to the
// library (the encoder, and tests through the library's source path).
#pragma once

#include <cstring>
#include <span>
#include <vector>

#include "ptxdwarf/write/unit.h"

namespace ptxdwarf::write {

// One attribute, 16 bytes: small strings and expressions (up to 8 bytes, no
// symbolic operands) are held in the record itself, larger ones in the
// unit's byte and string tables, so building a DIE allocates nothing of its
// own. A DIE's records are contiguous (Unit::put).
struct Unit::Record {
  uint32_t lo = 0, hi = 0;  // the value, or where it is kept
  uint16_t name = 0;
  uint16_t form = 0;
  Value::Kind kind = Value::Kind::unsigned_;
  uint8_t inlineSize = 0;  // string/expression bytes held in lo, hi (kOutside: kept outside)
  static constexpr uint8_t kOutside = 0xff;
};

struct Unit::StoredSymbol {
  uint32_t nameBegin = 0, nameSize = 0;
  int64_t addend = 0;
};

struct Unit::StoredBytes {
  uint32_t begin = 0, size = 0;             // in bytes_
  uint32_t fixupBegin = 0, fixupCount = 0;  // in fixups_
};

// Where an encoded DIE of a shape holds its references, when that needs no
// walk over its values: none, one at a fixed offset, or one at a fixed offset
// after a leading DW_FORM_string (a register variable's name).
struct ReferencePlan {
  enum Kind : uint8_t { walk, none, fixed, afterString } kind = walk;
  uint32_t offset = 0;
};

// How a DIE of a shape is measured: runs of fixed-size values, each followed
// by one value whose size its bytes tell (0: none), so that a run's DIEs are
// measured without a look at every value.
struct SizeStep {
  uint32_t fixed = 0;
  uint16_t variableForm = 0;
};

struct Unit::Shape {
  uint16_t tag = 0;
  std::vector<AttributeSpec> specs;
  ReferencePlan references;
  std::vector<SizeStep> sizeSteps;
};

struct Unit::RegisterRun {
  DieId die = kNoDie;
  uint32_t stemSize = 0;
  uint32_t locationAt = 0;  // where the first DIE's location block starts
  uint64_t stem = 0;        // packed
  uint64_t bytes = 0;       // of all its DIEs
};

struct UnitStore {
  static ReferencePlan referencePlanOf(std::span<const AttributeSpec> specs);
  static std::vector<SizeStep> sizeStepsOf(std::span<const AttributeSpec> specs);

  static ReferencePlan referencePlan(const Unit& u, uint32_t shape) { return u.shapes_[shape].references; }
  static std::span<const AttributeSpec> shapeSpecs(const Unit& u, uint32_t shape) { return u.shapes_.at(shape).specs; }
  // Attribute records held, all DIEs together (at least their attributes).
  static size_t attributeRecords(const Unit& u) { return u.records_.size(); }
  // Whether some DIE was added detached and never attached (the encoder
  // then checks that no encoded reference points at one).
  static bool hasDetachedDies(const Unit& u) { return u.detached_ != 0; }
  // Room for this many bytes of encoded DIEs.
  static void reserveEncoded(Unit& u, size_t bytes);
  // The size of the first encoded DIE of a shape in `bytes` (0 when they end
  // first): where the next DIE of a run starts.
  static size_t encodedDieSize(const Unit& u, uint32_t shape, std::span<const uint8_t> bytes);
  // The bytes the DIEs of an encoded record hold together (their codes apart).
  static uint64_t encodedRecordBytes(const Unit& u, DieId id);
  static const Unit::RegisterRun& registerRunOf(const Unit& u, DieId id);
  // Writes the DIEs of register run `id` back to back from `out`, each after
  // the first preceded by `code` (a ULEB), made from `first`: its first DIE's
  // bytes as encodedBytes gives them, or a copy with its references turned
  // into offsets, which all its DIEs then hold. Returns the bytes written,
  // SIZE_MAX when they would pass `room` (encodedRecordBytes(id) and count - 1
  // codes is enough).
  static size_t writeRegisterRun(const Unit& u, DieId id, std::span<const uint8_t> first, uint32_t code,
                                 uint8_t* out, size_t room);

  // Calls put(bytes) for each DIE of a register run made from `first`, in
  // order: the name's digits counted up in place, the packed name from them.
  template <class Put>
  static void makeRegisterRun(const Unit::RegisterRun& run, uint32_t count, std::span<const uint8_t> first,
                              Put&& put);

  // Calls f(bytes of one DIE) for each DIE of an encoded record, in order:
  // one, a run's, a register run's as they are made (`bytes` lives until f
  // returns).
  template <class F>
  static void forEachEncodedDie(const Unit& u, DieId id, F&& f) {
    const Die& d = u.die(id);
    const std::span<const uint8_t> all = u.encodedBytes(id);
    if (d.registerRun) {
      makeRegisterRun(registerRunOf(u, id), d.count, all, f);
      return;
    }
    size_t at = 0;
    for (uint32_t k = 0; k < d.count; ++k) {
      const size_t size = d.count == 1 ? all.size() : encodedDieSize(u, d.shape - 1, all.subspan(at));
      f(all.subspan(at, size));
      at += size;
    }
  }
};

template <class Put>
void UnitStore::makeRegisterRun(const Unit::RegisterRun& run, uint32_t count, std::span<const uint8_t> first,
                                 Put&& put) {
  // DIE k: the stem, k's digits and a NUL; the values up to the location as
  // the first DIE has them; the location (its size, DW_OP_regx, the packed
  // name as a ULEB); the values after it as the first DIE has them. The
  // parts that do not change are copied in blocks of fixed size (cheaper
  // than a copy of each one's size), from buffers with room for them.
  const size_t between = run.stemSize + 2, location = run.locationAt;
  const size_t after = location + 1 + size_t{first[location]};
  const size_t middleSize = location - between, tailSize = first.size() - after;
  uint8_t middle[64] = {}, tail[64] = {};  // addRegisterRun: a DIE of under 64 bytes
  std::memcpy(middle, first.data() + between, middleSize);
  std::memcpy(tail, first.data() + after, tailSize);
  uint8_t die[3 * 64];
  std::memcpy(die, first.data(), run.stemSize);
  uint8_t digits[10] = {'0'};
  size_t digitCount = 1;
  for (uint32_t k = 0; k < count; ++k) {
    size_t size = run.stemSize;
    uint64_t packed = run.stem;
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

}  // namespace ptxdwarf::write
