#include "ptxdwarf/cubin/locate.h"

#include <algorithm>

#include "ptxdwarf/format.h"
#include "../work.h"
#include "intervals.h"

namespace ptxdwarf::cubin {

namespace {

// cuda-gdb keeps the low two bits of the piece field (which 32-bit part).
uint32_t pieceOf(const RegMapEntry& e) { return e.piece & 3; }

bool isFull(const RegMapEntry& e) {
  const auto c = static_cast<RegClass>(e.classCode());
  return c == RegClass::full || c == RegClass::uniformFull;
}

}  // namespace

// One register's entries (in map order), found by PC through an index of
// their ranges and one of their ranges as cuda-gdb's value extrapolation
// extends them.
struct FunctionRegisters::Register {
  std::vector<const RegMapEntry*> entries;
  uint32_t highestPiece = 0;  // at any PC
  IntervalIndex held, extrapolated;  // ids: positions in entries

  void index(uint32_t lastEnd);
  // The entries covering `pc` that cuda-gdb reads (pieces 0 and 1), in map order.
  std::vector<const RegMapEntry*> covering(uint64_t pc, bool extrapolate) const;
};

// cuda-gdb's extension of an entry's range for `set cuda value_extrapolation
// on` (regmap_extend_liverange): up to where the next entry of the same
// register starts, or to the function's last mapped address when none
// does; not at all when an entry of it that starts before this one's end
// ends after it. For every entry at once: sorted by start, the entries
// starting before an end are a prefix (the greatest end among them says
// whether one ends after it), those starting at or after it the rest (the
// first that is not the entry itself starts next).
void FunctionRegisters::Register::index(uint32_t lastEnd) {
  std::vector<uint32_t> byStart(entries.size());
  for (uint32_t i = 0; i < byStart.size(); ++i) byStart[i] = i;
  std::stable_sort(byStart.begin(), byStart.end(),
                   [&](uint32_t a, uint32_t b) { return entries[a]->start < entries[b]->start; });
  const size_t n = byStart.size();
  std::vector<uint32_t> greatestEnd(n);  // over byStart[0..i]
  for (size_t i = 0; i < n; ++i) greatestEnd[i] = std::max(i ? greatestEnd[i - 1] : 0, entries[byStart[i]]->end);
  for (size_t i = 0; i < n; ++i) {
    work::step(work::regmapScan);
    const RegMapEntry& e = *entries[byStart[i]];
    const size_t startingAfter = static_cast<size_t>(
        std::lower_bound(byStart.begin(), byStart.end(), e.end,
                         [&](uint32_t x, uint32_t end) { return entries[x]->start < end; }) -
        byStart.begin());
    uint32_t extended = lastEnd;
    if (startingAfter > 0 && greatestEnd[startingAfter - 1] > e.end) {
      extended = e.end;
    } else {
      size_t next = startingAfter;
      if (next < n && entries[byStart[next]] == &e) ++next;
      if (next < n) extended = std::min(extended, entries[byStart[next]]->start);
    }
    held.add(e.start, e.end, byStart[i]);  // `end` inclusive
    extrapolated.add(e.start, std::max(extended, e.end), byStart[i]);
  }
  held.build();
  extrapolated.build();
}

std::vector<const RegMapEntry*> FunctionRegisters::Register::covering(uint64_t pc, bool extrapolate) const {
  std::vector<uint32_t> found;
  (extrapolate ? extrapolated : held).covering(pc, found);
  std::sort(found.begin(), found.end());
  std::vector<const RegMapEntry*> out;
  for (uint32_t i : found)
    if (pieceOf(*entries[i]) <= 1) out.push_back(entries[i]);
  return out;
}

FunctionRegisters::FunctionRegisters(const RegMapFunction& function) {
  for (const RegMapEntry& e : function.entries) {
    work::step(work::regmapScan);
    if (!e.usableByCudaGdb()) continue;
    lastEnd_ = std::max(lastEnd_, e.end);
    const auto [named, first] = byName_.try_emplace(e.reg, static_cast<uint32_t>(registers_.size()));
    if (first) registers_.emplace_back();
    Register& r = registers_[named->second];
    r.entries.push_back(&e);
    r.highestPiece = std::max(r.highestPiece, pieceOf(e));
  }
  for (Register& r : registers_) r.index(lastEnd_);
}

FunctionRegisters::FunctionRegisters(FunctionRegisters&&) noexcept = default;
FunctionRegisters& FunctionRegisters::operator=(FunctionRegisters&&) noexcept = default;
FunctionRegisters::~FunctionRegisters() = default;

RegisterAt locateRegister(const RegMapFunction* function, std::string_view reg, uint64_t pc, bool extrapolate) {
  if (!function) {
    RegisterAt at;
    at.reason = "the register map has no record of the function";
    return at;
  }
  return FunctionRegisters(*function).locate(reg, pc, extrapolate);
}

RegisterAt FunctionRegisters::locate(std::string_view reg, uint64_t pc, bool extrapolate) const {
  RegisterAt at;
  const auto found = byName_.find(reg);
  if (found == byName_.end()) {
    at.reason = "no entry of the register map names " + std::string(reg);
    return at;
  }
  const Register& named = registers_[found->second];
  const uint32_t highestPiece = named.highestPiece;
  std::vector<const RegMapEntry*> covering = named.covering(pc, extrapolate);
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
