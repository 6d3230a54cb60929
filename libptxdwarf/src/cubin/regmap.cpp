#include "ptxdwarf/cubin/regmap.h"

#include <cstring>

#include "../work.h"
#include "ptxdwarf/format.h"

namespace ptxdwarf::cubin {

namespace {

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  uint64_t at() const { return at_; }
  bool done() const { return at_ >= bytes_.size(); }
  std::optional<uint32_t> u32() {
    if (bytes_.size() - at_ < 4) return std::nullopt;
    uint32_t v = 0;
    for (unsigned i = 0; i < 4; ++i) v |= uint32_t{bytes_[at_ + i]} << (8 * i);
    at_ += 4;
    return v;
  }
  std::optional<std::string_view> cstring() {
    if (at_ >= bytes_.size()) return std::nullopt;
    const void* nul = std::memchr(bytes_.data() + at_, 0, bytes_.size() - at_);
    if (!nul) return std::nullopt;
    const size_t n = static_cast<const uint8_t*>(nul) - (bytes_.data() + at_);
    std::string_view s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n + 1;
    return s;
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t at_ = 0;
};

std::string registerName(std::string_view prefix, uint32_t n, std::string_view zero) {
  if (n == 255 && !zero.empty()) return std::string(zero);
  return std::string(prefix) + std::to_string(n);
}

}  // namespace

size_t RegMap::entryCount() const {
  size_t n = 0;
  for (const RegMapFunction& f : functions) n += f.entries.size();
  return n;
}

RegMap decodeRegMap(std::span<const uint8_t> bytes) {
  RegMap map;
  Reader r(bytes);
  while (!r.done()) {
    RegMapFunction f;
    f.offset = r.at();
    std::optional<std::string_view> name = r.cstring();
    if (!name) {
      map.problem = "function name at " + hex(f.offset) + " has no terminating NUL";
      return map;
    }
    f.name = *name;
    std::optional<uint32_t> count = r.u32();
    if (!count) {
      map.problem = "function " + std::string(f.name) + ": its entry count at " + hex(r.at()) +
                    " runs past the section's end";
      return map;
    }
    f.declaredCount = *count;
    // Each entry takes at least 14 bytes: a count the section cannot hold is
    // not believed (no reserve of billions).
    f.entries.reserve(std::min<uint64_t>(*count, (bytes.size() - r.at()) / 14));
    for (uint32_t i = 0; i < *count; ++i) {
      work::step(work::regmapScan);
      RegMapEntry e;
      e.offset = r.at();
      std::optional<uint32_t> piece = r.u32();
      std::optional<std::string_view> reg = piece ? r.cstring() : std::nullopt;
      std::optional<uint32_t> loc = reg ? r.u32() : std::nullopt;
      std::optional<uint32_t> start = loc ? r.u32() : std::nullopt;
      std::optional<uint32_t> end = start ? r.u32() : std::nullopt;
      if (!end) {
        map.problem = "function " + std::string(f.name) + ": entry " + std::to_string(i) + " of " +
                      std::to_string(*count) + " at " + hex(e.offset) + " runs past the section's end" +
                      (piece && !reg ? " (a register name with no terminating NUL)" : "");
        map.functions.push_back(std::move(f));
        return map;
      }
      e.piece = *piece;
      e.reg = *reg;
      e.location = *loc;
      e.start = *start;
      e.end = *end;
      f.entries.push_back(e);
    }
    map.functions.push_back(std::move(f));
  }
  return map;
}

std::string sassLocation(uint32_t location) {
  const uint32_t payload = location & 0xffffff;
  switch (static_cast<RegClass>(location >> 24)) {
    case RegClass::cc:
      return "CC";
    case RegClass::predicate:
      return "P" + std::to_string(payload);
    case RegClass::address:
      return "A" + std::to_string(payload);
    case RegClass::half:
      return registerName("R", payload / 2, "") + (payload & 1 ? ".hi" : ".lo");
    case RegClass::full:
      return registerName("R", payload, "RZ");
    case RegClass::localMemory:
      return "[local+" + hex(payload) + "]";
    case RegClass::spOffset:
      return "[R" + std::to_string((payload >> 16) & 0xff) + "+" + hex(payload & 0xffff) + "]";
    case RegClass::uniformPredicate:
      return "UP" + std::to_string(payload);
    case RegClass::uniformHalf:
      return registerName("UR", payload / 2, "") + (payload & 1 ? ".hi" : ".lo");
    case RegClass::uniformFull:
      return registerName("UR", payload, "URZ");
    case RegClass::spilled:
      return "spilled " + hex(payload);
    default:
      return "class " + std::to_string(location >> 24) + " " + hex(payload);
  }
}

std::string_view className(uint8_t classCode) {
  switch (static_cast<RegClass>(classCode)) {
    case RegClass::cc: return "cc";
    case RegClass::predicate: return "predicate";
    case RegClass::address: return "address";
    case RegClass::half: return "half";
    case RegClass::full: return "full";
    case RegClass::localMemory: return "local";
    case RegClass::spOffset: return "sp_offset";
    case RegClass::uniformPredicate: return "uniform_predicate";
    case RegClass::uniformHalf: return "uniform_half";
    case RegClass::uniformFull: return "uniform";
    case RegClass::spilled: return "spilled";
    default: return "unknown";
  }
}

}  // namespace ptxdwarf::cubin
