#include <algorithm>

#include "ptxdwarf/dwarf.h"
#include "../work.h"
#include "stages.h"

namespace ptxdwarf::read {

const Abbrev* AbbrevTable::find(uint64_t code) const {
  if (code < byCode.size()) {
    uint32_t i = byCode[code];
    return i == kNone ? nullptr : &abbrevs[i];
  }
  auto it = bySparseCode.find(code);
  return it == bySparseCode.end() ? nullptr : &abbrevs[it->second];
}

// AttrSpec::valueSize for `form`.
uint8_t valueSizeOf(uint16_t form) {
  switch (form) {
    case dw::DW_FORM_flag_present:
      return 0;
    case dw::DW_FORM_data1:
    case dw::DW_FORM_ref1:
    case dw::DW_FORM_flag:
      return 1;
    case dw::DW_FORM_data2:
    case dw::DW_FORM_ref2:
      return 2;
    case dw::DW_FORM_data4:
    case dw::DW_FORM_ref4:
    case dw::DW_FORM_strp:
    case dw::DW_FORM_sec_offset:
      return 4;
    case dw::DW_FORM_data8:
    case dw::DW_FORM_ref8:
    case dw::DW_FORM_ref_sig8:
      return 8;
    case dw::DW_FORM_addr:
      return AttrSpec::kAddressSized;
    default:
      return AttrSpec::kSizeVaries;  // a length, a LEB128, a string, or the unit's version decides
  }
}

namespace {

// Codes are dense in practice (1..N); a direct-index table up to this size.
constexpr uint64_t kDenseCodeLimit = 1 << 16;

bool decodeTable(Dwarf& dwarf, AbbrevTable& table) {
  const SectionImage& sec = *dwarf.abbrev;
  ByteReader r(sec.data(), table.offset);
  for (;;) {
    uint64_t at = r.offset();
    if (r.atEnd()) {
      dwarf.error(&sec, at, "abbreviation table at offset " + std::to_string(table.offset) +
                                " is not terminated (missing 0 code before the section ends)")
          .rule = "abbrev-terminated";
      table.end = at;
      return true;  // keep what was read: units can still be decoded
    }
    uint64_t code = r.uleb();
    if (!r.ok()) {
      dwarf.error(&sec, at, "malformed LEB128 abbreviation code").rule = "leb128";
      table.end = at;
      return false;
    }
    if (code == 0) {
      table.terminated = true;
      table.end = r.offset();
      return true;
    }
    Abbrev a;
    a.code = code;
    a.offset = at;
    uint64_t tag = r.uleb();
    uint8_t children = r.u8();
    if (!r.ok() || tag > 0xffff) {
      dwarf.error(&sec, at, "truncated or invalid abbreviation " + std::to_string(code)).rule = "abbrev";
      table.end = at;
      return false;
    }
    if (children > 1)
      dwarf.error(&sec, r.offset() - 1, "DW_CHILDREN value " + std::to_string(children) + " is neither 0 nor 1")
          .rule = "abbrev";
    a.tag = static_cast<uint16_t>(tag);
    a.hasChildren = children != 0;
    a.firstSpec = static_cast<uint32_t>(table.specs.size());
    for (;;) {
      uint64_t specAt = r.offset();
      uint64_t name = r.uleb();
      uint64_t form = r.uleb();
      if (!r.ok()) {
        dwarf.error(&sec, specAt, "abbreviation " + std::to_string(code) +
                                      ": attribute list runs past the end of .debug_abbrev")
            .rule = "abbrev-terminated";
        table.end = specAt;
        return false;
      }
      if (name == 0 && form == 0) break;
      if (name > 0xffff || form > 0xffff) {
        dwarf.error(&sec, specAt, "abbreviation " + std::to_string(code) + ": attribute or form out of range")
            .rule = "abbrev";
        table.end = specAt;
        return false;
      }
      table.specs.push_back({static_cast<uint16_t>(name), static_cast<uint16_t>(form),
                             valueSizeOf(static_cast<uint16_t>(form))});
    }
    a.specCount = static_cast<uint32_t>(table.specs.size() - a.firstSpec);
    if (table.find(code)) {
      dwarf.error(&sec, at, "abbreviation code " + std::to_string(code) + " defined twice in one table")
          .rule = "abbrev";
    }
    uint32_t index = static_cast<uint32_t>(table.abbrevs.size());
    table.abbrevs.push_back(a);
    if (code < kDenseCodeLimit) {
      if (table.byCode.size() <= code) table.byCode.resize(code + 1, kNone);
      if (table.byCode[code] == kNone) table.byCode[code] = index;
    } else {
      table.bySparseCode.try_emplace(code, index);
    }
  }
}

}  // namespace

uint32_t abbrevTableAt(Dwarf& dwarf, uint64_t offset) {
  // By offset, not by scanning the tables: a section of many tiny tables
  // (each unit naming its own, or a run of empty ones) stays n log n.
  work::step(work::abbrevTableLookup);
  auto [it, added] = dwarf.abbrevTableAtOffset.try_emplace(offset, kNone);
  if (!added) return it->second;
  if (!dwarf.abbrev || offset >= dwarf.abbrev->size()) {
    dwarf.abbrevTableAtOffset.erase(it);
    return kNone;
  }
  AbbrevTable table;
  table.offset = offset;
  decodeTable(dwarf, table);
  dwarf.abbrevTables.push_back(std::move(table));
  it->second = static_cast<uint32_t>(dwarf.abbrevTables.size() - 1);
  return it->second;
}

std::vector<const AbbrevTable*> Dwarf::tablesInOrder() const {
  std::vector<const AbbrevTable*> out;
  for (const AbbrevTable& t : abbrevTables) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](const AbbrevTable* a, const AbbrevTable* b) { return a->offset < b->offset; });
  return out;
}

}  // namespace ptxdwarf::read
