// Type layouts from the DIEs: member offsets from DW_AT_data_member_location
// (a constant, or DWARF 2's `DW_OP_plus_uconst N` block), bit fields from
// DW_AT_bit_offset (DWARF 2/3, counted from the storage unit's most
// significant bit) or DW_AT_data_bit_offset (DWARF 4), holes between members
// in bits, as pahole computes them.
#include "ptxdwarf/view/types.h"

#include <algorithm>
#include <string>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/view/attributes.h"
#include "ptxdwarf/view/type_name.h"

namespace ptxdwarf::view {

namespace {

using read::AttrValue;
using read::Die;
using read::Dwarf;

constexpr int kMaxTypeChain = 64;  // typedef/qualifier/array chains a crafted file could make cycle

std::optional<uint64_t> unsignedValue(const std::optional<AttrValue>& v) {
  if (!v || v->reloc) return std::nullopt;
  switch (v->form) {
    case dw::DW_FORM_data1:
    case dw::DW_FORM_data2:
    case dw::DW_FORM_data4:
    case dw::DW_FORM_data8:
    case dw::DW_FORM_udata:
      return v->value;
    case dw::DW_FORM_sdata:
      return v->svalue() < 0 ? std::nullopt : std::optional<uint64_t>(static_cast<uint64_t>(v->svalue()));
    default:
      return std::nullopt;
  }
}

std::optional<int64_t> signedValue(const std::optional<AttrValue>& v) {
  if (!v || v->reloc) return std::nullopt;
  switch (v->form) {
    case dw::DW_FORM_data1:
      return static_cast<int8_t>(v->value);
    case dw::DW_FORM_data2:
      return static_cast<int16_t>(v->value);
    case dw::DW_FORM_data4:
      return static_cast<int32_t>(v->value);
    case dw::DW_FORM_data8:
    case dw::DW_FORM_udata:
      return static_cast<int64_t>(v->value);
    case dw::DW_FORM_sdata:
      return v->svalue();
    default:
      return std::nullopt;
  }
}

template <class F>
void forChildren(const Dwarf& d, const Die& die, const SubtreeEnds* ends, F&& f) {
  forEachChild(d, die, ends, [&](const Die& c) {
    f(c);
    return true;
  });
}

// A count of bits or bytes that must fit in 64 bits, or why it does not.
struct Checked {
  std::optional<uint64_t> value;
  std::string problem = {};  // set when value is not
};

std::string decimal(unsigned __int128 v) {
  std::string digits;
  do {
    digits += static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v);
  return {digits.rbegin(), digits.rend()};
}

// Element counts of an array type's subranges (0 where unknown); a count
// of 2^64 or more (bounds [0, 2^64 - 1]) is no number 64 bits hold: it is
// left unknown, and `problem` says why.
std::vector<uint64_t> arrayDimensions(const Dwarf& d, const Die& array, const SubtreeEnds* ends,
                                      std::string* problem = nullptr) {
  std::vector<uint64_t> dims;
  forChildren(d, array, ends, [&](const Die& c) {
    if (c.tag != dw::DW_TAG_subrange_type) return;
    if (auto count = unsignedValue(d.attribute(c, dw::DW_AT_count))) {
      dims.push_back(*count);
    } else if (auto upper = unsignedValue(d.attribute(c, dw::DW_AT_upper_bound))) {
      const uint64_t lower = unsignedValue(d.attribute(c, dw::DW_AT_lower_bound)).value_or(0);
      const unsigned __int128 n = *upper >= lower ? static_cast<unsigned __int128>(*upper) - lower + 1 : 0;
      if (n > UINT64_MAX && problem && problem->empty())
        *problem = "dimension " + std::to_string(dims.size() + 1) + ": bounds [" + std::to_string(lower) + ", " +
                   std::to_string(*upper) + "] hold " + decimal(n) + " elements, more than 64 bits count";
      dims.push_back(n > UINT64_MAX ? 0 : static_cast<uint64_t>(n));
    } else {
      dims.push_back(0);
    }
  });
  return dims;
}

// DW_AT_data_member_location: a constant, or an expression that is a single
// DW_OP_plus_uconst (or DW_OP_constu) from the start of the object. None,
// with no problem, when the member has none (union members may leave it
// out); none, with the problem, when it has one that is no such offset (a
// negative constant, a symbol, an expression to run: a virtual base's).
Checked memberOffset(const Dwarf& d, const Die& member) {
  std::optional<AttrValue> v = d.attribute(member, dw::DW_AT_data_member_location);
  if (!v) return {};
  if (auto c = unsignedValue(v)) return {c};
  if (v->reloc) return {std::nullopt, "DW_AT_data_member_location is the symbol " + v->reloc->expression()};
  if (v->form == dw::DW_FORM_sdata)
    return {std::nullopt, "DW_AT_data_member_location is negative (" + std::to_string(v->svalue()) + ")"};
  if (!v->isBlock()) return {std::nullopt, "DW_AT_data_member_location has a form that holds no offset"};
  read::Expression e = read::decodeExpression(v->block(), {.addressSize = d.unitOf(member).addressSize});
  if (e.ok && e.ops.size() == 1 && (e.ops[0].op == dw::DW_OP_plus_uconst || e.ops[0].op == dw::DW_OP_constu))
    return {e.ops[0].operands[0]};
  return {std::nullopt, "DW_AT_data_member_location is an expression, not a constant offset"};
}

// The kinds of type typeLayouts lists: the tag that makes one, the word that names it.
struct KindInfo {
  uint16_t tag;
  TypeKind kind;
  std::string_view name;
};
constexpr KindInfo kKinds[] = {
    {dw::DW_TAG_structure_type, TypeKind::structure, "struct"},
    {dw::DW_TAG_class_type, TypeKind::class_, "class"},
    {dw::DW_TAG_union_type, TypeKind::union_, "union"},
    {dw::DW_TAG_enumeration_type, TypeKind::enumeration, "enum"},
    {dw::DW_TAG_typedef, TypeKind::typedef_, "typedef"},
    {dw::DW_TAG_array_type, TypeKind::array, "array"},
    {dw::DW_TAG_pointer_type, TypeKind::pointer, "pointer"},
};

std::optional<TypeKind> kindOf(uint16_t tag) {
  for (const KindInfo& k : kKinds)
    if (k.tag == tag) return k.kind;
  return std::nullopt;
}

// typeSize, with `ends` to find an array's subranges by, and `problem` set
// where the size is not given because it is past what 64 bits count.
std::optional<uint64_t> sizeOf(const Dwarf& d, const Die* die, const SubtreeEnds* ends, std::string* problem) {
  using u128 = unsigned __int128;
  u128 multiplier = 1;
  auto tooLarge = [&](u128 bytes) -> std::optional<uint64_t> {
    if (problem && problem->empty()) *problem = "its size, " + decimal(bytes) + " bytes, is past what 64 bits count";
    return std::nullopt;
  };
  for (int i = 0; die && i < kMaxTypeChain; ++i) {
    std::optional<uint64_t> size = unsignedValue(d.attribute(*die, dw::DW_AT_byte_size));
    const uint16_t tag = die->tag;
    if (!size && (tag == dw::DW_TAG_pointer_type || tag == dw::DW_TAG_reference_type ||
                  tag == dw::DW_TAG_rvalue_reference_type || tag == dw::DW_TAG_ptr_to_member_type))
      size = d.unitOf(*die).addressSize;
    if (size) {
      const u128 bytes = multiplier * *size;
      return bytes > UINT64_MAX ? tooLarge(bytes) : std::optional<uint64_t>(static_cast<uint64_t>(bytes));
    }
    switch (tag) {
      case dw::DW_TAG_array_type: {
        std::string dimensionProblem;
        for (uint64_t n : arrayDimensions(d, *die, ends, &dimensionProblem)) {
          multiplier *= n;
          if (multiplier > UINT64_MAX) return tooLarge(multiplier);  // and it only grows: its bytes too
        }
        if (!dimensionProblem.empty()) {
          if (problem && problem->empty()) *problem = dimensionProblem;
          return std::nullopt;
        }
        break;
      }
      case dw::DW_TAG_typedef:
      case dw::DW_TAG_const_type:
      case dw::DW_TAG_volatile_type:
      case dw::DW_TAG_restrict_type:
      case dw::DW_TAG_atomic_type:
      case dw::DW_TAG_enumeration_type:  // no byte size: that of its underlying type
        break;
      default:
        return std::nullopt;
    }
    die = referencedDie(d, *die, dw::DW_AT_type);
  }
  return std::nullopt;
}

// nvcc (EDG) describes a base class as a DW_TAG_member named "__b_" plus the
// base's mangled name ("__b_4Base"), where other producers write DW_TAG_inheritance.
// "__b_" is reserved to the implementation, so no user member is called so.
bool isEdgBaseMember(const Dwarf& d, const Die& m, const Die* type) {
  if (m.tag != dw::DW_TAG_member || !d.name(m).starts_with("__b_")) return false;
  for (int i = 0; type && type->tag == dw::DW_TAG_typedef && i < kMaxTypeChain; ++i)
    type = referencedDie(d, *type, dw::DW_AT_type);
  return type && (type->tag == dw::DW_TAG_structure_type || type->tag == dw::DW_TAG_class_type);
}

// "member at DIE 0x2a: " + why: a member by its DIE, not by its name (a
// name is the producer's text, and the problem is printed as it is).
std::string memberProblem(uint64_t die, const std::string& why) { return "member at DIE " + hex(die, 8) + ": " + why; }

MemberLayout memberLayout(const Dwarf& d, const Die& m, const SubtreeEnds* ends, std::string& problem) {
  using u128 = unsigned __int128;
  MemberLayout out;
  out.die = m.offset;
  out.name = std::string(d.name(m));
  const Die* type = referencedDie(d, m, dw::DW_AT_type);
  out.isBase = m.tag == dw::DW_TAG_inheritance || isEdgBaseMember(d, m, type);
  out.type = typeName(d, type, ends);
  auto note = [&](const std::string& why) {
    if (problem.empty()) problem = memberProblem(m.offset, why);
  };
  std::string sizeProblem;
  std::optional<uint64_t> size = unsignedValue(d.attribute(m, dw::DW_AT_byte_size));
  if (!size) size = sizeOf(d, type, ends, &sizeProblem);
  if (!sizeProblem.empty()) note(sizeProblem);
  out.sizeKnown = size.has_value();
  out.size = size.value_or(0);
  Checked offset = memberOffset(d, m);
  if (!offset.problem.empty()) {
    out.offsetKnown = false;
    note(offset.problem);
  }
  std::optional<uint64_t> bitSize = unsignedValue(d.attribute(m, dw::DW_AT_bit_size));
  if (bitSize) {
    // The first bit of the field counted from the start of the object,
    // least significant first (a little-endian target); in 128 bits, as a
    // crafted offset may put it past what 64 bits count.
    u128 firstBit = 0;
    if (auto dataBit = unsignedValue(d.attribute(m, dw::DW_AT_data_bit_offset))) {
      firstBit = *dataBit;
    } else {
      const u128 unitBits = u128{out.size} * 8;
      const u128 msbOffset = unsignedValue(d.attribute(m, dw::DW_AT_bit_offset)).value_or(0);
      const u128 fromLsb = unitBits >= msbOffset + *bitSize ? unitBits - msbOffset - *bitSize : 0;
      firstBit = u128{offset.value.value_or(0)} * 8 + fromLsb;
    }
    // The storage unit holding the first bit, aligned to its size, as pahole shows it.
    const u128 unit = out.size ? out.size : 1;
    u128 at = offset.value ? *offset.value : firstBit / (8 * unit) * unit;
    if (at * 8 > firstBit) at = firstBit / 8;
    const u128 bitOffset = firstBit - at * 8;
    if (at > UINT64_MAX || bitOffset > UINT64_MAX) {
      out.offsetKnown = false;
      note("its first bit, " + decimal(firstBit) + ", is past what 64 bits count in bytes");
    }
    out.offset = static_cast<uint64_t>(at);
    out.bitOffset = static_cast<uint64_t>(bitOffset);
    out.bitSize = bitSize;
  } else {
    out.offset = offset.value.value_or(0);  // union members may leave it out
  }
  return out;
}

// Static data members are declarations (DWARF 2-4) or variables (DWARF 5): not part of the layout.
bool isDataMember(const Dwarf& d, const Die& c) {
  if (c.tag == dw::DW_TAG_inheritance) return true;
  if (c.tag != dw::DW_TAG_member) return false;
  return !d.hasAttribute(c, dw::DW_AT_declaration) && !d.hasAttribute(c, dw::DW_AT_external);
}

// Holes and padding in bits, as pahole counts them. Every bit position of
// the layout, and the members' bits summed, must fit in 64 bits (a crafted
// offset near 2^64 bytes is 2^67 bits): where one does not, or a member's
// offset is unknown, the type's problem says so and no hole is given.
void computeHoles(TypeLayout& t) {
  using u128 = unsigned __int128;
  u128 memberBits = 0;
  for (const MemberLayout& m : t.members) {
    const u128 begin = u128{m.offset} * 8 + m.bitOffset.value_or(0);
    const u128 end = m.bitSize ? begin + *m.bitSize : (u128{m.offset} + m.size) * 8;
    memberBits += m.bitSize ? u128{*m.bitSize} : u128{m.size} * 8;
    if (t.problem.empty() && end > UINT64_MAX)
      t.problem = memberProblem(m.die, "it ends at bit " + decimal(end) + ", past what 64 bits count");
  }
  if (t.problem.empty() && memberBits > UINT64_MAX)
    t.problem = "the members' bits add up to " + decimal(memberBits) + ", past what 64 bits count";
  if (t.problem.empty() && t.sizeKnown && u128{t.size} * 8 > UINT64_MAX)
    t.problem = "its size, " + std::to_string(t.size) + " bytes, is past what 64 bits count in bits";
  if (!t.problem.empty() || t.kind == TypeKind::union_) return;
  uint64_t end = 0;  // the furthest bit any member so far reaches
  MemberLayout* last = nullptr;
  for (MemberLayout& m : t.members) {
    if (last && m.beginBit() > end) last->holeAfterBits = m.beginBit() - end;
    end = std::max(end, m.endBit());
    last = &m;
  }
  if (t.sizeKnown && t.size * 8 > end) t.paddingBits = t.size * 8 - end;
}

std::string anonymousName(const Dwarf& d, const Die& die, TypeKind kind, const SubtreeEnds* ends) {
  // The enclosing scopes as the type printer spells them, then the kind.
  std::string scope;
  const Die* parent = d.parentOf(die);
  if (parent && parent->tag != dw::DW_TAG_compile_unit && kindOf(parent->tag)) scope = typeName(d, parent, ends) + "::";
  return scope + "(anonymous " + std::string(typeKindName(kind)) + ")";
}

}  // namespace

std::string_view typeKindName(TypeKind k) {
  for (const KindInfo& info : kKinds)
    if (info.kind == k) return info.name;
  return "";
}

std::optional<uint64_t> typeSize(const Dwarf& d, const Die* die) { return sizeOf(d, die, nullptr, nullptr); }

void keepTypesNamed(std::vector<TypeLayout>& types, const Dwarf& d, const std::vector<std::string>& names) {
  std::erase_if(types, [&](const TypeLayout& t) {
    const Die* die = d.dieAt(t.die);
    const std::string_view plain = die ? d.name(*die) : std::string_view();
    return std::none_of(names.begin(), names.end(),
                        [&](const std::string& n) { return n == t.name || (!plain.empty() && n == plain); });
  });
}

std::vector<TypeLayout> typeLayouts(const Dwarf& d) {
  const SubtreeEnds ends(d);
  std::vector<TypeLayout> out;
  for (const Die& die : d.dies) {
    if (die.isNull()) continue;
    std::optional<TypeKind> kind = kindOf(die.tag);
    if (!kind || d.attribute(die, dw::DW_AT_declaration)) continue;
    TypeLayout t;
    t.kind = *kind;
    t.die = die.offset;
    bool named = !d.name(die).empty();
    bool aggregate = *kind == TypeKind::structure || *kind == TypeKind::class_ || *kind == TypeKind::union_ ||
                     *kind == TypeKind::enumeration;
    t.name = named || !aggregate ? typeName(d, &die, &ends) : anonymousName(d, die, *kind, &ends);
    std::optional<uint64_t> size = sizeOf(d, &die, &ends, &t.problem);
    t.sizeKnown = size.has_value();
    t.size = size.value_or(0);
    const Die* target = referencedDie(d, die, dw::DW_AT_type);
    switch (*kind) {
      case TypeKind::structure:
      case TypeKind::class_:
      case TypeKind::union_:
        forChildren(d, die, &ends, [&](const Die& c) {
          if (isDataMember(d, c)) t.members.push_back(memberLayout(d, c, &ends, t.problem));
        });
        computeHoles(t);
        break;
      case TypeKind::enumeration:
        forChildren(d, die, &ends, [&](const Die& c) {
          if (c.tag != dw::DW_TAG_enumerator) return;
          t.enumerators.push_back(
              {std::string(d.name(c)), signedValue(d.attribute(c, dw::DW_AT_const_value)).value_or(0)});
        });
        if (target) t.target = typeName(d, target, &ends);
        break;
      case TypeKind::array:
        t.dimensions = arrayDimensions(d, die, &ends);
        t.target = typeName(d, target, &ends);
        break;
      case TypeKind::typedef_:
      case TypeKind::pointer:
        t.target = typeName(d, target, &ends);
        if (auto cls = unsignedValue(d.attribute(die, dw::DW_AT_address_class))) t.addressClass = cls;
        break;
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ptxdwarf::view
