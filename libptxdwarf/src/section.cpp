#include "ptxdwarf/section.h"

#include <algorithm>
#include <cstring>
#include <ostream>

#include "ptxdwarf/leb128.h"
#include "own_uleb.h"
#include "reserve.h"

namespace ptxdwarf {

std::string_view StringStore::keep(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() + 1 > free_.size()) {
    // Chunks double up to 1 MiB (kDoublings): a store of a few names stays
    // small, one of a megabyte of names is a few chunks.
    const size_t grown = kChunkSize << std::min<size_t>(chunks_.size(), kDoublings);
    const size_t size = std::max(grown, s.size() + 1);
    chunks_.push_back(std::shared_ptr<char[]>(new char[size]));
    free_ = {chunks_.back().get(), size};
  }
  std::copy(s.begin(), s.end(), free_.begin());
  free_[s.size()] = '\0';  // for C callers (ptxdwarf_sections_relocation)
  std::string_view kept(free_.data(), s.size());
  free_ = free_.subspan(s.size() + 1);
  return kept;
}

std::ostream& operator<<(std::ostream& os, SymbolName n) { return os << n.view(); }

Relocation& SectionImage::addRelocation(uint64_t offset, uint8_t size, std::string_view symbol,
                                        std::string_view minus, int64_t addend) {
  Relocation& added = relocations.emplace_back(static_cast<uint32_t>(offset), size, SymbolName());
  added.kept_ = (minus.empty() ? 0 : Relocation::kDifference) | (addend == 0 ? 0 : Relocation::kAddend);
  added.symbol = added.kept_ ? keepWithTail(symbol, minus, addend) : keepShared(symbol);
  return added;
}

SymbolName SectionImage::keepShared(std::string_view name) {
  // A location list's entries chain their labels (one range ends where the
  // next begins): a name the relocation before the one being added, or the
  // one before that, holds is not kept again (a third of the names of a
  // large nvcc -G file's .debug_loc).
  const size_t before = relocations.size() - 1;  // the one being added is last
  for (size_t back = 1; back <= 2 && back <= before; ++back) {
    const Relocation& r = relocations[before - back];
    if (r.symbol == name) return r.symbol;
    if (r.isDifference() && r.minus() == name) return r.minus();
  }
  return SymbolName::fromKept(names.keep(name));
}

SymbolName SectionImage::keepWithTail(std::string_view symbol, std::string_view minus, int64_t addend) {
  // symbol NUL [minus NUL] [addend's 8 bytes], as Relocation reads them back.
  const size_t size = symbol.size() + 1 + (minus.empty() ? 0 : minus.size() + 1) + (addend == 0 ? 0 : 8);
  std::string tail;
  tail.reserve(size);
  tail.append(symbol);
  tail += '\0';
  if (!minus.empty()) {
    tail.append(minus);
    tail += '\0';
  }
  if (addend != 0) tail.append(reinterpret_cast<const char*>(&addend), sizeof addend);
  return SymbolName::fromKept(names.keep(tail));
}

const char* Relocation::afterSymbol() const {
  const char* chars = symbol.c_str();
  return chars + std::strlen(chars) + 1;
}

SymbolName Relocation::secondName() const { return SymbolName::fromKept(afterSymbol()); }

int64_t Relocation::keptAddend() const {
  const char* at = afterSymbol();
  if (isDifference()) at += std::strlen(at) + 1;
  int64_t addend;
  std::memcpy(&addend, at, sizeof addend);  // kept unaligned
  return addend;
}

std::string Relocation::expression() const {
  std::string s(symbol);
  if (isDifference()) {
    s += '-';
    s += minus();
  }
  const int64_t a = addend();
  if (a > 0) {
    s += '+';
    s += std::to_string(a);
  } else if (a < 0) {
    s += '-';
    s += std::to_string(-static_cast<uint64_t>(a));
  }
  return s;
}

namespace {
inline void putUleb(std::vector<uint8_t>& out, uint32_t v) {
  encodeUleb(v, [&out](uint8_t b) { out.push_back(b); });
}
}  // namespace

namespace {

// Short entry, one byte 0b0WWLCCCC: offset step 1 << WW, line step L, and
// CCCC the column on a new line or the column step on the same line.
// Anything else: kLongEntry, then ULEB offset step, line step and column.
constexpr uint8_t kLongEntry = 0x80;

int shortStep(uint32_t offsetStep) {
  switch (offsetStep) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return -1;
  }
}

}  // namespace

void SourceMap::reserve(size_t operands) {
  reserveUpTo(deltas_, operands);
  reserveUpTo(checkpoints_, operands / 4 + 1);  // a long entry takes at most 16 bytes of deltas
}

void SourceMap::addEntry(uint32_t offset, uint32_t line, uint32_t col) {
  if (count_ == 0 || deltas_.size() - checkpointPos_ >= kCheckpointBytes) {
    checkpointPos_ = static_cast<uint32_t>(deltas_.size());
    checkpoints_.push_back({{offset, line, col}, checkpointPos_});
    runByte_ = kNoRun;  // a run does not cross a checkpoint
    repeatAt_ = kNoRepeat;
  } else {
    const uint32_t lineStep = line - last_.line;  // lines only grow: operands are read in file order
    const uint32_t colField = lineStep == 0 ? col - last_.col : col;
    const int step = shortStep(offset - last_.offset);
    if (step >= 0 && lineStep <= 1 && colField < 16 && (lineStep == 1 || col >= last_.col)) {
      putShort(static_cast<uint8_t>(step << 5 | lineStep << 4 | colField));
    } else {
      deltas_.push_back(kLongEntry);
      putUleb(deltas_, offset - last_.offset);
      putUleb(deltas_, lineStep);
      putUleb(deltas_, col);
      runByte_ = kNoRun;
      repeatAt_ = kNoRepeat;
    }
  }
  last_ = {offset, line, col};
  ++count_;
}

SourceLoc SourceMap::locate(uint64_t offset, SourceLoc fallback) const {
  auto it = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), offset,
                             [](uint64_t o, const Checkpoint& c) { return o < c.entry.offset; });
  if (it == checkpoints_.begin()) return fallback;
  --it;
  Entry e = it->entry;  // at or before `offset`
  const uint8_t* p = deltas_.data() + it->pos;
  const uint8_t* end = std::next(it) == checkpoints_.end() ? deltas_.data() + deltas_.size()
                                                           : deltas_.data() + std::next(it)->pos;
  uint8_t run = kNoRun;  // the last short delta
  while (p < end) {
    const uint8_t b = *p++;
    if (b == kLongEntry) {
      Entry next;
      next.offset = e.offset + readOwnUleb32(p);
      next.line = e.line + readOwnUleb32(p);
      next.col = readOwnUleb32(p);
      if (next.offset > offset) break;
      e = next;
      continue;
    }
    // A short delta once, or a repeat byte's count of the last one.
    const uint8_t delta = b < kLongEntry ? b : run;
    const uint32_t times = b < kLongEntry ? 1 : b & 0x7fu;
    run = delta;
    const uint32_t step = 1u << (delta >> 5);
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(times, (offset - e.offset) / step));
    const bool newLine = delta & 0x10;
    if (n > 0) {
      e.offset += n * step;
      e.line += newLine ? n : 0;
      e.col = newLine ? (delta & 0xfu) : e.col + n * (delta & 0xfu);
    }
    if (n < times) break;  // the next entry lies past `offset`
  }
  return {e.line, e.col};
}

SourceLoc SectionImage::locate(uint64_t offset) const {
  if (sourceMap.empty()) return loc;
  if (offset >= bytes.size()) return sourceMap.last();
  return sourceMap.locate(offset, loc);
}

const Relocation* SectionImage::relocationOverlapping(uint64_t offset, uint64_t size) const {
  auto it = std::upper_bound(relocations.begin(), relocations.end(), offset,
                             [](uint64_t o, const Relocation& r) { return o < r.offset; });
  if (it != relocations.begin()) {
    const Relocation& prev = *(it - 1);
    if (prev.offset + prev.size > offset) return &prev;
  }
  if (it != relocations.end() && it->offset < offset + size) return &*it;
  return nullptr;
}

const Relocation* SectionImage::relocationAt(uint64_t offset, uint8_t size) const {
  const Relocation* r = relocationOverlapping(offset, size);
  return r && r->offset == offset && r->size == size ? r : nullptr;
}

const Relocation* RelocationCursor::seek(uint64_t offset, uint8_t size) {
  const std::vector<Relocation>& relocs = image_->relocations;
  auto before = [](const Relocation& r, uint64_t o) { return r.offset < o; };
  if (offset < offset_) {
    next_ = static_cast<size_t>(std::lower_bound(relocs.begin(), relocs.end(), offset, before) - relocs.begin());
  } else {
    constexpr size_t kWalk = 4;  // steps taken one by one before searching the rest
    size_t steps = 0;
    while (next_ < relocs.size() && relocs[next_].offset < offset && steps++ < kWalk) ++next_;
    if (next_ < relocs.size() && relocs[next_].offset < offset)
      next_ = static_cast<size_t>(
          std::lower_bound(relocs.begin() + static_cast<ptrdiff_t>(next_), relocs.end(), offset, before) -
          relocs.begin());
  }
  offset_ = offset;
  return fieldAt(offset, size);
}

const SectionLabel* SectionImage::labelAt(uint64_t offset) const {
  for (const SectionLabel& l : labels)
    if (l.offset == offset) return &l;
  return nullptr;
}

const SectionLabel* SectionImage::findLabel(std::string_view name) const {
  for (const SectionLabel& l : labels)
    if (l.name == name) return &l;
  return nullptr;
}

std::optional<int64_t> SectionImage::resolveDifference(const Relocation& r) const {
  if (!r.isDifference()) return std::nullopt;
  const SectionLabel* a = findLabel(r.symbol);
  const SectionLabel* b = findLabel(r.minus());
  if (!a || !b) return std::nullopt;
  return static_cast<int64_t>(a->offset) - static_cast<int64_t>(b->offset) + r.addend();
}

const SectionImage* findSection(std::span<const SectionImage> images, std::string_view name) {
  for (auto it = images.rbegin(); it != images.rend(); ++it)
    if (it->name == name) return &*it;
  return nullptr;
}

}  // namespace ptxdwarf
