// ptxdump's text dump: llvm-dwarfdump 14's layout, line for line.
//
// For every value ptxas does not relocate, the .debug_info dump of a PTX file
// prints exactly what `llvm-dwarfdump --debug-info x.cubin` prints for the
// cubin `ptxas -g` makes of it. Sections appear in llvm-dwarfdump's order:
// .debug_abbrev, .debug_info, .debug_loc, .debug_aranges, .debug_str,
// .debug_pubnames, each introduced by "\n.<name> contents:\n"; a selected
// section that the PTX does not have prints its header only. The first line,
// like llvm-dwarfdump's "<file>:\tfile format elf64-unknown", is
// "<file>:\tfile format ptx".
//
// Where the PTX says more than the cubin, we print more -- only here:
//
//  1. DW_AT_decl_file / DW_AT_call_file are resolved through the PTX `.file`
//     table, as llvm-dwarfdump resolves them through the line table ptxas
//     builds from it: ("/src/call.cu"). A relative name is joined to the unit's
//     DW_AT_comp_dir with '/' (`.file 1 "call.cu"` + comp_dir "/home/x" ->
//     "/home/x/call.cu"); an absolute name is printed as written. An index the
//     `.file` table lacks, or a unit without DW_AT_stmt_list, prints the raw
//     value (0x05) as llvm-dwarfdump does.
//  2. DW_AT_address_class is followed by the CUDA address-class name:
//     (0x02 ADDR_reg_space) where llvm-dwarfdump prints (0x02). Values outside
//     the 12 CUDA classes print as llvm-dwarfdump prints them.
//  3. DW_OP_regx / DW_OP_bregx whose register operand is a packed PTX register
//     name print the name: "DW_OP_regx %r1", "DW_OP_bregx %rd2 +8"
//     (llvm-dwarfdump: "DW_OP_regx 0x257231").
//  4. Relocated values -- operands that were symbols in the PTX, whose bytes
//     ptxas fills in -- print as the PTX operand expression (symbol, `+N`/`-N`
//     decimal addend, `A-B` label differences), never as the zero bytes:
//       DW_AT_low_pc     (func_begin0)        DW_AT_high_pc (func_end0)
//       DW_AT_stmt_list  (.debug_line)        DW_OP_addr _Z4testPi_param_0
//       DW_AT_location   (.debug_loc+138: ...) for a relocated list offset
//       location-list entries [$L__tmp1, $L__tmp3): DW_OP_regx %r1
//       --debug-loc raw entries ($L__func_begin0, $L__tmp2): DW_OP_regx %rd8
//     Consequently `DW_OP_addr __local_depot0` is shown as the PTX writes it
//     (ptxas rewrites it into DW_OP_fbreg + DW_OP_nop padding in the cubin).
//     A computed address whose parts are symbolic prints as
//     "<base>+<entry>" (list entries with a non-zero base address, DW_AT_high_pc
//     as an offset from a relocated DW_AT_low_pc, aranges ends): "Lfunc_begin0+0x40".
//     An entry `A-B` under a base address `B` prints as `A`.
//     Header fields that are relocations against a debug section
//     (`.b32 .debug_abbrev`, `.b32 .debug_info` in unit, pubnames and aranges
//     headers) print the offset the relocation resolves to, exactly as
//     llvm-dwarfdump shows it: abbr_offset = 0x0000.
//
// Everything else follows LLVM 14 (DWARFDie.cpp, DWARFFormValue.cpp,
// DWARFExpression.cpp, DWARFDebugLoc.cpp, DWARFCompileUnit.cpp,
// DWARFDebugAbbrev.cpp, DWARFDebugArangeSet.cpp, DWARFDebugPubTable.cpp,
// DWARFContext.cpp), including its type-name printer (`"const char *"`,
// `"int[32]"`, `"int (*)(int)"`, `"geo::Vec3"`, template arguments) and its
// odd corners (`(0x01)` flags, "dead code" for a tombstone low_pc, a
// DW_FORM_data4 DW_AT_location read as a location list, "<empty>" for an empty
// expression, "<decoding error> 01 02" after an undecodable op, `DW_AT_language
// (0x9999)` for an unknown language, a decl_file index outside the `.file`
// table printed raw). Deliberate differences, both where llvm-dwarfdump 14 has
// no defined behaviour:
//  - the type-name printer stops after 64 nested type references (and 4096 steps
//    per name), where llvm-dwarfdump recurses until it crashes on a reference cycle;
//  - a DW_FORM_sdata DW_AT_decl_line/call_line prints its signed value (-3),
//    where llvm-dwarfdump dereferences an empty Optional and prints 0.
// Verified against llvm-dwarfdump 14.0.6 with tools/compare_llvm_dwarfdump.py.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <optional>
#include <regex>

#include "dump.h"
#include "dump_line.h"
#include "dump_util.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/view/attributes.h"
#include "ptxdwarf/view/type_name.h"

namespace ptxdump {

namespace dw = ptxdwarf::dw;
using ptxdwarf::Relocation;
using ptxdwarf::SectionImage;
using ptxdwarf::read::AttrValue;
using ptxdwarf::read::Die;
using ptxdwarf::read::Dwarf;
using ptxdwarf::read::kNone;
using ptxdwarf::read::Operation;
using ptxdwarf::read::Unit;

namespace detail {

// ---------------------------------------------------------------------------
// Formatting primitives

namespace {
constexpr char kHexDigits[] = "0123456789abcdef";
}

void appendHex(std::string& out, uint64_t v, int width) {
  char buf[18];
  int n = 0;
  do {
    buf[n++] = kHexDigits[v & 15];
    v >>= 4;
  } while (v);
  out += "0x";
  for (int i = n; i < width; ++i) out += '0';
  while (n) out += buf[--n];
}

namespace {
// Hex digits only, zero padded to `width` (no "0x").
void appendHexDigits(std::string& out, uint64_t v, int width) {
  char buf[16];
  int n = 0;
  do {
    buf[n++] = kHexDigits[v & 15];
    v >>= 4;
  } while (v);
  for (int i = n; i < width; ++i) out += '0';
  while (n) out += buf[--n];
}

void appendSpaces(std::string& out, size_t n) { out.append(n, ' '); }
}  // namespace

void appendDec(std::string& out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void appendSigned(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void appendReloc(std::string& out, const Relocation& r) {
  if (!r.isDifference()) return appendSymbolPlus(out, r.symbol, r.addend());
  out += r.symbol;
  out += '-';
  appendSymbolPlus(out, r.minus(), r.addend());
}

void appendSymbolPlus(std::string& out, std::string_view name, int64_t addend) {
  out += name;
  if (addend > 0) {
    out += '+';
    appendDec(out, static_cast<uint64_t>(addend));
  } else if (addend < 0) {
    out += '-';
    appendDec(out, static_cast<uint64_t>(0) - static_cast<uint64_t>(addend));
  }
}

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
  list_ = ptxdwarf::read::readLocList(*loc, offset, addressSize, refs_);
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

bool isAddressForm(uint16_t form) { return form == dw::DW_FORM_addr; }

bool isBlockForm(uint16_t form) {
  return form == dw::DW_FORM_block || form == dw::DW_FORM_block1 || form == dw::DW_FORM_block2 ||
         form == dw::DW_FORM_block4;
}

bool mayHaveLocationExpr(uint16_t attr) {
  switch (attr) {
    case dw::DW_AT_location:
    case dw::DW_AT_byte_size:
    case dw::DW_AT_bit_offset:
    case dw::DW_AT_bit_size:
    case dw::DW_AT_string_length:
    case dw::DW_AT_lower_bound:
    case dw::DW_AT_return_addr:
    case dw::DW_AT_bit_stride:
    case dw::DW_AT_upper_bound:
    case dw::DW_AT_count:
    case dw::DW_AT_data_member_location:
    case dw::DW_AT_frame_base:
    case dw::DW_AT_segment:
    case dw::DW_AT_static_link:
    case dw::DW_AT_use_location:
    case dw::DW_AT_vtable_elem_location:
    case dw::DW_AT_allocated:
    case dw::DW_AT_associated:
    case dw::DW_AT_data_location:
    case dw::DW_AT_byte_stride:
    case dw::DW_AT_rank:
    case dw::DW_AT_call_value:
    case dw::DW_AT_call_origin:
    case dw::DW_AT_call_target:
    case dw::DW_AT_call_target_clobbered:
    case dw::DW_AT_call_data_location:
    case dw::DW_AT_call_data_value:
    case dw::DW_AT_GNU_call_site_value:
    case dw::DW_AT_GNU_call_site_target:
      return true;
    default:
      return false;
  }
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
  if (!ends_) ends_ = std::make_shared<const ptxdwarf::view::SubtreeEnds>(dwarf_);
  ptxdwarf::view::appendTypeName(dwarf_, die, out, ends_.get());
}

bool Renderer::fileName(std::string& out, const Unit& unit, uint64_t index) const {
  if (unit.dieCount == 0) return false;
  const Die& cu = dwarf_.dies[unit.firstDie];
  if (!dwarf_.hasAttribute(cu, dw::DW_AT_stmt_list)) return false;  // no line table for the unit
  if (index > UINT32_MAX) return false;
  const ptxdwarf::ptx::FileEntry* f = module_.findFile(static_cast<unsigned>(index));
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

void Renderer::address(std::string& out, uint64_t value, const Relocation* reloc, uint8_t addressSize) {
  if (reloc)
    appendReloc(out, *reloc);
  else
    appendHex(out, value, addressSize * 2);
}

bool Renderer::locOffset(const AttrValue& v, uint64_t& offset) const {
  // `.debug_loc+N`, or a label defined in .debug_loc (LLVM 22's `$L__debug_loc0`).
  const std::optional<uint64_t> at = dwarf_.offsetIn(".debug_loc", v.value, v.reloc);
  if (!at) return false;
  offset = *at;
  return true;
}

bool Renderer::isLocationList(const AttrValue& v) {
  return ptxdwarf::read::isLocationAttribute(v.name) && isSectionOffsetForm(v.form);
}

bool Renderer::isLocationExpr(const AttrValue& v) {
  return v.form == dw::DW_FORM_exprloc || (mayHaveLocationExpr(v.name) && isBlockForm(v.form));
}

void Renderer::operation(std::string& out, const Operation& op, uint8_t addressSize) const {
  std::string_view name = dw::opName(op.op);
  out += name;
  if (op.op == dw::DW_OP_regx || op.op == dw::DW_OP_bregx) {
    if (auto reg = ptxdwarf::cuda::unpackRegister(op.operands[0])) {
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
      appendReloc(out, *op.reloc);
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
        auto nested = ptxdwarf::read::decodeExpression(op.block, {addressSize, 4, nullptr, 0});
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

void Renderer::expression(std::string& out, std::span<const uint8_t> bytes, const SectionImage* section,
                          uint64_t sectionOffset, uint8_t addressSize) const {
  if (bytes.empty()) {
    out += "<empty>";
    return;
  }
  auto e = ptxdwarf::read::decodeExpression(bytes, {addressSize, 4, section, sectionOffset});
  for (size_t i = 0; i < e.ops.size(); ++i) {
    operation(out, e.ops[i], addressSize);
    bool more = i + 1 < e.ops.size() || !e.ok;
    if (more) out += ", ";
  }
  if (!e.ok) {
    out += "<decoding error>";
    for (uint64_t i = e.errorOffset; i < bytes.size(); ++i) {
      out += ' ';
      appendHexDigits(out, bytes[i], 2);
    }
  }
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
  if (pc && isAddressForm(pc->form)) {
    b.known = true;
    b.value = pc->value;
    b.reloc = pc->reloc;
  }
  return b;
}

// One bound of a list entry with the base address applied.
void appendBasedAddress(std::string& out, const BaseAddress& base, uint64_t value, const Relocation* reloc,
                        uint8_t addressSize) {
  if (!base.reloc && !reloc) {
    appendHex(out, base.value + value, addressSize * 2);
    return;
  }
  if (!base.reloc && base.value == 0) {
    Renderer::address(out, value, reloc, addressSize);
    return;
  }
  if (base.reloc && reloc && reloc->isDifference() && !base.reloc->isDifference() && base.reloc->addend() == 0 &&
      reloc->minus() == base.reloc->symbol && base.value == 0) {
    appendSymbolPlus(out, reloc->symbol, reloc->addend());
    return;
  }
  Renderer::address(out, base.value, base.reloc, addressSize);
  out += '+';
  if (reloc) {
    appendReloc(out, *reloc);
  } else {
    appendHex(out, value);
  }
}
}  // namespace

void Renderer::listAddress(std::string& out, const Unit& unit, uint64_t value, const Relocation* reloc) const {
  appendBasedAddress(out, unitBase(dwarf_, unit), value, reloc, unit.addressSize);
}

void Renderer::locationList(std::string& out, const Unit& unit, const AttrValue& v, int listIndent) const {
  uint64_t offset = 0;
  bool known = locOffset(v, offset);
  if (v.reloc)
    appendReloc(out, *v.reloc);
  else
    appendHex(out, v.value, 8);
  out += ": ";
  if (!known || !dwarf_.loc) return;
  LocListReader list;
  list.read(dwarf_.loc, unit.addressSize, offset);
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
    if (listIndent > 0) appendSpaces(out, static_cast<size_t>(listIndent));
    if (base.known) {
      out += '[';
      appendBasedAddress(out, base, e.begin, e.beginReloc, unit.addressSize);
      out += ", ";
      appendBasedAddress(out, base, e.end, e.endReloc, unit.addressSize);
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
      out += '"';
      appendEscaped(out, v.string());
      out += '"';
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
        out += '"';
        appendEscaped(out, v.string());
        out += '"';
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

// DWARFDie::getName(LinkageName) with findRecursively's worklist.
std::string_view linkageOrName(const Dwarf& d, const Die* start) {
  return start ? ptxdwarf::view::linkageOrShortName(d, *start) : std::string_view{};
}
}  // namespace

void Renderer::attributeValue(std::string& out, const Die& die, const AttrValue& v, int listIndent) const {
  const Unit& unit = dwarf_.unitOf(die);
  bool named = false;
  if (v.name == dw::DW_AT_decl_file || v.name == dw::DW_AT_call_file) {
    if (dw::isUnsignedConstantForm(v.form) && !v.reloc) {
      std::string path;
      if (fileName(path, unit, v.value)) {
        out += '"';
        appendEscaped(out, path);
        out += '"';
        named = true;
      }
    }
  } else if (dw::isUnsignedConstantForm(v.form) && !v.reloc) {
    std::string_view n = dw::attributeValueName(v.name, v.value);
    if (!n.empty()) {
      out += n;
      named = true;
    }
  }
  if (named) {
    // nothing more
  } else if ((v.name == dw::DW_AT_decl_line || v.name == dw::DW_AT_call_line) && dw::isConstantForm(v.form) && !v.reloc) {
    if (v.form == dw::DW_FORM_sdata)
      appendSigned(out, v.svalue());
    else
      appendDec(out, v.value);
  } else if (v.name == dw::DW_AT_low_pc && isAddressForm(v.form) && !v.reloc &&
             v.value == tombstone(unit.addressSize)) {
    out += "dead code";
  } else if (v.name == dw::DW_AT_high_pc && dw::isUnsignedConstantForm(v.form) && !v.reloc) {
    std::optional<AttrValue> low = dwarf_.attribute(die, dw::DW_AT_low_pc);
    if (low && isAddressForm(low->form) && (low->reloc || low->value != tombstone(unit.addressSize))) {
      BaseAddress b{true, low->value, low->reloc};
      appendBasedAddress(out, b, v.value, nullptr, unit.addressSize);
    } else {
      formValue(out, dwarf_, unit, v);
    }
  } else if (isLocationList(v)) {
    locationList(out, unit, v, listIndent);
  } else if (isLocationExpr(v)) {
    expression(out, v.block(), dwarf_.info, v.value, unit.addressSize);
  } else {
    formValue(out, dwarf_, unit, v);
    if (v.name == dw::DW_AT_address_class && dw::isUnsignedConstantForm(v.form) && !v.reloc) {
      std::string_view cls = ptxdwarf::cuda::addressClassName(v.value);
      if (!cls.empty()) {
        out += ' ';
        out += cls;
      }
    }
  }

  if (v.name == dw::DW_AT_specification || v.name == dw::DW_AT_abstract_origin) {
    if (const Die* t = dwarf_.referencedDie(v)) {
      std::string_view n = linkageOrName(dwarf_, t);
      if (!n.empty()) {
        out += " \"";
        appendEscaped(out, n);
        out += '"';
      }
    }
  } else if (v.name == dw::DW_AT_type) {
    if (const Die* t = dwarf_.referencedDie(v)) {
      std::string name;
      typeName(name, t);
      out += " \"";
      appendEscaped(out, name);
      out += '"';
    }
  }
}

}  // namespace detail

// ---------------------------------------------------------------------------
// The text dump

namespace {

using detail::appendHex;

class TextDumper {
 public:
  TextDumper(const ptxdwarf::ptx::Module& m, const Dwarf& d, std::string& out, std::FILE* stream)
      : d_(d), out_(out), stream_(stream), r_(m, d, [this] { drain(); }) {}

  // With a stream, writes what has been rendered once it fills a chunk: the
  // dump of a large file never sits whole in memory, and the buffer is reused.
  void drain(bool always = false) {
    constexpr size_t kChunk = size_t{1} << 20;
    if (!stream_ || (out_.size() < kChunk && !always)) return;
    writeTo(stream_, out_);
    out_.clear();
  }

  void header(std::string_view name) {
    out_ += '\n';
    out_ += name;
    out_ += " contents:\n";
  }

  void abbrev() {
    header(".debug_abbrev");
    const SectionImage* s = d_.abbrev;
    if (!s || s->bytes.empty()) {
      out_ += "< EMPTY >\n";
      return;
    }
    // The decoder's tables, in section order (DWARFDebugAbbrev::dump).
    for (const ptxdwarf::read::AbbrevTable* t : d_.tablesInOrder()) {
      out_ += "Abbrev table for offset: ";
      appendHex(out_, t->offset, 8);
      out_ += '\n';
      for (const ptxdwarf::read::Abbrev& a : t->abbrevs) {
        out_ += '[';
        detail::appendDec(out_, a.code);
        out_ += "] ";
        detail::appendTagName(out_, a.tag);
        out_ += a.hasChildren ? "\tDW_CHILDREN_yes\n" : "\tDW_CHILDREN_no\n";
        for (const ptxdwarf::read::AttrSpec& sp : t->specsOf(a)) {
          out_ += '\t';
          detail::appendAttrName(out_, sp.name);
          out_ += '\t';
          detail::appendFormName(out_, sp.form);
          out_ += '\n';
        }
        out_ += '\n';
      }
    }
  }

  void info() {
    header(".debug_info");
    for (size_t ui = 0; ui < d_.units.size(); ++ui) unit(d_.units[ui]);
  }

  void unit(const Unit& u) {
    appendHex(out_, u.offset, 8);
    out_ += ": Compile Unit: length = ";
    appendHex(out_, u.length, 8);
    out_ += ", format = DWARF32, version = ";
    appendHex(out_, u.version, 4);
    out_ += ", abbr_offset = ";
    appendHex(out_, u.abbrevOffset, 4);
    if (u.abbrevTable == kNone) out_ += " (invalid)";
    out_ += ", addr_size = ";
    appendHex(out_, u.addressSize, 2);
    out_ += " (next unit at ";
    appendHex(out_, u.offset + 4 + u.length, 8);
    out_ += ")\n";
    if (u.dieCount == 0) {
      out_ += "<compile unit can't be parsed!>\n\n";
      return;
    }
    for (uint32_t i = u.firstDie; i < u.firstDie + u.dieCount; ++i) {
      const Die& die = d_.dies[i];
      if (die.isNull() && die.depth == 0) continue;  // padding after the unit DIE: llvm-dwarfdump stops there
      if (!die.isNull() && die.depth == 0 && i != u.firstDie) break;  // a second top-level DIE is never reached
      // -r N: the unit DIE is level 0; a NULL entry closes its siblings' level.
      if (die.depth > recurseDepth_) continue;
      dieLine(die, 2u * die.depth);
      drain();
    }
  }

  // --name: every DIE whose name or linkage name (found through abstract
  // origins and specifications) matches, each dumped on its own at indent 0
  // (llvm-dwarfdump's filterByName), nothing else.
  void selectedDies(const DumpOptions& o) {
    std::vector<std::regex> patterns;
    if (o.regex) {
      auto flags = std::regex::extended | (o.ignoreCase ? std::regex::icase : std::regex::flag_type{});
      for (const std::string& n : o.names) patterns.emplace_back(n, flags);
    }
    auto lower = [](std::string_view s) {
      std::string l(s);
      for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return l;
    };
    std::vector<std::string> names;
    for (const std::string& n : o.names) names.push_back(o.ignoreCase && !o.regex ? lower(n) : n);
    auto matches = [&](std::string_view name) {
      if (o.regex) {
        for (const std::regex& re : patterns)
          if (std::regex_search(name.begin(), name.end(), re)) return true;
        return false;
      }
      std::string key = o.ignoreCase ? lower(name) : std::string(name);
      return std::find(names.begin(), names.end(), key) != names.end();
    };
    for (const Die& die : d_.dies) {
      if (die.isNull()) continue;
      std::string_view shortName = ptxdwarf::view::shortName(d_, die);
      bool selected = !shortName.empty() && matches(shortName);
      if (!selected) {
        std::string_view linkage = ptxdwarf::view::linkageOrShortName(d_, die);
        selected = !linkage.empty() && matches(linkage);
      }
      if (!selected) continue;
      size_t indent = 0;
      if (o.showParents) indent = parentChain(die);
      dieTree(die, indent, o.showChildren ? recurseDepth_ : 0);
      drain();
    }
  }

  // The parents of `die`, outermost first, each one level deeper; returns the
  // indentation for `die` itself.
  size_t parentChain(const Die& die) {
    std::vector<const Die*> chain;
    for (const Die* p = d_.parentOf(die); p; p = d_.parentOf(*p)) chain.push_back(p);
    size_t indent = 0;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it, indent += 2) dieLine(**it, indent);
    return indent;
  }

  // `die` and, `depth` levels down, its children (each list closed by its NULL entry).
  void dieTree(const Die& die, size_t indent, uint32_t depth) {
    dieLine(die, indent);
    if (depth == 0 || !die.hasChildren) return;
    size_t first = static_cast<size_t>(&die - d_.dies.data()) + 1;
    for (size_t i = first; i < d_.dies.size() && d_.dies[i].depth > die.depth; ++i) {
      const Die& c = d_.dies[i];
      uint32_t level = c.depth - die.depth;
      if (level > depth) continue;
      dieLine(c, indent + 2u * level);
      if (c.isNull() && level == 1) break;
    }
  }

  void dieLine(const Die& die, size_t indent) {
    out_ += '\n';
    appendHex(out_, die.offset, 8);
    out_ += ": ";
    out_.append(indent, ' ');
    if (die.isNull()) {
      out_ += "NULL\n";
      return;
    }
    detail::appendTagName(out_, die.tag);
    out_ += '\n';
    for (const AttrValue& v : d_.attributes(die)) {
      if (v.form == dw::DW_FORM_implicit_const) continue;
      out_.append(12 + indent + 2, ' ');
      detail::appendAttrName(out_, v.name);
      if (showForm_) {
        out_ += " [";
        detail::appendFormName(out_, v.form);
        out_ += ']';
      }
      out_ += "\t(";
      r_.attributeValue(out_, die, v, static_cast<int>(13 + indent + 4));
      out_ += ")\n";
    }
  }

  void setSelection(const DumpOptions& o) {
    recurseDepth_ = o.recurseDepth;
    showForm_ = o.showForm;
  }

  void loc() {
    header(".debug_loc");
    const SectionImage* s = d_.loc;
    if (!s || s->bytes.empty() || d_.units.empty()) return;
    uint8_t addressSize = d_.units[0].addressSize;
    uint64_t off = 0;
    bool first = true;
    detail::LocListReader list;
    while (off < s->bytes.size()) {
      if (!first) out_ += '\n';
      first = false;
      appendHex(out_, off, 8);
      out_ += ": ";
      bool ok = list.read(s, addressSize, off);
      for (const detail::LocEntryView e : list.entries()) {
        if (e.kind == detail::LocEntryView::endOfList) break;
        out_ += "\n            (";
        detail::Renderer::address(out_,
                                  e.kind == detail::LocEntryView::baseAddress && !e.beginReloc
                                      ? (addressSize == 4 ? 0xffffffffull : ~0ull)
                                      : e.begin,
                                  e.beginReloc, addressSize);
        out_ += ", ";
        detail::Renderer::address(out_, e.end, e.endReloc, addressSize);
        out_ += ')';
        if (e.kind == detail::LocEntryView::range) {
          out_ += ": ";
          r_.expression(out_, e.expr, s, e.exprOffset, addressSize);
        }
        drain();  // a list may hold tens of thousands of entries
      }
      out_ += '\n';
      drain();
      if (!ok) break;
    }
  }

  void aranges() {
    header(".debug_aranges");
    for (const auto& set : d_.arangeSets) {
      out_ += "Address Range Header: length = ";
      appendHex(out_, set.length, 8);
      out_ += ", format = DWARF32, version = ";
      appendHex(out_, set.version, 4);
      out_ += ", cu_offset = ";
      uint64_t cu = set.infoOffset;  // the decoder adds a `.debug_info+N` addend
      if (set.infoReloc && !d_.offsetIn(".debug_info", 0, set.infoReloc))
        detail::appendReloc(out_, *set.infoReloc);
      else
        appendHex(out_, cu, 8);
      out_ += ", addr_size = ";
      appendHex(out_, set.addressSize, 2);
      out_ += ", seg_size = ";
      appendHex(out_, set.segmentSize, 2);
      out_ += '\n';
      for (const auto& r : set.ranges) {
        out_ += '[';
        detail::Renderer::address(out_, r.address, r.addressReloc, set.addressSize);
        out_ += ", ";
        if (!r.addressReloc && !r.lengthReloc) {
          appendHex(out_, r.address + r.length, set.addressSize * 2);
        } else {
          detail::Renderer::address(out_, r.address, r.addressReloc, set.addressSize);
          out_ += '+';
          if (r.lengthReloc)
            detail::appendReloc(out_, *r.lengthReloc);
          else
            appendHex(out_, r.length);
        }
        out_ += ")\n";
      }
    }
  }

  void str() {
    header(".debug_str");
    const SectionImage* s = d_.str;
    if (!s) return;
    const auto& b = s->bytes;
    size_t off = 0;
    while (off < b.size()) {
      const uint8_t* begin = b.data() + off;
      const void* nul = std::memchr(begin, 0, b.size() - off);
      if (!nul) break;  // unterminated: llvm-dwarfdump warns and stops
      size_t len = static_cast<const uint8_t*>(nul) - begin;
      appendHex(out_, off, 8);
      out_ += ": \"";
      detail::appendEscaped(out_, std::string_view(reinterpret_cast<const char*>(begin), len));
      out_ += "\"\n";
      off += len + 1;
    }
  }

  void pubnames() {
    header(".debug_pubnames");
    for (const auto& set : d_.pubnameSets) {
      out_ += "length = ";
      appendHex(out_, set.length, 8);
      out_ += ", format = DWARF32, version = ";
      appendHex(out_, set.version, 4);
      out_ += ", unit_offset = ";
      if (set.infoReloc && !d_.offsetIn(".debug_info", 0, set.infoReloc))
        detail::appendReloc(out_, *set.infoReloc);
      else
        appendHex(out_, set.infoOffset, 8);
      out_ += ", unit_size = ";
      appendHex(out_, set.infoLength, 8);
      out_ += "\nOffset     Name\n";
      for (const auto& e : set.entries) {
        appendHex(out_, e.dieOffset, 8);
        out_ += " \"";
        detail::appendEscaped(out_, e.name);
        out_ += "\"\n";
      }
    }
  }

 private:
  const Dwarf& d_;
  std::string& out_;
  std::FILE* stream_;
  detail::Renderer r_;
  uint32_t recurseDepth_ = UINT32_MAX;  // -r
  bool showForm_ = false;               // --show-form
};

}  // namespace

void dumpText(const ptxdwarf::ptx::Module& module, const Dwarf& dwarf, const DumpOptions& options, std::string& out,
              std::FILE* stream) {
  // About 20 bytes of text for each byte of .debug_info and .debug_loc.
  size_t expected = (dwarf.info ? dwarf.info->size() : 0) + (dwarf.loc ? dwarf.loc->size() : 0);
  out.reserve(out.size() + (stream ? size_t{1} << 21 : expected * 20) + 4096);
  out += module.filename;
  out += ":\tfile format ";
  out += module.fileFormat;
  out += "\n";
  TextDumper t(module, dwarf, out, stream);
  t.setSelection(options);
  if (!options.names.empty()) {  // llvm-dwarfdump --name dumps the matching DIEs and nothing else
    t.selectedDies(options);
    t.drain(true);
    return;
  }
  if (options.abbrev) t.abbrev();
  if (options.info) t.info();
  if (options.loc) t.loc();
  if (options.aranges) t.aranges();
  if (options.line) dumpLineText(module, out, [&t] { t.drain(); });
  if (options.str) t.str();
  if (options.pubnames) t.pubnames();
  t.drain(true);
}

bool validNamePatterns(const DumpOptions& options, std::string& error) {
  if (!options.regex) return true;
  for (const std::string& n : options.names) {
    try {
      std::regex re(n, std::regex::extended);
    } catch (const std::regex_error& e) {
      error = "error in regular expression '" + n + "': " + e.what();
      return false;
    }
  }
  return true;
}

}  // namespace ptxdump
