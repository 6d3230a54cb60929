#include "ptxdwarf/section.h"

#include <algorithm>
#include <cstring>
#include <ostream>

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
