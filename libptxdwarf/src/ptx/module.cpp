#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <span>

#include "ptxdwarf/leb128.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/work.h"
#include "../own_uleb.h"
#include "../reserve.h"

namespace ptxdwarf::ptx {

std::string_view stateSpaceName(StateSpace s) {
  switch (s) {
    case StateSpace::none: return "";
    case StateSpace::reg: return ".reg";
    case StateSpace::sreg: return ".sreg";
    case StateSpace::const_: return ".const";
    case StateSpace::global: return ".global";
    case StateSpace::local: return ".local";
    case StateSpace::param: return ".param";
    case StateSpace::shared: return ".shared";
    case StateSpace::tex: return ".tex";
    case StateSpace::surf: return ".surf";
    case StateSpace::sampler: return ".sampler";
    case StateSpace::generic: return ".generic";
  }
  return "";
}

namespace {

// How many characters of `reg` the NUL-terminated `name` takes up when `reg`
// starts with all of it; npos when it does not. Character by character:
// names are a few bytes and a miss shows at the second (`%r` against `%f`),
// where measuring each declaration's name first was a library call per
// declaration (64,000 lookups in a 20 MB nvcc -G file's check).
size_t prefixTaken(std::string_view reg, const char* name) {
  size_t i = 0;
  for (; name[i] != '\0'; ++i)
    if (i == reg.size() || reg[i] != name[i]) return std::string_view::npos;
  return i;
}

// `name` against `other` as their strings compare (no strlen of `name`).
int compareName(const char* name, std::string_view other) {
  size_t i = 0;
  for (; name[i] != '\0' && i < other.size(); ++i)
    if (name[i] != other[i]) return static_cast<unsigned char>(name[i]) < static_cast<unsigned char>(other[i]) ? -1 : 1;
  return name[i] != '\0' ? 1 : i < other.size() ? -1 : 0;
}

// Whether `digits` is a decimal index (no sign, no leading zero) below `count`.
[[gnu::always_inline]] inline bool indexBelow(std::string_view digits, uint64_t count) {
  constexpr size_t kMaxDigits = 19;  // any more is past every uint32_t count, and would overflow
  if (digits.empty() || digits.size() > kMaxDigits || (digits.size() > 1 && digits[0] == '0')) return false;
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n < count;
}

}  // namespace

const SectionImage* Module::section(std::string_view name) const {
  for (const SectionImage& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

namespace {

// A keyed hash: 8 bytes at a time through a 64x64->128-bit multiply (the
// wyhash construction), keyed by a secret drawn once per process. Names come
// from the input, and an unkeyed hash (FNV-1a, as before) lets a file of
// chosen names put them all in one probe chain: 80k of them took 100x as
// long as 80k ordinary names. Without the key, collisions cannot be chosen.
uint64_t mix(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

const std::array<uint64_t, 2>& hashKey() {
  static const std::array<uint64_t, 2> key = [] {
    std::random_device device;
    auto draw = [&] { return (static_cast<uint64_t>(device()) << 32) ^ device(); };
    return std::array<uint64_t, 2>{draw() | 1, draw() | 1};
  }();
  return key;
}

uint32_t hashName(std::string_view name) {
  const auto& key = hashKey();
  uint64_t h = key[0] ^ name.size();
  size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, name.data() + i, 8);
    h = mix(h ^ word, key[1]);
  }
  // The last 1-7 bytes in at most two loads of a size the compiler knows (a
  // memcpy of the remaining length is a library call: 300,000 of them for a
  // 20 MB nvcc -G file's names). With the length in `h`, what they load
  // tells every byte: two 4-byte loads that overlap, or the first, middle
  // and last byte of three or fewer.
  const size_t rest = name.size() - i;
  const char* p = name.data() + i;
  uint64_t tail = 0;
  if (rest >= 4) {
    uint32_t first, last;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + rest - 4, 4);
    tail = first | uint64_t{last} << 32;
  } else if (rest > 0) {
    tail = uint64_t{static_cast<uint8_t>(p[0])} | uint64_t{static_cast<uint8_t>(p[rest / 2])} << 8 |
           uint64_t{static_cast<uint8_t>(p[rest - 1])} << 16;
  }
  h = mix(h ^ tail, key[1]);
  h = mix(h ^ key[0], key[1] ^ 0x9e3779b97f4a7c15ull);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// The slot a name's probe starts at: the hash scaled to the table's size
// (multiply and shift: any size, no division).
size_t homeSlot(uint32_t hash, size_t slots) { return static_cast<size_t>((uint64_t{hash} * slots) >> 32); }
// Linear probing, wrapping at the end.
size_t nextSlot(size_t i, size_t slots) { return i + 1 == slots ? 0 : i + 1; }

}  // namespace

// ---- InstructionPositions

Instruction InstructionPositions::decodeNext(const uint8_t*& p, Instruction before) {
  const uint8_t b = *p++;
  if (b != kLong) return {before.line + (b >> 4), b & 0xfu};
  Instruction i;  // as pushLong wrote it
  i.line = readOwnUleb32(p);
  i.col = readOwnUleb32(p);
  return i;
}

void InstructionPositions::startGroup() {
  checkpoints_.push_back({static_cast<uint32_t>(bytes_.size()), last_});
}

void InstructionPositions::pushLong(Instruction i) {
  // The line as it is, not a step: a caller may append out of order.
  pushByte(kLong);
  encodeUleb(i.line, [this](uint8_t b) { pushByte(b); });
  encodeUleb(i.col, [this](uint8_t b) { pushByte(b); });
}

InstructionPositions::iterator InstructionPositions::at(size_t i) const {
  if (i >= count_) return end();
  const Checkpoint& c = checkpoints_[i / kGroup];
  const uint8_t* p = bytes_.data() + c.pos;
  Instruction current = c.before;
  for (size_t k = i / kGroup * kGroup; k <= i; ++k) current = decodeNext(p, current);
  return iterator(p, current, i, count_);
}

void InstructionPositions::reserve(size_t instructions) {
  reserveUpTo(bytes_, instructions);
  reserveUpTo(checkpoints_, instructions / kGroup + 1);
}

bool operator==(const InstructionPositions& a, const InstructionPositions& b) {
  // One encoding for one sequence of positions, whatever the groups.
  return a.count_ == b.count_ && a.bytes_ == b.bytes_;
}

bool Module::isNamed(DefinitionKind kind, uint32_t index, uint32_t sub, std::string_view name) const {
  switch (kind) {
    case DefinitionKind::function: return functions[index].name == name;
    case DefinitionKind::parameter:
    case DefinitionKind::returnValue: return parameters[index].name == name;
    case DefinitionKind::variable: return variables[index].name == name;
    case DefinitionKind::label: return labels[index].name == name;
    case DefinitionKind::section: return sections[index].name == name;
    case DefinitionKind::sectionLabel: return sections[index].labels[sub].name == name;
  }
  return false;
}

bool Module::isNamed(uint32_t ref, std::string_view name) const {
  if (ref & kChained) {
    const Definition& d = definitions_[ref & ~kChained];
    return isNamed(d.kind, d.index, d.sub, name);
  }
  return isNamed(static_cast<DefinitionKind>(ref >> kIndexBits), ref & kIndexMask, 0, name);
}

int32_t Module::functionOf(const Label& label, int32_t guess) const {
  const uint32_t index = static_cast<uint32_t>(&label - labels.data());
  if (guess >= 0 && static_cast<size_t>(guess) < functions.size()) {
    const Function& f = functions[static_cast<size_t>(guess)];
    if (index >= f.firstLabel && index < f.endLabel) return guess;
  }
  // Bodies' label ranges are contiguous and in order: the first function
  // whose range ends past the label holds it.
  const auto holder = std::upper_bound(functions.begin(), functions.end(), index,
                                       [](uint32_t i, const Function& f) { return i < f.endLabel; });
  return holder == functions.end() || holder->firstLabel > index ? -1 : static_cast<int32_t>(holder - functions.begin());
}

void Module::indexFiles() {
  fileIndex_.clear();
  fileIndex_.reserve(files.size());
  for (uint32_t i = 0; i < files.size(); ++i) fileIndex_.emplace_back(files[i].index, i);
  std::sort(fileIndex_.begin(), fileIndex_.end());  // the first of equal indexes first, as the scan found
}

void Module::reindex() {
  indexFiles();
  indexDeclarations();
  size_t count = labels.size() + functions.size() + variables.size() + parameters.size() + sections.size();
  for (const SectionImage& s : sections) count += s.labels.size();
  // At most three quarters full (less where names repeat: a chain takes one
  // slot): a lookup probes a few slots. Any size, not a power of two (a name's
  // first slot is homeSlot's multiply-shift of its hash): 1.6 MB, not 2.1,
  // for a 20 MB nvcc -G file's 155,000 names.
  const size_t capacity = std::max<size_t>(16, count + count / 3 + 1);
  slots_.assign(capacity, Slot{});
  definitions_.clear();

  // A declaration (a function without a body, a module-scope variable) after
  // a first one of the same kind and name answers no lookup: the lookups
  // return the first. It stays out of the chain, so that a file of many
  // duplicate `.extern` declarations does not make each lookup walk them all.
  struct Pending {
    std::string_view name;
    uint32_t hash;
    DefinitionKind kind;
    uint8_t declaration;
    uint32_t index, sub;
  };
  auto push = [&](const Definition& d) {
    definitions_.push_back(d);
    return static_cast<uint32_t>(definitions_.size() - 1);
  };
  auto chain = [&](const Pending& p) {
    const uint32_t id = push({p.kind, p.declaration, p.index, p.sub, kNone, kNone});
    definitions_[id].last = id;
    return kChained | id;
  };
  // A name's first definition goes in its slot, packed, where it can.
  auto firstRef = [&](const Pending& p) {
    const bool packable = p.sub == 0 && p.index <= kIndexMask &&
                          p.kind != DefinitionKind::sectionLabel;
    return packable ? static_cast<uint32_t>(p.kind) << kIndexBits | p.index : chain(p);
  };
  // A second definition of a name: a packed first one moves to a chain.
  auto append = [&](Slot& slot, const Pending& p) {
    if (!(slot.ref & kChained)) {
      const auto kind = static_cast<DefinitionKind>(slot.ref >> kIndexBits);
      const uint32_t index = slot.ref & kIndexMask;
      uint8_t declared = 0;
      if (kind == DefinitionKind::function && !functions[index].hasBody) declared = kFunctionDeclared;
      if (kind == DefinitionKind::variable && variables[index].function < 0) declared = kModuleVariableDeclared;
      slot.ref = chain({{}, 0, kind, declared, index, 0});
    }
    const uint32_t head = slot.ref & ~kChained;
    if (p.declaration & definitions_[head].declared) return;
    definitions_[head].declared |= p.declaration;
    const uint32_t id = push({p.kind, 0, p.index, p.sub, kNone, kNone});
    definitions_[definitions_[head].last].next = id;  // chains keep file order
    definitions_[head].last = id;
  };
  auto insert = [&](const Pending& p) {
    for (size_t i = homeSlot(p.hash, capacity);; i = nextSlot(i, capacity)) {
      work::step(work::nameIndexProbe);
      Slot& slot = slots_[i];
      if (slot.ref == kNone) {
        slot = {p.hash, firstRef(p)};
        return;
      }
      if (slot.hash == p.hash && isNamed(slot.ref, p.name)) {
        append(slot, p);
        return;
      }
    }
  };
  // Each insertion is a cache miss in a large table: a name's slot is
  // fetched when it is defined and the name inserted kAhead names later, in
  // the same order (chains keep file order), while the misses overlap.
  constexpr size_t kAhead = 16;
  std::array<Pending, kAhead> pending;
  size_t defined = 0;
  auto define = [&](std::string_view name, DefinitionKind kind, uint32_t index, uint32_t sub = 0,
                    uint8_t declaration = 0) {
    const uint32_t hash = hashName(name);
    __builtin_prefetch(&slots_[homeSlot(hash, capacity)]);
    Pending& next = pending[defined++ % kAhead];
    if (defined > kAhead) insert(next);
    next = {name, hash, kind, declaration, index, sub};
  };
  // A name's module-scope variable first (a chain holds one), the
  // functions' own variables after the functions and their parameters:
  // findVariable() finds the module's at once, and walks the rest of a
  // chain only so far (a function's own are searched in its body's range).
  for (uint32_t i = 0; i < variables.size(); ++i)
    if (variables[i].function < 0) define(variables[i].name, DefinitionKind::variable, i, 0, kModuleVariableDeclared);
  for (uint32_t i = 0; i < functions.size(); ++i) {
    const Function& f = functions[i];
    define(f.name, DefinitionKind::function, i, 0, f.hasBody ? 0 : kFunctionDeclared);
    for (uint32_t p = f.firstParam; p < f.endParam; ++p) define(parameters[p].name, DefinitionKind::parameter, p);
    for (uint32_t p = f.firstReturn; p < f.firstParam; ++p) define(parameters[p].name, DefinitionKind::returnValue, p);
  }
  for (uint32_t i = 0; i < variables.size(); ++i)
    if (variables[i].function >= 0) define(variables[i].name, DefinitionKind::variable, i);
  for (uint32_t i = 0; i < labels.size(); ++i) define(labels[i].name, DefinitionKind::label, i);
  for (uint32_t i = 0; i < sections.size(); ++i) {
    define(sections[i].name, DefinitionKind::section, i);
    for (uint32_t l = 0; l < sections[i].labels.size(); ++l)
      define(sections[i].labels[l].name, DefinitionKind::sectionLabel, i, l);
  }
  for (size_t i = defined > kAhead ? defined - kAhead : 0; i < defined; ++i) insert(pending[i % kAhead]);
}

void Module::indexDeclarations() {
  // Each function's body: its variables are contiguous (a body declares
  // only its own), from where the first is to the last.
  for (Function& f : functions) f.firstVariable = f.endVariable = 0;
  for (uint32_t i = 0; i < variables.size(); ++i) {
    const int32_t fi = variables[i].function;
    if (fi < 0 || static_cast<size_t>(fi) >= functions.size()) continue;
    Function& f = functions[static_cast<size_t>(fi)];
    if (f.firstVariable == f.endVariable) f.firstVariable = i;
    f.endVariable = i + 1;
  }
  declarationOrder_ = std::make_shared<DeclarationOrder>();
}

template <class NameOf>
Module::DeclarationOrder::Hashed Module::DeclarationOrder::byHash(ptrdiff_t function, bool locals, uint32_t first,
                                                                  uint32_t end, NameOf nameOf) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, added] = sorted.try_emplace(static_cast<uint64_t>(function) << 1 | (locals ? 1 : 0));
  std::vector<Entry>& entries = it->second;
  if (added) {
    for (uint32_t i = first; i < end; ++i) entries.push_back({hashName(nameOf(i)), i});
    std::sort(entries.begin(), entries.end());  // by hash, then in declaration order
  }
  return entries;
}

// The declarations whose names hash as `name` does, in declaration order
// (the names themselves still to compare).
Module::DeclarationOrder::Hashed Module::DeclarationOrder::named(Hashed entries, std::string_view name, work::Pass pass) {
  const uint32_t hash = hashName(name);
  const auto first = std::lower_bound(entries.begin(), entries.end(), Entry{hash, 0}, [pass](const Entry& a, const Entry& b) {
    work::step(pass);
    return a < b;
  });
  auto end = first;
  while (end != entries.end() && end->hash == hash) ++end;
  return entries.subspan(static_cast<size_t>(first - entries.begin()), static_cast<size_t>(end - first));
}

bool Module::declaresRegister(const Function& f, std::string_view reg) const {
  // `%r<4>` declares %r0..%r3: the range's name, then a decimal index below its count.
  auto declaredBy = [&](const RegisterDecl& d) {
    const size_t taken = prefixTaken(reg, d.name.c_str());
    if (taken == std::string_view::npos) return false;
    return d.isRange() ? indexBelow(reg.substr(taken), d.count) : taken == reg.size();
  };
  const std::span<const RegisterDecl> declared = registersOf(f);
  if (declared.size() <= kDeclarationsScanned || !declarationOrder_) {
    work::step(work::registerLookup, declared.size());  // at most
    return std::any_of(declared.begin(), declared.end(), declaredBy);
  }
  // Many declarations: those named what `reg` is less its trailing digits
  // (a range, as most are: `%r` for %r123), less fewer of them (`%r1<30>`),
  // and `reg` itself, looked up by name.
  const DeclarationOrder::Hashed byHash = declarationOrder_->byHash(
      &f - functions.data(), false, f.firstRegister, f.endRegister, [this](uint32_t i) { return std::string_view(registers[i].name); });
  auto anyNamed = [&](std::string_view name) {
    for (const DeclarationOrder::Entry& e : DeclarationOrder::named(byHash, name, work::registerLookup))
      if (compareName(registers[e.index].name.c_str(), name) == 0 && declaredBy(registers[e.index])) return true;
    return false;
  };
  size_t digits = 0;
  while (digits < reg.size() && reg[reg.size() - 1 - digits] >= '0' && reg[reg.size() - 1 - digits] <= '9') ++digits;
  for (; digits > 0; --digits)
    if (anyNamed(reg.substr(0, reg.size() - digits))) return true;
  return anyNamed(reg);
}

Module::NameKey Module::nameKey(std::string_view name) const { return {name, hashName(name)}; }

const Module::Slot* Module::slotOf(const NameKey& key) const {
  if (slots_.empty()) return nullptr;
  for (size_t i = homeSlot(key.hash, slots_.size());; i = nextSlot(i, slots_.size())) {
    work::step(work::nameIndexProbe);
    const Slot& slot = slots_[i];
    if (slot.ref == kNone) return nullptr;
    if (slot.hash == key.hash && isNamed(slot.ref, key.name)) return &slot;
  }
}

template <class Visit>
void Module::visitDefinitions(const NameKey& key, Visit visit) const {
  const Slot* slot = slotOf(key);
  if (!slot) return;
  if (!(slot->ref & kChained)) {
    visit(static_cast<DefinitionKind>(slot->ref >> kIndexBits), slot->ref & kIndexMask, uint32_t{0});
    return;
  }
  for (uint32_t at = slot->ref & ~kChained; at != kNone; at = definitions_[at].next) {
    work::step(work::nameIndexProbe);
    const Definition& d = definitions_[at];
    if (visit(d.kind, d.index, d.sub)) return;
  }
}

const Function* Module::findFunction(std::string_view name) const {
  // A definition wins over the declarations (prototypes) of the same name.
  const Function* found = nullptr;
  visitDefinitions(name, [&](DefinitionKind kind, uint32_t index, uint32_t) {
    if (kind != DefinitionKind::function) return false;
    const Function& f = functions[index];
    if (!found || (f.hasBody && !found->hasBody)) found = &f;
    return f.hasBody;
  });
  return found;
}

const Variable* Module::findVariable(std::string_view name, int32_t function) const {
  // A variable of `function` shadows a module-scope one of the same name.
  // A name's chain begins with its module-scope variable (reindex): a short
  // chain is walked for the function's own, and that of a name many
  // functions declare (every call site's `param0`) only so far: the
  // function's own variables are searched instead.
  const Variable* moduleScope = nullptr;
  const Variable* local = nullptr;
  size_t visited = 0;
  visitDefinitions(name, [&](DefinitionKind kind, uint32_t index, uint32_t) {
    if (kind != DefinitionKind::variable) return ++visited > kDeclarationsScanned;
    const Variable& v = variables[index];
    if (v.function < 0) moduleScope = &v;
    else if (v.function == function) local = &v;
    return local || function < 0 || ++visited > kDeclarationsScanned;
  });
  if (!local && visited > kDeclarationsScanned && function >= 0 && static_cast<size_t>(function) < functions.size())
    local = localNamed(function, name);
  return local ? local : moduleScope;
}

const Variable* Module::localNamed(int32_t function, std::string_view name) const {
  const Function& f = functions[static_cast<size_t>(function)];
  auto named = [&](uint32_t i) {
    return variables[i].function == function && compareName(variables[i].name.c_str(), name) == 0;
  };
  const uint32_t end = std::min<uint32_t>(f.endVariable, static_cast<uint32_t>(variables.size()));
  if (end - std::min(f.firstVariable, end) <= kDeclarationsScanned || !declarationOrder_) {
    work::step(work::nameIndexProbe, end - std::min(f.firstVariable, end));  // at most
    for (uint32_t i = f.firstVariable; i < end; ++i)
      if (named(i)) return &variables[i];
    return nullptr;
  }
  // Many: looked up by name, the first declared first.
  const DeclarationOrder::Hashed byHash = declarationOrder_->byHash(
      function, true, f.firstVariable, end, [this](uint32_t i) { return std::string_view(variables[i].name); });
  for (const DeclarationOrder::Entry& e : DeclarationOrder::named(byHash, name, work::nameIndexProbe))
    if (named(e.index)) return &variables[e.index];
  return nullptr;
}

const Variable* Module::findParameter(std::string_view name) const {
  const Variable* found = nullptr;
  visitDefinitions(name, [&](DefinitionKind kind, uint32_t index, uint32_t) {
    if (kind == DefinitionKind::parameter) found = &parameters[index];
    return found != nullptr;
  });
  return found;
}

const Label* Module::findLabel(std::string_view name) const { return findLabel(nameKey(name)); }

const Label* Module::findLabel(const NameKey& key) const {
  const Label* found = nullptr;
  visitDefinitions(key, [&](DefinitionKind kind, uint32_t index, uint32_t) {
    if (kind == DefinitionKind::label) found = &labels[index];
    return found != nullptr;
  });
  return found;
}

const FileEntry* Module::findFile(unsigned index) const {
  // Through the index reindex() sorted (a scan per DW_AT_decl_file was
  // .file entries x attributes); a scan when files changed since.
  if (fileIndex_.size() == files.size()) {
    work::step(work::fileLookup);
    auto it = std::lower_bound(fileIndex_.begin(), fileIndex_.end(), std::pair(index, uint32_t{0}));
    return it != fileIndex_.end() && it->first == index ? &files[it->second] : nullptr;
  }
  for (const FileEntry& f : files) {
    work::step(work::fileLookup);
    if (f.index == index) return &f;
  }
  return nullptr;
}

bool Module::definesSymbol(std::string_view name) const { return slotOf(name) != nullptr; }
bool Module::definesSymbol(const NameKey& key) const { return slotOf(key) != nullptr; }

void Module::prefetchName(std::string_view name) const { prefetch(nameKey(name)); }
void Module::prefetch(const NameKey& key) const {
  if (slots_.empty()) return;
  __builtin_prefetch(&slots_[homeSlot(key.hash, slots_.size())]);
}

}  // namespace ptxdwarf::ptx
