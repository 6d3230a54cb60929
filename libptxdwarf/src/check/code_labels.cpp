// Rules that hold the DWARF's symbols against the PTX: every symbolic operand
// names something the PTX defines, and subprograms and scopes name code
// labels of the function they describe, in order, without overlapping.
#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker.h"
#include "nearest_name.h"
#include "../reserve.h"
#include "ptxdwarf/dwarf.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

// " (the PTX defines '_Z3fooi')" when a function's name shares a long
// prefix with `name`: the first function of the longest.
std::string nearestFunction(const ptx::Module& module, std::string_view name,
                            std::optional<NearestName>& functionNames) {
  if (name.empty()) return "";
  if (!functionNames) {
    std::vector<std::string_view> names;
    names.reserve(module.functions.size());
    for (const ptx::Function& f : module.functions) names.push_back(f.name);
    functionNames.emplace(std::move(names));
  }
  const NearestName::Answer best = functionNames->nearest(name);
  if (best.index == SIZE_MAX || best.shared < 3 || best.shared * 2 < name.size()) return "";
  return " (the PTX defines '" + module.functions[best.index].name + "')";
}

}  // namespace

// Every symbolic operand of a debug section names a label, function,
// variable, parameter or section of the file (ptxas writes 0 for one that
// names nothing).
void Checker::symbols() {
  for (const SectionImage& s : module_.sections) {
    if (!s.name.starts_with(".debug")) continue;
    // A location list's entries chain their labels (one range ends where the
    // next begins), and the section keeps such a name once, as the characters
    // of the relocation before (SectionImage::keepShared): a name at the
    // address of one just found defined is that name, not looked up again.
    const char* defined[2] = {nullptr, nullptr};
    auto isDefined = [&](SymbolName name) {
      if (name.data() == defined[0] || name.data() == defined[1]) return true;
      if (!module_.definesSymbol(name)) return false;
      defined[1] = std::exchange(defined[0], name.data());
      return true;
    };
    for (const Relocation& r : s.relocations)
      for (const SymbolName name : {r.symbol, r.minus()})
        if (!name.empty() && !name.starts_with(".debug") && !isDefined(name))
          error(&s, r.offset, "symbol-defined", "'" + name.str() + "' is not defined in this PTX file");
  }
}

const std::vector<PcLabels::Entry>& Checker::pcLabels() const {
  PcLabels& pcs = run_.pcLabels;
  std::call_once(pcs.built, [&] {
    auto labelIndex = [this](const std::optional<read::AttrValue>& v) {
      const ptx::Label* l = v && v->reloc && !v->reloc->symbol.empty() ? module_.findLabel(v->reloc->symbol) : nullptr;
      return l ? static_cast<uint32_t>(l - module_.labels.data()) : PcLabels::kNoLabel;
    };
    reserveUpTo(pcs.entries, dwarf_.dies.size());  // filled in place, not copied as it doubles
    int32_t function = -1;  // the last label's: scopes come in PTX order, mostly
    for (uint32_t i = 0; i < dwarf_.dies.size(); ++i) {
      const read::Die& die = dwarf_.dies[i];
      if (die.isNull()) continue;
      const auto [lo, hi] = pcAttributes(die);
      const bool relocatedLow = lo && lo->reloc, relocatedHigh = hi && hi->reloc;
      if (!relocatedLow && !relocatedHigh) continue;
      PcLabels::Entry e{i, labelIndex(lo), labelIndex(hi), false, false, false, false};
      if (relocatedLow && relocatedHigh) {
        e.highIsAddress = hi->form == DW_FORM_addr;
        e.highAddendBelowLow = hi->reloc->addend() < lo->reloc->addend();
        e.addendsZero = lo->reloc->addend() == 0 && hi->reloc->addend() == 0;
      }
      if (e.low != PcLabels::kNoLabel && e.high != PcLabels::kNoLabel) {
        function = module_.functionOf(module_.labels[e.low], function);
        e.sameFunction = function >= 0 && module_.functionOf(module_.labels[e.high], function) == function;
      }
      pcs.entries.push_back(e);
    }
  });
  return pcs.entries;
}

// Labels are in file order, and code addresses follow it.
void Checker::pcRanges() {
  for (const PcLabels::Entry& pc : pcLabels()) {
    const ptx::Label *begin = label(pc.low), *end = label(pc.high);
    if (!pc.sameFunction || !pc.highIsAddress) continue;
    if (end < begin || (end == begin && pc.highAddendBelowLow)) {
      const read::Die& die = dwarf_.dies[pc.die];
      const auto [lo, hi] = pcAttributes(die);
      error(dwarf_.info, hi->offset, "pc-range",
            "DW_AT_high_pc " + hi->reloc->expression() + " (line " + std::to_string(end->line) +
                ") comes before DW_AT_low_pc " + lo->reloc->expression() + " (line " +
                std::to_string(begin->line) + ")", &die);
    }
  }
}

// Sibling scopes (lexical blocks, inlined subroutines, subprograms) whose
// [low_pc, high_pc) label ranges overlap in PTX order. nvcc -G writes such
// lexical blocks for CUB code (a block that starts inside its previous
// sibling); LLVM's verifier reports them as "DIEs have overlapping address
// ranges". A note: it is what the producer wrote, and cuda-gdb reads such
// scopes; only which of them a PC is in is ambiguous.
void Checker::scopeOverlaps() {
  // 16 bytes a scope: a large nvcc -G file has tens of thousands.
  struct Scope {
    uint32_t parent;      // index into Dwarf::dies
    uint32_t begin, end;  // label indices: PTX order
    uint32_t die;
  };
  const std::vector<PcLabels::Entry>& pcs = pcLabels();
  std::vector<Scope> scopes;
  scopes.reserve(pcs.size());
  for (const PcLabels::Entry& pc : pcs) {
    if (!pc.sameFunction || pc.high <= pc.low) continue;
    if (!pc.highIsAddress || !pc.addendsZero) continue;
    const read::Die& die = dwarf_.dies[pc.die];
    if (die.parent == read::kNone) continue;
    scopes.push_back({die.parent, pc.low, pc.high, pc.die});
  }
  std::stable_sort(scopes.begin(), scopes.end(), [](const Scope& a, const Scope& b) {
    return a.parent != b.parent ? a.parent < b.parent : a.begin < b.begin;
  });
  // In start order, each scope is compared with the sibling reaching furthest
  // among those that started before it.
  auto lines = [this](const Scope& s) {
    const ptx::Label &low = module_.labels[s.begin], &high = module_.labels[s.end];
    return "[" + low.name.str() + ", " + high.name.str() + ") (lines " + std::to_string(low.line) + "-" +
           std::to_string(high.line) + ")";
  };
  const Scope* widest = nullptr;
  for (size_t i = 0; i < scopes.size(); ++i) {
    const Scope& cur = scopes[i];
    if (i == 0 || cur.parent != scopes[i - 1].parent) widest = nullptr;
    if (widest && cur.begin < widest->end) {
      const read::Die& die = dwarf_.dies[cur.die];
      std::optional<read::AttrValue> lo = dwarf_.attribute(die, DW_AT_low_pc);
      report(Severity::note, dwarf_.info, lo->offset, "scope-overlap",
             lines(cur) + " starts inside its sibling " + describe(dwarf_.dies[widest->die]) + " " + lines(*widest) +
                 "; LLVM's verifier reports \"DIEs have overlapping address ranges\"",
             &die);
    }
    if (!widest || cur.end > widest->end) widest = &cur;
  }
}

void Checker::subprograms() {
  const std::vector<PcLabels::Entry>& pcs = pcLabels();
  auto pc = pcs.begin();  // the entries are in DIE order, as this walk
  std::optional<NearestName> functionNames;  // made at the first name that matches none
  for (uint32_t dieIndex = 0; dieIndex < dwarf_.dies.size(); ++dieIndex) {
    const read::Die& die = dwarf_.dies[dieIndex];
    if (die.tag != DW_TAG_subprogram) continue;
    std::optional<read::AttrValue> lo = dwarf_.attribute(die, DW_AT_low_pc);
    if (!lo) continue;  // declarations and abstract instances name no PTX code
    std::optional<read::AttrValue> from;
    std::string_view name = ptxName(die, &from);
    const ptx::Function* f = module_.findFunction(name);
    if (!f) {
      warning(dwarf_.info, from ? from->offset : die.offset, "linkage-name",
              (name.empty() ? std::string("subprogram has no linkage name or name")
                            : "linkage name '" + std::string(name) + "' names no PTX function") +
                  "; cuda-gdb looks registers up by it" + nearestFunction(module_, name, functionNames), &die);
      continue;
    }
    while (pc != pcs.end() && pc->die < dieIndex) ++pc;
    if (pc == pcs.end() || pc->die != dieIndex) continue;  // neither pc is relocated
    const std::pair<std::optional<read::AttrValue>, const ptx::Label*> pcLabelPairs[] = {
        {lo, label(pc->low)}, {dwarf_.attribute(die, DW_AT_high_pc), label(pc->high)}};
    for (const auto& [value, l] : pcLabelPairs) {
      if (!l) continue;  // not relocated, or symbol-defined reports it
      const int32_t fi = static_cast<int32_t>(f - module_.functions.data());
      const int32_t holder = module_.functionOf(*l, fi);
      if (holder != fi)
        error(dwarf_.info, value->offset, "subprogram-pc",
              std::string(attributeName(value->name)) + " label " + l->name.str() + " is " +
                  (holder < 0 ? std::string("outside every function")
                              : "in " + module_.functions[static_cast<size_t>(holder)].name) +
                  ", not in " + f->name, &die);
    }
  }
}

}  // namespace ptxdwarf::check
