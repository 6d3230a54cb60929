// llvm-dwarfdump --statistics (LLVM 14, Statistics.cpp, version 9) over the
// flat DIE array: the same walk (an explicit stack instead of recursion), the
// same identifiers for functions and variables, the same deferred zero-coverage
// accounting for inlined variables; scope sizes in PTX instructions.
#include "ptxdwarf/view/statistics.h"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/view/attributes.h"
#include "../work.h"

namespace ptxdwarf::view {

namespace {

using read::AttrValue;
using read::Die;
using read::Dwarf;

struct PerFunction {
  uint64_t inlined = 0, outOfLine = 0, abstractOrigins = 0;
  uint64_t varsWithLoc = 0, constantMembers = 0, artificial = 0;
  uint64_t uniqueVars = 0;  // LLVM's VarsInFunction.size() (VariableIds counts them)
  bool isFunction = false, hasSourceLocation = false;
  uint64_t params = 0, paramSrcLoc = 0, paramTypes = 0, paramLocs = 0;
  uint64_t localVars = 0, localVarSrcLoc = 0, localVarTypes = 0, localVarLocs = 0;
};

// [first, end) into Module::instructions.
struct InstructionRange {
  uint64_t first = 0, end = 0;
  uint64_t size() const { return end > first ? end - first : 0; }
};

uint64_t overlap(InstructionRange a, InstructionRange b) {
  uint64_t lo = std::max(a.first, b.first), hi = std::min(a.end, b.end);
  return lo < hi ? hi - lo : 0;
}

// The value LLVM's DWARFFormValue::getRawUValue gives for a reference: unit
// relative for the ref1..ref_udata forms, absolute for ref_addr.
uint64_t rawReference(const Dwarf& d, const Die& die, const AttrValue& v) {
  const uint64_t target = d.referenceTarget(v).value_or(v.value);  // a cubin's: relocated
  if (v.form == dw::DW_FORM_ref_addr) return target;
  return target - d.unitOf(die).offset;
}

// LLVM's VarsInFunction, a set of variable ids (VarPrefix and name) for
// each function, as one flat set of (function, id) pairs: an id's
// characters kept once, in one buffer, and an open-addressing table of
// 4-byte indices. A set of strings per function took a node and often a
// string allocation a variable: the statistics of a 20 MB nvcc -G file
// peaked 2.6 MiB higher with them.
class VariableIds {
 public:
  // Whether the pair is new (then added).
  bool insert(const void* function, std::string_view id) {
    if ((ids_.size() + 1) * 4 > slots_.size() * 3) grow();
    const uint32_t hash = hashOf(function, id);
    for (size_t i = hash % slots_.size();; i = i + 1 == slots_.size() ? 0 : i + 1) {
      if (slots_[i] == kEmpty) {
        slots_[i] = static_cast<uint32_t>(ids_.size());
        ids_.push_back({function, chars_.size(), static_cast<uint32_t>(id.size()), hash});
        chars_.insert(chars_.end(), id.begin(), id.end());
        return true;
      }
      const Id& seen = ids_[slots_[i]];
      if (seen.hash == hash && seen.function == function && charsOf(seen) == id) return false;
    }
  }

 private:
  struct Id {
    const void* function;
    size_t begin;
    uint32_t size;
    uint32_t hash;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;

  static uint32_t hashOf(const void* function, std::string_view id) {
    const uint64_t h =
        std::hash<std::string_view>()(id) ^ (reinterpret_cast<uintptr_t>(function) * 0x9e3779b97f4a7c15u);
    return static_cast<uint32_t>(h ^ (h >> 32));
  }
  std::string_view charsOf(const Id& id) const { return std::string_view(chars_.data() + id.begin, id.size); }
  void grow() {
    slots_.assign(std::max<size_t>(64, slots_.size() * 2), kEmpty);
    for (uint32_t k = 0; k < ids_.size(); ++k) {
      size_t i = ids_[k].hash % slots_.size();
      while (slots_[i] != kEmpty) i = i + 1 == slots_.size() ? 0 : i + 1;
      slots_[i] = k;
    }
  }

  std::vector<Id> ids_;
  std::vector<char> chars_;
  std::vector<uint32_t> slots_;
};

// LLVM's VarPrefix ("g" at the top of a unit, "v" in a function, then
// "0A." for each lexical block and "p01." for a formal parameter's subtree,
// each numbered within its parent), interned: a frame holds its prefix's
// number, not its characters, and a variable's id is that number and the
// name. The segments are self-delimiting, so two prefixes are the same
// string exactly when they are the same chain of segments, and counting
// ids by number counts what LLVM's strings count. Copying the string into
// every frame made a tree of n nested blocks cost O(n^2) memory (100,000
// of them: over 13 GB).
class VarPrefixes {
 public:
  static constexpr uint32_t kGlobal = 0;    // "g"
  static constexpr uint32_t kFunction = 1;  // "v"
  enum class Segment : uint8_t { block, parameter };
  // The prefix `parent` followed by a segment: a lexical block's or a
  // formal parameter's, numbered `index` as LLVM writes it (llvm::toHex of
  // the index converted to one byte: two uppercase digits, so the 257th
  // block's segment is the first's).
  uint32_t child(uint32_t parent, Segment kind, unsigned index) {
    const uint64_t key = uint64_t{parent} << 16 | uint64_t{static_cast<uint8_t>(kind)} << 8 | (index & 0xffu);
    return children_.try_emplace(key, static_cast<uint32_t>(children_.size() + 2)).first->second;
  }

 private:
  std::unordered_map<uint64_t, uint32_t> children_;  // (parent, kind, index) -> number
};

class Collector {
 public:
  Collector(const ptx::Module& m, const Dwarf& d) : m_(m), d_(d), inBytes_(m.fileFormat != "ptx") {}

  Statistics run() {
    for (const read::Unit& u : d_.units) {
      if (u.dieCount == 0) continue;
      const Die& cu = d_.dies[u.firstDie];
      if (cu.isNull()) continue;
      abstractOriginVars_.clear();
      deferredFunctions_.clear();
      walk(u.firstDie);
      zeroCoverageForDeferred();
    }
    return summarize();
  }

 private:
  const ptx::Module& m_;
  const Dwarf& d_;
  const bool inBytes_;  // a cubin: scopes measured in SASS bytes, as LLVM measures them
  Statistics s_;
  std::unordered_map<std::string, PerFunction> functions_;
  // DW_AT_inline subprogram (its offset) -> its variables' and parameters' offsets.
  std::unordered_map<uint64_t, std::vector<uint64_t>> abstractOriginVars_;
  std::vector<uint32_t> deferredFunctions_;  // concrete instances whose abstract origin comes later
  VariableIds variableIds_;

  struct Frame {
    uint32_t die = 0;
    // The function this DIE counts towards (LLVM's FnPrefix, an entry of
    // functions_: their addresses stay put), held instead of its name, which
    // each child copied and each variable hashed again.
    PerFunction* fn = nullptr;
    uint32_t varPrefix = VarPrefixes::kGlobal;
    uint64_t scope = 0;  // instructions in the innermost enclosing scope that has some
    uint32_t inlineDepth = 0;
    int aoOwner = -1;  // the frame whose abstract-origin variables this DIE's are checked off against
    std::vector<uint64_t> aoVars;
    bool tracksZeroCoverage = false;
    uint32_t cursor = 0;  // the next entry to look at for children
    unsigned lexicalBlocks = 0, formalParameters = 0;
  };
  std::vector<Frame> stack_;
  VarPrefixes prefixes_;

  std::optional<AttrValue> attr(const Die& die, uint16_t a) const { return d_.attribute(die, a); }

  uint32_t subtreeEnd(uint32_t i) const {
    uint32_t depth = d_.dies[i].depth;
    uint32_t j = i + 1;
    while (j < d_.dies.size() && d_.dies[j].depth > depth) ++j;
    return j;
  }

  // The instruction a relocated address names: a label, or a function's first instruction.
  std::optional<uint64_t> instructionOf(const Relocation* r) const {
    if (!r || r->isDifference() || r->addend() != 0) return std::nullopt;
    if (const ptx::Label* l = m_.findLabel(r->symbol); l && l->instruction != ptx::kNoIndex) return l->instruction;
    if (const ptx::Function* f = m_.findFunction(r->symbol); f && f->hasBody) return f->firstInstruction;
    return std::nullopt;
  }

  // Where an address is, in the unit scopes are measured in: a PTX file's
  // instruction (its label), a cubin's SASS address itself, as LLVM measures.
  std::optional<uint64_t> position(uint64_t value, const Relocation* r) const {
    if (inBytes_) return value;
    return instructionOf(r);
  }

  // DWARFDie::getAddressRanges from low_pc/high_pc: one range at most. A PTX
  // file's high_pc is a label; a cubin's may be an offset from low_pc (DWARF
  // 4's constant class).
  std::optional<InstructionRange> range(const Die& die) const {
    std::optional<AttrValue> low = attr(die, dw::DW_AT_low_pc);
    std::optional<AttrValue> high = attr(die, dw::DW_AT_high_pc);
    if (!low || !high || low->form != dw::DW_FORM_addr) return std::nullopt;
    std::optional<uint64_t> first = position(low->value, low->reloc), end;
    if (high->form == dw::DW_FORM_addr) end = position(high->value, high->reloc);
    else if (inBytes_ && high->isConstant() && first) end = *first + high->value;
    if (!first || !end) return std::nullopt;
    return InstructionRange{*first, *end};
  }

  std::string fileBasename(const Die& die) const {
    std::optional<AttrValue> f = findRecursively(d_, die, {dw::DW_AT_decl_file});
    if (!f || !f->isConstant() || f->reloc) return "/";
    const ptx::FileEntry* e = m_.findFile(static_cast<unsigned>(f->value));
    if (!e || f->value > UINT32_MAX || e->path.empty()) return "/";
    size_t slash = e->path.find_last_of('/');
    std::string base = slash == std::string::npos ? e->path : e->path.substr(slash + 1);
    return base.empty() ? "/" : base;
  }

  // constructDieID: prefix + linkage (or short) name; globals and functions
  // add the declaring file's name and line. A function's id has no prefix;
  // a variable's starts with its prefix's number (VarPrefixes).
  std::string dieId(const Die& die, std::optional<uint32_t> prefix = std::nullopt) const {
    std::string id;
    if (prefix) id.append(reinterpret_cast<const char*>(&*prefix), sizeof *prefix);
    id += linkageOrShortName(d_, die);
    if (prefix && *prefix != VarPrefixes::kGlobal) return id;
    id += ':';
    id += fileBasename(die);
    id += ':';
    std::optional<AttrValue> line = findRecursively(d_, die, {dw::DW_AT_decl_line});
    id += std::to_string(line && line->isConstant() ? line->value : 0);
    return id;
  }

  // The variables and parameters of function `fn`, its lexical blocks
  // included but no other nested DIEs, in DIE order: one pass, whatever the nesting.
  template <class F>
  void forEachScopeVariable(uint32_t fn, F&& f) const {
    uint32_t base = d_.dies[fn].depth;
    std::vector<char> scopeOk{1};  // by depth below `fn`: is the latest DIE there fn or a block of it?
    for (uint32_t i = fn + 1; i < d_.dies.size() && d_.dies[i].depth > base; ++i) {
      const Die& c = d_.dies[i];
      size_t r = c.depth - base;
      if (c.isNull() || r > scopeOk.size()) continue;
      bool parentOk = scopeOk[r - 1] != 0;
      if (parentOk && (c.tag == dw::DW_TAG_formal_parameter || c.tag == dw::DW_TAG_variable)) f(c);
      scopeOk.resize(r + 1);
      scopeOk[r] = parentOk && c.tag == dw::DW_TAG_lexical_block;
    }
  }

  // collectAbstractOriginFnInfo
  void collectAbstractOriginVars(uint32_t fn) {
    std::vector<uint64_t>& vars = abstractOriginVars_[d_.dies[fn].offset];
    forEachScopeVariable(fn, [&](const Die& v) { vars.push_back(v.offset); });
  }

  bool isEntryValue(std::span<const uint8_t> expr, uint8_t addressSize) const {
    read::Expression e = read::decodeExpression(expr, {.addressSize = addressSize});
    return std::any_of(e.ops.begin(), e.ops.end(), [](const read::Operation& op) {
      return op.op == dw::DW_OP_entry_value || op.op == dw::DW_OP_GNU_entry_value;
    });
  }

  struct Location {
    bool has = false;
    uint64_t total = 0, inScope = 0, entryValues = 0;
  };

  // DWARFDie::getLocations(DW_AT_location) and the coverage of its entries;
  // a single expression covers the whole `scope`.
  Location location(const Die& die, uint64_t scope) const {
    Location loc;
    std::optional<AttrValue> v = attr(die, dw::DW_AT_location);
    if (!v) return loc;
    if (v->isBlock()) return {true, scope, scope, 0};
    const read::Unit& unit = d_.unitOf(die);
    bool listForm = v->form == dw::DW_FORM_sec_offset ||
                    ((v->form == dw::DW_FORM_data4 || v->form == dw::DW_FORM_data8) && unit.version <= 3);
    if (!listForm) return loc;
    const std::optional<uint64_t> offset = d_.offsetIn(".debug_loc", v->value, v->reloc);
    if (!offset) return loc;
    const read::LocList* list = d_.locListAt(*offset);
    if (!list || !list->terminated) return loc;
    // A DWARF 4 entry is an offset from the base address: the unit's low_pc
    // or a base address selection before it; LLVM fails the list without one.
    // (A PTX file's entries are labels: positions of their own.)
    std::optional<AttrValue> unitLow = attr(d_.dies[unit.firstDie], dw::DW_AT_low_pc);
    std::optional<uint64_t> base = unitLow ? std::optional<uint64_t>(unitLow->value) : std::nullopt;
    std::optional<InstructionRange> parent;
    if (const Die* p = d_.parentOf(die)) parent = range(*p);
    for (const read::LocEntry& e : list->entries) {
      if (e.kind == read::LocEntry::baseAddress) {
        base = e.end;
        continue;
      }
      if (e.kind != read::LocEntry::range) continue;
      if (!base) return Location{};
      const uint64_t offset = inBytes_ ? *base : 0;
      std::optional<uint64_t> first = position(offset + e.begin, e.beginReloc);
      std::optional<uint64_t> end = position(offset + e.end, e.endReloc);
      if (!first || !end) continue;  // not a label: no instructions we can name
      InstructionRange r{*first, *end};
      loc.total += r.size();
      const uint64_t covered = parent ? overlap(r, *parent) : 0;
      loc.inScope += covered;
      if (isEntryValue(e.expr, unit.addressSize)) loc.entryValues += covered;
    }
    loc.has = true;
    return loc;
  }

  static void bucket(LocationCoverage& c, uint64_t covered, uint64_t scope, bool entryValuesLeftOut) {
    unsigned b;
    if (covered == 0)
      b = 0;
    else if (covered >= scope)
      b = kCoverageBuckets - 1;
    else
      b = static_cast<unsigned>(100 * static_cast<double>(covered) / static_cast<double>(scope)) / 10 + 1;
    (entryValuesLeftOut ? c.withoutEntryValues : c.buckets)[b]++;
  }

  // The location coverages a DIE of `tag` counts in: every variable's, then
  // a parameter's or a local variable's own (null for other DIEs).
  std::array<LocationCoverage*, 2> coveragesOf(uint16_t tag) {
    if (tag == dw::DW_TAG_formal_parameter) return {&s_.variableCoverage, &s_.paramCoverage};
    if (tag == dw::DW_TAG_variable) return {&s_.variableCoverage, &s_.localVarCoverage};
    return {&s_.variableCoverage, nullptr};
  }

  // Variables of inlined functions that never got a location, by their DIEs' offsets.
  void zeroCoverage(const std::vector<uint64_t>& variables) {
    for (uint64_t offset : variables) {
      const Die* v = d_.dieAt(offset);
      for (LocationCoverage* c : coveragesOf(v ? v->tag : 0)) {
        if (!c) continue;
        c->processed++;
        c->buckets[0]++;
      }
    }
  }

  // collectStatsForDie
  void variable(const Die& die, const Frame& f) {
    uint16_t tag = die.tag;
    if (tag == dw::DW_TAG_compile_unit) return;
    if (tag == dw::DW_TAG_call_site || tag == dw::DW_TAG_GNU_call_site) {
      s_.callSiteDies++;
      return;
    }
    if (tag == dw::DW_TAG_call_site_parameter || tag == dw::DW_TAG_GNU_call_site_parameter) {
      s_.callSiteParameterDies++;
      return;
    }
    bool isParam = tag == dw::DW_TAG_formal_parameter;
    bool isLocalVar = tag == dw::DW_TAG_variable;
    bool isConstantMember = tag == dw::DW_TAG_member && attr(die, dw::DW_AT_const_value);
    if (!isParam && !isLocalVar && !isConstantMember) return;
    if (isLocalVar && attr(die, dw::DW_AT_declaration)) return;
    PerFunction& fn = *f.fn;

    bool hasSrcLoc = findRecursively(d_, die, {dw::DW_AT_decl_file}) && findRecursively(d_, die, {dw::DW_AT_decl_line});
    bool hasType = findRecursively(d_, die, {dw::DW_AT_type}).has_value();
    bool deferLocStats = false;
    if (std::optional<AttrValue> ao = attr(die, dw::DW_AT_abstract_origin)) {
      if (attr(die, dw::DW_AT_location) || attr(die, dw::DW_AT_const_value)) {
        if (f.aoOwner >= 0) {
          std::vector<uint64_t>& vars = stack_[static_cast<size_t>(f.aoOwner)].aoVars;
          std::erase(vars, rawReference(d_, die, *ao));
        }
      } else {
        deferLocStats = true;  // counted at the end of the inlined function
      }
    }

    // A constant value covers the whole scope, as a single location expression does.
    const auto [hasLoc, total, inScope, entryValues] =
        attr(die, dw::DW_AT_const_value) ? Location{true, f.scope, f.scope, 0} : location(die, f.scope);

    if (f.scope && !deferLocStats) {
      for (LocationCoverage* c : coveragesOf(tag)) {
        if (!c) continue;
        c->processed++;
        bucket(*c, inScope, f.scope, false);
        bucket(*c, inScope - entryValues, f.scope, true);
      }
    }

    const Die* idDie = &die;
    if (const Die* origin = referencedDie(d_, die, dw::DW_AT_abstract_origin)) idDie = origin;
    const std::string id = dieId(*idDie, f.varPrefix);
    work::step(work::variableIdBytes, id.size());
    fn.uniqueVars += variableIds_.insert(&fn, id);

    s_.coveredInAnyScope += total;
    if (f.scope) {
      ScopeCoverage* kind = isParam ? &s_.paramScopes : isLocalVar ? &s_.localVarScopes : nullptr;
      for (ScopeCoverage* c : {&s_.variables, kind}) {
        if (!c) continue;
        c->coveredInParentScope += inScope;
        c->inParentScope += f.scope;
        c->coveredByEntryValues += entryValues;
      }
    }
    if (isConstantMember) {
      fn.constantMembers++;
      return;
    }
    fn.varsWithLoc += hasLoc;
    // The artificial DIE: LLVM looks on the abstract origin when there is one.
    if (attr(*idDie, dw::DW_AT_artificial)) {
      fn.artificial++;
      return;
    }
    if (isParam) {
      fn.params++;
      fn.paramTypes += hasType;
      fn.paramSrcLoc += hasSrcLoc;
      fn.paramLocs += hasLoc;
    } else if (isLocalVar) {
      fn.localVars++;
      fn.localVarTypes += hasType;
      fn.localVarSrcLoc += hasSrcLoc;
      fn.localVarLocs += hasLoc;
    }
  }

  // The part of collectStatsRecursive before the children; false: skip them.
  bool enter(Frame& f) {
    const Die& die = d_.dies[f.die];
    uint16_t tag = die.tag;
    if (tag == dw::DW_TAG_subroutine_type) return false;
    std::optional<AttrValue> ao = attr(die, dw::DW_AT_abstract_origin);
    bool isFunction = tag == dw::DW_TAG_subprogram;
    bool isBlock = tag == dw::DW_TAG_lexical_block;
    bool isInlined = tag == dw::DW_TAG_inlined_subroutine;
    f.tracksZeroCoverage = isInlined || (isFunction && ao);
    if (f.tracksZeroCoverage && ao) {
      auto it = abstractOriginVars_.find(rawReference(d_, die, *ao));
      if (it != abstractOriginVars_.end()) {
        f.aoVars = it->second;
        f.aoOwner = static_cast<int>(stack_.size() - 1);
      } else {
        deferredFunctions_.push_back(f.die);
        f.aoOwner = -1;
      }
    }
    if (isFunction || isInlined || isBlock) {
      if (isFunction || isInlined) f.varPrefix = VarPrefixes::kFunction;
      if (attr(die, dw::DW_AT_declaration)) return false;
      if (attr(die, dw::DW_AT_call_file) && attr(die, dw::DW_AT_call_line)) s_.callSiteEntries++;
      uint64_t inThisScope = range(die).value_or(InstructionRange{}).size();
      if (!isBlock) {
        if (attr(die, dw::DW_AT_inline)) {
          collectAbstractOriginVars(f.die);
          return false;
        }
        std::string id = dieId(die);
        PerFunction& fn = functions_[id];
        fn.isFunction = true;
        if (isInlined) {
          fn.inlined++;
          if (findRecursively(d_, die, {dw::DW_AT_abstract_origin})) fn.abstractOrigins++;
        } else {
          fn.outOfLine++;
        }
        if (findRecursively(d_, die, {dw::DW_AT_decl_file}) && findRecursively(d_, die, {dw::DW_AT_decl_line}))
          fn.hasSourceLocation = true;
        f.fn = &fn;
      }
      if (inThisScope) {
        f.scope = inThisScope;
        if (isFunction)
          s_.instructionsWithinFunctions += inThisScope;
        else if (isInlined && f.inlineDepth == 0)
          s_.instructionsWithinInlinedFunctions += inThisScope;
      }
    } else {
      variable(die, f);
    }
    if (isFunction)
      f.inlineDepth = 0;
    else if (isInlined)
      ++f.inlineDepth;
    return true;
  }

  // The part after the children: inlined variables that never got a location.
  void leave(const Frame& f) {
    if (f.tracksZeroCoverage) zeroCoverage(f.aoVars);
  }

  void walk(uint32_t root) {
    stack_.clear();
    // The global scope: zero in every total until a variable counts.
    stack_.push_back({.die = root, .fn = &functions_["/"], .varPrefix = VarPrefixes::kGlobal});
    if (!enter(stack_.back())) {
      stack_.pop_back();
      return;
    }
    stack_.back().cursor = root + 1;
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      uint32_t depth = d_.dies[f.die].depth;
      // The next child: an entry one level down; deeper ones belong to a child
      // that was skipped.
      uint32_t i = f.cursor;
      while (i < d_.dies.size() && d_.dies[i].depth > depth + 1) ++i;
      if (i >= d_.dies.size() || d_.dies[i].depth <= depth) {
        Frame done = std::move(stack_.back());
        stack_.pop_back();
        leave(done);
        if (!stack_.empty()) stack_.back().cursor = i;
        continue;
      }
      const Die& c = d_.dies[i];
      if (c.isNull()) {
        f.cursor = i + 1;
        continue;
      }
      uint32_t prefix = f.varPrefix;
      if (c.tag == dw::DW_TAG_lexical_block)
        prefix = prefixes_.child(f.varPrefix, VarPrefixes::Segment::block, f.lexicalBlocks++);
      if (c.tag == dw::DW_TAG_formal_parameter)
        prefix = prefixes_.child(f.varPrefix, VarPrefixes::Segment::parameter, f.formalParameters++);
      f.cursor = i + 1;
      stack_.push_back({.die = i,
                        .fn = f.fn,
                        .varPrefix = prefix,
                        .scope = f.scope,
                        .inlineDepth = f.inlineDepth,
                        .aoOwner = f.aoOwner});
      if (!enter(stack_.back())) {
        stack_.pop_back();
        stack_.back().cursor = subtreeEnd(i);
        continue;
      }
      stack_.back().cursor = i + 1;
    }
  }

  // collectZeroLocCovForVarsWithAbstractOrigin: instances met before their origin.
  void zeroCoverageForDeferred() {
    for (uint32_t fnIndex : deferredFunctions_) {
      const Die& fn = d_.dies[fnIndex];
      std::optional<AttrValue> ao = attr(fn, dw::DW_AT_abstract_origin);
      if (!ao) continue;
      std::vector<uint64_t> vars = abstractOriginVars_[rawReference(d_, fn, *ao)];
      forEachScopeVariable(fnIndex, [&](const Die& c) {
        if (!attr(c, dw::DW_AT_location) && !attr(c, dw::DW_AT_const_value)) return;
        if (std::optional<AttrValue> origin = attr(c, dw::DW_AT_abstract_origin))
          std::erase(vars, rawReference(d_, c, *origin));
      });
      zeroCoverage(vars);
    }
  }

  Statistics summarize() {
    for (auto& [id, fn] : functions_) {
      uint64_t totalVars = fn.uniqueVars * (fn.inlined + fn.outOfLine);
      if (!fn.isFunction) totalVars = fn.localVars + fn.constantMembers + fn.artificial;  // global scope
      s_.sourceVariablesWithLocation += fn.varsWithLoc + fn.constantMembers;
      s_.sourceVariables += totalVars;
      s_.uniqueSourceVariables += fn.uniqueVars;
      s_.functions += fn.isFunction;
      s_.functionsWithLocation += fn.hasSourceLocation;
      if (fn.isFunction) {
        s_.inlinedFunctions += fn.inlined;
        s_.inlinedWithAbstractOrigins += fn.abstractOrigins;
      }
      s_.params += fn.params;
      s_.paramsWithType += fn.paramTypes;
      s_.paramsWithBinaryLocation += fn.paramLocs;
      s_.paramsWithSourceLocation += fn.paramSrcLoc;
      s_.localVars += fn.localVars;
      s_.localVarsWithType += fn.localVarTypes;
      s_.localVarsWithBinaryLocation += fn.localVarLocs;
      s_.localVarsWithSourceLocation += fn.localVarSrcLoc;
    }
    return s_;
  }
};

// llvm-dwarfdump's "#bytes in .debug_*": the size of every section whose
// name starts with ".debug", sections of one name summed, in file order.
void debugSectionSizes(const ptx::Module& module, std::vector<std::pair<std::string, uint64_t>>& out) {
  for (const SectionImage& section : module.sections) {
    if (!section.name.starts_with(".debug")) continue;
    auto same = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == section.name; });
    if (same == out.end()) out.emplace_back(std::string(section.name), section.bytes.size());
    else same->second += section.bytes.size();
  }
}

}  // namespace

Statistics computeStatistics(const ptx::Module& module, const read::Dwarf& dwarf) {
  Statistics s = Collector(module, dwarf).run();
  s.format = module.fileFormat;
  s.inBytes = module.fileFormat != "ptx";
  if (s.inBytes) debugSectionSizes(module, s.debugSectionBytes);
  return s;
}

}  // namespace ptxdwarf::view
