// .debug_loc: the lists named by location attributes of constant or
// sec_offset class (or `.b32 .debug_loc+N` relocations).
#include <algorithm>
#include <map>

#include "../reserve.h"
#include "ptxdwarf/dwarf.h"
#include "../work.h"
#include "stages.h"

namespace ptxdwarf::read {

bool isLocationAttribute(uint64_t at) {
  switch (at) {
    case dw::DW_AT_location:
    case dw::DW_AT_frame_base:
    case dw::DW_AT_data_member_location:
    case dw::DW_AT_string_length:
    case dw::DW_AT_return_addr:
    case dw::DW_AT_static_link:
    case dw::DW_AT_segment:
    case dw::DW_AT_use_location:
    case dw::DW_AT_vtable_elem_location:
      return true;
    default:
      return false;
  }
}

namespace {

// Reads the entry at r's offset into `e`; false when the section ends inside
// it. The one reading of an entry: a list's first pass and every later look
// at the entry (decodeLocEntry) go through it.
template <uint8_t addressSize>
bool readEntryOf(ByteReader& r, RelocationCursor& relocs, LocEntry& e) {
  const uint64_t allOnes = addressSize == 8 ? UINT64_MAX : 0xffffffffu;
  e.offset = r.offset();
  e.begin = r.fixed(addressSize);
  e.beginReloc = relocs.at(e.offset, addressSize);
  e.end = r.fixed(addressSize);
  e.endReloc = relocs.at(e.offset + addressSize, addressSize);
  if (!r.ok()) return false;
  if (e.begin == 0 && e.end == 0 && !e.beginReloc && !e.endReloc) {
    e.kind = LocEntry::endOfList;
    return true;
  }
  if (e.begin == allOnes && !e.beginReloc) {
    e.kind = LocEntry::baseAddress;
    return true;
  }
  e.kind = LocEntry::range;
  const uint64_t len = r.u16();
  e.exprOffset = r.offset();
  e.expr = r.bytes(len);
  return r.ok();
}

// The address size a constant: two of each entry's three reads are
// addresses (160,000 entries are read in a check of a 20 MB nvcc -G file).
// readLocList reads only lists of 4- and 8-byte addresses.
bool readEntry(ByteReader& r, RelocationCursor& relocs, uint8_t addressSize, LocEntry& e) {
  return addressSize == 8 ? readEntryOf<8>(r, relocs, e) : readEntryOf<4>(r, relocs, e);
}

}  // namespace

LocEntry decodeLocEntry(const SectionImage& loc, LocEntryRef ref, uint8_t addressSize) {
  LocEntry e;
  ByteReader r(loc.data(), ref.offset);
  RelocationCursor relocs(loc, ref.firstReloc, ref.offset);
  readEntry(r, relocs, addressSize, e);  // complete: readLocList stored it
  return e;
}

LocList readLocList(const SectionImage& sec, uint64_t offset, uint8_t addressSize,
                    std::vector<LocEntryRef>& storage) {
  LocList list;
  list.offset = offset;
  list.addressSize = addressSize;
  list.end = offset;
  const size_t first = storage.size();
  auto done = [&] {
    list.entries = LocEntries(&sec, std::span<const LocEntryRef>(storage).subspan(first), addressSize);
    return list;
  };
  if ((addressSize != 4 && addressSize != 8) || offset > UINT32_MAX) return done();
  ByteReader r(sec.data(), offset);
  RelocationCursor relocs(sec);
  while (r.ok() && !r.atEnd()) {
    work::step(work::locListEntries);
    const uint64_t at = r.offset();
    relocs.at(at, addressSize);  // positions the cursor: the first relocation at or after `at`
    const LocEntryRef ref{static_cast<uint32_t>(at), static_cast<uint32_t>(relocs.next())};
    LocEntry e;
    if (!readEntry(r, relocs, addressSize, e)) break;
    storage.push_back(ref);
    list.end = r.offset();
    if (e.kind == LocEntry::endOfList) {
      list.terminated = true;
      break;
    }
  }
  return done();
}

namespace {

// The lists the references name: offset and address size, sorted, one per
// offset. A reference outside the section is an error, said in DIE order.
std::vector<std::pair<uint64_t, uint8_t>> namedListOffsets(Dwarf& dwarf, std::span<const LocListReference> references) {
  std::vector<std::pair<uint64_t, uint8_t>> offsets;
  offsets.reserve(references.size());
  for (const LocListReference& ref : references) {
    if (ref.offset >= dwarf.loc->size()) {
      const std::string size = std::to_string(dwarf.loc->size());
      dwarf.error(dwarf.info, ref.valueAt,
                  "location list offset " + std::to_string(ref.offset) + " is outside .debug_loc (size " + size + ")")
          .rule = "loclist-offset";
      continue;
    }
    offsets.emplace_back(ref.offset, ref.addressSize);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end(), [](auto& a, auto& b) { return a.first == b.first; }),
                offsets.end());
  return offsets;
}

// Finds a decoded entry by offset. Lists are read in offset order, so the
// entries are sorted by offset and a binary search finds one -- unless a list
// starts in the middle of an entry of an earlier one (malformed, but it must
// not make the decoder quadratic): from then on a map indexes them.
class DecodedEntries {
 public:
  explicit DecodedEntries(const std::vector<LocEntryRef>& entries) : entries_(entries) {}

  size_t find(uint64_t offset) const {
    if (!byOffset_.empty()) {
      auto it = byOffset_.find(offset);
      return it == byOffset_.end() ? SIZE_MAX : it->second;
    }
    auto it = std::lower_bound(entries_.begin(), entries_.end(), offset,
                               [](const LocEntryRef& e, uint64_t o) { return e.offset < o; });
    return it != entries_.end() && it->offset == offset ? static_cast<size_t>(it - entries_.begin()) : SIZE_MAX;
  }

  // Entries [first, end) were just appended.
  void appended(size_t first) {
    if (byOffset_.empty() && first > 0 && first < entries_.size() &&
        entries_[first].offset < entries_[first - 1].offset) {
      for (size_t i = 0; i < first; ++i) byOffset_.try_emplace(entries_[i].offset, i);
    }
    if (!byOffset_.empty())
      for (size_t i = first; i < entries_.size(); ++i) byOffset_.try_emplace(entries_[i].offset, i);
  }

 private:
  const std::vector<LocEntryRef>& entries_;
  std::map<uint64_t, size_t> byOffset_;  // only once the entries are out of order
};

}  // namespace

void decodeLocLists(Dwarf& dwarf, std::span<const LocListReference> references) {
  if (!dwarf.loc) return;
  // Lists are decoded in offset order. One that starts on an entry of a list
  // already decoded (a variable's list starting mid-way through another's,
  // or thousands of attributes naming points of one long list) is that
  // list's tail: it shares those entries instead of decoding them again,
  // which would cost the list's length per attribute. So no entry is read
  // twice, and `entries` stays sorted by offset: a list's start is found
  // among them by binary search.
  struct Chain {
    size_t end;  // one past its last entry in `entries`
    bool terminated;
    uint64_t endOffset;
    uint8_t addressSize;  // its entries were read with
  };
  std::vector<Chain> chains;  // in `entries` order
  struct Placed {
    size_t first, count;
    uint8_t addressSize;  // the entries are read with: the chain's
  };
  std::vector<Placed> placed;
  std::vector<LocEntryRef> entries;
  // Every entry takes at least two address-sized words, four bytes each at
  // the least: reserved for that many (see reserve.h).
  reserveUpTo(entries, dwarf.loc->size() / 8 + 1);
  DecodedEntries decoded(entries);
  const auto offsets = namedListOffsets(dwarf, references);
  dwarf.locLists.reserve(dwarf.locLists.size() + offsets.size());
  placed.reserve(offsets.size());
  reserveUpTo(chains, offsets.size());  // a list decoded anew each at most
  for (auto [offset, addressSize] : offsets) {
    size_t first = decoded.find(offset);
    const bool tail = first != SIZE_MAX;
    if (!tail) {
      first = entries.size();
      const LocList read = readLocList(*dwarf.loc, offset, addressSize, entries);
      decoded.appended(first);
      chains.push_back({entries.size(), read.terminated, read.end, addressSize});
      if (!read.terminated)
        dwarf.error(dwarf.loc, read.entries.empty() ? offset : read.entries.refs().back().offset,
                    "location list at .debug_loc+" + std::to_string(offset) +
                        " runs past the end of the section without an end-of-list entry")
            .rule = "loclist-bounds";
    }
    // The chain the list's entries are in: the one just read, or the earlier
    // one whose tail it is.
    const Chain& c = !tail ? chains.back()
                           : *std::upper_bound(chains.begin(), chains.end(), first,
                                               [](size_t i, const Chain& ch) { return i < ch.end; });
    LocList& list = dwarf.locLists.emplace_back();
    list.offset = offset;
    list.addressSize = addressSize;
    list.terminated = c.terminated;
    list.end = c.endOffset;
    placed.push_back({first, c.end - first, c.addressSize});
  }
  // Spans last: the entries grew while the lists were read.
  dwarf.locEntries = std::make_shared<const std::vector<LocEntryRef>>(std::move(entries));
  for (size_t i = 0; i < placed.size(); ++i)
    dwarf.locLists[i].entries = LocEntries(
        dwarf.loc, dwarf.allLocEntries().subspan(placed[i].first, placed[i].count), placed[i].addressSize);
}

const LocList* Dwarf::locListAt(uint64_t offset) const {
  auto it = std::lower_bound(locLists.begin(), locLists.end(), offset,
                             [](const LocList& l, uint64_t o) { return l.offset < o; });
  return it != locLists.end() && it->offset == offset ? &*it : nullptr;
}

}  // namespace ptxdwarf::read
