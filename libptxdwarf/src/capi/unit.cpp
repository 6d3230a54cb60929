// The C API: units, DIEs, the semantic helpers and attributes (write::Builder).
#include "capi.h"

using namespace ptxdwarf;
using namespace ptxdwarf::capi;

// ---- Units and DIEs -----------------------------------------------------------

ptxdwarf_status ptxdwarf_unit_create(uint16_t version, uint8_t address_size, ptxdwarf_form_policy policy,
                                     ptxdwarf_unit** out) {
  return guard([&] {
    needOut(out, "out");
    write::UnitOptions o;
    o.version = version ? version : 2;
    o.addressSize = addressSize(address_size);
    switch (enumValue(policy)) {
      case PTXDWARF_POLICY_CHAPTER6:
        o.policy = write::FormPolicy::chapter6;
        break;
      case PTXDWARF_POLICY_COMPACT:
        o.policy = write::FormPolicy::compact;
        break;
      default:
        fail(PTXDWARF_E_INVALID_ARGUMENT, "unknown form policy " + std::to_string(enumValue(policy)));
    }
    *out = new ptxdwarf_unit{write::Builder(o)};
  });
}

void ptxdwarf_unit_free(ptxdwarf_unit* unit) { delete unit; }

size_t ptxdwarf_unit_die_count(const ptxdwarf_unit* unit) { return unit ? unit->builder.unit().size() : 0; }

ptxdwarf_status ptxdwarf_add_die(ptxdwarf_unit* unit, ptxdwarf_die p, uint16_t tag, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder&, write::Unit& u) { return u.add(parent(u, p), tag); });
}

ptxdwarf_status ptxdwarf_attach(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die child) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    u.attach(die(u, p, "parent"), die(u, child, "child"));
  });
}

ptxdwarf_status ptxdwarf_force_children(ptxdwarf_unit* unit, ptxdwarf_die d, int force) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    u.forceChildren(die(u, d, "die"), force != 0);
  });
}

// ---- Semantic helpers ---------------------------------------------------------

ptxdwarf_status ptxdwarf_compile_unit(ptxdwarf_unit* unit, const ptxdwarf_compile_unit_desc* desc) {
  return guard([&] {
    write::Builder& b = need(unit, "the unit").builder;
    const ptxdwarf_compile_unit_desc& d = need(desc, "the compile unit description");
    write::CompileUnitDesc c;
    c.producer = optional(d.producer);
    c.language = d.language ? d.language : uint16_t{dw::DW_LANG_C_plus_plus};
    c.name = optional(d.name);
    if (d.omit_low_pc)
      c.lowPc = std::nullopt;
    else
      c.lowPc = write::SymbolRef{optional(d.low_pc)};
    c.stmtList = !d.omit_stmt_list;
    c.compDir = optional(d.comp_dir);
    b.compileUnit(c);
  });
}

ptxdwarf_status ptxdwarf_subprogram(ptxdwarf_unit* unit, ptxdwarf_die p, const ptxdwarf_subprogram_desc* desc,
                                    ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    const ptxdwarf_subprogram_desc& d = need(desc, "the subprogram description");
    write::SubprogramDesc s;
    s.name = optional(d.name);
    s.linkageName = optional(d.linkage_name);
    s.declFile = d.decl_file;
    s.declLine = d.decl_line;
    s.type = optionalDie(u, d.type, "type");
    s.external = !d.internal;
    if (d.low_pc) s.lowPc = write::SymbolRef{d.low_pc};
    if (d.high_pc) s.highPc = write::SymbolRef{d.high_pc};
    s.frameBaseCfa = !d.no_frame_base;
    s.linkageNameFirst = !d.linkage_name_after_name;
    if (d.linkage_attribute) s.linkageAttribute = d.linkage_attribute;
    return b.subprogram(s, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_formal_parameter(ptxdwarf_unit* unit, ptxdwarf_die subprogram,
                                          const ptxdwarf_variable_desc* desc, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    write::VariableDesc v = variableDesc(u, need(desc, "the parameter description"));
    return b.formalParameter(parent(u, subprogram), v);
  });
}

ptxdwarf_status ptxdwarf_variable(ptxdwarf_unit* unit, ptxdwarf_die scope, const ptxdwarf_variable_desc* desc,
                                  ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    write::VariableDesc v = variableDesc(u, need(desc, "the variable description"));
    return b.variable(parent(u, scope), v);
  });
}

ptxdwarf_status ptxdwarf_lexical_block(ptxdwarf_unit* unit, ptxdwarf_die scope, const char* begin_label,
                                       const char* end_label, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.lexicalBlock(parent(u, scope), {required(begin_label, "the begin label")},
                          {required(end_label, "the end label")});
  });
}

ptxdwarf_status ptxdwarf_inlined_subroutine(ptxdwarf_unit* unit, ptxdwarf_die scope, ptxdwarf_die origin,
                                            const char* begin_label, const char* end_label, unsigned call_file,
                                            unsigned call_line, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.inlinedSubroutine(parent(u, scope), die(u, origin, "origin"), {required(begin_label, "the begin label")},
                               {required(end_label, "the end label")}, call_file, call_line);
  });
}

ptxdwarf_status ptxdwarf_base_type(ptxdwarf_unit* unit, ptxdwarf_die p, const char* name, uint8_t encoding,
                                   uint64_t byte_size, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.baseType(required(name, "the type name"), encoding, byte_size, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_unspecified_type(ptxdwarf_unit* unit, ptxdwarf_die p, const char* name, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.unspecifiedType(required(name, "the type name"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_pointer_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die pointee, uint8_t address_class,
                                      ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.pointerType(optionalDie(u, pointee, "pointee"), address_class, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_reference_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die pointee, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.referenceType(optionalDie(u, pointee, "pointee"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_const_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die type, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.constType(optionalDie(u, type, "type"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_volatile_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die type, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.volatileType(optionalDie(u, type, "type"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_typedef(ptxdwarf_unit* unit, ptxdwarf_die p, const char* name, ptxdwarf_die type,
                                 ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.typedefType(required(name, "the typedef name"), optionalDie(u, type, "type"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_aggregate(ptxdwarf_unit* unit, ptxdwarf_die p, uint16_t tag, const char* name,
                                   uint64_t byte_size, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    if (tag != dw::DW_TAG_structure_type && tag != dw::DW_TAG_class_type && tag != dw::DW_TAG_union_type)
      fail(PTXDWARF_E_INVALID_ARGUMENT,
           "an aggregate's tag is DW_TAG_structure_type, DW_TAG_class_type or "
           "DW_TAG_union_type, not " +
               std::to_string(tag));
    return b.aggregate(tag, optional(name), byte_size, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_member(ptxdwarf_unit* unit, ptxdwarf_die aggregate, const char* name, ptxdwarf_die type,
                                uint64_t offset, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    write::MemberDesc m;
    m.name = optional(name);
    m.type = optionalDie(u, type, "type");
    m.offset = offset;
    return b.member(die(u, aggregate, "aggregate"), m);
  });
}

ptxdwarf_status ptxdwarf_array_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die element, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.arrayType(optionalDie(u, element, "element type"), parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_subrange(ptxdwarf_unit* unit, ptxdwarf_die array, uint64_t count, ptxdwarf_die index_type,
                                  ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.subrange(die(u, array, "array"), count, optionalDie(u, index_type, "index type"));
  });
}

ptxdwarf_status ptxdwarf_enumeration(ptxdwarf_unit* unit, ptxdwarf_die p, const char* name, uint64_t byte_size,
                                     ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.enumeration(optional(name), byte_size, parent(u, p));
  });
}

ptxdwarf_status ptxdwarf_enumerator(ptxdwarf_unit* unit, ptxdwarf_die enumeration, const char* name, int64_t value,
                                    ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    return b.enumerator(die(u, enumeration, "enumeration"), required(name, "the enumerator name"), value);
  });
}

ptxdwarf_status ptxdwarf_subroutine_type(ptxdwarf_unit* unit, ptxdwarf_die p, ptxdwarf_die return_type,
                                         const ptxdwarf_die* parameters, size_t parameter_count, ptxdwarf_die* out) {
  return addDie(unit, out, [&](write::Builder& b, write::Unit& u) {
    if (parameter_count && !parameters) fail(PTXDWARF_E_INVALID_ARGUMENT, "the parameter array is NULL");
    std::vector<write::DieId> params;
    for (size_t k = 0; k < parameter_count; ++k) params.push_back(die(u, parameters[k], "parameter type"));
    return b.subroutineType(optionalDie(u, return_type, "return type"), params, parent(u, p));
  });
}

// ---- Attributes -----------------------------------------------------------------

namespace {
template <class F>
ptxdwarf_status setAttr(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, F&& value) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    write::DieId id = die(u, d, "die");
    if (name == 0) fail(PTXDWARF_E_INVALID_ARGUMENT, "attribute 0 is reserved");
    u.set(id, name, value(u));
  });
}
}  // namespace

ptxdwarf_status ptxdwarf_set_attr_unsigned(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, uint64_t value,
                                           uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) { return write::Value::unsignedValue(value, form); });
}

ptxdwarf_status ptxdwarf_set_attr_signed(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, int64_t value,
                                         uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) { return write::Value::signedValue(value, form); });
}

ptxdwarf_status ptxdwarf_set_attr_flag(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, int value, uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) { return write::Value::flag(value != 0, form); });
}

ptxdwarf_status ptxdwarf_set_attr_string(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const char* value,
                                         uint16_t form) {
  return setAttr(unit, d, name,
                 [&](write::Unit&) { return write::Value::string(required(value, "the string"), form); });
}

ptxdwarf_status ptxdwarf_set_attr_reference(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, ptxdwarf_die target,
                                            uint16_t form) {
  return setAttr(unit, d, name,
                 [&](write::Unit& u) { return write::Value::reference(die(u, target, "reference target"), form); });
}

ptxdwarf_status ptxdwarf_set_attr_address(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const char* symbol,
                                          int64_t addend, uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) { return write::Value::address({optional(symbol), addend}, form); });
}

ptxdwarf_status ptxdwarf_set_attr_section_offset(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const char* symbol,
                                                 int64_t addend, uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) {
    std::string s = required(symbol, "the section symbol");
    if (s.empty()) fail(PTXDWARF_E_INVALID_ARGUMENT, "the section symbol is empty");
    return write::Value::sectionOffset({std::move(s), addend}, form);
  });
}

ptxdwarf_status ptxdwarf_set_attr_block(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const uint8_t* bytes,
                                        size_t size, uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) {
    if (size && !bytes) fail(PTXDWARF_E_INVALID_ARGUMENT, "the block's bytes are NULL");
    return write::Value::block(size ? std::vector<uint8_t>(bytes, bytes + size) : std::vector<uint8_t>{}, form);
  });
}

ptxdwarf_status ptxdwarf_set_attr_expr(ptxdwarf_unit* unit, ptxdwarf_die d, uint16_t name, const ptxdwarf_expr* expr,
                                       uint16_t form) {
  return setAttr(unit, d, name, [&](write::Unit&) {
    const ptxdwarf_expr& x = need(expr, "the expression");
    if (x.isList) fail(PTXDWARF_E_INVALID_ARGUMENT, "a location list is not an expression (use ptxdwarf_set_location)");
    return write::Value::expression(x.expr, form);
  });
}

ptxdwarf_status ptxdwarf_set_location(ptxdwarf_unit* unit, ptxdwarf_die d, const ptxdwarf_expr* location) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    setLocation(u, die(u, d, "die"), need(location, "the location"));
  });
}

ptxdwarf_status ptxdwarf_set_pubnames(ptxdwarf_unit* unit, const ptxdwarf_die* dies, const char* const* names,
                                      size_t count) {
  return guard([&] {
    write::Unit& u = unitOf(unit);
    if (count && (!dies || !names)) fail(PTXDWARF_E_INVALID_ARGUMENT, "the pubnames arrays are NULL");
    std::vector<write::Unit::Pubname> entries;
    for (size_t k = 0; k < count; ++k)
      entries.push_back({die(u, dies[k], "pubname DIE"), required(names[k], "a pubname")});
    u.setPubnames(std::move(entries));
  });
}

