#include "ptxdwarf/cubin/locate.h"

#include <algorithm>

#include "ptxdwarf/format.h"
#include "../work.h"

namespace ptxdwarf::cubin {

namespace {

// cuda-gdb keeps the low two bits of the piece field (which 32-bit part).
uint32_t pieceOf(const RegMapEntry& e) { return e.piece & 3; }

bool isFull(const RegMapEntry& e) {
  const auto c = static_cast<RegClass>(e.classCode());
  return c == RegClass::full || c == RegClass::uniformFull;
}

// The leaves of `tree` (from `leaves` on) filled, each inner node the
// greatest of its two children.
void buildMaxTree(std::vector<uint32_t>& tree, size_t leaves) {
  for (size_t node = leaves - 1; node >= 1; --node) tree[node] = std::max(tree[2 * node], tree[2 * node + 1]);
}

// The leaves below `node` (covering [lo, hi)) before `before` whose value reaches `pc`.
void collectReaching(const std::vector<uint32_t>& tree, size_t node, size_t lo, size_t hi, size_t before, uint64_t pc,
                     std::vector<size_t>& out) {
  work::step(work::regmapScan);
  if (lo >= before || tree[node] < pc) return;
  if (hi - lo == 1) {
    out.push_back(lo);
    return;
  }
  const size_t mid = lo + (hi - lo) / 2;
  collectReaching(tree, 2 * node, lo, mid, before, pc, out);
  collectReaching(tree, 2 * node + 1, mid, hi, before, pc, out);
}

}  // namespace

// cuda-gdb's extension of an entry's range for `set cuda value_extrapolation
// on` (regmap_extend_liverange): up to where the next entry of the same
// register starts, or to the function's last mapped address when none
// does; not at all when an entry of it that starts before this one's end
// ends after it. For every entry at once: the entries starting before an
// end are a prefix of byStart (the greatest end among them says whether one
// ends after it), those starting at or after it the rest (the first that is
// not the entry itself starts next).
void FunctionRegisters::Register::index(uint32_t lastEnd) {
  std::stable_sort(byStart.begin(), byStart.end(),
                   [](const RegMapEntry* a, const RegMapEntry* b) { return a->start < b->start; });
  const size_t n = byStart.size();
  while (leaves < n) leaves *= 2;
  ends.assign(2 * leaves, 0);
  extendedEnds.assign(2 * leaves, 0);
  std::vector<uint32_t> greatestEnd(n);  // over byStart[0..i]
  for (size_t i = 0; i < n; ++i) greatestEnd[i] = std::max(i ? greatestEnd[i - 1] : 0, byStart[i]->end);
  for (size_t i = 0; i < n; ++i) {
    work::step(work::regmapScan);
    const RegMapEntry& e = *byStart[i];
    const size_t startingAfter = static_cast<size_t>(
        std::lower_bound(byStart.begin(), byStart.end(), e.end,
                         [](const RegMapEntry* x, uint32_t end) { return x->start < end; }) -
        byStart.begin());
    uint32_t extended = lastEnd;
    if (startingAfter > 0 && greatestEnd[startingAfter - 1] > e.end) {
      extended = e.end;
    } else {
      size_t next = startingAfter;
      if (next < n && byStart[next] == &e) ++next;
      if (next < n) extended = std::min(extended, byStart[next]->start);
    }
    ends[leaves + i] = e.end;
    extendedEnds[leaves + i] = std::max(extended, e.end);
  }
  buildMaxTree(ends, leaves);
  buildMaxTree(extendedEnds, leaves);
}

std::vector<const RegMapEntry*> FunctionRegisters::Register::covering(uint64_t pc, bool extrapolate) const {
  const size_t startedBy = static_cast<size_t>(
      std::upper_bound(byStart.begin(), byStart.end(), pc, [](uint64_t at, const RegMapEntry* e) { return at < e->start; }) -
      byStart.begin());
  std::vector<size_t> found;
  collectReaching(extrapolate ? extendedEnds : ends, 1, 0, leaves, startedBy, pc, found);
  std::vector<const RegMapEntry*> out;
  for (size_t i : found)
    if (pieceOf(*byStart[i]) <= 1) out.push_back(byStart[i]);
  std::sort(out.begin(), out.end());  // a record's entries are one vector: its order is the map's
  return out;
}

const RegMapFunction* findRegMapFunction(const RegMap& map, std::string_view function) {
  for (const RegMapFunction& f : map.functions) {
    work::step(work::regmapScan);
    if (f.name == function) return &f;
  }
  return nullptr;
}

FunctionRegisters::FunctionRegisters(const RegMapFunction& function) {
  for (const RegMapEntry& e : function.entries) {
    work::step(work::regmapScan);
    if (!e.usableByCudaGdb()) continue;
    lastEnd_ = std::max(lastEnd_, e.end);
    Register& r = byName_[e.reg];
    r.byStart.push_back(&e);
    r.highestPiece = std::max(r.highestPiece, pieceOf(e));
  }
  for (auto& [name, r] : byName_) r.index(lastEnd_);
}

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
  const uint32_t highestPiece = found->second.highestPiece;
  std::vector<const RegMapEntry*> covering = found->second.covering(pc, extrapolate);
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
