// Rules about references: between DIEs (inside the unit, on a DIE's start,
// DW_AT_type on a type, DW_AT_sibling right) and from one location list into
// another.
#include <algorithm>
#include <span>
#include <vector>

#include "checker.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "../work.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

bool isTypeTag(uint16_t tag) {
  switch (tag) {
    case DW_TAG_array_type: case DW_TAG_class_type: case DW_TAG_enumeration_type: case DW_TAG_pointer_type:
    case DW_TAG_reference_type: case DW_TAG_string_type: case DW_TAG_structure_type: case DW_TAG_subroutine_type:
    case DW_TAG_typedef: case DW_TAG_union_type: case DW_TAG_ptr_to_member_type: case DW_TAG_set_type:
    case DW_TAG_subrange_type: case DW_TAG_base_type: case DW_TAG_const_type: case DW_TAG_file_type:
    case DW_TAG_packed_type: case DW_TAG_volatile_type: case DW_TAG_restrict_type: case DW_TAG_interface_type:
    case DW_TAG_unspecified_type: case DW_TAG_shared_type: case DW_TAG_rvalue_reference_type:
      return true;
    default:
      return false;
  }
}

// For each DIE, the offset of the first entry after it and all of its
// children (where DW_AT_sibling must point): one pass with a stack of the
// open DIEs, instead of a scan of each subtree (quadratic in deep trees).
// 32 bits: decodeInfo takes no .debug_info past 4 GiB.
std::vector<uint32_t> nextSiblingOffsets(const read::Dwarf& dwarf) {
  std::vector<uint32_t> next(dwarf.dies.size());
  for (const read::Unit& u : dwarf.units) {
    const size_t first = u.firstDie, last = u.firstDie + u.dieCount;
    std::vector<size_t> open;  // DIEs whose children are not closed yet
    auto offsetOf = [&](size_t at) { return at < last ? dwarf.dies[at].offset : static_cast<uint32_t>(u.end); };
    auto closeAt = [&](size_t at) {  // `at`: index of the entry after the subtree
      work::step(work::siblingScan);
      next[open.back()] = offsetOf(at);
      open.pop_back();
    };
    for (size_t k = first; k < last; ++k) {
      work::step(work::siblingScan);
      const read::Die& die = dwarf.dies[k];
      if (die.isNull()) {
        // The NULL at depth+1 closes its parent's children; what follows is the sibling.
        while (!open.empty() && dwarf.dies[open.back()].depth + 1 > die.depth) closeAt(k);  // malformed depth
        if (!open.empty() && dwarf.dies[open.back()].depth + 1 == die.depth) closeAt(k + 1);
        next[k] = offsetOf(k + 1);
        continue;
      }
      while (!open.empty() && dwarf.dies[open.back()].depth >= die.depth) closeAt(k);
      if (die.hasChildren) {
        open.push_back(k);
      } else {
        next[k] = offsetOf(k + 1);
      }
    }
    while (!open.empty()) closeAt(last);  // subtrees the unit's end closes
  }
  return next;
}

}  // namespace

void Checker::references() {
  std::vector<uint32_t> siblingOffsets;  // made at the first DW_AT_sibling (nvcc and clang write none)
  for (const read::Die& die : dwarf_.dies) {
    if (die.isNull()) continue;
    const read::Unit& u = dwarf_.unitOf(die);
    const read::AttrRange attrs = dwarf_.attributes(die);
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      if (!dw::isReferenceForm(it.declaredForm()) && it.declaredForm() != DW_FORM_indirect) continue;
      const read::AttrValue v = *it;
      if (!v.isReference()) continue;
      bool unitRelative = v.form != DW_FORM_ref_addr;
      // A symbolic reference (`.b64 .debug_info+311`: LLVM's ref_addr
      // into another unit) is the offset ptxas fills in; one that names
      // no place in .debug_info cannot be followed.
      const std::optional<uint64_t> at = dwarf_.referenceTarget(v);
      if (!at) {
        error(dwarf_.info, v.offset, "ref-target",
              std::string(attributeName(v.name)) + " is '" + v.reloc->expression() +
                  "', not an offset into .debug_info", &die);
        continue;
      }
      const uint64_t targetOffset = *at;
      if (unitRelative && (targetOffset < u.offset || targetOffset >= u.end)) {
        error(dwarf_.info, v.offset, "ref-target",
              std::string(attributeName(v.name)) + " refers to " + hex(targetOffset, 8) + ", outside its unit (" +
                  hex(u.offset, 8) + "-" + hex(u.end, 8) + ")", &die);
        continue;
      }
      const read::Die* target = dwarf_.dieAt(targetOffset);
      if (!target) {
        const read::Die* inside = dieContaining(targetOffset);
        error(dwarf_.info, v.offset, "ref-target",
              std::string(attributeName(v.name)) + " refers to " + hex(targetOffset, 8) + ", which is not the start of a DIE" +
                  (inside ? " (it is inside " + describe(*inside) + ")" : ""), &die);
        continue;
      }
      if (v.name == DW_AT_type && !isTypeTag(target->tag))
        error(dwarf_.info, v.offset, "type-target",
              "DW_AT_type refers to " + describe(*target) + ", which is not a type", &die);
      if (v.name == DW_AT_sibling) {
        if (siblingOffsets.empty()) siblingOffsets = nextSiblingOffsets(dwarf_);
        const uint64_t expected = siblingOffsets[static_cast<size_t>(&die - dwarf_.dies.data())];
        if (targetOffset != expected)
          error(dwarf_.info, v.offset, "sibling",
                "DW_AT_sibling is " + hex(targetOffset, 8) + " but the next sibling starts at " + hex(expected, 8), &die);
      }
    }
  }
}

// A list offset inside another list that is not one of its entries.
void Checker::locListOffsets() {
  for (size_t i = 1; i < dwarf_.locLists.size(); ++i) {
    const read::LocList& prev = dwarf_.locLists[i - 1];
    const read::LocList& cur = dwarf_.locLists[i];
    if (prev.entries.empty()) continue;
    const read::LocEntry last = prev.entries.back();
    uint64_t prevEnd = last.kind == read::LocEntry::range ? last.exprOffset + last.expr.size()
                                                         : last.offset + 2u * prev.addressSize;
    if (cur.offset >= prevEnd) continue;
    // Entries are in offset order: a binary search, not a scan (lists that
    // share a tail would make a scan quadratic).
    const std::span<const read::LocEntryRef> refs = prev.entries.refs();
    auto at = std::lower_bound(refs.begin(), refs.end(), cur.offset,
                               [](const read::LocEntryRef& e, uint64_t o) { return e.offset < o; });
    bool onEntry = at != refs.end() && at->offset == cur.offset;
    if (!onEntry)
      error(dwarf_.loc, cur.offset, "loclist-offset",
            "location-list offset " + hex(cur.offset, 8) + " lands inside the list at " + hex(prev.offset, 8));
  }
}

}  // namespace ptxdwarf::check
