// The one renderer of DWARF values (print/render.h): attribute values,
// location expressions and lists, type and file names, in llvm-dwarfdump 14's
// spelling with the PTX extensions the text dump's header (text.cpp) lists.
#include "ptxdwarf/print/render.h"

#include <optional>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/view/attributes.h"
#include "ptxdwarf/view/type_name.h"

namespace ptxdwarf::print {

using read::AttrValue;
using read::Die;
using read::Dwarf;
using read::Operation;
using read::Unit;

namespace {
void appendNameOr(std::string& out, std::string_view name, std::string_view unknownPrefix, uint64_t v) {
  if (!name.empty()) {
    out += name;
  } else {
    out += unknownPrefix;
    appendHexDigits(out, v, 1);
  }
}
}  // namespace

void appendReloc(std::string& out, const Relocation& r) {
  out += r.symbol;
  if (r.isDifference()) {
    out += '-';
    out += r.minus();
  }
  appendAddend(out, r.addend());
}

void appendAddend(std::string& out, int64_t addend) {
  if (addend > 0) out += '+';
  if (addend) appendSigned(out, addend);
}

void appendTagName(std::string& out, uint64_t tag) { appendNameOr(out, dw::tagName(tag), "DW_TAG_unknown_", tag); }
void appendAttrName(std::string& out, uint64_t attr) {
  appendNameOr(out, dw::attributeName(attr), "DW_AT_unknown_", attr);
}
void appendFormName(std::string& out, uint64_t form) {
  appendNameOr(out, dw::formName(form), "DW_FORM_unknown_", form);
}

// ---------------------------------------------------------------------------
// .debug_loc reading

bool LocListReader::read(const SectionImage* loc, uint8_t addressSize, uint64_t& offset) {
  refs_.clear();
  list_ = {};
  if (!loc) return false;
  list_ = read::readLocList(*loc, offset, addressSize, refs_);
  offset = list_.end;
  return list_.terminated;
}

// ---------------------------------------------------------------------------
// Renderer

namespace {

bool isSectionOffsetForm(uint16_t form) {
  return form == dw::DW_FORM_data4 || form == dw::DW_FORM_data8 || form == dw::DW_FORM_sec_offset ||
         form == dw::DW_FORM_strp;
}

uint64_t tombstone(uint8_t addressSize) { return addressSize >= 8 ? ~0ull : (1ull << (8 * addressSize)) - 1; }

bool isAbsolutePath(std::string_view p) {
  if (!p.empty() && (p[0] == '/' || p[0] == '\\')) return true;
  return p.size() >= 3 && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) && p[1] == ':' &&
         (p[2] == '\\' || p[2] == '/');
}

// sys::path::append for one component.
void pathAppend(std::string& path, std::string_view component) {
  if (component.empty()) return;
  bool componentHasSep = component[0] == '/';
  bool pathHasSep = !path.empty() && path.back() == '/';
  if (!componentHasSep && !path.empty() && !pathHasSep) path += '/';
  path += component;
}

}  // namespace

void Renderer::typeName(std::string& out, const Die* die) const {
  if (!ends_) ends_ = std::make_shared<const view::SubtreeEnds>(dwarf_);
  view::appendTypeName(dwarf_, die, out, ends_.get());
}

bool Renderer::fileName(std::string& out, const Unit& unit, uint64_t index) const {
  if (unit.dieCount == 0) return false;
  const Die& cu = dwarf_.dies[unit.firstDie];
  if (!dwarf_.hasAttribute(cu, dw::DW_AT_stmt_list)) return false;  // no line table for the unit
  if (index > UINT32_MAX) return false;
  const ptx::FileEntry* f = module_.findFile(static_cast<unsigned>(index));
  if (!f) return false;
  if (isAbsolutePath(f->path)) {
    out += f->path;
    return true;
  }
  std::string path;
  if (std::optional<AttrValue> dir = dwarf_.attribute(cu, dw::DW_AT_comp_dir); dir && dir->isString()) path.assign(dir->string());
  pathAppend(path, f->path);
  out += path;
  return true;
}

void Renderer::symbol(std::string& out, const Relocation& r) const {
  if (symbols_)
    symbols_(out, r);
  else
    appendReloc(out, r);
}

void Renderer::address(std::string& out, uint64_t value, const Relocation* reloc, uint8_t addressSize) const {
  if (reloc)
    symbol(out, *reloc);
  else
    appendHex(out, value, addressSize * 2);
}

std::optional<uint64_t> Renderer::locOffset(const AttrValue& v) const {
  // `.debug_loc+N`, or a label defined in .debug_loc (LLVM 22's `$L__debug_loc0`).
  return dwarf_.offsetIn(".debug_loc", v.value, v.reloc);
}

bool Renderer::isLocationList(const AttrValue& v) {
  return read::isLocationAttribute(v.name) && isSectionOffsetForm(v.form);
}

void Renderer::operation(std::string& out, const Operation& op, uint8_t addressSize) const {
  std::string_view name = dw::opName(op.op);
  out += name;
  if (op.op == dw::DW_OP_regx || op.op == dw::DW_OP_bregx) {
    if (auto reg = cuda::unpackRegister(op.operands[0])) {
      out += ' ';
      out += *reg;
      if (op.op == dw::DW_OP_bregx) {
        int64_t s = static_cast<int64_t>(op.operands[1]);
        out += ' ';
        if (s >= 0) out += '+';
        appendSigned(out, s);
      }
      return;
    }
  }
  const dw::OpInfo* info = dw::opInfo(op.op);
  if (!info) return;
  dw::OperandKind kinds[2] = {info->a, info->b};
  for (int slot = 0; slot < 2; ++slot) {
    using K = dw::OperandKind;
    K k = kinds[slot];
    if (k == K::none || k == K::unknown) break;
    if (slot == 0 && op.reloc) {
      out += ' ';
      symbol(out, *op.reloc);
      continue;
    }
    uint64_t v = op.operands[slot];
    switch (k) {
      case K::s8:
      case K::s16:
      case K::s32:
      case K::s64:
      case K::sleb: {
        int64_t s = static_cast<int64_t>(v);
        out += ' ';
        if (s >= 0) out += '+';
        appendSigned(out, s);
        break;
      }
      case K::block:
      case K::block1:
        out += ' ';
        appendHex(out, v);
        for (uint8_t b : op.block) {
          out += ' ';
          appendHex(out, b, 2);
        }
        break;
      case K::expr: {
        // DW_OP_entry_value(<nested ops>)
        out += '(';
        auto nested = read::decodeExpression(op.block, {addressSize, 4, nullptr, 0});
        for (size_t i = 0; i < nested.ops.size(); ++i) {
          if (i) out += ", ";
          operation(out, nested.ops[i], addressSize);
        }
        out += ')';
        break;
      }
      default:
        out += ' ';
        appendHex(out, v);
        break;
    }
  }
}

namespace {
// The operations of `e`, `separator` after each but the last, and after the
// last too where decoding stopped (the caller spells the rest).
template <class SpellOperation>
void appendOperations(std::string& out, const read::Expression& e, std::string_view separator,
                      SpellOperation spellOperation) {
  for (size_t i = 0; i < e.ops.size(); ++i) {
    spellOperation(e.ops[i]);
    if (i + 1 < e.ops.size() || !e.ok) out += separator;
  }
}

// The operands of `op` as encoded: a relocated one as its symbol (and no
// other), DW_OP_regx's register by name, signed ones in decimal, the rest (a
// block's or a nested expression's length among them) in hex.
void appendEncodedOperands(std::string& out, const Operation& op) {
  if (op.reloc) {
    out += ' ';
    appendReloc(out, *op.reloc);
    return;
  }
  if (op.op == dw::DW_OP_regx) {
    if (const std::optional<std::string> reg = cuda::unpackRegister(op.operands[0])) {
      out += ' ';
      out += *reg;
      return;
    }
  }
  const dw::OpInfo* info = dw::opInfo(op.op);
  for (int slot = 0; info && slot < 2; ++slot) {
    using K = dw::OperandKind;
    const K k = slot == 0 ? info->a : info->b;
    if (k == K::none) break;
    out += ' ';
    if (k == K::sleb || k == K::s8 || k == K::s16 || k == K::s32 || k == K::s64)
      appendSigned(out, static_cast<int64_t>(op.operands[slot]));
    else
      appendHex(out, op.operands[slot]);
  }
}
}  // namespace

void Renderer::expression(std::string& out, std::span<const uint8_t> bytes, const SectionImage* section,
                          uint64_t sectionOffset, uint8_t addressSize) const {
  if (bytes.empty()) {
    out += "<empty>";
    return;
  }
  const read::Expression e = read::decodeExpression(bytes, {addressSize, 4, section, sectionOffset});
  appendOperations(out, e, ", ", [&](const Operation& op) { operation(out, op, addressSize); });
  if (!e.ok) {
    out += "<decoding error>";
    for (uint64_t i = e.errorOffset; i < bytes.size(); ++i) {
      out += ' ';
      appendHexDigits(out, bytes[i], 2);
    }
  }
}

void Renderer::encodedExpression(std::string& out, std::span<const uint8_t> bytes, const SectionImage* section,
                                 uint64_t sectionOffset, uint8_t addressSize) {
  if (bytes.empty()) return;
  const uint8_t size = addressSize ? addressSize : 8;
  const read::Expression e = read::decodeExpression(bytes, {size, 4, section, sectionOffset});
  appendOperations(out, e, " ", [&](const Operation& op) {
    out += dw::opName(op.op);
    appendEncodedOperands(out, op);
  });
  if (!e.ok) out += "<undecodable>";
}

namespace {
struct BaseAddress {
  bool known = false;
  uint64_t value = 0;
  const Relocation* reloc = nullptr;
};

BaseAddress unitBase(const Dwarf& d, const Unit& unit) {
  BaseAddress b;
  if (unit.dieCount == 0) return b;
  const Die& cu = d.dies[unit.firstDie];
  std::optional<AttrValue> pc = d.attribute(cu, dw::DW_AT_low_pc);
  if (!pc) pc = d.attribute(cu, dw::DW_AT_entry_pc);
  if (pc && pc->form == dw::DW_FORM_addr) {
    b.known = true;
    b.value = pc->value;
    b.reloc = pc->reloc;
  }
  return b;
}

// One bound of a list entry with the base address applied.
void appendBasedAddress(const Renderer& r, std::string& out, const BaseAddress& base, uint64_t value,
                        const Relocation* reloc, uint8_t addressSize) {
  if (!base.reloc && !reloc) {
    appendHex(out, base.value + value, addressSize * 2);
    return;
  }
  if (!base.reloc && base.value == 0) {
    r.address(out, value, reloc, addressSize);
    return;
  }
  if (base.reloc && reloc && reloc->isDifference() && !base.reloc->isDifference() && base.reloc->addend() == 0 &&
      reloc->minus() == base.reloc->symbol && base.value == 0) {
    out += reloc->symbol;
    appendAddend(out, reloc->addend());
    return;
  }
  r.address(out, base.value, base.reloc, addressSize);
  out += '+';
  if (reloc) {
    appendReloc(out, *reloc);
  } else {
    appendHex(out, value);
  }
}
}  // namespace

void Renderer::listAddress(std::string& out, const Unit& unit, uint64_t value, const Relocation* reloc) const {
  appendBasedAddress(*this, out, unitBase(dwarf_, unit), value, reloc, unit.addressSize);
}

void Renderer::locationList(std::string& out, const Unit& unit, const AttrValue& v, int listIndent) const {
  std::optional<uint64_t> offset = locOffset(v);
  if (v.reloc)
    appendReloc(out, *v.reloc);
  else
    appendHex(out, v.value, 8);
  out += ": ";
  if (!offset || !dwarf_.loc) return;
  LocListReader list;
  list.read(dwarf_.loc, unit.addressSize, *offset);
  BaseAddress base = unitBase(dwarf_, unit);
  for (const LocEntryView e : list.entries()) {
    if (e.kind == LocEntryView::endOfList) break;
    if (e.kind == LocEntryView::baseAddress) {
      base.known = true;
      base.value = e.end;
      base.reloc = e.endReloc;
      continue;
    }
    out += '\n';
    if (listIndent > 0) out.append(static_cast<size_t>(listIndent), ' ');
    if (base.known) {
      out += '[';
      appendBasedAddress(*this, out, base, e.begin, e.beginReloc, unit.addressSize);
      out += ", ";
      appendBasedAddress(*this, out, base, e.end, e.endReloc, unit.addressSize);
      out += ')';
    } else {
      out += '(';
      address(out, e.begin, e.beginReloc, unit.addressSize);
      out += ", ";
      address(out, e.end, e.endReloc, unit.addressSize);
      out += ')';
    }
    out += ": ";
    expression(out, e.expr, dwarf_.loc, e.exprOffset, unit.addressSize);
    if (betweenEntries_) betweenEntries_();
  }
}

namespace {
// DWARFFormValue::dump (LLVM 14) with relocated values printed symbolically.
void formValue(std::string& out, const Dwarf& d, const Unit& unit, const AttrValue& v) {
  // A symbolic reference into .debug_info (`.b64 .debug_info+311`) prints
  // as the offset it names, as llvm-dwarfdump prints the linked cubin's.
  if (v.reloc && v.form != dw::DW_FORM_strp && !d.referenceTarget(v)) {
    appendReloc(out, *v.reloc);
    return;
  }
  switch (v.form) {
    case dw::DW_FORM_addr:
      appendHex(out, v.value, unit.addressSize * 2);
      break;
    case dw::DW_FORM_flag_present:
      out += "true";
      break;
    case dw::DW_FORM_flag:
    case dw::DW_FORM_data1:
      appendHex(out, v.value & 0xff, 2);
      break;
    case dw::DW_FORM_data2:
      appendHex(out, v.value & 0xffff, 4);
      break;
    case dw::DW_FORM_data4:
      appendHex(out, v.value & 0xffffffff, 8);
      break;
    case dw::DW_FORM_ref_sig8:
    case dw::DW_FORM_data8:
      appendHex(out, v.value, 16);
      break;
    case dw::DW_FORM_string:
      appendQuoted(out, v.string());
      break;
    case dw::DW_FORM_exprloc:
    case dw::DW_FORM_block:
    case dw::DW_FORM_block1:
    case dw::DW_FORM_block2:
    case dw::DW_FORM_block4:
      if (!v.block().empty()) {
        out += "<";
        int width = v.form == dw::DW_FORM_block1   ? 2
                    : v.form == dw::DW_FORM_block2 ? 4
                    : v.form == dw::DW_FORM_block4 ? 8
                                                   : 1;
        appendHex(out, v.block().size(), width);
        out += "> ";
        for (uint8_t b : v.block()) {
          appendHexDigits(out, b, 2);
          out += ' ';
        }
      }
      break;
    case dw::DW_FORM_sdata:
      appendSigned(out, v.svalue());
      break;
    case dw::DW_FORM_udata:
      appendDec(out, v.value);
      break;
    case dw::DW_FORM_strp: {
      const uint64_t at = d.offsetIn(".debug_str", v.value, v.reloc).value_or(UINT64_MAX);
      if (d.str && at < d.str->size()) {
        appendQuoted(out, v.string());
      } else if (v.reloc) {
        appendReloc(out, *v.reloc);
      }
      break;
    }
    case dw::DW_FORM_ref_addr:
      appendHex(out, d.referenceTarget(v).value_or(v.value), 16);
      break;
    case dw::DW_FORM_ref1:
    case dw::DW_FORM_ref2:
    case dw::DW_FORM_ref4:
    case dw::DW_FORM_ref8:
    case dw::DW_FORM_ref_udata:
      appendHex(out, d.referenceTarget(v).value_or(v.value), 8);
      break;
    case dw::DW_FORM_sec_offset:
      appendHex(out, v.value & 0xffffffff, 8);
      break;
    default:
      out += "DW_FORM(";
      appendHex(out, v.form, 4);
      out += ')';
      break;
  }
}
}  // namespace

void Renderer::attributeValue(std::string& out, const Die& die, const AttrValue& v, int listIndent) const {
  const Unit& unit = dwarf_.unitOf(die);
  const bool unsignedConstant = dw::isUnsignedConstantForm(v.form) && !v.reloc;
  const bool namesFile = v.name == dw::DW_AT_decl_file || v.name == dw::DW_AT_call_file;
  // A file index by its path, another constant by the name DWARF gives its value.
  const std::string_view valueName =
      unsignedConstant && !namesFile ? dw::attributeValueName(v.name, v.value) : std::string_view();
  std::string path;
  if (namesFile && unsignedConstant && fileName(path, unit, v.value)) {
    appendQuoted(out, path);
  } else if (!valueName.empty()) {
    out += valueName;
  } else if ((v.name == dw::DW_AT_decl_line || v.name == dw::DW_AT_call_line) && dw::isConstantForm(v.form) && !v.reloc) {
    if (v.form == dw::DW_FORM_sdata)
      appendSigned(out, v.svalue());
    else
      appendDec(out, v.value);
  } else if (v.name == dw::DW_AT_low_pc && v.form == dw::DW_FORM_addr && !v.reloc &&
             v.value == tombstone(unit.addressSize)) {
    out += "dead code";
  } else if (v.name == dw::DW_AT_high_pc && unsignedConstant) {
    std::optional<AttrValue> low = dwarf_.attribute(die, dw::DW_AT_low_pc);
    if (low && low->form == dw::DW_FORM_addr && (low->reloc || low->value != tombstone(unit.addressSize))) {
      BaseAddress b{true, low->value, low->reloc};
      appendBasedAddress(*this, out, b, v.value, nullptr, unit.addressSize);
    } else {
      formValue(out, dwarf_, unit, v);
    }
  } else if (isLocationList(v)) {
    locationList(out, unit, v, listIndent);
  } else if (dw::holdsLocationExpression(v.name, v.form)) {
    expression(out, v.block(), dwarf_.info, v.value, unit.addressSize);
  } else {
    formValue(out, dwarf_, unit, v);
    if (v.name == dw::DW_AT_address_class && unsignedConstant) {
      std::string_view cls = cuda::addressClassName(v.value);
      if (!cls.empty()) {
        out += ' ';
        out += cls;
      }
    }
  }

  if (v.name == dw::DW_AT_specification || v.name == dw::DW_AT_abstract_origin) {
    if (const Die* t = dwarf_.referencedDie(v)) {
      std::string_view n = view::linkageOrShortName(dwarf_, *t);
      if (!n.empty()) {
        out += ' ';
        appendQuoted(out, n);
      }
    }
  } else if (v.name == dw::DW_AT_type) {
    if (const Die* t = dwarf_.referencedDie(v)) {
      std::string name;
      typeName(name, t);
      out += ' ';
      appendQuoted(out, name);
    }
  }
}

// ---------------------------------------------------------------------------
// The plain spelling

void Renderer::plainRange(std::string& out, const read::ArangeSet& set, const read::Range& r) const {
  out += '[';
  address(out, r.address, r.addressReloc, set.addressSize);
  out += ", ";
  const Relocation* a = r.addressReloc;
  const Relocation* n = r.lengthReloc;
  if (!a && !n) {
    appendHex(out, r.address + r.length, set.addressSize * 2);
  } else if (a && n && n->isDifference() && !a->isDifference() && a->addend() == 0 && n->minus() == a->symbol &&
             r.address == 0) {
    // [func_begin0, func_end0-func_begin0): the end is func_end0.
    const Relocation end(n->offset, n->size, n->symbol);
    address(out, 0, &end, set.addressSize);
    appendAddend(out, n->addend());
  } else {
    address(out, r.address, a, set.addressSize);
    out += '+';
    if (n)
      symbol(out, *n);
    else
      appendHex(out, r.length);
  }
  out += ')';
}

// A location list by its entries, as written (no base address applied):
// "[begin, end): expr; base X; ...".
void Renderer::plainLocationList(std::string& out, const Unit& unit, const AttrValue& v) const {
  std::optional<uint64_t> offset = locOffset(v);
  if (!offset || !dwarf_.loc) {
    out += "<no location list at ";
    if (v.reloc)
      symbol(out, *v.reloc);
    else
      appendHex(out, v.value);
    out += '>';
    return;
  }
  LocListReader list;
  const bool terminated = list.read(dwarf_.loc, unit.addressSize, *offset);
  bool first = true;
  for (const LocEntryView e : list.entries()) {
    if (e.kind == LocEntryView::endOfList) break;
    if (!first) out += "; ";
    first = false;
    if (e.kind == LocEntryView::baseAddress) {
      out += "base ";
      address(out, e.end, e.endReloc, unit.addressSize);
      continue;
    }
    out += '[';
    address(out, e.begin, e.beginReloc, unit.addressSize);
    out += ", ";
    address(out, e.end, e.endReloc, unit.addressSize);
    out += "): ";
    expression(out, e.expr, dwarf_.loc, e.exprOffset, unit.addressSize);
  }
  if (first) out += "<empty list>";
  if (!terminated) out += first ? " <truncated>" : "; <truncated>";
}

// An unsigned constant: decl_file as its path, named constants by name, an
// address class by name and number, the rest in decimal.
void Renderer::plainConstant(std::string& out, const Unit& unit, const AttrValue& v) const {
  if (v.name == dw::DW_AT_decl_file || v.name == dw::DW_AT_call_file) {
    std::string path;
    if (fileName(path, unit, v.value)) {
      appendQuoted(out, path);
      return;
    }
  }
  if (std::string_view named = dw::attributeValueName(v.name, v.value); !named.empty()) {
    out += named;
    return;
  }
  if (v.name == dw::DW_AT_address_class) {
    if (std::string_view cls = cuda::addressClassName(v.value); !cls.empty()) {
      out += cls;
      out += " (";
      appendDec(out, v.value);
      out += ')';
      return;
    }
  }
  appendDec(out, v.value);
}

namespace {
void appendPlainBlock(std::string& out, std::span<const uint8_t> bytes) {
  out += '<';
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) out += ' ';
    appendHexDigits(out, bytes[i], 2);
  }
  out += '>';
}
}  // namespace

void Renderer::plainValue(std::string& out, const Die& die, const AttrValue& v) const {
  const Unit& unit = dwarf_.unitOf(die);
  if (v.isReference()) {
    if (const Die* target = dwarf_.referencedDie(v)) {
      appendHex(out, target->offset, 8);
    } else if (v.reloc) {
      symbol(out, *v.reloc);
    } else {
      out += "<invalid reference ";
      appendHex(out, v.value);
      out += '>';
    }
    return;
  }
  if (isLocationList(v)) return plainLocationList(out, unit, v);
  if (dw::holdsLocationExpression(v.name, v.form)) return expression(out, v.block(), dwarf_.info, v.value, unit.addressSize);
  if (v.form == dw::DW_FORM_string || v.form == dw::DW_FORM_strp) {
    if (v.form == dw::DW_FORM_strp && v.string().empty() && v.reloc && !dwarf_.offsetIn(".debug_str", 0, v.reloc))
      return symbol(out, *v.reloc);  // points nowhere in .debug_str
    appendQuoted(out, v.string());
    return;
  }
  if (v.reloc) return symbol(out, *v.reloc);
  switch (v.form) {
    case dw::DW_FORM_flag_present:
      out += "true";
      return;
    case dw::DW_FORM_flag:
      out += v.value ? "true" : "false";
      return;
    case dw::DW_FORM_addr:
      appendHex(out, v.value, unit.addressSize * 2);
      return;
    case dw::DW_FORM_sdata:
      appendSigned(out, v.svalue());
      return;
    case dw::DW_FORM_exprloc:
    case dw::DW_FORM_block:
    case dw::DW_FORM_block1:
    case dw::DW_FORM_block2:
    case dw::DW_FORM_block4:
      appendPlainBlock(out, v.block());
      return;
    default:
      break;
  }
  if (dw::isUnsignedConstantForm(v.form))
    plainConstant(out, unit, v);
  else  // sec_offset (not a location), ref_sig8, anything else: the raw number
    appendHex(out, v.value);
}

}  // namespace ptxdwarf::print
