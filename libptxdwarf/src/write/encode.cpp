// DIE model -> section images, in three steps per unit: order the DIEs
// (pre-order, explicit stack) and intern their abbreviations; lay out every
// offset; emit, checking each DIE ends where the layout said.
#include "ptxdwarf/write/encode.h"

#include <unordered_map>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"

namespace ptxdwarf::write {

using namespace dw;

namespace {

unsigned smallestDataForm(uint64_t v) {
  if (v <= 0xff) return DW_FORM_data1;
  if (v <= 0xffff) return DW_FORM_data2;
  if (v <= 0xffffffffu) return DW_FORM_data4;
  return DW_FORM_data8;
}

// The Chapter 6 example writes these as data4 whatever their value.
bool isChapter6Data4(uint16_t name) {
  return name == DW_AT_decl_file || name == DW_AT_decl_line || name == DW_AT_call_file || name == DW_AT_call_line ||
         name == DW_AT_byte_size;
}

}  // namespace

uint16_t chooseForm(uint16_t name, const Value& v, const UnitOptions& o) {
  if (v.form) return v.form;
  using K = Value::Kind;
  bool chapter6 = o.policy == FormPolicy::chapter6;
  switch (v.kind) {
    case K::unsigned_:
      if (chapter6 && isChapter6Data4(name) && v.u <= 0xffffffffu) return DW_FORM_data4;
      return static_cast<uint16_t>(smallestDataForm(v.u));
    case K::signed_: return DW_FORM_sdata;
    case K::flag: return (!chapter6 && o.version >= 4 && v.u) ? DW_FORM_flag_present : DW_FORM_flag;
    case K::string: return DW_FORM_string;
    case K::reference: return DW_FORM_ref4;
    case K::address: return DW_FORM_addr;
    case K::sectionOffset:
    case K::locationList: return o.version >= 4 ? DW_FORM_sec_offset : DW_FORM_data4;
    // DWARF 4's DW_FORM_exprloc would be the form, but ptxas 13 cannot read it
    // (cuda::ptxasFormProblem); a block form carries the same expression.
    case K::expression:
    case K::block: {
      size_t n = v.expr.bytes().size();
      return n <= 0xff ? DW_FORM_block1 : n <= 0xffff ? DW_FORM_block2 : DW_FORM_block4;
    }
  }
  return DW_FORM_data4;
}

namespace {

// One abbreviation: its code and the forms of its attributes, in order.
struct AbbrevEntry {
  uint32_t code;
  uint16_t tag;
  bool children;
  std::vector<std::pair<uint16_t, uint16_t>> specs;
};

class AbbrevInterner {
 public:
  uint32_t intern(uint16_t tag, bool children, const std::vector<std::pair<uint16_t, uint16_t>>& specs) {
    key_.clear();
    appendKey(tag);
    key_ += children ? '1' : '0';
    for (auto [name, form] : specs) {
      appendKey(name);
      appendKey(form);
    }
    auto [it, inserted] = codes_.try_emplace(key_, static_cast<uint32_t>(entries_.size() + 1));
    if (inserted) entries_.push_back({it->second, tag, children, specs});
    return it->second;
  }
  const std::vector<AbbrevEntry>& entries() const { return entries_; }

 private:
  void appendKey(uint16_t v) {
    key_ += static_cast<char>(v & 0xff);
    key_ += static_cast<char>(v >> 8);
  }
  std::string key_;
  std::unordered_map<std::string, uint32_t> codes_;
  std::vector<AbbrevEntry> entries_;
};

// Little-endian, LEB128 and relocation writer over one section image.
class SectionWriter {
 public:
  explicit SectionWriter(SectionImage& image) : img_(image) {}
  uint64_t offset() const { return img_.bytes.size(); }
  void u8(uint64_t v) { img_.bytes.push_back(static_cast<uint8_t>(v)); }
  void fixed(uint64_t v, unsigned size) {
    appendLittleEndian(img_.bytes, v, size);
  }
  void uleb(uint64_t v) {
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      u8(v ? (b | 0x80) : b);
    } while (v);
  }
  void sleb(int64_t v) {
    for (;;) {
      uint8_t b = v & 0x7f;
      v >>= 7;
      bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
      u8(done ? b : (b | 0x80));
      if (done) return;
    }
  }
  void bytes(const std::vector<uint8_t>& b) { img_.bytes.insert(img_.bytes.end(), b.begin(), b.end()); }
  void string(std::string_view s) {
    img_.bytes.insert(img_.bytes.end(), s.begin(), s.end());
    u8(0);
  }
  // A symbolic operand: relocation plus zero bytes (a symbol with an empty
  // name is the plain number `addend`).
  void symbol(const SymbolRef& s, unsigned size, std::string_view minus = {}) {
    if (s.name.empty() && minus.empty()) return fixed(static_cast<uint64_t>(s.addend), size);
    img_.addRelocation(offset(), static_cast<uint8_t>(size), s.name, minus, s.addend);
    fixed(0, size);
  }
  void expr(const Expr& e) {
    uint64_t base = offset();
    bytes(e.bytes());
    for (const Expr::Fixup& f : e.fixups())
      img_.addRelocation(base + f.offset, f.size, f.symbol.name, {}, f.symbol.addend);
  }

 private:
  SectionImage& img_;
};

uint64_t valueSize(uint16_t form, const Value& v, const UnitOptions& o, uint64_t refOffset) {
  switch (form) {
    case DW_FORM_addr: return o.addressSize;
    case DW_FORM_data1:
    case DW_FORM_ref1:
    case DW_FORM_flag: return 1;
    case DW_FORM_data2:
    case DW_FORM_ref2: return 2;
    case DW_FORM_data4:
    case DW_FORM_ref4:
    case DW_FORM_strp:
    case DW_FORM_sec_offset: return 4;
    case DW_FORM_data8:
    case DW_FORM_ref8:
    case DW_FORM_ref_sig8: return 8;
    case DW_FORM_ref_addr: return o.version == 2 ? o.addressSize : 4;
    case DW_FORM_sdata: return slebSize(v.kind == Value::Kind::signed_ ? v.s : static_cast<int64_t>(v.u));
    case DW_FORM_udata: return ulebSize(v.u);
    case DW_FORM_ref_udata: return ulebSize(refOffset);
    case DW_FORM_flag_present: return 0;
    case DW_FORM_string: return v.str.size() + 1;
    case DW_FORM_block1: return 1 + v.expr.bytes().size();
    case DW_FORM_block2: return 2 + v.expr.bytes().size();
    case DW_FORM_block4: return 4 + v.expr.bytes().size();
    case DW_FORM_block:
    case DW_FORM_exprloc: return ulebSize(v.expr.bytes().size()) + v.expr.bytes().size();
    default: return 0;
  }
}

// A form that can carry the value kind at all (pinned forms are checked).
bool formFits(uint16_t form, const Value& v) {
  using K = Value::Kind;
  switch (v.kind) {
    case K::unsigned_:
    case K::signed_: {
      uint64_t u = v.kind == K::signed_ ? static_cast<uint64_t>(v.s) : v.u;
      switch (form) {
        case DW_FORM_data1: return v.kind == K::signed_ ? (v.s >= -128 && v.s <= 255) : u <= 0xff;
        case DW_FORM_data2: return v.kind == K::signed_ ? (v.s >= -32768 && v.s <= 0xffff) : u <= 0xffff;
        case DW_FORM_data4:
          return v.kind == K::signed_ ? (v.s >= INT32_MIN && v.s <= 0xffffffffLL) : u <= 0xffffffffu;
        case DW_FORM_data8:
        case DW_FORM_sdata:
        case DW_FORM_udata: return !(form == DW_FORM_udata && v.kind == K::signed_ && v.s < 0);
        default: return false;
      }
    }
    case K::flag: return form == DW_FORM_flag || (form == DW_FORM_flag_present && v.u);
    case K::string: return form == DW_FORM_string;
    case K::reference:
      return form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 || form == DW_FORM_ref8 ||
             form == DW_FORM_ref_udata || form == DW_FORM_ref_addr;
    case K::address: return form == DW_FORM_addr || form == DW_FORM_data4 || form == DW_FORM_data8;
    case K::sectionOffset:
    case K::locationList:
      return form == DW_FORM_data4 || form == DW_FORM_sec_offset || form == DW_FORM_data8 || form == DW_FORM_strp;
    case K::block:
    case K::expression:
      return form == DW_FORM_block1 || form == DW_FORM_block2 || form == DW_FORM_block4 || form == DW_FORM_block ||
             form == DW_FORM_exprloc;
  }
  return false;
}

std::string formLabel(uint16_t form) {
  std::string_view n = formName(form);
  return n.empty() ? "form " + std::to_string(form) : std::string(n);
}

std::string attrLabel(uint16_t name) {
  std::string_view n = attributeName(name);
  return n.empty() ? "attribute " + std::to_string(name) : std::string(n);
}

// One DIE or NULL entry of a unit, in output order.
struct Entry {
  DieId die = kNoDie;  // kNoDie: a NULL entry
  uint32_t code = 0;
  uint32_t firstForm = 0;  // into UnitLayout::forms
  bool sibling = false;    // a DW_AT_sibling is prepended
};

struct UnitLayout {
  const Unit* unit = nullptr;
  std::vector<Entry> entries;
  std::vector<uint16_t> forms;        // chosen form per attribute, entries in order
  std::vector<uint64_t> dieOffset;    // absolute .debug_info offset by DieId
  std::vector<uint64_t> nextSibling;  // offset after a DIE's subtree, by DieId
  uint64_t offset = 0;                // of the unit header
  uint64_t size = 0;                  // whole unit, header included
};

void orderAndIntern(UnitLayout& L, AbbrevInterner& abbrevs, const EncodeOptions& options, Diagnostics& diags) {
  const Unit& u = *L.unit;
  std::vector<std::pair<DieId, size_t>> stack;  // (die, next child index)
  auto visit = [&](DieId id) {
    const Die& d = u.die(id);
    Entry e;
    e.die = id;
    e.firstForm = static_cast<uint32_t>(L.forms.size());
    bool children = !d.children.empty() || d.forceChildren;
    e.sibling = options.siblings && children && id != u.root();
    std::vector<std::pair<uint16_t, uint16_t>> specs;
    if (e.sibling) specs.emplace_back(DW_AT_sibling, DW_FORM_ref4);
    for (const Attribute& a : d.attributes) {
      uint16_t form = chooseForm(a.name, a.value, u.options());
      if (!formFits(form, a.value)) {
        diags.error({}, attrLabel(a.name) + " of DIE " + std::to_string(id) + " (" + std::string(tagName(d.tag)) +
                            "): its value does not fit " + formLabel(form));
      }
      if (a.value.kind == Value::Kind::reference) {
        DieId target = a.value.ref;
        if (target == kNoDie)
          diags.error({}, attrLabel(a.name) + " of DIE " + std::to_string(id) + " refers to no DIE");
        else if (target != u.root() && u.die(target).parent == kNoDie)
          diags.error({}, attrLabel(a.name) + " of DIE " + std::to_string(id) + " refers to DIE " +
                              std::to_string(target) + ", which was never attached to the tree");
      }
      specs.emplace_back(a.name, form);
      L.forms.push_back(form);
    }
    e.code = abbrevs.intern(d.tag, children, specs);
    L.entries.push_back(e);
    return children;
  };
  if (visit(u.root())) stack.emplace_back(u.root(), 0);
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    const Die& d = u.die(id);
    if (next == d.children.size()) {
      L.entries.push_back(Entry{});  // NULL closes the children list
      stack.pop_back();
      continue;
    }
    DieId child = d.children[next++];
    if (visit(child)) stack.emplace_back(child, 0);
  }
}

// Assigns every offset. ref_udata sizes depend on offsets, so repeat until stable.
void layout(UnitLayout& L, uint64_t unitOffset) {
  const Unit& u = *L.unit;
  L.offset = unitOffset;
  L.dieOffset.assign(u.size(), 0);
  L.nextSibling.assign(u.size(), 0);
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    uint64_t at = unitOffset + 11;
    std::vector<DieId> open;
    for (const Entry& e : L.entries) {
      if (e.die == kNoDie) {
        at += 1;
        if (!open.empty()) {
          L.nextSibling[open.back()] = at;
          open.pop_back();
        }
        continue;
      }
      if (L.dieOffset[e.die] != at) changed = true;
      L.dieOffset[e.die] = at;
      const Die& d = u.die(e.die);
      at += ulebSize(e.code);
      if (e.sibling) at += 4;
      for (size_t i = 0; i < d.attributes.size(); ++i) {
        const Value& v = d.attributes[i].value;
        uint64_t ref = v.kind == Value::Kind::reference && v.ref != kNoDie ? L.dieOffset[v.ref] - unitOffset : 0;
        at += valueSize(L.forms[e.firstForm + i], v, u.options(), ref);
      }
      if (!d.children.empty() || d.forceChildren) open.push_back(e.die);
      else L.nextSibling[e.die] = at;
    }
    L.size = at - unitOffset;
    if (!changed && pass > 0) break;
  }
}

void emitValue(SectionWriter& w, uint16_t form, const Value& v, const UnitLayout& L,
               const std::vector<uint64_t>& listOffsets) {
  const UnitOptions& o = L.unit->options();
  using K = Value::Kind;
  uint64_t number = v.kind == K::signed_ ? static_cast<uint64_t>(v.s) : v.u;
  if (v.kind == K::reference) {
    uint64_t abs = L.dieOffset[v.ref];
    number = form == DW_FORM_ref_addr ? abs : abs - L.offset;
  }
  switch (form) {
    case DW_FORM_addr:
    case DW_FORM_sec_offset:
    case DW_FORM_strp:
    case DW_FORM_data4:
    case DW_FORM_data8: {
      unsigned size = form == DW_FORM_addr ? o.addressSize : form == DW_FORM_data8 ? 8 : 4;
      if (v.kind == K::address || v.kind == K::sectionOffset) return w.symbol(v.symbol, size);
      if (v.kind == K::locationList)
        return w.symbol({".debug_loc", static_cast<int64_t>(listOffsets[v.list])}, size);
      return w.fixed(number, size);
    }
    case DW_FORM_data1:
    case DW_FORM_ref1:
    case DW_FORM_flag: return w.fixed(number, 1);
    case DW_FORM_data2:
    case DW_FORM_ref2: return w.fixed(number, 2);
    case DW_FORM_ref4: return w.fixed(number, 4);
    case DW_FORM_ref8: return w.fixed(number, 8);
    case DW_FORM_ref_addr: return w.fixed(number, o.version == 2 ? o.addressSize : 4);
    case DW_FORM_sdata: return w.sleb(static_cast<int64_t>(number));
    case DW_FORM_udata:
    case DW_FORM_ref_udata: return w.uleb(number);
    case DW_FORM_flag_present: return;
    case DW_FORM_string: return w.string(v.str);
    case DW_FORM_block1: w.fixed(v.expr.bytes().size(), 1); return w.expr(v.expr);
    case DW_FORM_block2: w.fixed(v.expr.bytes().size(), 2); return w.expr(v.expr);
    case DW_FORM_block4: w.fixed(v.expr.bytes().size(), 4); return w.expr(v.expr);
    case DW_FORM_block:
    case DW_FORM_exprloc: w.uleb(v.expr.bytes().size()); return w.expr(v.expr);
    default: return;
  }
}

void emitUnit(SectionWriter& w, const UnitLayout& L, const std::vector<uint64_t>& listOffsets, Diagnostics& diags) {
  const Unit& u = *L.unit;
  w.fixed(L.size - 4, 4);
  w.fixed(u.options().version, 2);
  w.symbol({".debug_abbrev", 0}, 4);
  w.u8(u.options().addressSize);
  for (const Entry& e : L.entries) {
    if (e.die == kNoDie) {
      w.u8(0);
      continue;
    }
    if (w.offset() != L.dieOffset[e.die]) {
      diags.error({}, "internal error: DIE " + std::to_string(e.die) + " emitted at " + std::to_string(w.offset()) +
                          ", laid out at " + std::to_string(L.dieOffset[e.die]));
      return;
    }
    const Die& d = u.die(e.die);
    w.uleb(e.code);
    if (e.sibling) w.fixed(L.nextSibling[e.die] - L.offset, 4);
    for (size_t i = 0; i < d.attributes.size(); ++i)
      emitValue(w, L.forms[e.firstForm + i], d.attributes[i].value, L, listOffsets);
  }
  if (w.offset() != L.offset + L.size)
    diags.error({}, "internal error: unit ends at " + std::to_string(w.offset()) + ", laid out to end at " +
                        std::to_string(L.offset + L.size));
}

void emitAbbrevs(SectionImage& img, const AbbrevInterner& abbrevs) {
  SectionWriter w(img);
  for (const AbbrevEntry& a : abbrevs.entries()) {
    w.uleb(a.code);
    w.uleb(a.tag);
    w.u8(a.children ? 1 : 0);
    for (auto [name, form] : a.specs) {
      w.uleb(name);
      w.uleb(form);
    }
    w.u8(0);
    w.u8(0);
  }
  w.u8(0);
}

// .debug_loc: each list as (begin, end, length, expression) entries and a 0,0 end.
std::vector<uint64_t> emitLocationLists(SectionImage& img, const Unit& u) {
  SectionWriter w(img);
  std::vector<uint64_t> offsets;
  const unsigned as = u.options().addressSize;
  for (const auto& list : u.locationLists()) {
    offsets.push_back(w.offset());
    for (const Location::ListEntry& e : list) {
      w.symbol(e.begin, as);
      w.symbol(e.end, as);
      w.fixed(e.expr.bytes().size(), 2);
      w.expr(e.expr);
    }
    w.fixed(0, as);
    w.fixed(0, as);
  }
  return offsets;
}

const Value* attributeValue(const Die& d, uint16_t name) {
  for (const Attribute& a : d.attributes)
    if (a.name == name) return &a.value;
  return nullptr;
}

void emitPubnames(SectionImage& img, const UnitLayout& L, UnitLengthConvention convention) {
  SectionWriter w(img);
  const Unit& u = *L.unit;
  uint64_t start = w.offset();
  w.fixed(0, 4);  // length, patched below
  w.fixed(2, 2);
  w.symbol({".debug_info", static_cast<int64_t>(L.offset)}, 4);
  w.fixed(convention == UnitLengthConvention::unitLengthField ? L.size - 4 : L.size, 4);
  if (const auto* entries = u.explicitPubnames()) {
    for (const Unit::Pubname& e : *entries) {
      w.fixed(L.dieOffset[e.die] - L.offset, 4);
      w.string(e.name);
    }
  } else {
    for (DieId child : u.die(u.root()).children) {
      const Die& d = u.die(child);
      if (d.tag != DW_TAG_subprogram && d.tag != DW_TAG_variable) continue;
      const Value* external = attributeValue(d, DW_AT_external);
      const Value* name = attributeValue(d, DW_AT_name);
      if (!external || !external->u || !name || name->kind != Value::Kind::string) continue;
      w.fixed(L.dieOffset[child] - L.offset, 4);
      w.string(name->str);
    }
  }
  w.fixed(0, 4);
  uint64_t length = w.offset() - start - 4;
  for (int i = 0; i < 4; ++i) img.bytes[start + i] = static_cast<uint8_t>(length >> (8 * i));
}

void emitAranges(SectionImage& img, const UnitLayout& L) {
  SectionWriter w(img);
  const Unit& u = *L.unit;
  const unsigned as = u.options().addressSize;
  uint64_t start = w.offset();
  w.fixed(0, 4);
  w.fixed(2, 2);
  w.symbol({".debug_info", static_cast<int64_t>(L.offset)}, 4);
  w.u8(as);
  w.u8(0);
  while ((w.offset() - start) % (2 * as)) w.u8(0);
  for (DieId id = 0; id < u.size(); ++id) {
    const Die& d = u.die(id);
    if (d.tag != DW_TAG_subprogram) continue;
    const Value* low = attributeValue(d, DW_AT_low_pc);
    const Value* high = attributeValue(d, DW_AT_high_pc);
    if (!low || !high || low->kind != Value::Kind::address || high->kind != Value::Kind::address) continue;
    if (low->symbol.name.empty() || high->symbol.name.empty()) continue;
    // ptxas computes `A-B` only between labels inside debug sections, so the
    // length cannot be `end-begin`. It places every function in its own
    // .text section starting at 0: the end label's address is the length when
    // low_pc is the function's first label, as producers emit it.
    w.symbol(low->symbol, as);
    w.symbol({high->symbol.name, high->symbol.addend - low->symbol.addend}, as);
  }
  w.fixed(0, as);
  w.fixed(0, as);
  uint64_t length = w.offset() - start - 4;
  for (int i = 0; i < 4; ++i) img.bytes[start + i] = static_cast<uint8_t>(length >> (8 * i));
}

}  // namespace

std::vector<SectionImage> encode(std::span<const Unit* const> units, const EncodeOptions& options,
                                 Diagnostics& diags) {
  SectionImage abbrev, info, loc, pubnames, aranges;
  abbrev.name = ".debug_abbrev";
  info.name = ".debug_info";
  loc.name = ".debug_loc";
  pubnames.name = ".debug_pubnames";
  aranges.name = ".debug_aranges";
  AbbrevInterner interner;
  std::vector<UnitLayout> layouts(units.size());
  uint64_t offset = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    layouts[i].unit = units[i];
    orderAndIntern(layouts[i], interner, options, diags);
    layout(layouts[i], offset);
    offset += layouts[i].size;
  }
  if (diags.hasErrors()) return {};
  SectionWriter infoWriter(info);
  for (const UnitLayout& L : layouts) {
    std::vector<uint64_t> lists = emitLocationLists(loc, *L.unit);
    emitUnit(infoWriter, L, lists, diags);
    if (options.pubnames) emitPubnames(pubnames, L, options.pubnamesLength);
    if (options.aranges) emitAranges(aranges, L);
  }
  emitAbbrevs(abbrev, interner);
  std::vector<SectionImage> out;
  out.push_back(std::move(info));
  out.push_back(std::move(abbrev));
  if (!loc.bytes.empty()) out.push_back(std::move(loc));
  if (options.pubnames) out.push_back(std::move(pubnames));
  if (options.aranges) out.push_back(std::move(aranges));
  return out;
}

std::vector<SectionImage> encode(const Unit& unit, const EncodeOptions& options, Diagnostics& diags) {
  const Unit* units[] = {&unit};
  return encode(units, options, diags);
}

}  // namespace ptxdwarf::write
