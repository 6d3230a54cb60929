#include "ptxdwarf/section.h"

#include <algorithm>

namespace ptxdwarf {

std::string Relocation::expression() const {
  std::string s = symbol;
  if (!minus.empty()) {
    s += '-';
    s += minus;
  }
  if (addend > 0) {
    s += '+';
    s += std::to_string(addend);
  } else if (addend < 0) {
    s += '-';
    s += std::to_string(-static_cast<uint64_t>(addend));
  }
  return s;
}

SourceLoc SectionImage::locate(uint64_t offset) const {
  auto it = std::upper_bound(sourceMap.begin(), sourceMap.end(), offset,
                             [](uint64_t o, const SourceSpan& s) { return o < s.offset; });
  if (it == sourceMap.begin() || offset >= bytes.size()) {
    if (!sourceMap.empty() && offset >= bytes.size()) {
      const SourceSpan& last = sourceMap.back();
      return {last.line, last.col};
    }
    return loc;
  }
  --it;
  return {it->line, it->col};
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
  const SectionLabel* b = findLabel(r.minus);
  if (!a || !b) return std::nullopt;
  return static_cast<int64_t>(a->offset) - static_cast<int64_t>(b->offset) + r.addend;
}

}  // namespace ptxdwarf
