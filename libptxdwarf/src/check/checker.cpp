#include "checker.h"

#include <algorithm>
#include <cstdio>

#include "cubin_checker.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "../work.h"

namespace ptxdwarf::check {

using namespace dw;

Diagnostic& Checker::report(Severity sev, const SectionImage* section, uint64_t offset, std::string_view rule,
                            std::string message, const read::Die* die) {
  if (!die && section == dwarf_.info) die = dieContaining(offset);
  if (die) message += " (in " + describe(*die) + ")";
  Diagnostic& diag = out_.items.emplace_back();
  diag.severity = sev;
  diag.loc = section ? section->locate(offset) : SourceLoc{};
  diag.message = std::move(message);
  diag.rule = std::string(rule);
  if (section) {
    diag.section = section->name;
    diag.offset = static_cast<int64_t>(offset);
  }
  return diag;
}

std::string Checker::describe(const read::Die& die) const {
  std::string s(tagName(die.tag));
  if (s.empty()) s = "tag " + hex(die.tag, 8);
  std::string_view n = dwarf_.name(die);
  if (!n.empty()) s += " '" + escaped(n) + "'";
  return s + " at " + hex(die.offset, 8);
}

const read::Die* Checker::dieContaining(uint64_t offset) const {
  auto it = std::upper_bound(dwarf_.dies.begin(), dwarf_.dies.end(), offset,
                             [](uint64_t o, const read::Die& die) { return o < die.offset; });
  while (it != dwarf_.dies.begin()) {
    --it;
    if (!it->isNull()) return &*it;
  }
  return nullptr;
}

std::string_view Checker::ptxName(const read::Die& die, std::optional<read::AttrValue>* attr) const {
  return subprogramCodeName(dwarf_, die, attr);
}

std::string_view subprogramCodeName(const read::Dwarf& dwarf, const read::Die& die,
                                    std::optional<read::AttrValue>* attr) {
  std::optional<read::AttrValue> plainName;
  bool ownName = false;
  const read::Die* d = &die;
  for (int hop = 0; d && hop < 4; ++hop) {
    for (uint16_t at : {uint16_t(DW_AT_linkage_name), uint16_t(DW_AT_MIPS_linkage_name)}) {
      if (std::optional<read::AttrValue> v = dwarf.attribute(*d, at); v && v->isString()) {
        if (attr && d == &die) *attr = v;
        return v->string();
      }
    }
    if (std::optional<read::AttrValue> n = dwarf.attribute(*d, DW_AT_name); !plainName && n && n->isString()) {
      plainName = n;
      ownName = d == &die;
    }
    std::optional<read::AttrValue> next = dwarf.attribute(*d, DW_AT_specification);
    if (!next) next = dwarf.attribute(*d, DW_AT_abstract_origin);
    d = next && next->isReference() ? dwarf.dieAt(next->value) : nullptr;
  }
  if (attr && ownName) *attr = plainName;
  return plainName ? plainName->string() : std::string_view{};
}

const ptx::Function* Checker::enclosingFunction(const read::Die& die) const {
  const read::Die* p = enclosingSubprogram(die);
  if (!p) return nullptr;
  // Rules visit DIEs in order, so most asks are about the last subprogram.
  if (p != lastSubprogram_) {
    lastSubprogram_ = p;
    lastFunction_ = functionOf(*p);
  }
  return lastFunction_;
}

// The nearest subprogram among the DIE and its ancestors: a short walk up.
// A long one (a DIE under many nested blocks) goes on through
// rememberedSubprogram, so that no DIE is walked past twice: asking about
// each of n variables under n nested blocks walked O(n^2) DIEs.
const read::Die* Checker::enclosingSubprogram(const read::Die& die) const {
  if (die.tag == DW_TAG_subprogram) return &die;
  // A scope's variables are siblings, asked about one after another.
  if (die.parent == lastParent_) return lastParentAnswer_;
  lastParent_ = die.parent;
  const read::Die* p = dwarf_.parentOf(die);
  for (unsigned steps = 0; p && steps < kShortWalk; ++steps, p = dwarf_.parentOf(*p))
    if (p->tag == DW_TAG_subprogram) return lastParentAnswer_ = p;
  if (!p) return lastParentAnswer_ = nullptr;
  work::step(work::enclosingWalk, kShortWalk);  // the long walks are the ones that count
  return lastParentAnswer_ = rememberedSubprogram(*p);
}

// Walks up from `die` to a DIE whose answer is known, a subprogram or the
// root, and records the answer for every DIE it passed.
const read::Die* Checker::rememberedSubprogram(const read::Die& die) const {
  if (enclosing_.empty()) enclosing_.assign(dwarf_.dies.size(), kNotWalked);
  uint32_t i = static_cast<uint32_t>(&die - dwarf_.dies.data()), answer = read::kNone;
  walked_.clear();
  for (;;) {
    work::step(work::enclosingWalk);
    if (enclosing_[i] != kNotWalked) {
      answer = enclosing_[i];
      break;
    }
    const read::Die& d = dwarf_.dies[i];
    if (d.tag == DW_TAG_subprogram) {
      answer = i;
      break;
    }
    walked_.push_back(i);
    if (d.parent == read::kNone) break;
    i = d.parent;
  }
  for (uint32_t k : walked_) enclosing_[k] = answer;
  return answer == read::kNone ? nullptr : &dwarf_.dies[answer];
}

const ptx::Function* Checker::functionOf(const read::Die& subprogram) const {
  if (const ptx::Function* f = module_.findFunction(ptxName(subprogram))) return f;
  std::optional<read::AttrValue> lo = dwarf_.attribute(subprogram, DW_AT_low_pc);
  const ptx::Label* l = lo && lo->reloc ? module_.findLabel(lo->reloc->symbol) : nullptr;
  const int32_t function = l ? module_.functionOf(*l) : -1;
  return function >= 0 ? &module_.functions[static_cast<size_t>(function)] : nullptr;
}

std::pair<std::optional<read::AttrValue>, std::optional<read::AttrValue>> Checker::pcAttributes(
    const read::Die& die) const {
  std::optional<read::AttrValue> lo, hi;
  const read::AttrRange attrs = dwarf_.attributes(die);
  bool any = false;
  for (size_t i = 0; i < attrs.size() && !any; ++i)
    any = attrs.nameAt(i) == DW_AT_low_pc || attrs.nameAt(i) == DW_AT_high_pc;
  if (!any) return {};
  for (auto it = attrs.begin(); it != attrs.end() && !(lo && hi); ++it) {
    if (it.name() == DW_AT_low_pc && !lo) lo = *it;
    else if (it.name() == DW_AT_high_pc && !hi) hi = *it;
  }
  return {lo, hi};
}

}  // namespace ptxdwarf::check
