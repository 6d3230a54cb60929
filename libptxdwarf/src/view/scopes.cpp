#include "ptxdwarf/view/scopes.h"

#include <algorithm>
#include <set>

#include "ptxdwarf/dwarf.h"
#include "../work.h"

namespace ptxdwarf::view {

namespace {

bool isScopeTag(uint16_t tag) {
  return tag == dw::DW_TAG_subprogram || tag == dw::DW_TAG_inlined_subroutine || tag == dw::DW_TAG_lexical_block;
}

bool isDeclarationTag(uint16_t tag) { return tag == dw::DW_TAG_formal_parameter || tag == dw::DW_TAG_variable; }

}  // namespace

// low_pc/high_pc labels -> [begin, end) of instructions of one function.
bool ScopeTree::rangeOf(const read::Die& die, uint32_t& begin, uint32_t& end, int32_t& function) const {
  std::optional<read::AttrValue> lo = dwarf_.attribute(die, dw::DW_AT_low_pc);
  std::optional<read::AttrValue> hi = dwarf_.attribute(die, dw::DW_AT_high_pc);
  if (!lo || !hi || !lo->reloc || !hi->reloc || lo->reloc->isDifference() || hi->reloc->isDifference()) return false;
  const ptx::Label* b = module_.findLabel(lo->reloc->symbol);
  const ptx::Label* e = module_.findLabel(hi->reloc->symbol);
  if (!b || !e || e->instruction < b->instruction) return false;
  const int32_t holder = module_.functionOf(*b);
  if (holder < 0 || module_.functionOf(*e) != holder) return false;
  begin = b->instruction;
  end = e->instruction;
  function = holder;
  return true;
}

ScopeTree::ScopeTree(const ptx::Module& module, const read::Dwarf& dwarf) : module_(module), dwarf_(dwarf) {
  std::vector<std::vector<uint32_t>> byFunction(module.functions.size());  // scope indices per PTX function
  // The scope each DIE opened, so children find their parent scope in one pass.
  std::vector<uint32_t> scopeOfDie(dwarf.dies.size(), kNoScope);
  for (uint32_t i = 0; i < dwarf.dies.size(); ++i) {
    const read::Die& die = dwarf.dies[i];
    const uint32_t parentScope = die.parent == read::kNone ? kNoScope : scopeOfDie[die.parent];
    if (isDeclarationTag(die.tag)) {
      if (parentScope != kNoScope) scopes_[parentScope].declarations.push_back(i);
      continue;
    }
    if (!isScopeTag(die.tag)) continue;
    Scope s;
    s.die = i;
    s.parent = die.tag == dw::DW_TAG_subprogram ? kNoScope : parentScope;
    if (!rangeOf(die, s.begin, s.end, s.function)) {
      // A block without pc labels covers its parent's code (LLVM writes some so);
      // one outside any code (an abstract instance) is no scope of the code.
      if (s.parent == kNoScope) continue;
      const Scope& p = scopes_[s.parent];
      s.begin = p.begin;
      s.end = p.end;
      s.function = p.function;
    }
    scopeOfDie[i] = static_cast<uint32_t>(scopes_.size());
    byFunction[static_cast<size_t>(s.function)].push_back(scopeOfDie[i]);
    scopes_.push_back(std::move(s));
  }
  findStretches(byFunction);
}

// The innermost scope at an instruction is the deepest DIE among the scopes
// whose range holds it, the first in DIE order among equals (ranges a
// crafted file makes overlap included). One sweep over each function's
// scope boundaries, keeping the scopes open there ordered so, finds it for
// every stretch between two boundaries at once.
void ScopeTree::findStretches(const std::vector<std::vector<uint32_t>>& byFunction) {
  stretches_.resize(byFunction.size());
  for (size_t f = 0; f < byFunction.size(); ++f) {
    struct Boundary {
      uint32_t at = 0;
      uint32_t scope = 0;
      bool opens = false;
    };
    std::vector<Boundary> boundaries;
    for (uint32_t s : byFunction[f]) {
      const Scope& scope = scopes_[s];
      if (scope.begin >= scope.end) continue;  // holds no instruction
      boundaries.push_back({scope.begin, s, true});
      boundaries.push_back({scope.end, s, false});
    }
    std::sort(boundaries.begin(), boundaries.end(), [](const Boundary& a, const Boundary& b) {
      work::step(work::scopeLookup);
      return a.at < b.at;
    });
    // Deepest first, then in DIE order.
    auto deeperFirst = [&](uint32_t a, uint32_t b) {
      work::step(work::scopeLookup);
      const uint32_t da = dwarf_.dies[scopes_[a].die].depth, db = dwarf_.dies[scopes_[b].die].depth;
      return da != db ? da > db : a < b;
    };
    std::set<uint32_t, decltype(deeperFirst)> open(deeperFirst);
    std::vector<Stretch>& stretches = stretches_[f];
    for (size_t i = 0; i < boundaries.size();) {
      const uint32_t at = boundaries[i].at;
      for (; i < boundaries.size() && boundaries[i].at == at; ++i) {
        if (boundaries[i].opens) open.insert(boundaries[i].scope);
        else open.erase(boundaries[i].scope);
      }
      const uint32_t innermost = open.empty() ? kNoScope : *open.begin();
      if (stretches.empty() || stretches.back().innermost != innermost) stretches.push_back({at, innermost});
    }
  }
}

int32_t ScopeTree::functionAt(uint32_t instruction) const {
  const auto& fs = module_.functions;
  auto it = std::upper_bound(fs.begin(), fs.end(), instruction,
                             [](uint32_t i, const ptx::Function& f) { return i < f.firstInstruction; });
  while (it != fs.begin()) {
    --it;
    if (instruction >= it->firstInstruction && instruction < it->endInstruction)
      return static_cast<int32_t>(it - fs.begin());
    if (it->endInstruction > it->firstInstruction) break;  // a function with code ends the search
  }
  return -1;
}

std::vector<uint32_t> ScopeTree::chainAt(uint32_t instruction) const {
  const int32_t f = functionAt(instruction);
  if (f < 0) return {};
  // The stretch holding the instruction names the deepest scope containing
  // it; its ancestors contain it too.
  const std::vector<Stretch>& stretches = stretches_[static_cast<size_t>(f)];
  auto after = std::upper_bound(stretches.begin(), stretches.end(), instruction, [](uint32_t i, const Stretch& s) {
    work::step(work::scopeLookup);
    return i < s.begin;
  });
  const uint32_t innermost = after == stretches.begin() ? kNoScope : (after - 1)->innermost;
  std::vector<uint32_t> chain;
  for (uint32_t s = innermost; s != kNoScope; s = scopes_[s].parent) chain.push_back(s);
  return chain;
}

}  // namespace ptxdwarf::view
