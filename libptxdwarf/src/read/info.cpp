// .debug_info: unit headers, the DIE tree (explicit stack, no recursion) and
// attribute values of every DWARF 2-4 form.
#include <algorithm>
#include <climits>

#include "../reserve.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "stages.h"

namespace ptxdwarf::read {

namespace {

std::string formLabel(uint16_t form) {
  std::string_view n = dw::formName(form);
  return n.empty() ? "form " + hex(form, 8) : std::string(n);
}

// Reads `size` bytes at the reader as a possibly relocated field.
uint64_t fixedField(RelocationCursor& relocs, ByteReader& r, unsigned size, AttrValue& out) {
  uint64_t at = r.offset();
  uint64_t v = r.fixed(size);
  out.reloc = relocs.at(at, static_cast<uint8_t>(size));
  return v;
}

}  // namespace

bool readAttrValue(const Dwarf& dwarf, const Unit& unit, ByteReader& r, RelocationCursor& relocs, uint16_t form,
                   AttrValue& out, AttrProblem& problem) {
  uint64_t start = r.offset();
  auto fail = [&](std::string message, const char* rule) {
    problem = {start, std::move(message), rule};
    return false;
  };
  out.form = form;
  out.offset = static_cast<uint32_t>(start);
  switch (form) {
    case dw::DW_FORM_addr:
      if (unit.addressSize != 1 && unit.addressSize != 2 && unit.addressSize != 4 && unit.addressSize != 8) {
        return fail("DW_FORM_addr with unsupported address size " + std::to_string(unit.addressSize),
                    "unit-header");
      }
      out.value = fixedField(relocs, r, unit.addressSize, out);
      break;
    case dw::DW_FORM_data1:
    case dw::DW_FORM_ref1:
    case dw::DW_FORM_flag:
      out.value = r.u8();
      break;
    case dw::DW_FORM_data2:
    case dw::DW_FORM_ref2:
      out.value = fixedField(relocs, r, 2, out);
      break;
    case dw::DW_FORM_data4:
    case dw::DW_FORM_ref4:
    case dw::DW_FORM_strp:
    case dw::DW_FORM_sec_offset:
      out.value = fixedField(relocs, r, 4, out);
      break;
    case dw::DW_FORM_data8:
    case dw::DW_FORM_ref8:
    case dw::DW_FORM_ref_sig8:
      out.value = fixedField(relocs, r, 8, out);
      break;
    case dw::DW_FORM_ref_addr:
      // Address-sized in DWARF 2, offset-sized (4 in 32-bit DWARF) from DWARF 3 on.
      out.value = fixedField(relocs, r, unit.version == 2 ? unit.addressSize : 4, out);
      break;
    case dw::DW_FORM_sdata:
      out.value = static_cast<uint64_t>(r.sleb());
      break;
    case dw::DW_FORM_udata:
    case dw::DW_FORM_ref_udata:
      out.value = r.uleb();
      break;
    case dw::DW_FORM_flag_present:
      out.value = 1;
      break;
    case dw::DW_FORM_string:
      out.setString(r.cstring());
      if (!r.ok()) return fail("string attribute is not NUL-terminated inside the unit", "string-bounds");
      break;
    case dw::DW_FORM_block1:
    case dw::DW_FORM_block2:
    case dw::DW_FORM_block4:
    case dw::DW_FORM_block:
    case dw::DW_FORM_exprloc: {
      uint64_t len = form == dw::DW_FORM_block1   ? r.u8()
                     : form == dw::DW_FORM_block2 ? r.u16()
                     : form == dw::DW_FORM_block4 ? r.u32()
                                                  : r.uleb();
      if (!r.ok()) break;
      if (len > r.remaining())
        return fail(formLabel(form) + " length " + std::to_string(len) + " runs past the end of the unit",
                    "block-bounds");
      out.value = r.offset();  // where the block's bytes start
      out.setBlock(r.bytes(len));
      break;
    }
    case dw::DW_FORM_indirect: {
      uint64_t actual = r.uleb();
      if (!r.ok()) break;
      if (actual == dw::DW_FORM_indirect || actual > 0xffff)
        return fail("DW_FORM_indirect names an invalid form " + hex(actual, 8), "form");
      bool ok = readAttrValue(dwarf, unit, r, relocs, static_cast<uint16_t>(actual), out, problem);
      out.indirect = true;
      out.formCodeSize = static_cast<uint8_t>(out.offset - start);
      return ok;
    }
    default:
      return fail("unknown form " + hex(form, 8) + "; cannot decode the rest of the unit", "form");
  }
  if (!r.ok()) {
    if (r.overlong()) return fail(formLabel(form) + " value is a LEB128 longer than 10 bytes", "leb128");
    return fail(formLabel(form) + " value runs past the end of the unit", "unit-bounds");
  }
  out.size = static_cast<uint32_t>(r.offset() - out.offset);
  // Unit-relative references become absolute .debug_info offsets.
  switch (form) {
    case dw::DW_FORM_ref1:
    case dw::DW_FORM_ref2:
    case dw::DW_FORM_ref4:
    case dw::DW_FORM_ref8:
    case dw::DW_FORM_ref_udata:
      out.value += unit.offset;
      break;
    case dw::DW_FORM_strp: {
      // `.b32 .debug_str+N` (or a label in .debug_str) names that offset; a
      // plain number is the offset itself.
      const std::optional<uint64_t> at = dwarf.offsetIn(".debug_str", out.value, out.reloc);
      if (dwarf.str && at && *at < dwarf.str->size()) {
        ByteReader s(dwarf.str->data(), *at);
        out.setString(s.cstring());
      }
      break;
    }
    default:
      break;
  }
  return true;
}

uint64_t skipAttrValue(const Unit& unit, const uint8_t* data, uint64_t at, uint64_t end, uint16_t form) {
  // The forms whose size varies first: AttrRange asks only for those (it
  // steps over the others itself).
  ByteReader r(std::span<const uint8_t>(data, end), std::min(at, end));
  switch (form) {
    case dw::DW_FORM_ref_addr:
      r.skip(unit.version == 2 ? unit.addressSize : 4);
      break;
    case dw::DW_FORM_sdata:
    case dw::DW_FORM_udata:
    case dw::DW_FORM_ref_udata:
      r.uleb();  // a SLEB128 ends where a ULEB128 does
      break;
    case dw::DW_FORM_string:
      r.cstring();
      break;
    case dw::DW_FORM_block1:
      r.skip(r.u8());
      break;
    case dw::DW_FORM_block2:
      r.skip(r.u16());
      break;
    case dw::DW_FORM_block4:
      r.skip(r.u32());
      break;
    case dw::DW_FORM_block:
    case dw::DW_FORM_exprloc:
      r.skip(r.uleb());
      break;
    case dw::DW_FORM_indirect: {
      const uint64_t actual = r.uleb();
      if (!r.ok() || actual == dw::DW_FORM_indirect || actual > 0xffff) return end;
      return skipAttrValue(unit, data, r.offset(), end, static_cast<uint16_t>(actual));
    }
    default: {
      const uint8_t size = valueSizeOf(form);
      if (size == AttrSpec::kSizeVaries) return end;  // a form this reader does not know
      const uint64_t bytes = size == AttrSpec::kAddressSized ? unit.addressSize : size;
      return bytes <= end - std::min(at, end) ? at + bytes : end;
    }
  }
  return r.ok() ? r.offset() : end;
}

namespace {

// The location-list reference `v` makes, if it makes one (as a location
// attribute with a constant or a section-offset form, not relocated against
// another symbol or by a label difference).
void collectLocListReference(const Dwarf& dwarf, const AttrValue& v, uint16_t name, uint8_t addressSize,
                             std::vector<LocListReference>& into) {
  if (!isLocationAttribute(name)) return;
  if (v.form != dw::DW_FORM_sec_offset && v.form != dw::DW_FORM_data4 && v.form != dw::DW_FORM_data8) return;
  const std::optional<uint64_t> offset = dwarf.offsetIn(".debug_loc", v.value, v.reloc);
  if (!offset) return;
  into.push_back({*offset, v.offset, addressSize});
}

// Decodes the DIEs of one unit. The tree is kept flat: a DIE's children follow
// it, and a NULL entry closes each children list. The location-list
// references its values make go to `locLists` where it is given.
void decodeDies(Dwarf& dwarf, uint32_t unitIndex, std::vector<LocListReference>* locLists) {
  Unit& unit = dwarf.units[unitIndex];
  const SectionImage& sec = *dwarf.info;
  const AbbrevTable& table = dwarf.abbrevTables[unit.abbrevTable];
  ByteReader r(sec.data(), unit.offset + unit.headerSize());
  r.limit(unit.end);
  unit.firstDie = static_cast<uint32_t>(dwarf.dies.size());
  std::vector<uint32_t> parents;  // explicit stack: deep trees cannot exhaust the call stack
  bool sawUnitDie = false;
  RelocationCursor relocs(sec);
  constexpr unsigned kReadIt = UINT_MAX;
  const bool addressSizeValid =
      unit.addressSize == 1 || unit.addressSize == 2 || unit.addressSize == 4 || unit.addressSize == 8;
  while (!r.atEnd()) {
    Die die;
    die.offset = static_cast<uint32_t>(r.offset());  // decodeInfo: the section is at most 4 GiB
    die.depth = static_cast<uint32_t>(parents.size());
    die.parent = parents.empty() ? kNone : parents.back();
    const uint64_t code = r.uleb();
    die.codeSize = static_cast<uint8_t>(r.offset() - die.offset);  // at most 10
    if (!r.ok()) {
      dwarf.error(&sec, die.offset, r.overlong() ? "abbreviation code is a LEB128 longer than 10 bytes"
                                                 : "abbreviation code runs past the end of the unit")
          .rule = r.overlong() ? "leb128" : "unit-bounds";
      break;
    }
    if (code == 0) {
      dwarf.dies.push_back(die);
      // Without an open parent: padding after the unit DIE, legal, but nothing
      // may follow but more padding.
      if (!parents.empty()) parents.pop_back();
      continue;
    }
    if (sawUnitDie && parents.empty()) {
      dwarf.error(&sec, die.offset, "DIE after the unit DIE's children ended (a second top-level DIE)")
          .rule = "children-terminated";
    }
    const Abbrev* a = table.find(code);
    if (!a) {
      dwarf.error(&sec, die.offset, "abbreviation code " + std::to_string(code) +
                                        " is not defined in the table at .debug_abbrev+" +
                                        std::to_string(table.offset)).rule = "abbrev-code";
      break;
    }
    die.abbrevIndex = static_cast<uint32_t>(a - table.abbrevs.data());
    die.tag = a->tag;
    die.hasChildren = a->hasChildren;
    die.firstReloc = static_cast<uint32_t>(relocs.advanceTo(die.offset));
    bool ok = true;
    uint32_t attributes = 0;  // decoded
    for (const AttrSpec& spec : table.specsOf(*a)) {
      // A value of a size its form gives has nothing to check but its bounds,
      // unless it may name a location list: stepped over, its relocation not
      // looked up (most of a large file's values; the cursor catches up at
      // the next DIE).
      const unsigned size = spec.valueSize == AttrSpec::kAddressSized && addressSizeValid ? unit.addressSize
                            : spec.valueSize < AttrSpec::kAddressSized                 ? spec.valueSize
                                                                                       : kReadIt;
      if (size != kReadIt && size <= r.remaining() && !(locLists && isLocationAttribute(spec.name))) {
        r.seek(r.offset() + size);
        ++attributes;
        continue;
      }
      // Every other value is read here, for its checks and its size; none is
      // kept (AttrRange decodes it again when asked).
      AttrValue v;
      AttrProblem problem;
      if (!readAttrValue(dwarf, unit, r, relocs, spec.form, v, problem)) {
        dwarf.error(&sec, problem.offset, std::move(problem.message)).rule = problem.rule;
        ok = false;
        break;
      }
      if (locLists) collectLocListReference(dwarf, v, spec.name, unit.addressSize, *locLists);
      ++attributes;
    }
    if (!ok) {
      unit.cutDie = die.offset;
      unit.cutAttributes = attributes;
    }
    uint32_t index = static_cast<uint32_t>(dwarf.dies.size());
    dwarf.dies.push_back(die);
    sawUnitDie = true;
    if (!ok) break;
    if (die.hasChildren) parents.push_back(index);
  }
  if (!parents.empty() && r.ok()) {
    const Die& open = dwarf.dies[parents.back()];
    dwarf.error(&sec, open.offset, "children of the DIE at " + hex(open.offset, 8) +
                                       " are not terminated by a NULL entry before the unit ends at " +
                                       hex(unit.end, 8)).rule = "children-terminated";
  }
  unit.dieCount = static_cast<uint32_t>(dwarf.dies.size() - unit.firstDie);
}

}  // namespace

// Every DIE takes at least one byte of .debug_info: reserved for that many
// (see reserve.h).
static void reserveForSection(Dwarf& dwarf, uint64_t sectionSize) { reserveUpTo(dwarf.dies, sectionSize + 1); }

void decodeInfo(Dwarf& dwarf, std::vector<LocListReference>* locLists) {
  const SectionImage& sec = *dwarf.info;
  if (sec.size() > UINT32_MAX) {  // the PTX reader makes none; a producer might
    dwarf.error(&sec, 0, "section .debug_info exceeds 4 GiB").rule = "unit-bounds";
    return;
  }
  reserveForSection(dwarf, sec.size());
  // At most one per byte of .debug_info (a value takes at least one).
  if (locLists) reserveUpTo(*locLists, sec.size());
  ByteReader r(sec.data());
  while (!r.atEnd()) {
    Unit unit;
    unit.offset = r.offset();
    if (r.remaining() < 11) {
      dwarf.error(&sec, unit.offset, "truncated unit header: " + std::to_string(r.remaining()) +
                                         " bytes left, a DWARF 2-4 header needs 11").rule = "unit-header";
      return;
    }
    unit.length = r.u32();
    if (unit.length >= 0xfffffff0) {
      dwarf.error(&sec, unit.offset, unit.length == 0xffffffff
                                         ? "64-bit DWARF units are not supported"
                                         : "reserved unit length " + hex(unit.length, 8)).rule = "unit-header";
      return;
    }
    unit.end = unit.offset + 4 + unit.length;
    if (unit.end > sec.size()) {
      dwarf.error(&sec, unit.offset, "unit length " + hex(unit.length, 8) + " runs past the end of .debug_info (unit ends at " +
                                         hex(unit.end, 8) + ", section size " + hex(sec.size(), 8) + ")").rule = "unit-length";
      unit.end = sec.size();
    }
    unit.version = r.u16();
    uint64_t abbrevAt = r.offset();
    unit.abbrevOffset = r.u32();
    unit.abbrevReloc = sec.relocationAt(abbrevAt, 4);
    unit.addressSize = r.u8();
    uint32_t index = static_cast<uint32_t>(dwarf.units.size());
    dwarf.units.push_back(unit);
    Unit& u = dwarf.units.back();
    if (u.version < 2 || u.version > 4) {
      dwarf.error(&sec, u.offset + 4, "unsupported DWARF version " + std::to_string(u.version) +
                                          " (DWARF 2, 3 and 4 are supported)").rule = "unit-version";
    } else if (u.addressSize != 4 && u.addressSize != 8) {
      dwarf.error(&sec, u.offset + 10, "unsupported address size " + std::to_string(u.addressSize)).rule = "unit-header";
    } else if (!dwarf.offsetIn(".debug_abbrev", u.abbrevOffset, u.abbrevReloc)) {
      dwarf.error(&sec, abbrevAt, "abbreviation offset refers to '" + u.abbrevReloc->expression() +
                                      "', not .debug_abbrev").rule = "abbrev-offset";
    } else if (!dwarf.abbrev) {
      dwarf.error(&sec, abbrevAt, "no .debug_abbrev section").rule = "abbrev-offset";
    } else {
      const uint64_t tableOffset = *dwarf.offsetIn(".debug_abbrev", u.abbrevOffset, u.abbrevReloc);
      u.abbrevOffset = tableOffset;
      u.abbrevTable = abbrevTableAt(dwarf, tableOffset);
      if (u.abbrevTable == kNone) {
        dwarf.error(&sec, abbrevAt, "abbreviation offset " + hex(tableOffset, 8) + " is outside .debug_abbrev (size " +
                                        hex(dwarf.abbrev->size(), 8) + ")").rule = "abbrev-offset";
      } else {
        decodeDies(dwarf, index, locLists);
      }
    }
    r.seek(dwarf.units[index].end);
    if (!r.ok()) return;
  }
}

}  // namespace ptxdwarf::read
