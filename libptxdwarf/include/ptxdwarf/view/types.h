// Type layouts as a debugger (or pahole) shows them: every struct, class,
// union, enum, typedef, array and pointer type of the DWARF, with its
// qualified C++ name, its size and, for aggregates, each member's offset and
// size, bit fields and the holes between members.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::view {

enum class TypeKind : uint8_t { structure, class_, union_, enumeration, typedef_, array, pointer };
std::string_view typeKindName(TypeKind k);  // "struct", "class", "union", "enum", "typedef", "array", "pointer"

struct MemberLayout {
  std::string name = {};     // empty for an unnamed member
  std::string type = {};     // the member type's C name ("float[3]", "geo::Vec3")
  uint64_t offset = 0;  // bytes from the start of the enclosing type (a bit field's storage unit)
  uint64_t size = 0;    // bytes (a bit field: its storage unit)
  bool sizeKnown = true;
  // False where DW_AT_data_member_location is no constant offset (negative,
  // a symbol, an expression to run) or the first bit lies past 2^64 bytes:
  // `offset` is then 0 and TypeLayout::problem says why.
  bool offsetKnown = true;
  // Bit fields: the width, and the first bit counted from bit 0 of byte
  // `offset`, least significant bit first (the host's numbering on a
  // little-endian machine: DWARF 2's big-endian DW_AT_bit_offset converted).
  std::optional<uint64_t> bitSize, bitOffset;
  // A base class subobject: DW_TAG_inheritance, or nvcc's member named
  // "__b_" + the base's mangled name ("__b_4Base").
  bool isBase = false;
  uint64_t holeAfterBits = 0;  // unused bits between this member's end and the next member's start
  uint64_t die = 0;            // offset of the member's DIE

  // The member's first bit and one past its last, from the start of the type
  // (exact where the type has no problem: its bit positions fit 64 bits).
  uint64_t beginBit() const { return offset * 8 + bitOffset.value_or(0); }
  uint64_t endBit() const { return bitSize ? beginBit() + *bitSize : (offset + size) * 8; }
};

struct Enumerator {
  std::string name = {};
  int64_t value = 0;
};

struct TypeLayout {
  TypeKind kind = TypeKind::structure;
  std::string name = {};  // qualified C++ name: "geo::inner::Box", "Pair<int, float>", "int *"
  uint64_t size = 0;
  bool sizeKnown = false;
  uint64_t die = 0;                      // offset of the type's DIE
  std::vector<MemberLayout> members = {};     // structs, classes, unions: bases and data members, in order
  uint64_t paddingBits = 0;              // after the last member, up to `size`
  std::vector<Enumerator> enumerators = {};   // enums
  std::string target = {};                    // typedef: the type named; array: the element type; pointer: the pointee
  std::optional<uint64_t> addressClass = {};  // DW_AT_address_class (pointers, as nvcc writes it)
  std::vector<uint64_t> dimensions = {};      // arrays: element counts, outermost first (0: unknown)
  // Why part of the layout is not given, empty when all of it is: a member
  // offset that is no constant, bit positions or a size past what 64 bits
  // count, an array dimension of 2^64 elements or more. Then a size past
  // 64 bits is unknown (sizeKnown false), and holes and padding are 0 (not
  // computed) rather than wrapped.
  std::string problem = {};
};

// Every type of those kinds, in DIE order, declarations left out.
std::vector<TypeLayout> typeLayouts(const read::Dwarf& dwarf);
// Keeps the types whose qualified name ("geo::Vec3") or plain DW_AT_name is
// one of `names` (`ptxdump types --name`).
void keepTypesNamed(std::vector<TypeLayout>& types, const read::Dwarf& dwarf, const std::vector<std::string>& names);

// The size in bytes of the type `die` describes, through typedefs, qualifiers
// and arrays; nullopt when the DWARF does not say.
std::optional<uint64_t> typeSize(const read::Dwarf& dwarf, const read::Die* die);

}  // namespace ptxdwarf::view
