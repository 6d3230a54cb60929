#include "ptxdwarf/write/builder.h"

#include <charconv>
#include <cstring>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/write/encode.h"

namespace ptxdwarf::write {

using namespace dw;

namespace {
unsigned formBytes(uint16_t dataForm) {
  return dataForm == DW_FORM_data1 ? 1 : dataForm == DW_FORM_data2 ? 2 : dataForm == DW_FORM_data4 ? 4 : 8;
}

// A register variable's bytes, in the order and forms variable() would make
// the encoder write for a Location::reg: its name (at most 8 bytes:
// packRegister checked) and NUL, `common` (decl file and line, type), then
// DW_AT_location as a block1 of DW_OP_regx <packed name>, and
// DW_AT_address_class ADDR_reg_space (see the equality test in builder_test.cpp).
size_t registerDie(uint8_t* out, std::string_view name, std::span<const uint8_t> common, uint64_t packed) {
  std::memcpy(out, name.data(), name.size());
  size_t size = name.size();
  out[size++] = 0;
  std::memcpy(out + size, common.data(), common.size());
  size += common.size();
  const size_t lengthAt = size++;
  out[size++] = DW_OP_regx;
  encodeUleb(packed, [&](uint8_t b) { out[size++] = b; });
  out[lengthAt] = static_cast<uint8_t>(size - lengthAt - 1);
  out[size++] = cuda::ADDR_reg_space;
  return size;
}

// DW_AT_decl_file and DW_AT_decl_line, when there is a file.
void setDecl(Unit& u, DieId die, unsigned file, unsigned line) {
  if (!file) return;
  u.setUnsigned(die, DW_AT_decl_file, file);
  u.setUnsigned(die, DW_AT_decl_line, line);
}

DieId modifier(Unit& u, uint16_t tag, DieId type, DieId parent) {
  DieId t = u.add(parent, tag);
  if (type != kNoDie) u.setReference(t, DW_AT_type, type);
  return t;
}
}  // namespace

DieId Builder::compileUnit(const CompileUnitDesc& d) {
  DieId cu = unit_.root();
  if (!d.producer.empty()) unit_.setString(cu, DW_AT_producer, d.producer);
  unit_.setUnsigned(cu, DW_AT_language, d.language);
  if (!d.name.empty()) unit_.setString(cu, DW_AT_name, d.name);
  if (d.lowPc) unit_.setAddress(cu, DW_AT_low_pc, *d.lowPc);
  if (d.stmtList) unit_.set(cu, DW_AT_stmt_list, Value::sectionOffset({".debug_line", 0}));
  if (!d.compDir.empty()) unit_.setString(cu, DW_AT_comp_dir, d.compDir);
  return cu;
}

DieId Builder::subprogram(const SubprogramDesc& d, DieId parent) {
  DieId sp = unit_.add(parent, DW_TAG_subprogram);
  bool linkage = !d.linkageName.empty();
  if (linkage && d.linkageNameFirst) unit_.setString(sp, d.linkageAttribute, d.linkageName);
  if (!d.name.empty()) unit_.setString(sp, DW_AT_name, d.name);
  if (linkage && !d.linkageNameFirst) unit_.setString(sp, d.linkageAttribute, d.linkageName);
  setDecl(unit_, sp, d.declFile, d.declLine);
  if (d.type != kNoDie) unit_.setReference(sp, DW_AT_type, d.type);
  if (d.external) unit_.setFlag(sp, DW_AT_external, true);
  if (d.lowPc) unit_.setAddress(sp, DW_AT_low_pc, *d.lowPc);
  if (d.highPc) unit_.setAddress(sp, DW_AT_high_pc, *d.highPc);
  if (d.frameBaseCfa) unit_.setExpression(sp, DW_AT_frame_base, Expr(unit_.options().addressSize).callFrameCfa());
  return sp;
}

void Builder::setLocation(DieId die, const Location& location) {
  switch (location.kind()) {
    case Location::Kind::none:
      return;
    case Location::Kind::expression:
      unit_.setExpression(die, DW_AT_location, location.expr());
      break;
    case Location::Kind::list: {
      Value v;
      v.kind = Value::Kind::locationList;
      v.list = unit_.addLocationList(location.entries());
      unit_.set(die, DW_AT_location, std::move(v));
      break;
    }
  }
  if (location.addressClass()) unit_.setUnsigned(die, DW_AT_address_class, location.addressClass());
}

DieId Builder::variableLike(DieId scope, uint16_t tag, const VariableDesc& d) {
  DieId v = unit_.add(scope, tag);
  if (!d.name.empty()) unit_.setString(v, DW_AT_name, d.name);
  setDecl(unit_, v, d.declFile, d.declLine);
  if (d.type != kNoDie) unit_.setReference(v, DW_AT_type, d.type);
  if (d.external) unit_.setFlag(v, DW_AT_external, true);
  setLocation(v, d.location);
  if (!d.linkageName.empty()) unit_.setString(v, DW_AT_MIPS_linkage_name, d.linkageName);
  return v;
}

DieId Builder::registerVariable(DieId scope, const RegisterVariableDesc& d) {
  std::optional<uint64_t> packed = cuda::packRegister(d.reg);
  if (!packed) throw BuildError(registerProblem(d.reg));
  const RegisterLayout layout = registerLayout(d.declFile, d.declLine, d.type);
  uint8_t bytes[64];
  const size_t size = registerDie(bytes, d.reg, {layout.common, layout.commonSize}, *packed);
  // The bytes follow the shape by construction: no check of each value.
  return unit_.addEncodedUnchecked(scope, layout.shape, {bytes, size});
}

void Builder::registerVariables(DieId scope, const RegisterRangeDesc& d) {
  if (d.count == 0) return;
  char digits[16];
  const size_t lastDigits = static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, d.count - 1).ptr - digits);
  std::optional<uint64_t> stem = cuda::packRegister(d.stem);
  if (!stem || d.stem.size() + lastDigits > 8)
    throw BuildError(registerProblem(std::string(d.stem) + std::string(digits, lastDigits)));
  const RegisterLayout layout = registerLayout(d.declFile, d.declLine, d.type);
  // The first register's DIE; the unit makes the others from it as they are written.
  uint8_t bytes[64];
  const std::string firstName = std::string(d.stem) + '0';
  const size_t size = registerDie(bytes, firstName, {layout.common, layout.commonSize}, *stem << 8 | '0');
  unit_.addRegisterRun(scope, layout.shape, {bytes, size}, static_cast<uint32_t>(d.stem.size()), *stem, d.count);
}

Builder::RegisterLayout Builder::registerLayout(unsigned declFile, unsigned declLine, DieId type) {
  if (type != kNoDie) unit_.die(type);  // a bad id throws here, not as a byte in the encoding
  const UnitOptions& o = unit_.options();
  const uint16_t fileForm = declFile ? chooseForm(DW_AT_decl_file, Value::Kind::unsigned_, 0, declFile, 0, o) : 0;
  const uint16_t lineForm = declFile ? chooseForm(DW_AT_decl_line, Value::Kind::unsigned_, 0, declLine, 0, o) : 0;
  RegisterLayout layout;
  layout.shape = registerShape(fileForm, lineForm, type != kNoDie);
  auto put = [&](uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) layout.common[layout.commonSize++] = static_cast<uint8_t>(v >> (8 * i));
  };
  if (declFile) {
    put(declFile, formBytes(fileForm));
    put(declLine, formBytes(lineForm));
  }
  if (type != kNoDie) put(type, 4);
  return layout;
}

// The shape of a register variable: name, [decl_file, decl_line], [type], location, class.
uint32_t Builder::registerShape(uint16_t fileForm, uint16_t lineForm, bool typed) {
  const uint32_t key = uint32_t{fileForm} << 16 | uint32_t{lineForm} << 1 | (typed ? 1u : 0u);
  for (const auto& [k, shape] : registerShapes_)
    if (k == key) return shape;
  std::vector<AttributeSpec> specs{{DW_AT_name, DW_FORM_string}};
  if (fileForm) {
    specs.push_back({DW_AT_decl_file, fileForm});
    specs.push_back({DW_AT_decl_line, lineForm});
  }
  if (typed) specs.push_back({DW_AT_type, DW_FORM_ref4});
  specs.push_back({DW_AT_location, DW_FORM_block1});
  specs.push_back({DW_AT_address_class, DW_FORM_data1});
  const uint32_t shape = unit_.shape(DW_TAG_variable, specs);
  registerShapes_.emplace_back(key, shape);
  return shape;
}

DieId Builder::formalParameter(DieId subprogram, const VariableDesc& d) {
  return variableLike(subprogram, DW_TAG_formal_parameter, d);
}

DieId Builder::variable(DieId scope, const VariableDesc& d) { return variableLike(scope, DW_TAG_variable, d); }

DieId Builder::lexicalBlock(DieId scope, SymbolRef begin, SymbolRef end) {
  DieId b = unit_.add(scope, DW_TAG_lexical_block);
  unit_.setAddress(b, DW_AT_low_pc, std::move(begin));
  unit_.setAddress(b, DW_AT_high_pc, std::move(end));
  return b;
}

DieId Builder::inlinedSubroutine(DieId scope, DieId origin, SymbolRef begin, SymbolRef end, unsigned callFile,
                                 unsigned callLine) {
  DieId s = unit_.add(scope, DW_TAG_inlined_subroutine);
  unit_.setReference(s, DW_AT_abstract_origin, origin);
  unit_.setAddress(s, DW_AT_low_pc, std::move(begin));
  unit_.setAddress(s, DW_AT_high_pc, std::move(end));
  unit_.setUnsigned(s, DW_AT_call_file, callFile);
  unit_.setUnsigned(s, DW_AT_call_line, callLine);
  return s;
}

DieId Builder::baseType(std::string_view name, uint8_t encoding, uint64_t byteSize, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_base_type);
  unit_.setString(t, DW_AT_name, name);
  unit_.setUnsigned(t, DW_AT_encoding, encoding);
  unit_.setUnsigned(t, DW_AT_byte_size, byteSize);
  return t;
}

DieId Builder::unspecifiedType(std::string_view name, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_unspecified_type);
  unit_.setString(t, DW_AT_name, name);
  return t;
}

DieId Builder::pointerType(DieId pointee, uint8_t addressClass, DieId parent) {
  DieId t = modifier(unit_, DW_TAG_pointer_type, pointee, parent);
  if (addressClass) unit_.setUnsigned(t, DW_AT_address_class, addressClass);
  return t;
}

DieId Builder::referenceType(DieId pointee, DieId parent) {
  return modifier(unit_, DW_TAG_reference_type, pointee, parent);
}
DieId Builder::constType(DieId type, DieId parent) { return modifier(unit_, DW_TAG_const_type, type, parent); }
DieId Builder::volatileType(DieId type, DieId parent) { return modifier(unit_, DW_TAG_volatile_type, type, parent); }

DieId Builder::typedefType(std::string_view name, DieId type, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_typedef);
  unit_.setString(t, DW_AT_name, name);
  if (type != kNoDie) unit_.setReference(t, DW_AT_type, type);
  return t;
}

DieId Builder::aggregate(uint16_t tag, std::string_view name, uint64_t byteSize, DieId parent) {
  if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type && tag != DW_TAG_union_type)
    throw BuildError("aggregate() takes DW_TAG_structure_type, DW_TAG_class_type or DW_TAG_union_type");
  DieId t = unit_.add(parent, tag);
  if (!name.empty()) unit_.setString(t, DW_AT_name, name);
  unit_.setUnsigned(t, DW_AT_byte_size, byteSize);
  return t;
}

DieId Builder::member(DieId aggregate, const MemberDesc& d) {
  DieId m = unit_.add(aggregate, DW_TAG_member);
  if (!d.name.empty()) unit_.setString(m, DW_AT_name, d.name);
  if (d.type != kNoDie) unit_.setReference(m, DW_AT_type, d.type);
  setDecl(unit_, m, d.declFile, d.declLine);
  if (d.byteSize) unit_.setUnsigned(m, DW_AT_byte_size, *d.byteSize);
  if (d.bitSize) unit_.setUnsigned(m, DW_AT_bit_size, *d.bitSize);
  if (d.bitOffset) unit_.setUnsigned(m, DW_AT_bit_offset, *d.bitOffset);
  unit_.set(m, DW_AT_data_member_location,
            Value::expression(Expr(unit_.options().addressSize).plusUconst(d.offset),
                              unit_.options().version >= 4 ? uint16_t{0} : uint16_t{DW_FORM_block1}));
  return m;
}

DieId Builder::arrayType(DieId element, DieId parent) { return modifier(unit_, DW_TAG_array_type, element, parent); }

DieId Builder::subrange(DieId array, uint64_t count, DieId indexType) {
  DieId s = unit_.add(array, DW_TAG_subrange_type);
  if (indexType != kNoDie) unit_.setReference(s, DW_AT_type, indexType);
  unit_.setUnsigned(s, DW_AT_count, count);
  return s;
}

DieId Builder::enumeration(std::string_view name, uint64_t byteSize, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_enumeration_type);
  if (!name.empty()) unit_.setString(t, DW_AT_name, name);
  unit_.setUnsigned(t, DW_AT_byte_size, byteSize);
  return t;
}

DieId Builder::enumerator(DieId enumeration, std::string_view name, int64_t value) {
  DieId e = unit_.add(enumeration, DW_TAG_enumerator);
  unit_.setString(e, DW_AT_name, name);
  unit_.set(e, DW_AT_const_value, Value::signedValue(value));
  return e;
}

DieId Builder::subroutineType(DieId returnType, const std::vector<DieId>& parameters, DieId parent) {
  DieId t = unit_.add(parent, DW_TAG_subroutine_type);
  if (returnType != kNoDie) unit_.setReference(t, DW_AT_type, returnType);
  unit_.setFlag(t, DW_AT_prototyped, true);
  for (DieId p : parameters) {
    DieId fp = unit_.add(t, DW_TAG_formal_parameter);
    unit_.setReference(fp, DW_AT_type, p);
  }
  return t;
}

}  // namespace ptxdwarf::write
