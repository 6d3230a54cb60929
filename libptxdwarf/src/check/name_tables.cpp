// Rules about the name tables: a .debug_pubnames or .debug_aranges set names
// a unit and its length, and each entry a DIE of that unit by its name or
// low/high pc labels.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "checker.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "../work.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

// For each DIE, its nearest ancestor below the unit's root that has a
// DW_AT_name (kNone when none): one pass, parents come before children.
std::vector<uint32_t> namedScopes(const read::Dwarf& dwarf) {
  std::vector<uint32_t> scope(dwarf.dies.size(), read::kNone);
  for (size_t i = 0; i < dwarf.dies.size(); ++i) {
    const read::Die* p = dwarf.parentOf(dwarf.dies[i]);
    if (!p || p->depth == 0) continue;
    const auto pi = static_cast<size_t>(p - dwarf.dies.data());
    scope[i] = dwarf.name(*p).empty() ? scope[pi] : static_cast<uint32_t>(pi);
  }
  return scope;
}

// Is `want` "outer::inner::name", the named scopes around `die` and its
// name? (nvcc names function-scope statics `kernel::var` in
// .debug_pubnames.) Matched from the end without building the name: each
// scope visited consumes its name from `want`, so an entry costs at most its
// own length, however deep the scopes.
bool isQualifiedName(const read::Dwarf& dwarf, const read::Die& die, std::string_view want,
                     const std::vector<uint32_t>& scopes) {
  std::string_view name = dwarf.name(die);
  if (!want.ends_with(name)) return false;
  want.remove_suffix(name.size());
  for (uint32_t p = scopes[static_cast<size_t>(&die - dwarf.dies.data())]; p != read::kNone; p = scopes[p]) {
    work::step(work::qualifiedName);
    std::string_view scope = dwarf.name(dwarf.dies[p]);
    if (!want.ends_with("::") || want.size() < scope.size() + 2) return false;
    want.remove_suffix(2);
    if (!want.ends_with(scope)) return false;
    want.remove_suffix(scope.size());
  }
  return want.empty();
}

// The unit starting at `offset`: a binary search (units are in section
// order), so that many sets naming many units stay n log n.
const read::Unit* unitAt(const read::Dwarf& dwarf, uint64_t offset) {
  auto it = std::lower_bound(dwarf.units.begin(), dwarf.units.end(), offset, [](const read::Unit& u, uint64_t o) {
    work::step(work::unitLookup);
    return u.offset < o;
  });
  return it != dwarf.units.end() && it->offset == offset ? &*it : nullptr;
}

// The (low_pc, high_pc) label pairs of the unit's DIEs, sorted.
std::vector<std::pair<std::string_view, std::string_view>> labelPairs(const read::Dwarf& dwarf, const read::Unit& u) {
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
  for (uint32_t i = 0; i < u.dieCount; ++i) {
    work::step(work::arangeMatch);
    const read::Die& die = dwarf.dies[u.firstDie + i];
    if (die.isNull()) continue;
    std::optional<read::AttrValue> lo = dwarf.attribute(die, DW_AT_low_pc);
    std::optional<read::AttrValue> hi = dwarf.attribute(die, DW_AT_high_pc);
    if (lo && hi && lo->reloc && hi->reloc) pairs.emplace_back(lo->reloc->symbol, hi->reloc->symbol);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

void Checker::pubnames() {
  std::optional<std::vector<uint32_t>> scopes;  // made for the first entry that needs its scopes' names
  for (const read::NameSet& s : dwarf_.pubnameSets) {
    const read::Unit* u = unitAt(dwarf_, s.infoOffset);
    if (!u) {
      error(dwarf_.pubnames, s.offset + 6, "pubnames-header",
            "pubnames set names .debug_info offset " + hex(s.infoOffset, 8) + ", where no unit starts");
      continue;
    }
    if (s.infoLength == u->length) {
      report(Severity::note, dwarf_.pubnames, s.offset + 10, "pubnames-header",
             "debug_info_length " + std::to_string(s.infoLength) +
                 " is the unit_length field (the Chapter 6 convention; DWARF says the unit's size, " +
                 std::to_string(u->length + 4) + ")");
    } else if (s.infoLength != u->length + 4) {
      error(dwarf_.pubnames, s.offset + 10, "pubnames-header",
            "debug_info_length " + std::to_string(s.infoLength) + " matches neither the unit's size (" +
                std::to_string(u->length + 4) + ") nor its unit_length field (" + std::to_string(u->length) + ")");
    }
    uint64_t end = s.entries.empty() ? s.offset + 14 : s.entries.back().offset + 4 + s.entries.back().name.size() + 1;
    uint64_t actual = end + 4 - s.offset - 4;
    if (s.length != actual)
      error(dwarf_.pubnames, s.offset, "pubnames-header",
            "set length " + std::to_string(s.length) + " does not match its contents (" + std::to_string(actual) +
                " bytes up to and including the 0 terminator)");
    for (const read::NameEntry& e : s.entries) {
      const read::Die* die = dwarf_.dieAt(u->offset + e.dieOffset);
      if (!die || &dwarf_.unitOf(*die) != u) {
        error(dwarf_.pubnames, e.offset, "pubnames-entry",
              "entry '" + escaped(e.name) + "' names offset " + std::to_string(e.dieOffset) +
                  ", which is not the start of a DIE of the unit");
      } else if (dwarf_.name(*die) != e.name && dwarf_.linkageName(*die) != e.name &&
                 !isQualifiedName(dwarf_, *die, e.name, scopes ? *scopes : scopes.emplace(namedScopes(dwarf_)))) {
        error(dwarf_.pubnames, e.offset, "pubnames-entry",
              "entry '" + escaped(e.name) + "' names " + describe(*die) + ", whose name is not '" +
                  escaped(e.name) + "'");
      }
    }
  }
}

void Checker::aranges() {
  // Per unit, its DIEs' (low_pc, high_pc) label pairs, sorted: built once
  // for each unit a set names, then each range is a binary search (a scan
  // of the unit's DIEs per range was ranges x DIEs).
  std::map<const read::Unit*, std::vector<std::pair<std::string_view, std::string_view>>> pcPairs;
  for (const read::ArangeSet& s : dwarf_.arangeSets) {
    const read::Unit* u = unitAt(dwarf_, s.infoOffset);
    if (!u) {
      error(dwarf_.aranges, s.offset + 6, "aranges-header",
            "aranges set names .debug_info offset " + hex(s.infoOffset, 8) + ", where no unit starts");
      continue;
    }
    for (const read::Range& r : s.ranges) {
      if (!r.addressReloc) continue;  // numeric ranges: nothing to match against
      std::string_view begin = r.addressReloc->symbol;
      std::string_view end = r.lengthReloc && r.lengthReloc->isDifference() && r.lengthReloc->minus() == begin
                                 ? r.lengthReloc->symbol
                                 : std::string_view();
      if (end.empty()) {
        error(dwarf_.aranges, r.offset + s.addressSize, "aranges-range",
              "range starting at " + std::string(begin) + " has no `end-" + std::string(begin) + "` length");
        continue;
      }
      auto [it, added] = pcPairs.try_emplace(u);
      if (added) it->second = labelPairs(dwarf_, *u);
      work::step(work::arangeMatch);
      if (!std::binary_search(it->second.begin(), it->second.end(), std::pair(begin, end)))
        error(dwarf_.aranges, r.offset, "aranges-range",
              "range " + std::string(begin) + ".." + std::string(end) +
                  " is not the low/high pc of any DIE of the unit at " + hex(u->offset, 8));
    }
  }
}

}  // namespace ptxdwarf::check
