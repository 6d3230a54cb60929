// .debug_loc: the lists named by location attributes of constant or
// sec_offset class (or `.b32 .debug_loc+N` relocations).
#include <algorithm>

#include "ptxdwarf/dwarf.h"
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

void decodeList(Dwarf& dwarf, uint64_t offset, uint8_t addressSize) {
  LocList list = readLocList(*dwarf.loc, offset, addressSize);
  if (!list.terminated)
    dwarf.error(dwarf.loc, list.entries.empty() ? offset : list.entries.back().offset,
                "location list at .debug_loc+" + std::to_string(offset) +
                    " runs past the end of the section without an end-of-list entry")
        .rule = "loclist-bounds";
  dwarf.locLists.push_back(std::move(list));
}

}  // namespace

LocList readLocList(const SectionImage& sec, uint64_t offset, uint8_t addressSize) {
  LocList list;
  list.offset = offset;
  list.addressSize = addressSize;
  list.end = offset;
  if (addressSize != 4 && addressSize != 8) return list;
  ByteReader r(sec.data(), offset);
  RelocationCursor relocs(sec);
  const uint64_t allOnes = addressSize == 8 ? UINT64_MAX : 0xffffffffu;
  while (r.ok() && !r.atEnd()) {
    LocEntry e;
    e.offset = r.offset();
    e.begin = r.fixed(addressSize);
    e.beginReloc = relocs.at(e.offset, addressSize);
    e.end = r.fixed(addressSize);
    e.endReloc = relocs.at(e.offset + addressSize, addressSize);
    if (!r.ok()) break;
    if (e.begin == 0 && e.end == 0 && !e.beginReloc && !e.endReloc) {
      e.kind = LocEntry::endOfList;
      list.entries.push_back(e);
      list.terminated = true;
      list.end = r.offset();
      break;
    }
    if (e.begin == allOnes && !e.beginReloc) {
      e.kind = LocEntry::baseAddress;
      list.entries.push_back(e);
      list.end = r.offset();
      continue;
    }
    uint64_t len = r.u16();
    e.exprOffset = r.offset();
    e.expr = r.bytes(len);
    if (!r.ok()) break;
    list.entries.push_back(e);
    list.end = r.offset();
  }
  return list;
}

void decodeLocLists(Dwarf& dwarf) {
  if (!dwarf.loc) return;
  std::vector<std::pair<uint64_t, uint8_t>> offsets;
  for (const Die& d : dwarf.dies) {
    if (d.isNull()) continue;
    for (const AttrValue& v : dwarf.attributes(d)) {
      if (!isLocationAttribute(v.name)) continue;
      if (v.form != dw::DW_FORM_sec_offset && v.form != dw::DW_FORM_data4 && v.form != dw::DW_FORM_data8) continue;
      uint64_t offset = v.value;
      if (v.reloc) {
        if (v.reloc->symbol != ".debug_loc" || v.reloc->isDifference()) continue;
        offset = static_cast<uint64_t>(v.reloc->addend);
      }
      if (offset >= dwarf.loc->size()) {
        dwarf.error(dwarf.info, v.offset, "location list offset " + std::to_string(offset) +
                                              " is outside .debug_loc (size " + std::to_string(dwarf.loc->size()) + ")")
            .rule = "loclist-offset";
        continue;
      }
      offsets.emplace_back(offset, dwarf.units[d.unit].addressSize);
    }
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end(),
                            [](auto& a, auto& b) { return a.first == b.first; }),
                offsets.end());
  for (auto [offset, addressSize] : offsets) decodeList(dwarf, offset, addressSize);
}

const LocList* Dwarf::locListAt(uint64_t offset) const {
  auto it = std::lower_bound(locLists.begin(), locLists.end(), offset,
                             [](const LocList& l, uint64_t o) { return l.offset < o; });
  return it != locLists.end() && it->offset == offset ? &*it : nullptr;
}

}  // namespace ptxdwarf::read
