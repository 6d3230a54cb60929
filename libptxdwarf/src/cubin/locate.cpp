#include "ptxdwarf/cubin/locate.h"

#include <algorithm>

#include "ptxdwarf/format.h"

namespace ptxdwarf::cubin {

namespace {

// cuda-gdb keeps the low two bits of the piece field (which 32-bit part).
uint32_t pieceOf(const RegMapEntry& e) { return e.piece & 3; }

bool isFull(const RegMapEntry& e) {
  const auto c = static_cast<RegClass>(e.classCode());
  return c == RegClass::full || c == RegClass::uniformFull;
}

// cuda-gdb's extension of an entry's range for `set cuda value_extrapolation
// on` (regmap_extend_liverange): up to where the next entry of the same
// register starts, or to the function's last mapped address when none
// does; not at all when an entry of it that starts before this one's end
// ends after it. `entries` are the register's, in map order.
uint32_t extendedEnd(const RegMapEntry& e, const std::vector<const RegMapEntry*>& entries, uint32_t lastEnd) {
  uint32_t extended = lastEnd;
  for (const RegMapEntry* other : entries) {
    if (other == &e) continue;
    if (other->start >= e.end) extended = std::min(extended, other->start);
    else if (other->end > e.end) return e.end;
  }
  return std::max(extended, e.end);
}

}  // namespace

const RegMapFunction* findRegMapFunction(const RegMap& map, std::string_view function) {
  for (const RegMapFunction& f : map.functions)
    if (f.name == function) return &f;
  return nullptr;
}

RegisterAt locateRegister(const RegMapFunction* function, std::string_view reg, uint64_t pc, bool extrapolate) {
  RegisterAt at;
  if (!function) {
    at.reason = "the register map has no record of the function";
    return at;
  }
  std::vector<const RegMapEntry*> named, covering;
  uint32_t highestPiece = 0, lastEnd = 0;
  for (const RegMapEntry& e : function->entries) {
    if (!e.usableByCudaGdb()) continue;
    lastEnd = std::max(lastEnd, e.end);
    if (e.reg != reg) continue;
    named.push_back(&e);
    highestPiece = std::max(highestPiece, pieceOf(e));
  }
  for (const RegMapEntry* e : named) {
    const uint32_t end = extrapolate ? extendedEnd(*e, named, lastEnd) : e->end;
    if (pc >= e->start && pc <= end && pieceOf(*e) <= 1) covering.push_back(e);
  }
  if (named.empty()) {
    at.reason = "no entry of the register map names " + std::string(reg);
    return at;
  }
  if (covering.empty()) {
    at.reason = "no register map entry of " + std::string(reg) + " covers +" + hex(pc);
    return at;
  }
  std::stable_sort(covering.begin(), covering.end(),
                   [](const RegMapEntry* a, const RegMapEntry* b) { return pieceOf(*a) < pieceOf(*b); });
  const bool single = covering.size() == 1 && isFull(*covering.front());
  for (uint32_t piece = 0; !single && piece <= highestPiece; ++piece) {
    const bool present = std::any_of(covering.begin(), covering.end(),
                                     [&](const RegMapEntry* e) { return pieceOf(*e) == piece; });
    if (!present) {
      at.reason = "piece " + std::to_string(piece) + " of " + std::string(reg) + " is in no register at +" +
                  hex(pc);
      return at;
    }
  }
  at.available = true;
  for (const RegMapEntry* e : covering) at.sass.push_back(sassLocation(e->location));
  return at;
}

std::string joinSass(const std::vector<std::string>& sass) {
  std::string out;
  for (const std::string& s : sass) out += (out.empty() ? "" : ":") + s;
  return out;
}

}  // namespace ptxdwarf::cubin
