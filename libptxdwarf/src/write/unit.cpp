#include "ptxdwarf/write/unit.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../reserve.h"
#include "unit_store.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/leb128.h"
#include "../work.h"
#include "ptxdwarf/write/encode.h"

namespace ptxdwarf::write {

using namespace dw;

namespace {

// Whether every value of an encodable form has one size (string, block1 and
// the LEB128 forms tell theirs in their bytes).
bool hasFixedSize(uint16_t form) {
  return form != DW_FORM_string && form != DW_FORM_block1 && form != DW_FORM_udata && form != DW_FORM_sdata;
}

}  // namespace

// ---- Unit -------------------------------------------------------------------

Unit::Unit(const Unit&) = default;
Unit::Unit(Unit&&) noexcept = default;
Unit& Unit::operator=(const Unit&) = default;
Unit& Unit::operator=(Unit&&) noexcept = default;
Unit::~Unit() = default;

Unit::Unit(uint16_t rootTag, UnitOptions options) : options_(options) {
  static_assert(offsetof(Record, lo) == 0 && offsetof(Record, hi) == 4,
                "AttributeView reads inline bytes from the record's first eight bytes");
  if (options.version < 2 || options.version > 4)
    throw BuildError("DWARF version " + std::to_string(options.version) + " is not supported (2, 3 or 4)");
  if (options.addressSize != 4 && options.addressSize != 8)
    throw BuildError("address size must be 4 or 8, not " + std::to_string(options.addressSize));
  dies_.push_back(Die{.tag = rootTag});
  dieCount_ = 1;
}

void Unit::badId(DieId id) const {
  throw BuildError("DIE id " + std::to_string(id) + " does not belong to this unit (it has " +
                   std::to_string(dies_.size()) + " DIEs)");
}

void Unit::reserve(size_t dies, size_t attributes) {
  reserveUpTo(dies_, dies);
  reserveUpTo(records_, attributes);
}

DieId Unit::add(DieId parent, uint16_t tag) {
  if (parent != kDetached) {
    check(parent);
    checkTakesChildren(parent);  // before the DIE exists: a refusal leaves nothing behind
  }
  if (tag == 0) throw BuildError("tag 0 is reserved for NULL entries");
  DieId id = static_cast<DieId>(dies_.size());
  dies_.push_back(Die{.tag = tag});
  ++dieCount_;
  ++detached_;  // every DIE but the root starts outside the tree
  if (parent != kDetached) attach(parent, id);
  return id;
}

void Unit::attach(DieId parent, DieId child) {
  check(parent);
  check(child);
  checkTakesChildren(parent);
  if (child == root()) throw BuildError("the unit DIE cannot be a child");
  if (dies_[child].parent != kNoDie)
    throw BuildError("DIE " + std::to_string(child) + " is already in the tree");
  // Only a subtree can hold `parent`: a childless DIE (every DIE as it is
  // created) needs no walk up the ancestors, which made building a deep
  // tree one DIE at a time quadratic.
  work::step(work::attachWalk);
  if (parent == child) throw BuildError("attaching DIE " + std::to_string(child) + " under itself");
  if (dies_[child].hasChildren()) {
    for (DieId p = parent; p != kNoDie; p = dies_[p].parent) {
      work::step(work::attachWalk);
      if (p == child) throw BuildError("attaching DIE " + std::to_string(child) + " under itself");
    }
  }
  Die& p = dies_[parent];
  dies_[child].parent = parent;
  --detached_;
  if (p.lastChild == kNoDie)
    p.firstChild = child;
  else
    dies_[p.lastChild].nextSibling = child;
  p.lastChild = child;
}

void Unit::forceChildren(DieId id, bool force) {
  check(id);
  dies_[id].forceChildren = force;
}

void Unit::checkName(DieId id, uint16_t name) const {
  check(id);
  if (name == 0) throw BuildError("attribute 0 is reserved");
  if (dies_[id].isEncoded())
    throw BuildError("DIE " + std::to_string(id) + " was added encoded: its attributes cannot be set");
}

uint32_t Unit::shape(uint16_t tag, std::span<const AttributeSpec> specs) {
  if (tag == 0) throw BuildError("tag 0 is reserved for NULL entries");
  for (const AttributeSpec& a : specs) {
    if (a.name == 0) throw BuildError("attribute 0 is reserved");
    static constexpr uint8_t kProbe[16] = {};  // a value of every allowed form fits (string, block1: empty)
    if (encodedValueSize(a.form, kProbe) == 0)
      throw BuildError(std::string(attributeName(a.name)) + " in an encoded DIE: form " + std::to_string(a.form) +
                       " is not one of data1/2/4/8, udata, sdata, flag, string, block1, ref4");
  }
  for (size_t i = 0; i < shapes_.size(); ++i)
    if (shapes_[i].tag == tag && std::equal(specs.begin(), specs.end(), shapes_[i].specs.begin(), shapes_[i].specs.end()))
      return static_cast<uint32_t>(i);
  shapes_.push_back(
      {tag, std::vector<AttributeSpec>(specs.begin(), specs.end()), UnitStore::referencePlanOf(specs),
       UnitStore::sizeStepsOf(specs)});
  return static_cast<uint32_t>(shapes_.size() - 1);
}

void Unit::checkTakesChildren(DieId parent) const {
  if (dies_[parent].run) throw BuildError("DIE " + std::to_string(parent) + " is a run: it takes no children");
}

ReferencePlan UnitStore::referencePlanOf(std::span<const AttributeSpec> specs) {
  const auto refs = std::count_if(specs.begin(), specs.end(), [](const AttributeSpec& a) { return a.form == DW_FORM_ref4; });
  if (refs == 0) return {ReferencePlan::none, 0};
  if (refs > 1) return {ReferencePlan::walk, 0};
  static constexpr uint8_t kProbe[16] = {};
  ReferencePlan plan{ReferencePlan::fixed, 0};
  for (size_t i = 0; i < specs.size() && specs[i].form != DW_FORM_ref4; ++i) {
    const uint16_t form = specs[i].form;
    if (i == 0 && form == DW_FORM_string) {
      plan.kind = ReferencePlan::afterString;  // its length varies; what follows it does not
      continue;
    }
    if (!hasFixedSize(form)) return {ReferencePlan::walk, 0};
    plan.offset += static_cast<uint32_t>(encodedValueSize(form, kProbe));
  }
  return plan;
}

DieId Unit::addEncoded(DieId parent, uint32_t shape, std::span<const uint8_t> bytes) {
  checkEncoded(shape, bytes);
  return addEncodedUnchecked(parent, shape, bytes);
}

void Unit::checkEncoded(uint32_t shape, std::span<const uint8_t> bytes) const {
  if (shape >= shapes_.size()) throw BuildError("shape " + std::to_string(shape) + " does not exist");
  size_t at = 0;
  for (const AttributeSpec& a : shapes_[shape].specs) {
    size_t n = encodedValueSize(a.form, bytes.subspan(at));
    if (n == 0)
      throw BuildError("encoded DIE: the bytes end before the value of " + std::string(attributeName(a.name)));
    if (a.form == DW_FORM_ref4) {
      uint32_t target = 0;
      for (int i = 3; i >= 0; --i) target = target << 8 | bytes[at + static_cast<size_t>(i)];
      check(target);
    }
    at += n;
  }
  if (at != bytes.size())
    throw BuildError("encoded DIE: " + std::to_string(bytes.size() - at) + " bytes after the last value");
}

DieId Unit::addEncodedUnchecked(DieId parent, uint32_t shape, std::span<const uint8_t> bytes) {
  if (encoded_.size() + bytes.size() > UINT32_MAX) throw BuildError("encoded DIEs exceed 4 GiB");
  DieId id = add(parent, shapes_[shape].tag);
  Die& d = dies_[id];
  d.shape = shape + 1;
  d.firstAttribute = static_cast<uint32_t>(encoded_.size());
  d.attributeCount = static_cast<uint32_t>(bytes.size());
  encoded_.insert(encoded_.end(), bytes.begin(), bytes.end());
  return id;
}

DieId Unit::addEncodedRun(DieId parent, uint32_t shape) {
  if (shape >= shapes_.size()) throw BuildError("shape " + std::to_string(shape) + " does not exist");
  DieId id = addEncodedUnchecked(parent, shape, {});
  dies_[id].count = 0;
  dies_[id].run = true;
  --dieCount_;
  return id;
}

void Unit::appendToRun(DieId run, std::span<const uint8_t> bytes) {
  check(run);
  if (!dies_[run].run) throw BuildError("DIE " + std::to_string(run) + " is not a run");
  checkEncoded(dies_[run].shape - 1, bytes);
  Die& d = dies_[run];
  if (d.firstAttribute + d.attributeCount != encoded_.size())
    throw BuildError("DIE " + std::to_string(run) + " is not the last DIE added encoded: its run is closed");
  if (encoded_.size() + bytes.size() > UINT32_MAX) throw BuildError("encoded DIEs exceed 4 GiB");
  encoded_.insert(encoded_.end(), bytes.begin(), bytes.end());
  d.attributeCount += static_cast<uint32_t>(bytes.size());
  ++d.count;
  ++dieCount_;
}

DieId Unit::addRegisterRun(DieId parent, uint32_t shape, std::span<const uint8_t> first, uint32_t stemSize,
                           uint64_t stem, uint32_t count) {
  checkEncoded(shape, first);
  if (first.size() > 64) throw BuildError("register run: a DIE of over 64 bytes");  // makeRegisterRun's room
  const std::span<const AttributeSpec> specs = shapes_[shape].specs;
  // The name: the stem, then "0".
  if (specs.empty() || specs[0].form != DW_FORM_string || first.size() < size_t{stemSize} + 2 ||
      first[stemSize] != '0' || first[stemSize + 1] != 0 ||
      cuda::packRegister({reinterpret_cast<const char*>(first.data()), stemSize}) != stem)
    throw BuildError("register run: the first DIE's name must be the stem and 0");
  RegisterRun r;
  r.stemSize = stemSize;
  r.stem = stem;
  size_t at = 0;
  bool located = false;
  for (const AttributeSpec& a : specs) {
    if (a.name == DW_AT_location && a.form == DW_FORM_block1) {
      r.locationAt = static_cast<uint32_t>(at);
      located = true;
      break;
    }
    at += encodedValueSize(a.form, first.subspan(at));
  }
  // The location: DW_OP_regx of the first name packed, nothing after it.
  const size_t blockSize = located ? first[at] : 0;
  const uint64_t packed = stem << 8 | '0';
  auto regxOperand = [&] {
    ByteReader operand(first.subspan(at + 2, blockSize - 1));
    const uint64_t v = operand.uleb();
    return operand.ok() && operand.atEnd() ? v : ~packed;
  };
  if (!located || blockSize != 1 + ulebSize(packed) || first[at + 1] != DW_OP_regx || regxOperand() != packed)
    throw BuildError("register run: the first DIE's location must be DW_OP_regx of its packed name");
  // Names of up to 8 bytes: the digits of count - 1 after the stem.
  uint32_t digits = 1;
  for (uint64_t p = 10; p < count; p *= 10) ++digits;
  if (count > 0 && stemSize + digits > 8) throw BuildError("register run: names past 8 bytes cannot be packed");
  // The bytes of all its DIEs, by the number of digits of k: a name is a
  // byte longer, and its packed name a byte wider, for each digit past one.
  for (uint64_t low = 0, high = 10, d = 1; low < count; low = high, high *= 10, ++d)
    r.bytes += (std::min<uint64_t>(high, count) - low) *
               (first.size() + (d - 1) + ulebSize(packed << (8 * (d - 1))) - ulebSize(packed));
  const DieId id = addEncodedUnchecked(parent, shape, first);
  Die& die = dies_[id];
  die.run = true;
  die.registerRun = true;
  die.count = count;
  dieCount_ += count;
  --dieCount_;  // addEncodedUnchecked counted one
  r.die = id;
  registerRuns_.push_back(r);
  return id;
}

const Unit::RegisterRun& UnitStore::registerRunOf(const Unit& u, DieId id) {
  auto it = std::lower_bound(u.registerRuns_.begin(), u.registerRuns_.end(), id,
                             [](const Unit::RegisterRun& r, DieId d) { return r.die < d; });
  if (it == u.registerRuns_.end() || it->die != id)
    throw BuildError("DIE " + std::to_string(id) + " is not a register run");
  return *it;
}

size_t UnitStore::writeRegisterRun(const Unit& u, DieId id, std::span<const uint8_t> first, uint32_t code,
                                    uint8_t* out, size_t room) {
  uint8_t* p = out;
  uint8_t* const end = out + room;
  bool firstDie = true, fits = true;
  makeRegisterRun(registerRunOf(u, id), u.die(id).count, first, [&](std::span<const uint8_t> bytes) {
    if (!fits || static_cast<size_t>(end - p) < bytes.size() + (firstDie ? 0 : ulebSize(code))) {
      fits = false;
      return;
    }
    if (!firstDie) encodeUleb(code, [&](uint8_t b) { *p++ = b; });
    firstDie = false;
    // A block of fixed size where the run's room allows (its bytes past the
    // DIE are written over by the next), else exactly the DIE.
    constexpr size_t kBlock = 80;
    static_assert(kBlock >= 64 + 16, "a register run's DIE: under 64 bytes, and its name and ULEB grown");
    std::memcpy(p, bytes.data(), static_cast<size_t>(end - p) >= kBlock ? kBlock : bytes.size());
    p += bytes.size();
  });
  return fits ? static_cast<size_t>(p - out) : SIZE_MAX;
}

uint64_t UnitStore::encodedRecordBytes(const Unit& u, DieId id) {
  const Die& d = u.die(id);
  return d.registerRun ? registerRunOf(u, id).bytes : u.encodedBytes(id).size();
}

std::vector<SizeStep> UnitStore::sizeStepsOf(std::span<const AttributeSpec> specs) {
  std::vector<SizeStep> steps(1);
  for (const AttributeSpec& a : specs) {
    static constexpr uint8_t kProbe[16] = {};  // a fixed form's size
    if (hasFixedSize(a.form)) {
      steps.back().fixed += static_cast<uint32_t>(encodedValueSize(a.form, kProbe));
      continue;
    }
    steps.back().variableForm = a.form;
    steps.emplace_back();
  }
  return steps;
}

size_t UnitStore::encodedDieSize(const Unit& u, uint32_t shape, std::span<const uint8_t> bytes) {
  size_t at = 0;
  for (const SizeStep& step : u.shapes_[shape].sizeSteps) {
    at += step.fixed;
    if (at > bytes.size()) return 0;
    if (step.variableForm == 0) continue;
    const size_t n = encodedValueSize(step.variableForm, bytes.subspan(at));
    if (n == 0) return 0;
    at += n;
  }
  return at;
}

std::vector<Unit::EncodedValue> Unit::encodedValues(DieId id) const {
  std::vector<EncodedValue> values;
  const Die& d = die(id);
  if (!d.isEncoded()) return values;
  std::span<const uint8_t> bytes = encodedBytes(id);
  size_t at = 0;
  for (uint32_t k = 0; k < (d.registerRun ? 1 : d.count); ++k) {
    for (const AttributeSpec& a : shapes_[d.shape - 1].specs) {
      size_t n = encodedValueSize(a.form, bytes.subspan(at));
      values.push_back({a.name, a.form, bytes.subspan(at, n)});
      at += n;
    }
  }
  return values;
}

void UnitStore::reserveEncoded(Unit& u, size_t bytes) { reserveUpTo(u.encoded_, bytes); }

uint32_t Unit::keepString(std::string_view s) {
  uint32_t begin = static_cast<uint32_t>(strings_.size());
  strings_.append(s);
  return begin;
}

namespace {
void packInline(uint32_t& lo, uint32_t& hi, std::span<const uint8_t> bytes) {
  uint8_t buf[8] = {};
  std::copy(bytes.begin(), bytes.end(), buf);
  std::memcpy(&lo, buf, 4);
  std::memcpy(&hi, buf + 4, 4);
}
std::span<const uint8_t> asBytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }
}  // namespace

Unit::Record Unit::bytesRecord(Value::Kind kind, std::span<const uint8_t> bytes, uint16_t form) {
  Record r;
  r.kind = kind;
  r.form = form;
  if (bytes.size() <= 8) {
    r.inlineSize = static_cast<uint8_t>(bytes.size());
    packInline(r.lo, r.hi, bytes);
    return r;
  }
  r.inlineSize = Record::kOutside;
  if (kind == Value::Kind::string) {
    r.lo = keepString({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
    r.hi = static_cast<uint32_t>(bytes.size());
    return r;
  }
  r.lo = static_cast<uint32_t>(blobs_.size());
  blobs_.push_back({static_cast<uint32_t>(bytes_.size()), static_cast<uint32_t>(bytes.size()),
                    static_cast<uint32_t>(fixups_.size()), 0});
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return r;
}

Unit::Record Unit::expressionRecord(Value::Kind kind, const Expr& expr, uint16_t form) {
  if (expr.fixups().empty()) return bytesRecord(kind, expr.bytes(), form);
  Record r;
  r.kind = kind;
  r.form = form;
  r.inlineSize = Record::kOutside;
  r.lo = static_cast<uint32_t>(blobs_.size());
  blobs_.push_back({static_cast<uint32_t>(bytes_.size()), static_cast<uint32_t>(expr.bytes().size()),
                    static_cast<uint32_t>(fixups_.size()), static_cast<uint32_t>(expr.fixups().size())});
  bytes_.insert(bytes_.end(), expr.bytes().begin(), expr.bytes().end());
  for (const Expr::Fixup& f : expr.fixups())
    fixups_.push_back(
        {f.offset, f.size, keepString(f.symbol.name), static_cast<uint32_t>(f.symbol.name.size()), f.symbol.addend});
  return r;
}

Unit::Record Unit::recordOf(const Value& v) {
  using K = Value::Kind;
  Record r;
  r.kind = v.kind;
  r.form = v.form;
  auto number = [&](uint64_t n) {
    r.lo = static_cast<uint32_t>(n);
    r.hi = static_cast<uint32_t>(n >> 32);
  };
  switch (v.kind) {
    case K::unsigned_:
    case K::flag:
      number(v.u);
      break;
    case K::signed_:
      number(static_cast<uint64_t>(v.s));
      break;
    case K::reference:
      number(v.ref);
      break;
    case K::locationList:
      number(v.list);
      break;
    case K::string:
      if (v.str.find('\0') != std::string::npos) throw BuildError("DWARF strings cannot contain NUL bytes");
      return bytesRecord(K::string, asBytes(v.str), v.form);
    case K::address:
    case K::sectionOffset:
      r.lo = static_cast<uint32_t>(symbols_.size());
      symbols_.push_back({keepString(v.symbol.name), static_cast<uint32_t>(v.symbol.name.size()), v.symbol.addend});
      break;
    case K::block:
    case K::expression:
      return expressionRecord(v.kind, v.expr, v.form);
  }
  return r;
}

uint16_t Unit::formOf(const Record& r) const {
  size_t blockSize = 0;
  if (r.kind == Value::Kind::block || r.kind == Value::Kind::expression)
    blockSize = r.inlineSize == Record::kOutside ? blobs_[r.lo].size : r.inlineSize;
  uint64_t number = uint64_t{r.lo} | uint64_t{r.hi} << 32;
  return chooseForm(r.name, r.kind, r.form, number, blockSize, options_);
}

void Unit::put(DieId id, uint16_t name, Record r, bool append) {
  r.name = name;
  if (r.kind == Value::Kind::reference && r.lo != kNoDie) check(r.lo);
  if (r.kind == Value::Kind::locationList && r.lo >= lists_.size())
    throw BuildError("location list " + std::to_string(r.lo) + " does not exist");
  // The policy's own forms for the other kinds are all ones ptxas reads
  // (data, flag, string, ref4, addr, block): only a pinned form or a section
  // offset (sec_offset from DWARF 4 on) needs the check.
  const bool mayBeUnreadable =
      r.form != 0 || r.kind == Value::Kind::sectionOffset || r.kind == Value::Kind::locationList;
  if (!append && mayBeUnreadable) checkPtxasReads(id, r.name, r.kind, r.form != 0, formOf(r));
  Die& d = dies_[id];
  const uint32_t bit = 1u << (r.name % 32);
  if (!append && (d.nameBits & bit)) {
    for (uint32_t i = d.firstAttribute; i < d.firstAttribute + d.attributeCount; ++i) {
      if (records_[i].name == r.name) {
        records_[i] = r;  // what the old value kept outside the record stays, unreferenced
        return;
      }
    }
  }
  const uint32_t end = static_cast<uint32_t>(records_.size());
  if (d.attributeCount == 0) {
    d.firstAttribute = end;
  } else if (d.firstAttribute + d.attributeCount != end) {
    // Another DIE's attributes came after this one's: its run moves to the
    // end (its old records stay, unused). Producers set a DIE's attributes
    // together, so this is rare.
    const size_t need = records_.size() + d.attributeCount + 1;  // no reallocation while copying from itself
    if (need > records_.capacity()) records_.reserve(std::max(need, 2 * records_.capacity()));
    for (uint32_t k = 0; k < d.attributeCount; ++k) records_.push_back(records_[d.firstAttribute + k]);
    d.firstAttribute = end;
  }
  records_.push_back(r);
  ++d.attributeCount;
  d.nameBits |= bit;
}

void Unit::set(DieId id, uint16_t name, const Value& value) {
  checkName(id, name);
  put(id, name, recordOf(value), false);
}

void Unit::append(DieId id, uint16_t name, const Value& value) {
  checkName(id, name);
  put(id, name, recordOf(value), true);
}

void Unit::setUnsigned(DieId id, uint16_t name, uint64_t v, uint16_t form) {
  checkName(id, name);
  put(id, name, {.lo = static_cast<uint32_t>(v), .hi = static_cast<uint32_t>(v >> 32), .form = form}, false);
}

void Unit::setFlag(DieId id, uint16_t name, bool v, uint16_t form) {
  checkName(id, name);
  put(id, name, {.lo = v ? 1u : 0u, .form = form, .kind = Value::Kind::flag}, false);
}

void Unit::setString(DieId id, uint16_t name, std::string_view s, uint16_t form) {
  checkName(id, name);
  if (s.find('\0') != std::string_view::npos) throw BuildError("DWARF strings cannot contain NUL bytes");
  put(id, name, bytesRecord(Value::Kind::string, asBytes(s), form), false);
}

void Unit::setReference(DieId id, uint16_t name, DieId target, uint16_t form) {
  checkName(id, name);
  put(id, name, {.lo = target, .form = form, .kind = Value::Kind::reference}, false);
}

void Unit::setAddress(DieId id, uint16_t name, const SymbolRef& symbol, uint16_t form) {
  checkName(id, name);
  const Record r{.lo = static_cast<uint32_t>(symbols_.size()), .form = form, .kind = Value::Kind::address};
  symbols_.push_back({keepString(symbol.name), static_cast<uint32_t>(symbol.name.size()), symbol.addend});
  put(id, name, r, false);
}

void Unit::setExpression(DieId id, uint16_t name, const Expr& expr, uint16_t form) {
  checkName(id, name);
  put(id, name, expressionRecord(Value::Kind::expression, expr, form), false);
}

// A producer's attribute must be in a form ptxas reads: the output is for
// ptxas. (append() keeps what re-encoded input has; check reports that.)
void Unit::checkPtxasReads(DieId id, uint16_t name, Value::Kind kind, bool pinned, uint16_t form) const {
  std::string_view problem = cuda::ptxasFormProblem(form, options_.version);
  if (problem.empty()) return;
  std::string what = std::string(attributeName(name)) + " of DIE " + std::to_string(id) + " (" +
                     std::string(tagName(dies_[id].tag)) + ") in a DWARF " + std::to_string(options_.version) + " unit";
  if (!pinned && (kind == Value::Kind::sectionOffset || kind == Value::Kind::locationList))
    throw BuildError(what + " needs DW_FORM_sec_offset, and " + std::string(problem) +
                     "; build DWARF 2 or 3, where it is DW_FORM_data4");
  throw BuildError(what + ": " + std::string(formName(form)) + ": " + std::string(problem));
}

std::optional<AttributeView> Unit::find(DieId id, uint16_t name) const {
  const Die& d = die(id);
  if (d.isEncoded()) return std::nullopt;
  for (uint32_t i = d.firstAttribute; i < d.firstAttribute + d.attributeCount; ++i)
    if (records_[i].name == name) return AttributeView(this, i);
  return std::nullopt;
}

uint32_t Unit::addLocationList(std::vector<Location::ListEntry> entries) {
  lists_.push_back(std::move(entries));
  return static_cast<uint32_t>(lists_.size() - 1);
}

// ---- AttributeView ------------------------------------------------------------

uint16_t AttributeView::name() const { return unit_->records_[index_].name; }
Value::Kind AttributeView::kind() const { return unit_->records_[index_].kind; }
uint16_t AttributeView::form() const { return unit_->records_[index_].form; }
uint64_t AttributeView::u() const {
  const Unit::Record& r = unit_->records_[index_];
  return uint64_t{r.lo} | uint64_t{r.hi} << 32;
}
int64_t AttributeView::s() const { return static_cast<int64_t>(u()); }
DieId AttributeView::ref() const { return unit_->records_[index_].lo; }
uint32_t AttributeView::list() const { return unit_->records_[index_].lo; }
// Inline bytes are read as the record's object representation: lo then hi,
// from its first byte (the static_assert in Unit::Unit).
std::string_view AttributeView::str() const {
  const Unit::Record& r = unit_->records_[index_];
  if (r.inlineSize != Unit::Record::kOutside) return {reinterpret_cast<const char*>(&r), r.inlineSize};
  return unit_->stringAt(r.lo, r.hi);
}
std::span<const uint8_t> AttributeView::bytes() const {
  const Unit::Record& r = unit_->records_[index_];
  if (r.inlineSize != Unit::Record::kOutside) return {reinterpret_cast<const uint8_t*>(&r), r.inlineSize};
  const Unit::StoredBytes& b = unit_->blobs_[r.lo];
  return {unit_->bytes_.data() + b.begin, b.size};
}

std::string_view AttributeView::symbol() const {
  const Unit::StoredSymbol& s = unit_->symbols_[unit_->records_[index_].lo];
  return unit_->stringAt(s.nameBegin, s.nameSize);
}
int64_t AttributeView::addend() const { return unit_->symbols_[unit_->records_[index_].lo].addend; }

std::span<const StoredFixup> AttributeView::fixups() const {
  const Unit::Record& r = unit_->records_[index_];
  if (r.inlineSize != Unit::Record::kOutside) return {};
  const Unit::StoredBytes& b = unit_->blobs_[r.lo];
  return {unit_->fixups_.data() + b.fixupBegin, b.fixupCount};
}

std::string_view AttributeView::fixupName(const StoredFixup& f) const {
  return unit_->stringAt(f.nameBegin, f.nameSize);
}

Value AttributeView::value() const {
  using K = Value::Kind;
  Value v;
  v.kind = kind();
  v.form = form();
  switch (v.kind) {
    case K::unsigned_:
    case K::flag:
      v.u = u();
      break;
    case K::signed_:
      v.s = s();
      break;
    case K::reference:
      v.ref = ref();
      break;
    case K::locationList:
      v.list = list();
      break;
    case K::string:
      v.str = std::string(str());
      break;
    case K::address:
    case K::sectionOffset:
      v.symbol = {std::string(symbol()), addend()};
      break;
    case K::block:
    case K::expression: {
      Expr e(unit_->options().addressSize);
      std::span<const uint8_t> b = bytes();
      std::span<const StoredFixup> f = fixups();
      size_t at = 0;
      for (const StoredFixup& x : f) {
        for (; at < x.offset; ++at) e.u8(b[at]);
        e.symbolic({std::string(fixupName(x)), x.addend}, x.size);
        at += x.size;
      }
      for (; at < b.size(); ++at) e.u8(b[at]);
      v.expr = std::move(e);
      break;
    }
  }
  return v;
}

}  // namespace ptxdwarf::write
