#include "ptxdwarf/view/attributes.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "ptxdwarf/dwarf.h"
#include "../work.h"

namespace ptxdwarf::view {

using read::AttrValue;
using read::Die;
using read::Dwarf;

const Die* referencedDie(const Dwarf& dwarf, const Die& die, uint16_t attr) {
  std::optional<AttrValue> v = dwarf.attribute(die, attr);
  return v ? dwarf.referencedDie(*v) : nullptr;
}

std::optional<AttrValue> findRecursively(const Dwarf& dwarf, const Die& die, std::initializer_list<uint16_t> attrs) {
  // LLVM's worklist: a crafted file may make the chains cycle, so each DIE
  // once; and chain thousands of DIEs, so a bounded number of them (real
  // chains are two or three long: concrete -> abstract -> declaration). On
  // the stack: the statistics ask this of every variable several times
  // (two allocations a call were a seventh of their instructions).
  constexpr size_t kMaxChain = 64;
  std::array<const Die*, kMaxChain> work, seen;
  size_t working = 0, seenCount = 0;
  work[working++] = seen[seenCount++] = &die;
  while (working != 0) {
    const Die* d = work[--working];
    // One look at the DIE's attribute names: the first of `attrs`, in their
    // order, that it has answers; else its links are followed.
    const read::AttrRange range = dwarf.attributes(*d);
    size_t found = SIZE_MAX, rank = attrs.size();
    size_t abstractOrigin = SIZE_MAX, specification = SIZE_MAX;
    for (size_t i = 0; i < range.size(); ++i) {
      const uint16_t name = range.nameAt(i);
      const auto wanted = std::find(attrs.begin(), attrs.end(), name);
      if (wanted != attrs.end() && static_cast<size_t>(wanted - attrs.begin()) < rank) {
        rank = static_cast<size_t>(wanted - attrs.begin());
        found = i;
      }
      if (name == dw::DW_AT_abstract_origin && abstractOrigin == SIZE_MAX) abstractOrigin = i;
      if (name == dw::DW_AT_specification && specification == SIZE_MAX) specification = i;
    }
    if (found != SIZE_MAX) return range[found];
    for (const size_t link : {abstractOrigin, specification}) {
      if (link == SIZE_MAX) continue;
      const Die* t = dwarf.referencedDie(range[link]);
      if (t && seenCount < kMaxChain && std::find(seen.begin(), seen.begin() + seenCount, t) == seen.begin() + seenCount) {
        seen[seenCount++] = t;
        work[working++] = t;
      }
    }
  }
  return std::nullopt;
}

SubtreeEnds::SubtreeEnds(const Dwarf& dwarf) : ends_(dwarf.dies.size()) {
  // The DIEs whose subtree is still open, each deeper than the last: a DIE
  // closes every open one at its depth or deeper.
  // A DIE array holds fewer than 2^31 DIEs (a PTX file is at most 4 GiB,
  // a DIE at least a byte): the top bit of an end is free for kTemplated.
  std::vector<uint32_t> open;
  const auto count = static_cast<uint32_t>(dwarf.dies.size());
  for (uint32_t i = 0; i < count; ++i) {
    const read::Die& die = dwarf.dies[i];
    while (!open.empty() && dwarf.dies[open.back()].depth >= die.depth) {
      ends_[open.back()] |= i;
      open.pop_back();
    }
    const bool templateParameter = die.tag == dw::DW_TAG_template_type_parameter ||
                                   die.tag == dw::DW_TAG_template_value_parameter ||
                                   die.tag == dw::DW_TAG_GNU_template_parameter_pack ||
                                   die.tag == dw::DW_TAG_GNU_template_template_param;
    if (templateParameter && die.parent != read::kNone) ends_[die.parent] |= kTemplated;
    open.push_back(i);
  }
  for (uint32_t i : open) ends_[i] |= count;
}

std::string_view shortName(const Dwarf& dwarf, const Die& die) {
  std::optional<AttrValue> v = findRecursively(dwarf, die, {dw::DW_AT_name});
  return v && v->isString() ? v->string() : std::string_view();
}

std::string_view linkageOrShortName(const Dwarf& dwarf, const Die& die) {
  std::optional<AttrValue> v = findRecursively(dwarf, die, {dw::DW_AT_MIPS_linkage_name, dw::DW_AT_linkage_name});
  if (v && v->isString()) return v->string();
  return shortName(dwarf, die);
}

void forEachChild(const Dwarf& dwarf, const Die& die, const SubtreeEnds* ends,
                  const std::function<bool(const Die&)>& f) {
  if (!die.hasChildren) return;
  const size_t count = dwarf.dies.size();
  for (size_t i = static_cast<size_t>(&die - dwarf.dies.data()) + 1; i < count && dwarf.dies[i].depth > die.depth;) {
    work::step(work::siblingScan);
    const Die& c = dwarf.dies[i];
    if (c.depth == die.depth + 1 && !c.isNull() && !f(c)) return;
    i = ends ? ends->end(static_cast<uint32_t>(i)) : i + 1;
  }
}

}  // namespace ptxdwarf::view
