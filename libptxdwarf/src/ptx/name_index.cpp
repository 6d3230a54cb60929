#include "name_index.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <random>

#include "../reserve.h"

namespace ptxdwarf::ptx {
namespace {

// A keyed hash: 8 bytes at a time through a 64x64->128-bit multiply (the
// wyhash construction), keyed by a secret drawn once per process. Names come
// from the input, and an unkeyed hash (FNV-1a, as before) lets a file of
// chosen names put them all in one probe chain: 80k of them took 100x as
// long as 80k ordinary names. Without the key, collisions cannot be chosen.
uint64_t mix(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

const std::array<uint64_t, 2>& hashKey() {
  static const std::array<uint64_t, 2> key = [] {
    std::random_device device;
    auto draw = [&] { return (static_cast<uint64_t>(device()) << 32) ^ device(); };
    return std::array<uint64_t, 2>{draw() | 1, draw() | 1};
  }();
  return key;
}

uint32_t hashName(std::string_view name) {
  const auto& key = hashKey();
  uint64_t h = key[0] ^ name.size();
  size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, name.data() + i, 8);
    h = mix(h ^ word, key[1]);
  }
  // The last 1-7 bytes in at most two loads of a size the compiler knows (a
  // memcpy of the remaining length is a library call, once for every name).
  // With the length in `h`, what they load tells every byte: two 4-byte
  // loads that overlap, or the first, middle and last byte of three or fewer.
  const size_t rest = name.size() - i;
  const char* p = name.data() + i;
  uint64_t tail = 0;
  if (rest >= 4) {
    uint32_t first, last;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + rest - 4, 4);
    tail = first | uint64_t{last} << 32;
  } else if (rest > 0) {
    tail = uint64_t{static_cast<uint8_t>(p[0])} | uint64_t{static_cast<uint8_t>(p[rest / 2])} << 8 |
           uint64_t{static_cast<uint8_t>(p[rest - 1])} << 16;
  }
  h = mix(h ^ tail, key[1]);
  h = mix(h ^ key[0], key[1] ^ 0x9e3779b97f4a7c15ull);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// The slot a name's probe starts at: the hash scaled to the table's size
// (multiply and shift: any size, no division).
size_t homeSlot(uint32_t hash, size_t slots) { return static_cast<size_t>((uint64_t{hash} * slots) >> 32); }
// Linear probing, wrapping at the end.
size_t nextSlot(size_t i, size_t slots) { return i + 1 == slots ? 0 : i + 1; }

}  // namespace

NameIndex::Key NameIndex::key(std::string_view name) { return {name, hashName(name)}; }

NameIndex::NameIndex(const Module& m) {
  size_t count = m.labels.size() + m.functions.size() + m.variables.size() + m.parameters.size() + m.sections.size();
  for (const SectionImage& s : m.sections) count += s.labels.size();
  // At most three quarters full (less where names repeat: a chain takes one
  // slot): a lookup probes a few slots. Any size, not a power of two (a
  // name's first slot is homeSlot's multiply-shift of its hash).
  slots_.assign(std::max<size_t>(16, count + count / 3 + 1), Slot{});
  // Names defined more than once (every call's `param0` in nvcc -G code) are
  // chained: at most one definition each, filled in place.
  reserveUpTo(definitions_, count);
  // Each name goes in kAhead names after it is hashed, in the same order:
  // the slot it goes to, a cache miss in a table of megabytes, is fetched
  // while the names before it go in.
  constexpr size_t kAhead = 8;
  std::array<Pending, kAhead> ahead;
  size_t hashed = 0;
  auto define = [&](std::string_view name, Kind kind, uint32_t index, uint32_t sub = 0, uint8_t declaration = 0) {
    Pending& next = ahead[hashed++ % kAhead];
    if (hashed > kAhead) insert(m, next);
    next = {name, hashName(name), kind, declaration, index, sub};
    __builtin_prefetch(&slots_[homeSlot(next.hash, slots_.size())]);
  };
  for (uint32_t i = 0; i < m.variables.size(); ++i)
    if (m.variables[i].function < 0) define(m.variables[i].name, Kind::variable, i, 0, kModuleVariableDeclared);
  for (uint32_t i = 0; i < m.functions.size(); ++i) {
    const Function& f = m.functions[i];
    define(f.name, Kind::function, i, 0, f.hasBody ? 0 : kFunctionDeclared);
    for (uint32_t p = f.firstParam; p < f.endParam; ++p) define(m.parameters[p].name, Kind::parameter, p);
    for (uint32_t p = f.firstReturn; p < f.firstParam; ++p) define(m.parameters[p].name, Kind::returnValue, p);
  }
  for (uint32_t i = 0; i < m.variables.size(); ++i)
    if (m.variables[i].function >= 0) define(m.variables[i].name, Kind::variable, i);
  for (uint32_t i = 0; i < m.labels.size(); ++i) define(m.labels[i].name, Kind::label, i);
  for (uint32_t i = 0; i < m.sections.size(); ++i) {
    define(m.sections[i].name, Kind::section, i);
    for (uint32_t l = 0; l < m.sections[i].labels.size(); ++l)
      define(m.sections[i].labels[l].name, Kind::sectionLabel, i, l);
  }
  for (size_t i = hashed > kAhead ? hashed - kAhead : 0; i < hashed; ++i) insert(m, ahead[i % kAhead]);
}

void NameIndex::insert(const Module& m, const Pending& p) {
  for (size_t i = homeSlot(p.hash, slots_.size());; i = nextSlot(i, slots_.size())) {
    work::step(work::nameIndexProbe);
    Slot& slot = slots_[i];
    if (slot.ref == kNone) {
      // A name's first definition goes in its slot, packed, where it can.
      const bool packable = p.sub == 0 && p.index <= kIndexMask && p.kind != Kind::sectionLabel;
      slot = {p.hash, packable ? static_cast<uint32_t>(p.kind) << kIndexBits | p.index : chain(p)};
      return;
    }
    if (slot.hash == p.hash && isNamed(m, slot.ref, p.name)) return append(m, slot, p);
  }
}

uint32_t NameIndex::chain(const Pending& p) {
  const auto id = static_cast<uint32_t>(definitions_.size());
  definitions_.push_back({p.kind, p.declaration, p.index, p.sub, kNone, id});
  return kChained | id;
}

// A declaration (a function without a body, a module-scope variable) after
// a first one of the same kind and name answers no lookup: the lookups
// return the first. It stays out of the chain, so that a file of many
// duplicate `.extern` declarations does not make each lookup walk them all.
void NameIndex::append(const Module& m, Slot& slot, const Pending& p) {
  if (!(slot.ref & kChained)) {
    const auto kind = static_cast<Kind>(slot.ref >> kIndexBits);
    const uint32_t index = slot.ref & kIndexMask;
    uint8_t declared = 0;
    if (kind == Kind::function && !m.functions[index].hasBody) declared = kFunctionDeclared;
    if (kind == Kind::variable && m.variables[index].function < 0) declared = kModuleVariableDeclared;
    slot.ref = chain({{}, 0, kind, declared, index, 0});
  }
  const uint32_t head = slot.ref & ~kChained;
  if (p.declaration & definitions_[head].declared) return;
  definitions_[head].declared |= p.declaration;
  const auto id = static_cast<uint32_t>(definitions_.size());
  definitions_.push_back({p.kind, 0, p.index, p.sub, kNone, kNone});
  definitions_[definitions_[head].last].next = id;  // chains keep file order
  definitions_[head].last = id;
}

bool NameIndex::isNamed(const Module& m, Kind kind, uint32_t index, uint32_t sub, std::string_view name) {
  switch (kind) {
    case Kind::function: return m.functions[index].name == name;
    case Kind::parameter:
    case Kind::returnValue: return m.parameters[index].name == name;
    case Kind::variable: return m.variables[index].name == name;
    case Kind::label: return m.labels[index].name == name;
    case Kind::section: return m.sections[index].name == name;
    case Kind::sectionLabel: return m.sections[index].labels[sub].name == name;
  }
  return false;
}

bool NameIndex::isNamed(const Module& m, uint32_t ref, std::string_view name) const {
  if (ref & kChained) {
    const Definition& d = definitions_[ref & ~kChained];
    return isNamed(m, d.kind, d.index, d.sub, name);
  }
  return isNamed(m, static_cast<Kind>(ref >> kIndexBits), ref & kIndexMask, 0, name);
}

const NameIndex::Slot* NameIndex::slotOf(const Module& m, const Key& key) const {
  for (size_t i = homeSlot(key.hash, slots_.size());; i = nextSlot(i, slots_.size())) {
    work::step(work::nameIndexProbe);
    const Slot& slot = slots_[i];
    if (slot.ref == kNone) return nullptr;
    if (slot.hash == key.hash && isNamed(m, slot.ref, key.name)) return &slot;
  }
}

}  // namespace ptxdwarf::ptx
