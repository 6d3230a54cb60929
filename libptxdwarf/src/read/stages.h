// The decoder's stages, one per section; decode() in dwarf.cpp runs them in order.
#pragma once

#include "ptxdwarf/leb128.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::read {

// Decodes the abbreviation table at `offset` (reusing one already decoded) and
// returns its index in dwarf.abbrevTables, or kNone when the offset is bad.
uint32_t abbrevTableAt(Dwarf& dwarf, uint64_t offset);
void decodeInfo(Dwarf& dwarf);
void decodePubnames(Dwarf& dwarf);
void decodeAranges(Dwarf& dwarf);
void decodeLocLists(Dwarf& dwarf);

// Reads one attribute value of `form` at the reader's position.
// Returns false (and leaves a diagnostic) when the value cannot be read.
// `relocs` finds the relocations of fixed-size values as the reader moves on.
bool readAttrValue(Dwarf& dwarf, const Unit& unit, ByteReader& r, RelocationCursor& relocs, uint16_t form,
                   AttrValue& out);

}  // namespace ptxdwarf::read
