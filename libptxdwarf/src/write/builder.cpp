#include "ptxdwarf/write/builder.h"

#include "ptxdwarf/dwarf.h"

namespace ptxdwarf::write {

using namespace dw;

DieId Builder::compileUnit(const CompileUnitDesc& d) {
  DieId cu = unit_.root();
  if (!d.producer.empty()) unit_.set(cu, DW_AT_producer, Value::string(d.producer));
  unit_.set(cu, DW_AT_language, Value::unsignedValue(d.language));
  if (!d.name.empty()) unit_.set(cu, DW_AT_name, Value::string(d.name));
  if (d.lowPc) unit_.set(cu, DW_AT_low_pc, Value::address(*d.lowPc));
  if (d.stmtList) unit_.set(cu, DW_AT_stmt_list, Value::sectionOffset({".debug_line", 0}));
  if (!d.compDir.empty()) unit_.set(cu, DW_AT_comp_dir, Value::string(d.compDir));
  return cu;
}

DieId Builder::subprogram(const SubprogramDesc& d, DieId parent) {
  DieId sp = unit_.add(parent, DW_TAG_subprogram);
  bool linkage = !d.linkageName.empty();
  if (linkage && d.linkageNameFirst) unit_.set(sp, d.linkageAttribute, Value::string(d.linkageName));
  if (!d.name.empty()) unit_.set(sp, DW_AT_name, Value::string(d.name));
  if (linkage && !d.linkageNameFirst) unit_.set(sp, d.linkageAttribute, Value::string(d.linkageName));
  if (d.declFile) {
    unit_.set(sp, DW_AT_decl_file, Value::unsignedValue(d.declFile));
    unit_.set(sp, DW_AT_decl_line, Value::unsignedValue(d.declLine));
  }
  if (d.type != kNoDie) unit_.set(sp, DW_AT_type, Value::reference(d.type));
  if (d.external) unit_.set(sp, DW_AT_external, Value::flag(true));
  if (d.lowPc) unit_.set(sp, DW_AT_low_pc, Value::address(*d.lowPc));
  if (d.highPc) unit_.set(sp, DW_AT_high_pc, Value::address(*d.highPc));
  if (d.frameBaseCfa) unit_.set(sp, DW_AT_frame_base, Value::expression(Expr(unit_.options().addressSize).callFrameCfa()));
  return sp;
}

void Builder::setLocation(DieId die, const Location& location) {
  switch (location.kind()) {
    case Location::Kind::none:
      return;
    case Location::Kind::expression:
      unit_.set(die, DW_AT_location, Value::expression(location.expr()));
      break;
    case Location::Kind::list: {
      Value v;
      v.kind = Value::Kind::locationList;
      v.list = unit_.addLocationList(location.entries());
      unit_.set(die, DW_AT_location, std::move(v));
      break;
    }
  }
  if (location.addressClass()) unit_.set(die, DW_AT_address_class, Value::unsignedValue(location.addressClass()));
}

DieId Builder::variableLike(DieId scope, uint16_t tag, const VariableDesc& d) {
  DieId v = unit_.add(scope, tag);
  if (!d.name.empty()) unit_.set(v, DW_AT_name, Value::string(d.name));
  if (d.declFile) {
    unit_.set(v, DW_AT_decl_file, Value::unsignedValue(d.declFile));
    unit_.set(v, DW_AT_decl_line, Value::unsignedValue(d.declLine));
  }
  if (d.type != kNoDie) unit_.set(v, DW_AT_type, Value::reference(d.type));
  if (d.external) unit_.set(v, DW_AT_external, Value::flag(true));
  setLocation(v, d.location);
  if (!d.linkageName.empty()) unit_.set(v, DW_AT_MIPS_linkage_name, Value::string(d.linkageName));
  return v;
}

DieId Builder::formalParameter(DieId subprogram, const VariableDesc& d) {
  return variableLike(subprogram, DW_TAG_formal_parameter, d);
}

DieId Builder::variable(DieId scope, const VariableDesc& d) { return variableLike(scope, DW_TAG_variable, d); }

DieId Builder::lexicalBlock(DieId scope, SymbolRef begin, SymbolRef end) {
  DieId b = unit_.add(scope, DW_TAG_lexical_block);
  unit_.set(b, DW_AT_low_pc, Value::address(std::move(begin)));
  unit_.set(b, DW_AT_high_pc, Value::address(std::move(end)));
  return b;
}

DieId Builder::inlinedSubroutine(DieId scope, DieId origin, SymbolRef begin, SymbolRef end, unsigned callFile,
                                 unsigned callLine) {
  DieId s = unit_.add(scope, DW_TAG_inlined_subroutine);
  unit_.set(s, DW_AT_abstract_origin, Value::reference(origin));
  unit_.set(s, DW_AT_low_pc, Value::address(std::move(begin)));
  unit_.set(s, DW_AT_high_pc, Value::address(std::move(end)));
  unit_.set(s, DW_AT_call_file, Value::unsignedValue(callFile));
  unit_.set(s, DW_AT_call_line, Value::unsignedValue(callLine));
  return s;
}

DieId Builder::baseType(std::string_view name, uint8_t encoding, uint64_t byteSize, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_base_type);
  unit_.set(t, DW_AT_name, Value::string(name));
  unit_.set(t, DW_AT_encoding, Value::unsignedValue(encoding));
  unit_.set(t, DW_AT_byte_size, Value::unsignedValue(byteSize));
  return t;
}

DieId Builder::unspecifiedType(std::string_view name, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_unspecified_type);
  unit_.set(t, DW_AT_name, Value::string(name));
  return t;
}

DieId Builder::pointerType(DieId pointee, uint8_t addressClass, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_pointer_type);
  if (pointee != kNoDie) unit_.set(t, DW_AT_type, Value::reference(pointee));
  if (addressClass) unit_.set(t, DW_AT_address_class, Value::unsignedValue(addressClass));
  return t;
}

namespace {
DieId modifier(Unit& u, uint16_t tag, DieId type, DieId parent) {
  DieId t = u.add(parent, tag);
  if (type != kNoDie) u.set(t, DW_AT_type, Value::reference(type));
  return t;
}
}  // namespace

DieId Builder::referenceType(DieId pointee, DieId parent) {
  return modifier(unit_, DW_TAG_reference_type, pointee, parent);
}
DieId Builder::constType(DieId type, DieId parent) { return modifier(unit_, DW_TAG_const_type, type, parent); }
DieId Builder::volatileType(DieId type, DieId parent) { return modifier(unit_, DW_TAG_volatile_type, type, parent); }

DieId Builder::typedefType(std::string_view name, DieId type, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_typedef);
  unit_.set(t, DW_AT_name, Value::string(name));
  if (type != kNoDie) unit_.set(t, DW_AT_type, Value::reference(type));
  return t;
}

DieId Builder::aggregate(uint16_t tag, std::string_view name, uint64_t byteSize, DieId parent) {
  if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type)
    throw BuildError("aggregate() takes DW_TAG_structure_type, DW_TAG_class_type or DW_TAG_union_type");
  DieId t = unit_.add(parent, tag);
  if (!name.empty()) unit_.set(t, DW_AT_name, Value::string(name));
  unit_.set(t, DW_AT_byte_size, Value::unsignedValue(byteSize));
  return t;
}

DieId Builder::member(DieId aggregate, const MemberDesc& d) {
  DieId m = unit_.add(aggregate, DW_TAG_member);
  if (!d.name.empty()) unit_.set(m, DW_AT_name, Value::string(d.name));
  if (d.type != kNoDie) unit_.set(m, DW_AT_type, Value::reference(d.type));
  if (d.declFile) {
    unit_.set(m, DW_AT_decl_file, Value::unsignedValue(d.declFile));
    unit_.set(m, DW_AT_decl_line, Value::unsignedValue(d.declLine));
  }
  if (d.byteSize) unit_.set(m, DW_AT_byte_size, Value::unsignedValue(*d.byteSize));
  if (d.bitSize) unit_.set(m, DW_AT_bit_size, Value::unsignedValue(*d.bitSize));
  if (d.bitOffset) unit_.set(m, DW_AT_bit_offset, Value::unsignedValue(*d.bitOffset));
  unit_.set(m, DW_AT_data_member_location,
            Value::expression(Expr(unit_.options().addressSize).plusUconst(d.offset),
                              unit_.options().version >= 4 ? uint16_t{0} : uint16_t{DW_FORM_block1}));
  return m;
}

DieId Builder::arrayType(DieId element, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_array_type);
  if (element != kNoDie) unit_.set(t, DW_AT_type, Value::reference(element));
  return t;
}

DieId Builder::subrange(DieId array, uint64_t count, DieId indexType) {
  DieId s = unit_.add(array, DW_TAG_subrange_type);
  if (indexType != kNoDie) unit_.set(s, DW_AT_type, Value::reference(indexType));
  unit_.set(s, DW_AT_count, Value::unsignedValue(count));
  return s;
}

DieId Builder::enumeration(std::string_view name, uint64_t byteSize, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_enumeration_type);
  if (!name.empty()) unit_.set(t, DW_AT_name, Value::string(name));
  unit_.set(t, DW_AT_byte_size, Value::unsignedValue(byteSize));
  return t;
}

DieId Builder::enumerator(DieId enumeration, std::string_view name, int64_t value) {
  DieId e = unit_.add(enumeration, DW_TAG_enumerator);
  unit_.set(e, DW_AT_name, Value::string(name));
  unit_.set(e, DW_AT_const_value, Value::signedValue(value));
  return e;
}

DieId Builder::subroutineType(DieId returnType, const std::vector<DieId>& parameters, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_subroutine_type);
  if (returnType != kNoDie) unit_.set(t, DW_AT_type, Value::reference(returnType));
  unit_.set(t, DW_AT_prototyped, Value::flag(true));
  for (DieId p : parameters) {
    DieId fp = unit_.add(t, DW_TAG_formal_parameter);
    unit_.set(fp, DW_AT_type, Value::reference(p));
  }
  return t;
}

}  // namespace ptxdwarf::write
