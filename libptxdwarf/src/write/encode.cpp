// DIE model -> section images, in three steps per unit: order the DIEs
// (pre-order, explicit stack) and intern their abbreviations; lay out every
// offset; emit, checking each DIE ends where the layout said.
#include "ptxdwarf/write/encode.h"

#include <algorithm>
#include <cstring>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "../parallel.h"
#include "../reserve.h"
#include "encode_internal.h"
#include "unit_store.h"

namespace ptxdwarf::write {

using namespace dw;
using namespace encoding;

namespace {

// A unit from this many DIEs on is large (megabytes of layout tables).
constexpr size_t kLargeUnit = 50000;

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

uint16_t chooseForm(uint16_t name, Value::Kind kind, uint16_t pinned, uint64_t number, size_t blockSize,
                    const UnitOptions& o) {
  if (pinned) return pinned;
  using K = Value::Kind;
  bool chapter6 = o.policy == FormPolicy::chapter6;
  switch (kind) {
    case K::unsigned_:
      if (chapter6 && isChapter6Data4(name) && number <= 0xffffffffu) return DW_FORM_data4;
      return static_cast<uint16_t>(smallestDataForm(number));
    case K::signed_: return DW_FORM_sdata;
    case K::flag: return (!chapter6 && o.version >= 4 && number) ? DW_FORM_flag_present : DW_FORM_flag;
    case K::string: return DW_FORM_string;
    case K::reference: return DW_FORM_ref4;
    case K::address: return DW_FORM_addr;
    case K::sectionOffset:
    case K::locationList: return o.version >= 4 ? DW_FORM_sec_offset : DW_FORM_data4;
    // DWARF 4's DW_FORM_exprloc would be the form, but ptxas 13 cannot read it
    // (cuda::ptxasFormProblem); a block form carries the same expression.
    case K::expression:
    case K::block: return blockSize <= 0xff ? DW_FORM_block1 : blockSize <= 0xffff ? DW_FORM_block2 : DW_FORM_block4;
  }
  return DW_FORM_data4;
}

uint16_t chooseForm(uint16_t name, const Value& v, const UnitOptions& o) {
  return chooseForm(name, v.kind, v.form, v.u, v.expr.bytes().size(), o);
}

namespace {

// Writes bytes [begin, end) of a section already sized for them (a unit
// whose layout is known): no growth checks per byte. Its relocations go to
// `relocations` (the section itself, or one part's list when parts of a
// unit are written at once). A write that would pass the end is dropped and
// remembered (the layout was wrong; emitUnit reports it).
class PlacedWriter {
 public:
  PlacedWriter(uint8_t* section, uint64_t begin, uint64_t end, SectionImage& relocations)
      : img_(relocations), base_(section), p_(section + begin), end_(section + end) {}
  uint64_t offset() const { return static_cast<uint64_t>(p_ - base_); }
  bool overflowed() const { return overflow_; }
  void fail() { overflow_ = true; }
  void u8(uint64_t v) {
    if (room(1)) *p_++ = static_cast<uint8_t>(v);
  }
  void fixed(uint64_t v, unsigned size) {
    if (!room(size)) return;
    for (unsigned i = 0; i < size; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  void uleb(uint64_t v) {
    encodeUleb(v, [this](uint8_t b) { u8(b); });
  }
  void sleb(int64_t v) {
    encodeSleb(v, [this](uint8_t b) { u8(b); });
  }
  void bytes(std::span<const uint8_t> b) {
    if (!room(b.size())) return;
    if (!b.empty()) std::memcpy(p_, b.data(), b.size());
    p_ += b.size();
  }
  // `n` bytes to be written by the caller; null (and the writer failed) when they do not fit.
  uint8_t* claim(uint64_t n) {
    if (!room(n)) return nullptr;
    uint8_t* at = p_;
    p_ += n;
    return at;
  }
  void string(std::string_view s) {
    bytes({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
    u8(0);
  }
  // Overwrites `size` bytes written already at absolute offset `at`.
  void patch(uint64_t at, uint64_t v, unsigned size) {
    if (at + size > static_cast<uint64_t>(p_ - base_)) {
      overflow_ = true;
      return;
    }
    for (unsigned i = 0; i < size; ++i) base_[at + i] = static_cast<uint8_t>(v >> (8 * i));
  }
  void symbol(const SymbolRef& s, unsigned size) { symbol(s.name, s.addend, size); }
  void symbol(std::string_view name, int64_t addend, unsigned size) {
    if (name.empty()) return fixed(static_cast<uint64_t>(addend), size);
    img_.addRelocation(offset(), static_cast<uint8_t>(size), name, {}, addend);
    fixed(0, size);
  }
  void expr(const AttributeView& a) {
    uint64_t base = offset();
    bytes(a.bytes());
    for (const StoredFixup& f : a.fixups()) img_.addRelocation(base + f.offset, f.size, a.fixupName(f), {}, f.addend);
  }

 private:
  bool room(size_t n) {
    if (static_cast<size_t>(end_ - p_) >= n) return true;
    overflow_ = true;
    return false;
  }
  SectionImage& img_;
  uint8_t* base_ = nullptr;
  uint8_t* p_ = nullptr;
  uint8_t* end_ = nullptr;
  bool overflow_ = false;
};

uint64_t blockSize(const AttributeView& v) {
  return v.kind() == Value::Kind::block || v.kind() == Value::Kind::expression ? v.bytes().size() : 0;
}

// The bytes `form` takes for this value. Strings and blocks need the value;
// every other form has a fixed size or, for LEB128 forms, one from `number`.
uint64_t valueSize(uint16_t form, const AttributeView& v, const UnitOptions& o, uint64_t refOffset) {
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
    case DW_FORM_sdata: return slebSize(static_cast<int64_t>(v.u()));
    case DW_FORM_udata: return ulebSize(v.u());
    case DW_FORM_ref_udata: return ulebSize(refOffset);
    case DW_FORM_flag_present: return 0;
    case DW_FORM_string: return v.str().size() + 1;
    case DW_FORM_block1: return 1 + v.bytes().size();
    case DW_FORM_block2: return 2 + v.bytes().size();
    case DW_FORM_block4: return 4 + v.bytes().size();
    case DW_FORM_block:
    case DW_FORM_exprloc: return ulebSize(v.bytes().size()) + v.bytes().size();
    default: return 0;
  }
}

// A form that can carry the value kind at all (pinned forms are checked).
bool formFits(uint16_t form, const AttributeView& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::unsigned_:
    case K::signed_: {
      const bool isSigned = v.kind() == K::signed_;
      const uint64_t u = v.u();
      const int64_t s = v.s();
      switch (form) {
        case DW_FORM_data1: return isSigned ? (s >= -128 && s <= 255) : u <= 0xff;
        case DW_FORM_data2: return isSigned ? (s >= -32768 && s <= 0xffff) : u <= 0xffff;
        case DW_FORM_data4: return isSigned ? (s >= INT32_MIN && s <= 0xffffffffLL) : u <= 0xffffffffu;
        case DW_FORM_data8:
        case DW_FORM_sdata:
        case DW_FORM_udata: return !(form == DW_FORM_udata && isSigned && s < 0);
        default: return false;
      }
    }
    case K::flag: return form == DW_FORM_flag || (form == DW_FORM_flag_present && v.u());
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

// Calls f(offset in `bytes`, target) for each DW_FORM_ref4 of one encoded
// DIE of these specs. (Unit::addEncoded checked the bytes against them.)
template <class F>
void forEachReferenceIn(std::span<const AttributeSpec> specs, std::span<const uint8_t> bytes, F&& f) {
  size_t at = 0;
  for (const AttributeSpec& a : specs) {
    if (a.form == DW_FORM_ref4) {
      uint32_t target = 0;
      for (int i = 3; i >= 0; --i) target = target << 8 | bytes[at + static_cast<size_t>(i)];
      f(at, target);
    }
    at += encodedValueSize(a.form, bytes.subspan(at));
  }
}

void checkEncodedReferences(const Unit& u, DieId id, Diagnostics& diags) {
  const std::span<const AttributeSpec> specs = UnitStore::shapeSpecs(u, u.die(id).shape - 1);
  UnitStore::forEachEncodedDie(u, id, [&](std::span<const uint8_t> bytes) {
    forEachReferenceIn(specs, bytes, [&](size_t, DieId target) {
      if (target != u.root() && u.die(target).parent == kNoDie)
        diags.error({}, "a reference of encoded DIE " + std::to_string(id) + " refers to DIE " +
                            std::to_string(target) + ", which was never attached to the tree");
    });
  });
}

void orderAndIntern(UnitLayout& L, AbbrevInterner& abbrevs, const EncodeOptions& options, Diagnostics& diags) {
  const Unit& u = *L.unit;
  reserveUpTo(L.entries, 2 * u.size());
  reserveUpTo(L.forms, L.forms.size() + UnitStore::attributeRecords(u));
  std::vector<std::pair<uint16_t, uint16_t>> specs;
  // An encoded DIE's code, by (shape, children, sibling): interned once.
  std::vector<uint32_t> shapeCodes;  // 0: not yet
  auto visit = [&](DieId id) {
    const Die& d = u.die(id);
    Entry e;
    e.die = id;
    bool children = d.hasChildren() || d.forceChildren;
    e.sibling = options.siblings && children && id != u.root() ? 1 : 0;
    if (d.isEncoded()) {
      if (d.count == 0) return false;  // an empty run: nothing to write
      if (UnitStore::hasDetachedDies(u)) checkEncodedReferences(u, id, diags);  // else every DIE is in the tree
      const size_t key = size_t{d.shape - 1} << 2 | (children ? 2u : 0u) | (e.sibling ? 1u : 0u);
      if (key >= shapeCodes.size()) shapeCodes.resize(key + 1, 0);
      if (shapeCodes[key] == 0) {
        specs.clear();
        if (e.sibling) specs.emplace_back(DW_AT_sibling, DW_FORM_ref4);
        for (const AttributeSpec& a : UnitStore::shapeSpecs(u, d.shape - 1)) specs.emplace_back(a.name, a.form);
        shapeCodes[key] = abbrevs.intern(d.tag, children, specs);
      }
      e.code = shapeCodes[key];
      L.entries.push_back(e);
      return children;
    }
    specs.clear();
    if (e.sibling) specs.emplace_back(DW_AT_sibling, DW_FORM_ref4);
    for (const AttributeView a : u.attributes(id)) {
      uint16_t form = chooseForm(a.name(), a.kind(), a.form(), a.u(), blockSize(a), u.options());
      if (a.form() != 0 && !formFits(form, a)) {  // the policy only chooses forms that fit
        diags.error({}, attrLabel(a.name()) + " of DIE " + std::to_string(id) + " (" + std::string(tagName(d.tag)) +
                            "): its value does not fit " + formLabel(form));
      }
      if (a.kind() == Value::Kind::reference) {
        DieId target = a.ref();
        if (target == kNoDie)
          diags.error({}, attrLabel(a.name()) + " of DIE " + std::to_string(id) + " refers to no DIE");
        else if (target != u.root() && u.die(target).parent == kNoDie)
          diags.error({}, attrLabel(a.name()) + " of DIE " + std::to_string(id) + " refers to DIE " +
                              std::to_string(target) + ", which was never attached to the tree");
      }
      if (form == DW_FORM_ref_udata) L.offsetDependentSizes = true;
      specs.emplace_back(a.name(), form);
      L.forms.push_back(form);
    }
    e.code = abbrevs.intern(d.tag, children, specs);
    L.entries.push_back(e);
    return children;
  };
  // Pre-order with an explicit stack of the next child to visit at each level.
  std::vector<DieId> stack;  // per open DIE: its next child (kNoDie: all visited)
  if (visit(u.root())) stack.push_back(u.die(u.root()).firstChild);
  while (!stack.empty()) {
    DieId child = stack.back();
    if (child == kNoDie) {
      L.entries.push_back(Entry{});  // NULL closes the children list
      stack.pop_back();
      continue;
    }
    const Die& c = u.die(child);
    stack.back() = c.nextSibling;
    if (visit(child)) stack.push_back(c.firstChild);
  }
}

// The most relocations emitValue makes for an attribute value (encoded
// DIEs make none: their shapes hold no symbols).
uint32_t relocationsOf(const AttributeView& v) {
  switch (v.kind()) {
    case Value::Kind::address:
    case Value::Kind::sectionOffset:
    case Value::Kind::locationList: return 1;
    case Value::Kind::expression:
    case Value::Kind::block: return static_cast<uint32_t>(v.fixups().size());
    default: return 0;
  }
}

// Assigns every offset. ref_udata sizes depend on offsets, so with one of
// those it repeats until stable; without, one pass is exact.
void layout(UnitLayout& L, uint64_t unitOffset) {
  const Unit& u = *L.unit;
  L.offset = unitOffset;
  L.dieOffset.assign(u.size(), 0);
  if (L.siblings) L.nextSibling.assign(u.size(), 0);
  std::vector<DieId> open;
  // Where a part may start: a DIE entry every kMarkBytes or so of the unit.
  constexpr uint64_t kMarkBytes = uint64_t{64} << 10;
  struct Mark {
    PartStart start;
    uint64_t offset;
  };
  std::vector<Mark> marks;
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    uint64_t at = unitOffset + 11;
    uint32_t form = 0;  // the next DIE's first form in L.forms
    open.clear();
    marks.clear();
    uint64_t nextMark = at + kMarkBytes;
    uint32_t relocations = 1;  // the header's .debug_abbrev
    for (size_t i = 0; i < L.entries.size(); ++i) {
      const Entry& e = L.entries[i];
      if (e.die != kNoDie && at >= nextMark) {
        marks.push_back({{i, form, relocations}, at});
        nextMark = at + kMarkBytes;
      }
      if (e.die == kNoDie) {
        at += 1;
        if (!open.empty()) {
          if (L.siblings) L.nextSibling[open.back()] = static_cast<uint32_t>(at);
          open.pop_back();
        }
        continue;
      }
      if (L.dieOffset[e.die] != static_cast<uint32_t>(at)) changed = true;
      L.dieOffset[e.die] = static_cast<uint32_t>(at);
      const Die& d = u.die(e.die);
      at += ulebSize(e.code);
      if (e.sibling) at += 4;
      if (d.isEncoded()) {
        at += UnitStore::encodedRecordBytes(u, e.die) + (d.count - 1) * ulebSize(e.code);  // a run's DIEs after the first
        if (d.hasChildren() || d.forceChildren) open.push_back(e.die);
        else if (L.siblings) L.nextSibling[e.die] = static_cast<uint32_t>(at);
        continue;
      }
      for (const AttributeView v : u.attributes(e.die)) {
        uint64_t ref = L.offsetDependentSizes && v.kind() == Value::Kind::reference && v.ref() != kNoDie
                           ? L.dieOffset[v.ref()] - unitOffset
                           : 0;
        at += valueSize(L.forms[form++], v, u.options(), ref);
        relocations += relocationsOf(v);
      }
      if (d.hasChildren() || d.forceChildren) open.push_back(e.die);
      else if (L.siblings) L.nextSibling[e.die] = static_cast<uint32_t>(at);
    }
    L.size = at - unitOffset;
    L.relocations = relocations;
    if (!L.offsetDependentSizes || (!changed && pass > 0)) break;
  }
  // Parts about equal in bytes, for emitUnit.
  L.parts.assign(1, PartStart{});
  for (unsigned k = 1; k < L.threads; ++k) {
    const uint64_t target = unitOffset + L.size * k / L.threads;
    auto it = std::lower_bound(marks.begin(), marks.end(), target,
                               [](const Mark& m, uint64_t offset) { return m.offset < offset; });
    if (it != marks.end() && it->start.entry > L.parts.back().entry) L.parts.push_back(it->start);
  }
}

void emitValue(PlacedWriter& w, uint16_t form, const AttributeView& v, const UnitLayout& L,
               const std::vector<uint64_t>& listOffsets) {
  const UnitOptions& o = L.unit->options();
  using K = Value::Kind;
  uint64_t number = v.u();
  if (v.kind() == K::reference) {
    uint64_t abs = L.dieOffset[v.ref()];
    number = form == DW_FORM_ref_addr ? abs : abs - L.offset;
  }
  switch (form) {
    case DW_FORM_addr:
    case DW_FORM_sec_offset:
    case DW_FORM_strp:
    case DW_FORM_data4:
    case DW_FORM_data8: {
      unsigned size = form == DW_FORM_addr ? o.addressSize : form == DW_FORM_data8 ? 8 : 4;
      if (v.kind() == K::address || v.kind() == K::sectionOffset) return w.symbol(v.symbol(), v.addend(), size);
      if (v.kind() == K::locationList)
        return w.symbol({".debug_loc", static_cast<int64_t>(listOffsets[v.list()])}, size);
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
    case DW_FORM_string: return w.string(v.str());
    case DW_FORM_block1: w.fixed(v.bytes().size(), 1); return w.expr(v);
    case DW_FORM_block2: w.fixed(v.bytes().size(), 2); return w.expr(v);
    case DW_FORM_block4: w.fixed(v.bytes().size(), 4); return w.expr(v);
    case DW_FORM_block:
    case DW_FORM_exprloc: w.uleb(v.bytes().size()); return w.expr(v);
    default: return;
  }
}

// An encoded record's DIEs, each one's references (DieIds) turned into
// unit offsets; the caller wrote the first one's code, the others' go here.
void emitEncoded(PlacedWriter& w, const Entry& e, const UnitLayout& L) {
  const Unit& u = *L.unit;
  const uint32_t shape = u.die(e.die).shape - 1;
  const ReferencePlan plan = UnitStore::referencePlan(u, shape);
  const std::span<const AttributeSpec> specs = UnitStore::shapeSpecs(u, shape);
  if (u.die(e.die).registerRun) {
    // Its DIEs hold the same references: turned into offsets once, in a copy
    // of the first DIE the others are made from.
    const std::span<const uint8_t> encoded = u.encodedBytes(e.die);
    std::vector<uint8_t> first(encoded.begin(), encoded.end());
    forEachReferenceIn(specs, first, [&](size_t at, DieId target) {
      const uint32_t offset = static_cast<uint32_t>(L.dieOffset[target] - L.offset);
      for (int i = 0; i < 4; ++i) first[at + static_cast<size_t>(i)] = static_cast<uint8_t>(offset >> (8 * i));
    });
    const uint64_t size = UnitStore::encodedRecordBytes(u, e.die) + (u.die(e.die).count - 1) * uint64_t{ulebSize(e.code)};
    if (uint8_t* out = w.claim(size)) {
      if (UnitStore::writeRegisterRun(u, e.die, first, e.code, out, size) != size) w.fail();  // emitUnit reports it
    }
    return;
  }
  bool first = true;
  UnitStore::forEachEncodedDie(u, e.die, [&](std::span<const uint8_t> bytes) {
    if (!first) w.uleb(e.code);
    first = false;
    const uint64_t begin = w.offset();
    w.bytes(bytes);
    auto patch = [&](size_t at, DieId target) { w.patch(begin + at, L.dieOffset[target] - L.offset, 4); };
    size_t at = plan.offset;
    switch (plan.kind) {
      case ReferencePlan::none: return;
      case ReferencePlan::afterString:
        at += encodedValueSize(DW_FORM_string, bytes);
        [[fallthrough]];
      case ReferencePlan::fixed: {
        if (at + 4 > bytes.size()) return w.fail();  // malformed: emitUnit reports it
        uint32_t target = 0;
        for (int i = 3; i >= 0; --i) target = target << 8 | bytes[at + static_cast<size_t>(i)];
        return patch(at, target);
      }
      case ReferencePlan::walk: return forEachReferenceIn(specs, bytes, patch);
    }
  });
}

// Entries [parts[k], parts[k+1]) of a laid-out unit into its bytes; part 0
// writes the unit header first.
void emitPart(uint8_t* section, const UnitLayout& L, size_t k, const std::vector<uint64_t>& listOffsets,
              SectionImage& relocations, Diagnostics& diags) {
  const Unit& u = *L.unit;
  const size_t first = L.parts[k].entry;
  const size_t last = k + 1 < L.parts.size() ? L.parts[k + 1].entry : L.entries.size();
  const uint64_t begin = k == 0 ? L.offset : L.dieOffset[L.entries[first].die];
  const uint64_t end = k + 1 < L.parts.size() ? L.dieOffset[L.entries[last].die] : L.offset + L.size;
  PlacedWriter w(section, begin, end, relocations);
  uint32_t form = L.parts[k].form;  // the next DIE's first form in L.forms
  if (k == 0) {
    w.fixed(L.size - 4, 4);
    w.fixed(u.options().version, 2);
    w.symbol({".debug_abbrev", 0}, 4);
    w.u8(u.options().addressSize);
  }
  for (size_t i = first; i < last; ++i) {
    const Entry& e = L.entries[i];
    if (e.die == kNoDie) {
      w.u8(0);
      continue;
    }
    if (w.offset() != L.dieOffset[e.die]) {
      diags.error({}, "internal error: DIE " + std::to_string(e.die) + " emitted at " + std::to_string(w.offset()) +
                          ", laid out at " + std::to_string(L.dieOffset[e.die]));
      return;
    }
    w.uleb(e.code);
    if (e.sibling) w.fixed(L.nextSibling[e.die] - L.offset, 4);
    if (u.die(e.die).isEncoded()) {
      emitEncoded(w, e, L);
      continue;
    }
    for (const AttributeView v : u.attributes(e.die)) emitValue(w, L.forms[form++], v, L, listOffsets);
  }
  if (w.overflowed() || w.offset() != end)
    diags.error({}, "internal error: unit ends at " + std::to_string(w.overflowed() ? UINT64_MAX : w.offset()) +
                        ", laid out to end at " + std::to_string(end));
}

// A large unit is written in parts at once, each part's relocations (and
// diagnostics) kept apart and joined in order after.
void emitUnit(SectionImage& info, const UnitLayout& L, const std::vector<uint64_t>& listOffsets, Diagnostics& diags) {
  if (info.bytes.size() != L.offset) {
    diags.error({}, "internal error: unit laid out at " + std::to_string(L.offset) + ", emitted at " +
                        std::to_string(info.bytes.size()));
    return;
  }
  info.bytes.resize(L.offset + L.size);
  const size_t parts = L.parts.size();
  if (parts == 1) return emitPart(info.bytes.data(), L, 0, listOffsets, info, diags);
  std::vector<SectionImage> relocations(parts);
  std::vector<Diagnostics> found(parts);
  runTasks(parts, static_cast<unsigned>(parts), [&](size_t k) {
    const uint32_t end = k + 1 < parts ? L.parts[k + 1].relocations : L.relocations;
    relocations[k].relocations.reserve(end - L.parts[k].relocations);
    emitPart(info.bytes.data(), L, k, listOffsets, relocations[k], found[k]);
  });
  for (size_t k = 0; k < parts; ++k) {
    info.relocations.insert(info.relocations.end(), relocations[k].relocations.begin(),
                            relocations[k].relocations.end());
    info.names.adopt(std::move(relocations[k].names));
    for (Diagnostic& d : found[k].items) diags.items.push_back(std::move(d));
  }
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
    layouts[i].siblings = options.siblings;
    if (units[i]->dieCount() >= kLargeUnit) layouts[i].threads = threadCount(options.threads);
    orderAndIntern(layouts[i], interner, options, diags);
    layout(layouts[i], offset);
    offset += layouts[i].size;
  }
  if (offset > UINT32_MAX)
    diags.error({}, ".debug_info would be " + std::to_string(offset) + " bytes: DWARF 32 ends at 4 GiB");
  if (diags.hasErrors()) return {};
  size_t relocations = 0;
  for (const UnitLayout& L : layouts) relocations += L.relocations;
  info.relocations.reserve(relocations);
  for (const UnitLayout& L : layouts) {
    std::vector<uint64_t> lists = emitLocationLists(loc, *L.unit);
    emitUnit(info, L, lists, diags);
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
