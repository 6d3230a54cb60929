// The diff's value spelling and symbol meanings: see diff_detail.h.
#include "diff_detail.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/read/expression.h"

namespace ptxdwarf::view::diffdetail {

namespace {

using read::AttrValue;
using read::Die;
using read::Unit;

constexpr char kHexDigits[] = "0123456789abcdef";

void appendSigned(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// `+8`, `-4`, nothing for 0.
void appendAddend(std::string& out, int64_t addend) {
  if (addend > 0) out += '+';
  if (addend) appendSigned(out, addend);
}

std::string_view lastComponent(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// nvcc and LLVM name a function's local depot `__local_depot<the function's ordinal>`.
bool isLocalDepot(std::string_view name) {
  constexpr std::string_view kDepot = "__local_depot";
  if (!name.starts_with(kDepot)) return false;
  name.remove_prefix(kDepot.size());
  return std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void appendDec(std::string& out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void appendHex(std::string& out, uint64_t v, int width) {
  char buf[16];
  int n = 0;
  do {
    buf[n++] = kHexDigits[v & 15];
    v >>= 4;
  } while (v);
  out += "0x";
  for (int i = n; i < width; ++i) out += '0';
  while (n) out += buf[--n];
}

// ---- SymbolMeanings ----

SymbolMeanings::SymbolMeanings(const ptx::Module& module, const read::Dwarf& dwarf)
    : module_(module), dwarf_(dwarf) {}
SymbolMeanings::~SymbolMeanings() = default;

const SymbolMeanings::Definition* SymbolMeanings::find(std::string_view name) const {
  using Kind = Definition::Kind;
  using Index = std::unordered_map<std::string_view, Definition>;
  // The first definition of a name: a code label before a function of its
  // name, and so on. The labels first, by themselves: nearly every symbol of
  // a -G file's DWARF is one.
  auto add = [](Index& index, std::string_view n, Kind kind, size_t i) {
    index.try_emplace(n, Definition{kind, static_cast<uint32_t>(i)});
  };
  // The module's name index where it was built (the read path's): one probe
  // of a slot that holds the label itself.
  if (const ptx::Label* label = module_.findLabel(name)) {
    found_ = {Kind::label, static_cast<uint32_t>(label - module_.labels.data())};
    return &found_;
  }
  if (!labels_) {
    labels_ = std::make_unique<Index>();
    labels_->reserve(module_.labels.size());
    for (size_t i = 0; i < module_.labels.size(); ++i) add(*labels_, module_.labels[i].name, Kind::label, i);
  }
  if (auto it = labels_->find(name); it != labels_->end()) return &it->second;
  if (!declarations_) {
    declarations_ = std::make_unique<Index>();
    declarations_->reserve(module_.functions.size() + module_.parameters.size() + module_.variables.size());
    for (size_t i = 0; i < module_.functions.size(); ++i)
      add(*declarations_, module_.functions[i].name, Kind::function, i);
    for (size_t i = 0; i < module_.parameters.size(); ++i)
      add(*declarations_, module_.parameters[i].name, Kind::parameter, i);
    for (size_t i = 0; i < module_.variables.size(); ++i)
      add(*declarations_, module_.variables[i].name, Kind::variable, i);
  }
  auto it = declarations_->find(name);
  return it == declarations_->end() ? nullptr : &it->second;
}

const SymbolMeanings::Anchor* SymbolMeanings::anchorAt(int32_t function, uint32_t index) const {
  const std::vector<ptx::LocRecord>& locs = module_.locs;
  if (anchors_.empty()) {
    for (uint32_t i = 0; i < locs.size(); ++i)
      if (locs[i].function >= 0) anchors_.push_back({i, i, 0, 0});
    std::stable_sort(anchors_.begin(), anchors_.end(), [&](const Anchor& a, const Anchor& b) {
      const ptx::LocRecord &x = locs[a.loc], &y = locs[b.loc];
      return x.function != y.function ? x.function < y.function : x.instruction < y.instruction;
    });
    // A run: records in a row on one source line (compilers move columns
    // about: LLVM 22 puts inlined code at the callee's column 42 where 19 put
    // column 1). Its occurrence counts the runs of that line before it in the
    // function.
    std::map<std::pair<unsigned, unsigned>, uint32_t> runsOf;
    for (size_t i = 0; i < anchors_.size(); ++i) {
      Anchor& a = anchors_[i];
      const ptx::LocRecord& r = locs[a.loc];
      const ptx::LocRecord* before = i ? &locs[anchors_[i - 1].loc] : nullptr;
      if (before && before->function == r.function) {
        // Line 0 is no line (code the compiler made): it continues the run before it.
        const ptx::LocRecord& run = locs[anchors_[i - 1].runLoc];
        if (r.line == 0 || (run.file == r.file && run.line == r.line)) {
          a.runLoc = anchors_[i - 1].runLoc;
          a.occurrence = anchors_[i - 1].occurrence;
          a.runStart = anchors_[i - 1].runStart;
          continue;
        }
      } else {
        runsOf.clear();
      }
      a.runLoc = a.loc;
      a.occurrence = runsOf[{r.file, r.line}]++;
      a.runStart = r.instruction;
    }
  }
  // The last record of the function at or before the instruction: the one in force there.
  auto after = std::upper_bound(anchors_.begin(), anchors_.end(), std::pair{function, index},
                                [&](const std::pair<int32_t, uint32_t>& at, const Anchor& a) {
                                  const ptx::LocRecord& r = locs[a.loc];
                                  return at.first != r.function ? at.first < r.function : at.second < r.instruction;
                                });
  if (after == anchors_.begin() || locs[(after - 1)->loc].function != function) return nullptr;
  return &*(after - 1);
}

void SymbolMeanings::appendFile(std::string& out, unsigned file, bool wholePath) const {
  if (const ptx::FileEntry* f = module_.findFile(file)) {
    out += wholePath ? std::string_view(f->path) : lastComponent(f->path);
  } else {
    out += "<no .file ";
    appendDec(out, file);
    out += '>';
  }
}

void SymbolMeanings::appendSourcePlace(std::string& out, const ptx::Label& label) const {
  const int32_t function = module_.functionOf(label);
  const ptx::Function& f = module_.functions[static_cast<size_t>(function)];
  out += '@';
  out += f.name;
  if (label.instruction >= f.endInstruction) {
    out += "/end";  // after the last instruction: `$L__func_end0`
    return;
  }
  const Anchor* a = anchorAt(function, label.instruction);
  if (!a) {  // before the function's first `.loc`
    out += '+';
    appendDec(out, label.instruction - std::min(label.instruction, f.firstInstruction));
    return;
  }
  const ptx::LocRecord& r = module_.locs[a->runLoc];
  out += '/';
  appendFile(out, r.file, true);
  out += ':';
  appendDec(out, r.line);
  out += '#';
  appendDec(out, a->occurrence);
  out += '+';
  appendDec(out, label.instruction - std::min(label.instruction, a->runStart));
}

void SymbolMeanings::appendCodePosition(std::string& out, const ptx::Label& label, bool withSource) const {
  const int32_t function = module_.functionOf(label);
  const ptx::Function& f = module_.functions[static_cast<size_t>(function)];
  out += f.name;
  out += '+';
  appendDec(out, label.instruction - std::min(label.instruction, f.firstInstruction));
  const Anchor* a = withSource && label.instruction < f.endInstruction ? anchorAt(function, label.instruction) : nullptr;
  if (!a) return;
  const ptx::LocRecord& r = module_.locs[a->loc];
  out += ' ';
  appendFile(out, r.file, false);
  out += ':';
  appendDec(out, r.line);
  out += ':';
  appendDec(out, r.col);
}

// What `name` stands for. Compared: a code label's place in source terms
// (`@` keeps it apart from any symbol), `.debug_loc+N` for a section or a
// section label, `F/name` for a local variable, `F/__local_depot` for a
// depot, the name for the rest. Shown: only where it is not the name: a code
// label's function, instruction ordinal and source position, a section
// label's offset.
void SymbolMeanings::appendMeaning(std::string& out, std::string_view name, Spelling spelling) const {
  const bool compared = spelling != Spelling::shown;
  if (name.starts_with(".debug")) {
    if (compared) out += name, out += "+0";
    return;
  }
  if (dwarf_.sectionLabels) {
    if (auto it = dwarf_.sectionLabels->find(name); it != dwarf_.sectionLabels->end()) {
      out += it->second.section;
      out += '+';
      appendDec(out, it->second.offset);
      return;
    }
  }
  const Definition* def = find(name);
  using Kind = Definition::Kind;
  if (def && def->kind == Kind::label && module_.labels[def->index].instruction != ptx::kNoIndex &&
      module_.functionOf(module_.labels[def->index]) >= 0) {
    const ptx::Label& label = module_.labels[def->index];
    if (spelling == Spelling::bySource) {
      appendSourcePlace(out, label);
    } else if (spelling == Spelling::byInstruction) {
      out += '@';
      appendCodePosition(out, label, false);
    } else {
      appendCodePosition(out, label, true);
    }
    return;
  }
  if (!compared) return;
  if (def && def->kind == Kind::variable) {
    const ptx::Variable& v = module_.variables[def->index];
    if (v.function >= 0) {
      out += module_.functions[static_cast<size_t>(v.function)].name;
      out += '/';
      out += isLocalDepot(name) ? std::string_view("__local_depot") : name;
      return;
    }
  }
  out += name;
}

void SymbolMeanings::appendSymbol(std::string& out, std::string_view name, Spelling spelling) const {
  if (spelling != Spelling::shown) return appendMeaning(out, name, spelling);
  out += name;
}

void SymbolMeanings::append(std::string& out, const Relocation& r, Spelling spelling) const {
  if (spelling != Spelling::shown) {
    // Whole operands first, so that `.debug_loc+138` equals `$L__debug_loc0+10` at 128.
    if (std::optional<read::SectionOffset> at = dwarf_.resolve(r)) {
      out += at->section;
      out += '+';
      appendDec(out, at->offset);
      return;
    }
    if (r.isDifference()) {
      if (std::optional<int64_t> v = dwarf_.labelDifference(r)) {
        out += '=';
        appendSigned(out, *v);
        return;
      }
    }
  }
  appendSymbol(out, r.symbol, spelling);
  if (r.isDifference()) {
    out += '-';
    appendSymbol(out, r.minus(), spelling);
  }
  appendAddend(out, r.addend());
  if (spelling != Spelling::shown) return;
  std::string meanings;
  for (std::string_view name : {std::string_view(r.symbol), std::string_view(r.minus())}) {
    if (name.empty()) continue;
    const size_t before = meanings.size();
    if (before) meanings += ", ";
    appendMeaning(meanings, name, Spelling::shown);
    if (meanings.size() == before + (before ? 2 : 0)) meanings.resize(before);
  }
  if (meanings.empty()) return;
  out += " (";
  out += meanings;
  out += ')';
}

// ---- ValueSpeller ----

namespace {

bool isSectionOffsetForm(uint16_t form) {
  return form == dw::DW_FORM_data4 || form == dw::DW_FORM_data8 || form == dw::DW_FORM_sec_offset ||
         form == dw::DW_FORM_strp;
}


bool isLocationList(const AttrValue& v) { return read::isLocationAttribute(v.name) && isSectionOffsetForm(v.form); }
bool isLocationExpr(const AttrValue& v) {
  return dw::holdsLocationExpression(v.name, v.form);
}

bool isAbsolutePath(std::string_view p) {
  if (!p.empty() && (p[0] == '/' || p[0] == '\\')) return true;
  return p.size() >= 3 && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) && p[1] == ':' &&
         (p[2] == '\\' || p[2] == '/');
}

void appendBlock(std::string& out, std::span<const uint8_t> bytes) {
  out += '<';
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) out += ' ';
    out += kHexDigits[bytes[i] >> 4];
    out += kHexDigits[bytes[i] & 15];
  }
  out += '>';
}

}  // namespace

void ValueSpeller::address(std::string& out, uint64_t value, const Relocation* reloc, uint8_t addressSize,
                           Spelling spelling) const {
  if (reloc)
    symbols_.append(out, *reloc, spelling);
  else
    appendHex(out, value, addressSize * 2);
}

void ValueSpeller::range(std::string& out, const read::ArangeSet& set, const read::Range& r,
                         Spelling spelling) const {
  out += '[';
  address(out, r.address, r.addressReloc, set.addressSize, spelling);
  out += ", ";
  const Relocation* a = r.addressReloc;
  const Relocation* n = r.lengthReloc;
  if (!a && !n) {
    appendHex(out, r.address + r.length, set.addressSize * 2);
  } else if (a && n && n->isDifference() && !a->isDifference() && a->addend() == 0 && n->minus() == a->symbol &&
             r.address == 0) {
    // [func_begin0, func_end0-func_begin0): the end is func_end0.
    Relocation end(n->offset, n->size, n->symbol);
    address(out, 0, &end, set.addressSize, spelling);
    appendAddend(out, n->addend());
  } else {
    address(out, r.address, a, set.addressSize, spelling);
    out += '+';
    if (n)
      symbols_.append(out, *n, spelling);
    else
      appendHex(out, r.length);
  }
  out += ')';
}

bool ValueSpeller::fileName(std::string& out, const Unit& unit, uint64_t index) const {
  if (unit.dieCount == 0 || index > UINT32_MAX) return false;
  const Die& cu = dwarf_.dies[unit.firstDie];
  if (!dwarf_.hasAttribute(cu, dw::DW_AT_stmt_list)) return false;  // no line table for the unit
  const ptx::FileEntry* f = module_.findFile(static_cast<unsigned>(index));
  if (!f) return false;
  if (isAbsolutePath(f->path)) {
    out += f->path;
    return true;
  }
  // llvm::sys::path::append of the unit's directory and the path.
  if (std::optional<AttrValue> dir = dwarf_.attribute(cu, dw::DW_AT_comp_dir); dir && dir->isString()) {
    out += dir->string();
    if (!out.empty() && out.back() != '/' && !f->path.empty() && f->path[0] != '/') out += '/';
  }
  out += f->path;
  return true;
}

void ValueSpeller::operation(std::string& out, const read::Operation& op, uint8_t addressSize,
                             Spelling spelling) const {
  out += dw::opName(op.op);
  if (op.op == dw::DW_OP_regx || op.op == dw::DW_OP_bregx) {
    if (auto reg = cuda::unpackRegister(op.operands[0])) {
      out += ' ';
      out += *reg;
      if (op.op == dw::DW_OP_bregx) {
        const int64_t s = static_cast<int64_t>(op.operands[1]);
        out += s >= 0 ? " +" : " ";
        appendSigned(out, s);
      }
      return;
    }
  }
  const dw::OpInfo* info = dw::opInfo(op.op);
  if (!info) return;
  const dw::OperandKind kinds[2] = {info->a, info->b};
  for (int slot = 0; slot < 2; ++slot) {
    using K = dw::OperandKind;
    const K k = kinds[slot];
    if (k == K::none || k == K::unknown) break;
    out += ' ';
    if (slot == 0 && op.reloc) {
      symbols_.append(out, *op.reloc, spelling);
      continue;
    }
    const uint64_t v = op.operands[slot];
    switch (k) {
      case K::s8:
      case K::s16:
      case K::s32:
      case K::s64:
      case K::sleb:
        if (static_cast<int64_t>(v) >= 0) out += '+';
        appendSigned(out, static_cast<int64_t>(v));
        break;
      case K::block:
      case K::block1:
        appendHex(out, v);
        for (uint8_t b : op.block) {
          out += ' ';
          appendHex(out, b, 2);
        }
        break;
      case K::expr: {  // DW_OP_entry_value(<nested ops>)
        out.pop_back();
        out += '(';
        const read::Expression nested = read::decodeExpression(op.block, {addressSize, 4, nullptr, 0});
        for (size_t i = 0; i < nested.ops.size(); ++i) {
          if (i) out += ", ";
          operation(out, nested.ops[i], addressSize, spelling);
        }
        out += ')';
        break;
      }
      default:
        appendHex(out, v);
        break;
    }
  }
}

void ValueSpeller::expression(std::string& out, std::span<const uint8_t> bytes, const SectionImage* section,
                              uint64_t sectionOffset, uint8_t addressSize, Spelling spelling) const {
  if (bytes.empty()) {
    out += "<empty>";
    return;
  }
  const read::Expression e = read::decodeExpression(bytes, {addressSize, 4, section, sectionOffset});
  for (size_t i = 0; i < e.ops.size(); ++i) {
    operation(out, e.ops[i], addressSize, spelling);
    if (i + 1 < e.ops.size() || !e.ok) out += ", ";
  }
  if (!e.ok) {
    out += "<decoding error>";
    for (uint64_t i = e.errorOffset; i < bytes.size(); ++i) {
      out += ' ';
      out += kHexDigits[bytes[i] >> 4];
      out += kHexDigits[bytes[i] & 15];
    }
  }
}

// A location list by its entries, as written (no base address applied):
// "[begin, end): expr; base X; ...".
void ValueSpeller::locationList(std::string& out, const Unit& unit, const AttrValue& v, Spelling spelling) const {
  const std::optional<uint64_t> offset = dwarf_.offsetIn(".debug_loc", v.value, v.reloc);
  if (!offset || !dwarf_.loc) {
    out += "<no location list at ";
    if (v.reloc)
      symbols_.append(out, *v.reloc, spelling);
    else
      appendHex(out, v.value);
    out += '>';
    return;
  }
  std::vector<read::LocEntryRef> refs;
  const read::LocList list = read::readLocList(*dwarf_.loc, *offset, unit.addressSize, refs);
  bool first = true;
  for (const read::LocEntry e : list.entries) {
    if (e.kind == read::LocEntry::endOfList) break;
    if (!first) out += "; ";
    first = false;
    if (e.kind == read::LocEntry::baseAddress) {
      out += "base ";
      address(out, e.end, e.endReloc, unit.addressSize, spelling);
      continue;
    }
    out += '[';
    address(out, e.begin, e.beginReloc, unit.addressSize, spelling);
    out += ", ";
    address(out, e.end, e.endReloc, unit.addressSize, spelling);
    out += "): ";
    expression(out, e.expr, dwarf_.loc, e.exprOffset, unit.addressSize, spelling);
  }
  if (first) out += "<empty list>";
  if (!list.terminated) out += first ? " <truncated>" : "; <truncated>";
}

// An unsigned constant: decl_file as its path, named constants by name, an
// address class by name and number, the rest in decimal.
void ValueSpeller::constant(std::string& out, const Unit& unit, const AttrValue& v) const {
  if (v.name == dw::DW_AT_decl_file || v.name == dw::DW_AT_call_file) {
    std::string path;
    if (fileName(path, unit, v.value)) {
      out += '"';
      appendEscaped(out, path);
      out += '"';
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

uint32_t ValueSpeller::spell(std::string& out, const Die& die, const AttrValue& v, Spelling spelling,
                             bool brief) const {
  const Unit& unit = dwarf_.unitOf(die);
  if (v.isReference()) {
    if (const Die* target = dwarf_.referencedDie(v)) return static_cast<uint32_t>(target - dwarf_.dies.data());
    if (v.reloc) {
      symbols_.append(out, *v.reloc, spelling);
    } else {
      out += "<invalid reference ";
      appendHex(out, v.value);
      out += '>';
    }
    return read::kNone;
  }
  if (isLocationList(v)) {
    if (brief)  // entries decide equality, not where the list lives
      out += "<location list>";
    else
      locationList(out, unit, v, spelling);
    return read::kNone;
  }
  if (isLocationExpr(v)) {
    expression(out, v.block(), dwarf_.info, v.value, unit.addressSize, spelling);
    return read::kNone;
  }
  if (v.form == dw::DW_FORM_string || v.form == dw::DW_FORM_strp) {
    if (v.form == dw::DW_FORM_strp && v.string().empty() && v.reloc && !dwarf_.offsetIn(".debug_str", 0, v.reloc)) {
      symbols_.append(out, *v.reloc, spelling);  // points nowhere in .debug_str
      return read::kNone;
    }
    out += '"';
    appendEscaped(out, v.string());
    out += '"';
    return read::kNone;
  }
  if (v.reloc) {
    symbols_.append(out, *v.reloc, spelling);
    return read::kNone;
  }
  switch (v.form) {
    case dw::DW_FORM_flag_present:
      out += "true";
      return read::kNone;
    case dw::DW_FORM_flag:
      out += v.value ? "true" : "false";
      return read::kNone;
    case dw::DW_FORM_addr:
      appendHex(out, v.value, unit.addressSize * 2);
      return read::kNone;
    case dw::DW_FORM_sdata:
      appendSigned(out, v.svalue());
      return read::kNone;
    case dw::DW_FORM_exprloc:
    case dw::DW_FORM_block:
    case dw::DW_FORM_block1:
    case dw::DW_FORM_block2:
    case dw::DW_FORM_block4:
      appendBlock(out, v.block());
      return read::kNone;
    default:
      break;
  }
  if (dw::isUnsignedConstantForm(v.form))
    constant(out, unit, v);
  else  // sec_offset (not a location), ref_sig8, anything else: the raw number
    appendHex(out, v.value);
  return read::kNone;
}

}  // namespace ptxdwarf::view::diffdetail
