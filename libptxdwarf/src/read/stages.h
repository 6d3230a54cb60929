// The decoder's stages, one per section; decode() in dwarf.cpp runs them in order.
#pragma once

#include <span>
#include <vector>

#include "ptxdwarf/leb128.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::read {

// Decodes the abbreviation table at `offset` (reusing one already decoded) and
// returns its index in dwarf.abbrevTables, or kNone when the offset is bad.
uint32_t abbrevTableAt(Dwarf& dwarf, uint64_t offset);
// A location attribute whose value names a location list: the .debug_loc
// offset it names, where the value is in .debug_info, and the address size
// its unit reads entries with. decodeInfo collects them as it reads every
// value, so that decodeLocLists need not walk the DIEs again.
struct LocListReference {
  uint64_t offset;
  uint32_t valueAt;
  uint8_t addressSize;
};
// Collects the references into `locLists` where it is given.
void decodeInfo(Dwarf& dwarf, std::vector<LocListReference>* locLists = nullptr);
void decodePubnames(Dwarf& dwarf);
void decodeAranges(Dwarf& dwarf);
// The lists `references` name (decodeInfo's, in DIE order).
void decodeLocLists(Dwarf& dwarf, std::span<const LocListReference> references);

// Why an attribute value could not be read, and where.
struct AttrProblem {
  uint64_t offset = 0;
  std::string message;
  const char* rule = "";
};

// Reads one attribute value of `form` at the reader's position: the
// decoder's check of every value, and AttrRange's decode of one on demand.
// Returns false (and says why in `problem`) when the value cannot be read.
// `relocs` finds the relocations of fixed-size values as the reader moves on.
bool readAttrValue(const Dwarf& dwarf, const Unit& unit, ByteReader& r, RelocationCursor& relocs, uint16_t form,
                   AttrValue& out, AttrProblem& problem);

// AttrSpec::valueSize for `form`: the size of its every value where the
// form alone gives it.
uint8_t valueSizeOf(uint16_t form);

// Where the value of `form` at `at` ends, for one that readAttrValue read
// once without a problem: its size only (valueSizeOf's, or a length, a
// LEB128's or a string's end), no relocation looked up and nothing decoded;
// `end` (the unit's) when the bytes run out.
uint64_t skipAttrValue(const Unit& unit, const uint8_t* data, uint64_t at, uint64_t end, uint16_t form);

}  // namespace ptxdwarf::read
