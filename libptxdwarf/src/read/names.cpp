// .debug_pubnames and .debug_aranges: per-unit name and address tables.
#include "stages.h"

namespace ptxdwarf::read {

namespace {

// The `.b32 .debug_info` (+N) field of a table header: its offset into .debug_info.
uint64_t infoOffsetField(const Dwarf& dwarf, const SectionImage& sec, ByteReader& r, const Relocation*& reloc) {
  uint64_t at = r.offset();
  uint64_t v = r.u32();
  reloc = sec.relocationAt(at, 4);
  return dwarf.offsetIn(".debug_info", v, reloc).value_or(v);
}

// A length field: a number, or an `A-B` of labels defined in one section.
uint64_t lengthField(const Dwarf& dwarf, const SectionImage& sec, ByteReader& r) {
  uint64_t at = r.offset();
  uint64_t v = r.u32();
  if (const Relocation* rel = sec.relocationAt(at, 4))
    if (auto d = dwarf.labelDifference(*rel)) v = static_cast<uint64_t>(*d) & 0xffffffffu;
  return v;
}

}  // namespace

void decodePubnames(Dwarf& dwarf) {
  const SectionImage& sec = *dwarf.pubnames;
  ByteReader r(sec.data());
  while (!r.atEnd()) {
    NameSet set;
    set.offset = r.offset();
    set.length = lengthField(dwarf, sec, r);
    set.version = r.u16();
    set.infoOffset = infoOffsetField(dwarf, sec, r, set.infoReloc);
    set.infoLength = lengthField(dwarf, sec, r);
    if (!r.ok()) {
      dwarf.error(&sec, set.offset, "truncated .debug_pubnames header").rule = "pubnames-header";
      return;
    }
    // Entries run to a zero offset. The set length is only a hint: producers
    // disagree on what it covers (see check), so the terminator decides.
    for (;;) {
      NameEntry e;
      e.offset = r.offset();
      e.dieOffset = r.u32();
      if (!r.ok()) {
        dwarf.error(&sec, e.offset, "pubnames set at offset " + std::to_string(set.offset) +
                                        " runs past the end of the section without a 0 terminator")
            .rule = "pubnames-bounds";
        dwarf.pubnameSets.push_back(std::move(set));
        return;
      }
      if (e.dieOffset == 0) break;
      e.name = r.cstring();
      if (!r.ok()) {
        dwarf.error(&sec, e.offset, "pubnames entry name is not NUL-terminated").rule = "pubnames-bounds";
        dwarf.pubnameSets.push_back(std::move(set));
        return;
      }
      set.entries.push_back(e);
    }
    dwarf.pubnameSets.push_back(std::move(set));
  }
}

void decodeAranges(Dwarf& dwarf) {
  const SectionImage& sec = *dwarf.aranges;
  ByteReader r(sec.data());
  while (!r.atEnd()) {
    ArangeSet set;
    set.offset = r.offset();
    set.length = lengthField(dwarf, sec, r);
    set.version = r.u16();
    set.infoOffset = infoOffsetField(dwarf, sec, r, set.infoReloc);
    set.addressSize = r.u8();
    set.segmentSize = r.u8();
    if (!r.ok()) {
      dwarf.error(&sec, set.offset, "truncated .debug_aranges header").rule = "aranges-header";
      return;
    }
    if (set.addressSize != 4 && set.addressSize != 8) {
      dwarf.error(&sec, set.offset + 10, "unsupported address size " + std::to_string(set.addressSize) +
                                             " in .debug_aranges").rule = "aranges-header";
      return;
    }
    uint64_t end = set.offset + 4 + set.length;
    // Tuples start at a multiple of twice the address size from the set start.
    uint64_t tuple = 2 * set.addressSize;
    uint64_t headerEnd = r.offset() - set.offset;
    r.skip((tuple - headerEnd % tuple) % tuple);
    for (;;) {
      Range range;
      range.offset = r.offset();
      range.address = r.fixed(set.addressSize);
      range.addressReloc = sec.relocationAt(range.offset, set.addressSize);
      range.length = r.fixed(set.addressSize);
      range.lengthReloc = sec.relocationAt(range.offset + set.addressSize, set.addressSize);
      if (!r.ok()) {
        dwarf.error(&sec, range.offset, "aranges set at offset " + std::to_string(set.offset) +
                                            " runs past the end of the section without a 0,0 terminator")
            .rule = "aranges-bounds";
        dwarf.arangeSets.push_back(std::move(set));
        return;
      }
      if (range.address == 0 && range.length == 0 && !range.addressReloc && !range.lengthReloc) break;
      set.ranges.push_back(range);
    }
    if (end > r.offset() && end <= sec.size()) r.seek(end);  // padding after the terminator
    set.next = r.offset();
    dwarf.arangeSets.push_back(std::move(set));
  }
}

}  // namespace ptxdwarf::read
