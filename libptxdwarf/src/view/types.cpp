// Type layouts from the DIEs: member offsets from DW_AT_data_member_location
// (a constant, or DWARF 2's `DW_OP_plus_uconst N` block), bit fields from
// DW_AT_bit_offset (DWARF 2/3, counted from the storage unit's most
// significant bit) or DW_AT_data_bit_offset (DWARF 4), holes between members
// in bits, as pahole computes them.
#include "ptxdwarf/view/types.h"

#include <algorithm>

#include "ptxdwarf/dwarf.h"
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
void forChildren(const Dwarf& d, const Die& die, F&& f) {
  if (!die.hasChildren) return;
  size_t i = static_cast<size_t>(&die - d.dies.data()) + 1;
  for (; i < d.dies.size() && d.dies[i].depth > die.depth; ++i) {
    const Die& c = d.dies[i];
    if (c.depth == die.depth + 1 && !c.isNull()) f(c);
  }
}

// Element counts of an array type's subranges (0 where unknown).
std::vector<uint64_t> arrayDimensions(const Dwarf& d, const Die& array) {
  std::vector<uint64_t> dims;
  forChildren(d, array, [&](const Die& c) {
    if (c.tag != dw::DW_TAG_subrange_type) return;
    if (auto count = unsignedValue(d.attribute(c, dw::DW_AT_count))) {
      dims.push_back(*count);
    } else if (auto upper = unsignedValue(d.attribute(c, dw::DW_AT_upper_bound))) {
      uint64_t lower = unsignedValue(d.attribute(c, dw::DW_AT_lower_bound)).value_or(0);
      dims.push_back(*upper >= lower ? *upper - lower + 1 : 0);
    } else {
      dims.push_back(0);
    }
  });
  return dims;
}

// DW_AT_data_member_location: a constant, or an expression that is a single
// DW_OP_plus_uconst (or DW_OP_constu) from the start of the object.
std::optional<uint64_t> memberOffset(const Dwarf& d, const Die& member) {
  std::optional<AttrValue> v = d.attribute(member, dw::DW_AT_data_member_location);
  if (!v) return std::nullopt;
  if (auto c = unsignedValue(v)) return c;
  if (!v->isBlock()) return std::nullopt;
  read::Expression e = read::decodeExpression(v->block(), {.addressSize = d.unitOf(member).addressSize});
  if (!e.ok || e.ops.size() != 1) return std::nullopt;
  const read::Operation& op = e.ops[0];
  if (op.op == dw::DW_OP_plus_uconst || op.op == dw::DW_OP_constu) return op.operands[0];
  return std::nullopt;
}

std::optional<TypeKind> kindOf(uint16_t tag) {
  switch (tag) {
    case dw::DW_TAG_structure_type:
      return TypeKind::structure;
    case dw::DW_TAG_class_type:
      return TypeKind::class_;
    case dw::DW_TAG_union_type:
      return TypeKind::union_;
    case dw::DW_TAG_enumeration_type:
      return TypeKind::enumeration;
    case dw::DW_TAG_typedef:
      return TypeKind::typedef_;
    case dw::DW_TAG_array_type:
      return TypeKind::array;
    case dw::DW_TAG_pointer_type:
      return TypeKind::pointer;
    default:
      return std::nullopt;
  }
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

MemberLayout memberLayout(const Dwarf& d, const Die& m) {
  MemberLayout out;
  out.die = m.offset;
  out.name = std::string(d.name(m));
  const Die* type = referencedDie(d, m, dw::DW_AT_type);
  out.isBase = m.tag == dw::DW_TAG_inheritance || isEdgBaseMember(d, m, type);
  out.type = typeName(d, type);
  std::optional<uint64_t> size = unsignedValue(d.attribute(m, dw::DW_AT_byte_size));
  if (!size) size = typeSize(d, type);
  out.sizeKnown = size.has_value();
  out.size = size.value_or(0);
  std::optional<uint64_t> offset = memberOffset(d, m);
  std::optional<uint64_t> bitSize = unsignedValue(d.attribute(m, dw::DW_AT_bit_size));
  if (bitSize) {
    // The first bit of the field counted from the start of the object,
    // least significant first (a little-endian target).
    uint64_t firstBit = 0;
    if (auto dataBit = unsignedValue(d.attribute(m, dw::DW_AT_data_bit_offset))) {
      firstBit = *dataBit;
    } else {
      uint64_t unitBits = out.size * 8;
      uint64_t msbOffset = unsignedValue(d.attribute(m, dw::DW_AT_bit_offset)).value_or(0);
      uint64_t fromLsb = unitBits >= msbOffset + *bitSize ? unitBits - msbOffset - *bitSize : 0;
      firstBit = offset.value_or(0) * 8 + fromLsb;
    }
    // The storage unit holding the first bit, aligned to its size, as pahole shows it.
    uint64_t unit = out.size ? out.size : 1;
    out.offset = offset ? *offset : firstBit / (8 * unit) * unit;
    if (out.offset * 8 > firstBit) out.offset = firstBit / 8;
    out.bitOffset = firstBit - out.offset * 8;
    out.bitSize = bitSize;
  } else {
    out.offset = offset.value_or(0);  // union members may leave it out
  }
  return out;
}

// Static data members are declarations (DWARF 2-4) or variables (DWARF 5): not part of the layout.
bool isDataMember(const Dwarf& d, const Die& c) {
  if (c.tag == dw::DW_TAG_inheritance) return true;
  if (c.tag != dw::DW_TAG_member) return false;
  return !d.hasAttribute(c, dw::DW_AT_declaration) && !d.hasAttribute(c, dw::DW_AT_external);
}

void computeHoles(TypeLayout& t) {
  if (t.kind == TypeKind::union_) return;
  uint64_t end = 0;  // the furthest bit any member so far reaches
  MemberLayout* last = nullptr;
  for (MemberLayout& m : t.members) {
    if (last && m.beginBit() > end) last->holeAfterBits = m.beginBit() - end;
    end = std::max(end, m.endBit());
    last = &m;
  }
  if (t.sizeKnown && t.size * 8 > end) t.paddingBits = t.size * 8 - end;
}

std::string anonymousName(const Dwarf& d, const Die& die, TypeKind kind) {
  // The enclosing scopes as the type printer spells them, then the kind.
  std::string scope;
  const Die* parent = d.parentOf(die);
  if (parent && parent->tag != dw::DW_TAG_compile_unit && kindOf(parent->tag)) scope = typeName(d, parent) + "::";
  return scope + "(anonymous " + std::string(typeKindName(kind)) + ")";
}

}  // namespace

std::string_view typeKindName(TypeKind k) {
  switch (k) {
    case TypeKind::structure:
      return "struct";
    case TypeKind::class_:
      return "class";
    case TypeKind::union_:
      return "union";
    case TypeKind::enumeration:
      return "enum";
    case TypeKind::typedef_:
      return "typedef";
    case TypeKind::array:
      return "array";
    case TypeKind::pointer:
      return "pointer";
  }
  return "";
}

std::optional<uint64_t> typeSize(const Dwarf& d, const Die* die) {
  uint64_t multiplier = 1;
  for (int i = 0; die && i < kMaxTypeChain; ++i) {
    if (auto size = unsignedValue(d.attribute(*die, dw::DW_AT_byte_size))) return multiplier * *size;
    switch (die->tag) {
      case dw::DW_TAG_pointer_type:
      case dw::DW_TAG_reference_type:
      case dw::DW_TAG_rvalue_reference_type:
      case dw::DW_TAG_ptr_to_member_type:
        return multiplier * d.unitOf(*die).addressSize;
      case dw::DW_TAG_array_type: {
        for (uint64_t n : arrayDimensions(d, *die)) multiplier *= n;
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

std::vector<TypeLayout> typeLayouts(const Dwarf& d) {
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
    t.name = named || !aggregate ? typeName(d, &die) : anonymousName(d, die, *kind);
    std::optional<uint64_t> size = typeSize(d, &die);
    t.sizeKnown = size.has_value();
    t.size = size.value_or(0);
    const Die* target = referencedDie(d, die, dw::DW_AT_type);
    switch (*kind) {
      case TypeKind::structure:
      case TypeKind::class_:
      case TypeKind::union_:
        forChildren(d, die, [&](const Die& c) {
          if (isDataMember(d, c)) t.members.push_back(memberLayout(d, c));
        });
        computeHoles(t);
        break;
      case TypeKind::enumeration:
        forChildren(d, die, [&](const Die& c) {
          if (c.tag != dw::DW_TAG_enumerator) return;
          t.enumerators.push_back(
              {std::string(d.name(c)), signedValue(d.attribute(c, dw::DW_AT_const_value)).value_or(0)});
        });
        if (target) t.target = typeName(d, target);
        break;
      case TypeKind::array:
        t.dimensions = arrayDimensions(d, die);
        t.target = typeName(d, target);
        break;
      case TypeKind::typedef_:
      case TypeKind::pointer:
        t.target = typeName(d, target);
        if (auto cls = unsignedValue(d.attribute(die, dw::DW_AT_address_class))) t.addressClass = cls;
        break;
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ptxdwarf::view
