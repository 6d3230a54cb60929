#include <algorithm>
#include <cstring>
#include <mutex>
#include <span>
#include <unordered_map>

#include "ptxdwarf/ptx/module.h"
#include "../work.h"
#include "name_index.h"

namespace ptxdwarf::ptx {

struct Module::DeclarationOrder {
  struct Entry {
    uint32_t hash = 0;
    uint32_t index = 0;
    friend auto operator<=>(const Entry&, const Entry&) = default;
  };
  using Hashed = std::span<const Entry>;
  template <class NameOf>
  Hashed byHash(ptrdiff_t function, bool locals, uint32_t first, uint32_t end, NameOf nameOf);
  static Hashed named(Hashed entries, std::string_view name, work::Pass pass);
  std::mutex mutex;  // check's rules search on several threads
  std::unordered_map<uint64_t, std::vector<Entry>> sorted;  // function << 1 | locals
};

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
  // The lookups by name declaresRegister() and findVariable() made of a
  // function's many declarations are forgotten (without them they scan).
  declarationOrder_ = std::make_shared<DeclarationOrder>();
  nameIndex_ = std::make_shared<const NameIndex>(*this);
}

template <class NameOf>
Module::DeclarationOrder::Hashed Module::DeclarationOrder::byHash(ptrdiff_t function, bool locals, uint32_t first,
                                                                  uint32_t end, NameOf nameOf) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, added] = sorted.try_emplace(static_cast<uint64_t>(function) << 1 | (locals ? 1 : 0));
  std::vector<Entry>& entries = it->second;
  if (added) {
    for (uint32_t i = first; i < end; ++i) entries.push_back({NameIndex::key(nameOf(i)).hash, i});
    std::sort(entries.begin(), entries.end());  // by hash, then in declaration order
  }
  return entries;
}

// The declarations whose names hash as `name` does, in declaration order
// (the names themselves still to compare).
Module::DeclarationOrder::Hashed Module::DeclarationOrder::named(Hashed entries, std::string_view name, work::Pass pass) {
  const uint32_t hash = NameIndex::key(name).hash;
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

template <class Visit>
void Module::visitDefinitions(std::string_view name, Visit visit) const {
  if (nameIndex_) nameIndex_->visit(*this, NameIndex::key(name), visit);
}

const Function* Module::findFunction(std::string_view name) const {
  // A definition wins over the declarations (prototypes) of the same name.
  const Function* found = nullptr;
  visitDefinitions(name, [&](NameIndex::Kind kind, uint32_t index, uint32_t) {
    if (kind != NameIndex::Kind::function) return false;
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
  visitDefinitions(name, [&](NameIndex::Kind kind, uint32_t index, uint32_t) {
    if (kind != NameIndex::Kind::variable) return ++visited > kDeclarationsScanned;
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
  visitDefinitions(name, [&](NameIndex::Kind kind, uint32_t index, uint32_t) {
    if (kind == NameIndex::Kind::parameter) found = &parameters[index];
    return found != nullptr;
  });
  return found;
}

const Label* Module::findLabel(std::string_view name) const {
  const Label* found = nullptr;
  visitDefinitions(name, [&](NameIndex::Kind kind, uint32_t index, uint32_t) {
    if (kind == NameIndex::Kind::label) found = &labels[index];
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

bool Module::definesSymbol(std::string_view name) const {
  return nameIndex_ && nameIndex_->defines(*this, NameIndex::key(name));
}

}  // namespace ptxdwarf::ptx
