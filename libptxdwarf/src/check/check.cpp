// The rules of `ptxdump check`. Each rule is one function over the decoded
// model and the PTX module; all report through Checker::report so that every
// diagnostic names the PTX line, the section offset and the DIE.
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/check/sources.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <cstdio>
#include <iterator>
#include <unordered_set>
#include <vector>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/leb128.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/work.h"
#include "ptxdwarf/write/reencode.h"
#include "../parallel.h"
#include "../reserve.h"
#include "lines.h"
#include "nearest_name.h"
#include "operands.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

constexpr RuleInfo kRules[] = {
    {"unit-header", "unit headers are complete; address size 4 or 8"},
    {"unit-length", "each unit's length stays inside .debug_info"},
    {"unit-version", "DWARF version 2, 3 or 4"},
    {"unit-address-size", "unit address size equals the PTX .address_size"},
    {"abbrev-offset", "a unit's abbreviation offset names a table inside .debug_abbrev"},
    {"abbrev-code", "every DIE's abbreviation code is defined"},
    {"abbrev-terminated", "abbreviation tables end with a 0 code"},
    {"abbrev", "abbreviations are well formed (children flag, no duplicate codes)"},
    {"children-terminated", "children lists end with a NULL entry inside the unit"},
    {"form", "forms are known"},
    {"form-version", "forms exist in the unit's DWARF version"},
    {"ptxas-form", "forms ptxas reads (DWARF 4's sec_offset, exprloc and ref_sig8 stop it; ref_addr in DWARF 3/4)"},
    {"block-bounds", "block lengths stay inside the unit"},
    {"string-bounds", "strings are NUL-terminated inside the unit"},
    {"unit-bounds", "attribute values stay inside the unit"},
    {"leb128", "LEB128 values are at most 10 bytes and inside the section"},
    {"ref-target", "references land on the start of a DIE (inside the unit for unit-relative forms)"},
    {"type-target", "DW_AT_type names a type DIE"},
    {"sibling", "DW_AT_sibling names the DIE after the subtree"},
    {"loclist-offset", "location-list offsets land on a list inside .debug_loc"},
    {"loclist-bounds", "location lists end inside .debug_loc"},
    {"expression", "location expressions decode completely"},
    {"pubnames-header", "a pubnames set names a unit and its length (either convention)"},
    {"pubnames-entry", "each pubnames entry is a DIE with that name or linkage name"},
    {"pubnames-bounds", "pubnames sets end inside the section"},
    {"aranges-header", "an aranges set names a unit"},
    {"aranges-range", "aranges ranges are label pairs of a DIE of that unit"},
    {"aranges-bounds", "aranges sets end inside the section"},
    {"symbol-defined", "every symbolic operand names a label, function, variable, parameter or section"},
    {"address-class",
     "DW_AT_address_class matches the PTX state space of the location (2 register, 4 .const, 5 .global, 6 .local, "
     "7 .param, 8 .shared; 12 generic on a .global is a note)"},
    {"register-name", "DW_OP_regx/bregx names are packed PTX registers the function declares"},
    {"decl-file", "DW_AT_decl_file/call_file N has a .file N"},
    {"subprogram-pc", "a subprogram's low/high pc labels lie in the PTX function it names"},
    {"pc-range", "a DIE's high_pc label does not come before its low_pc label"},
    {"scope-overlap", "sibling scopes' low/high pc label ranges do not overlap (nvcc -G writes some that do)"},
    {"linkage-name", "a subprogram's linkage name names a PTX function (cuda-gdb finds registers by it)"},
    {"stmt-list", "DW_AT_stmt_list refers to .debug_line"},
    {"section-label-version", "labels inside a section need .version 7.0 or later"},
    {"label-difference-version", "A-B operands and negative numbers need .version 7.5 or later"},
    {"label-difference-labels", "A-B names two labels defined inside debug sections (ptxas rejects code labels)"},
    {"split-section", "a section is written in one block (ptxas overlays repeated blocks)"},
    {"wide-constant", "a non-negative .b32/.b64 constant fits 32 bits (ptxas 13 keeps only the low 32)"},
    {"string-offset", "DW_FORM_strp names a NUL-terminated string inside .debug_str"},
    {"section-operand", "a .debug_x+N operand names a section of the file, N inside it and not negative"},
    {"type-cycle", "DW_AT_type chains do not loop (a pointer to itself, a typedef loop, an array of itself)"},
    {"section-label", "a label inside a section is defined once and not named like a function or variable"},
    {"round-trip", "decoding and re-encoding reproduces every byte and relocation"},
    {"file-duplicate", "each .file index is given once (ptxas rejects a repeated index)"},
    {"loc-file", "a .loc or inlined_at names a file index that has a .file"},
    {"loc-scope", ".loc stands inside a function body"},
    {"loc-function-name", "a function_name label starts a NUL-terminated string in .debug_str"},
    {"loc-inlined-at", "an inlined_at location is one an earlier .loc used (the inline stack resolves)"},
    {"loc-version", "function_name/inlined_at need .version 7.2 (ptxas 13: 7.0)"},
    {"subprogram-lines", "a subprogram's PTX function has .loc directives (a debugger can step it)"},
    {"inline-call-site", "a DW_TAG_inlined_subroutine's call site is an inlined_at of the line table"},
    {"source-file", "--sources: .file, DW_AT_decl_file, DW_AT_name and DW_AT_comp_dir paths open as a debugger opens them"},
};

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v));
  return buf;
}

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

bool isVersion4Form(uint16_t form) {
  return form == DW_FORM_sec_offset || form == DW_FORM_exprloc || form == DW_FORM_flag_present ||
         form == DW_FORM_ref_sig8;
}

// The code labels that DIEs' DW_AT_low_pc and DW_AT_high_pc relocations
// name, looked up once for the three rules that hold scopes against the PTX
// (subprograms, pcRanges, scopeOverlaps): in a large file each lookup is a
// few cache misses in the name index. Built by the first rule that asks,
// while the others run.
struct PcLabels {
  struct Entry {
    uint32_t die;  // index into Dwarf::dies
    // What the range rules ask of the two values, kept here so that they read
    // neither again (in the padding: 16 bytes an entry). Meaningful when
    // both are relocated.
    bool highIsAddress;       // DW_AT_high_pc is DW_FORM_addr (not an offset from low_pc)
    bool highAddendBelowLow;  // high_pc's addend is less than low_pc's
    bool addendsZero;         // both name their labels with no addend
    bool sameFunction;        // both labels found, in one function's body
    // Into Module::labels (Checker::label); kNoLabel: no relocated low_pc,
    // or no label of its name. While the entries are built: the index of the
    // value's relocation in .debug_info, or kNoLabel.
    uint32_t low, high;
  };
  static constexpr uint32_t kNoLabel = UINT32_MAX;
  static_assert(sizeof(Entry) == 16);
  std::vector<Entry> entries;  // the DIEs with a relocated low_pc or high_pc, in DIE order
  std::once_flag built;
};

class Checker {
 public:
  Checker(const ptx::Module& m, const read::Dwarf& d, Diagnostics& out, PcLabels& pcLabels)
      : m_(m), d_(d), out_(out), pcLabels_(pcLabels) {}

  // Decodes nothing and builds the preserve-mode images again: run last, and
  // only on DWARF the rules found no error in.
  void roundTrip();

 private:
  // ---- reporting -----------------------------------------------------------
  Diagnostic& report(Severity sev, const SectionImage* section, uint64_t offset, std::string_view rule,
                     std::string message, const read::Die* die = nullptr) {
    if (!die && section == d_.info) die = dieContaining(offset);
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
  void error(const SectionImage* s, uint64_t off, std::string_view rule, std::string msg,
             const read::Die* die = nullptr) {
    report(Severity::error, s, off, rule, std::move(msg), die);
  }
  void warning(const SectionImage* s, uint64_t off, std::string_view rule, std::string msg,
               const read::Die* die = nullptr) {
    report(Severity::warning, s, off, rule, std::move(msg), die);
  }

  std::string describe(const read::Die& die) const {
    std::string s(tagName(die.tag));
    if (s.empty()) s = "tag " + hex(die.tag);
    std::string_view n = d_.name(die);
    if (!n.empty()) s += " '" + printable(n) + "'";
    return s + " at " + hex(die.offset);
  }

  // DWARF strings are bytes; a diagnostic is one line of text.
  // A name quoted in a message: spelled as every output spells names (ptxdwarf/format.h).
  static std::string printable(std::string_view s) { return escaped(s); }

  const read::Die* dieContaining(uint64_t offset) const {
    auto it = std::upper_bound(d_.dies.begin(), d_.dies.end(), offset,
                               [](uint64_t o, const read::Die& die) { return o < die.offset; });
    while (it != d_.dies.begin()) {
      --it;
      if (!it->isNull()) return &*it;
    }
    return nullptr;
  }

  // The name a subprogram's code goes by in PTX: its linkage name, else that
  // of the declaration or abstract instance it completes (clang writes
  // definitions as DW_AT_specification of an in-class declaration), else the
  // first DW_AT_name along the same chain (LLVM's concrete out-of-line instance
  // of an inlined kernel, as Triton writes it, names itself only through
  // DW_AT_abstract_origin). `attr` receives the attribute the name came from.
  std::string_view ptxName(const read::Die& die, std::optional<read::AttrValue>* attr = nullptr) const {
    std::optional<read::AttrValue> plainName;
    bool ownName = false;
    const read::Die* d = &die;
    for (int hop = 0; d && hop < 4; ++hop) {
      for (uint16_t at : {uint16_t(DW_AT_linkage_name), uint16_t(DW_AT_MIPS_linkage_name)}) {
        if (std::optional<read::AttrValue> v = d_.attribute(*d, at); v && v->isString()) {
          if (attr && d == &die) *attr = v;
          return v->string();
        }
      }
      if (std::optional<read::AttrValue> n = d_.attribute(*d, DW_AT_name); !plainName && n && n->isString()) {
        plainName = n;
        ownName = d == &die;
      }
      std::optional<read::AttrValue> next = d_.attribute(*d, DW_AT_specification);
      if (!next) next = d_.attribute(*d, DW_AT_abstract_origin);
      d = next && next->isReference() ? d_.dieAt(next->value) : nullptr;
    }
    if (attr && ownName) *attr = plainName;
    return plainName ? plainName->string() : std::string_view{};
  }

  // The PTX function a DIE belongs to: its enclosing subprogram's name, looked
  // up among the module's functions.
  // When the name finds nothing (the linkage-name rule reports that), the
  // function holding the subprogram's low_pc label is the one it describes.
  const ptx::Function* enclosingFunction(const read::Die& die) const {
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
  const read::Die* enclosingSubprogram(const read::Die& die) const {
    if (die.tag == DW_TAG_subprogram) return &die;
    // A scope's variables are siblings, asked about one after another.
    if (die.parent == lastParent_) return lastParentAnswer_;
    lastParent_ = die.parent;
    const read::Die* p = d_.parentOf(die);
    for (unsigned steps = 0; p && steps < kShortWalk; ++steps, p = d_.parentOf(*p))
      if (p->tag == DW_TAG_subprogram) return lastParentAnswer_ = p;
    if (!p) return lastParentAnswer_ = nullptr;
    work::step(work::enclosingWalk, kShortWalk);  // the long walks are the ones that count
    return lastParentAnswer_ = rememberedSubprogram(*p);
  }

  // Walks up from `die` to a DIE whose answer is known, a subprogram or the
  // root, and records the answer for every DIE it passed.
  const read::Die* rememberedSubprogram(const read::Die& die) const {
    if (enclosing_.empty()) enclosing_.assign(d_.dies.size(), kNotWalked);
    uint32_t i = static_cast<uint32_t>(&die - d_.dies.data()), answer = read::kNone;
    walked_.clear();
    for (;;) {
      work::step(work::enclosingWalk);
      if (enclosing_[i] != kNotWalked) {
        answer = enclosing_[i];
        break;
      }
      const read::Die& d = d_.dies[i];
      if (d.tag == DW_TAG_subprogram) {
        answer = i;
        break;
      }
      walked_.push_back(i);
      if (d.parent == read::kNone) break;
      i = d.parent;
    }
    for (uint32_t k : walked_) enclosing_[k] = answer;
    return answer == read::kNone ? nullptr : &d_.dies[answer];
  }

  const ptx::Function* functionOf(const read::Die& subprogram) const {
    if (const ptx::Function* f = m_.findFunction(ptxName(subprogram))) return f;
    std::optional<read::AttrValue> lo = d_.attribute(subprogram, DW_AT_low_pc);
    const ptx::Label* l = lo && lo->reloc ? m_.findLabel(lo->reloc->symbol) : nullptr;
    const int32_t function = l ? m_.functionOf(*l) : -1;
    return function >= 0 ? &m_.functions[static_cast<size_t>(function)] : nullptr;
  }

  // ---- structure -----------------------------------------------------------
  void structure() {
    for (const Diagnostic& diag : d_.diagnostics.items) out_.items.push_back(diag);
    for (const read::Unit& u : d_.units) {
      if (m_.addressSize && u.addressSize != m_.addressSize / 8 && (u.addressSize == 4 || u.addressSize == 8))
        error(d_.info, u.offset + 10, "unit-address-size",
              "unit address size " + std::to_string(u.addressSize) + " does not match .address_size " +
                  std::to_string(m_.addressSize));
      const read::AbbrevTable* t = d_.tableOf(u);
      if (!t || u.version >= 4) continue;
      for (const read::Abbrev& a : t->abbrevs)
        for (const read::AttrSpec& s : t->specsOf(a))
          if (isVersion4Form(s.form))
            error(d_.abbrev, a.offset, "form-version",
                  std::string(formName(s.form)) + " (of " + std::string(attributeName(s.name)) +
                      ") is a DWARF 4 form, used by a DWARF " + std::to_string(u.version) + " unit at " + hex(u.offset));
    }
  }

  // ---- forms ptxas reads --------------------------------------------------------
  // Each abbreviation's form that ptxas cannot read, once per abbreviation,
  // form and DWARF version, at the form's byte in .debug_abbrev. A form its
  // unit's version does not have is form-version's report, not repeated here.
  void ptxasForms() {
    // The DWARF versions (2, 3, 4) of the units using each table: each table is
    // visited once per version, however many units share it.
    std::vector<uint8_t> versions(d_.abbrevTables.size(), 0);
    std::vector<std::array<uint64_t, 5>> firstUnit(d_.abbrevTables.size());  // by version
    for (const read::Unit& u : d_.units) {
      if (u.abbrevTable == read::kNone || u.version < 2 || u.version > 4) continue;
      if (!(versions[u.abbrevTable] & (1u << u.version))) firstUnit[u.abbrevTable][u.version] = u.offset;
      versions[u.abbrevTable] |= static_cast<uint8_t>(1u << u.version);
    }
    for (size_t t = 0; t < d_.abbrevTables.size(); ++t) {
      for (uint16_t version = 2; version <= 4; ++version) {
        if (!(versions[t] & (1u << version))) continue;
        const read::AbbrevTable& table = d_.abbrevTables[t];
        for (const read::Abbrev& a : table.abbrevs) {
          std::span<const read::AttrSpec> specs = table.specsOf(a);
          for (size_t i = 0; i < specs.size(); ++i) {
            std::string_view problem = cuda::ptxasFormProblem(specs[i].form, version);
            if (problem.empty() || (version < 4 && isVersion4Form(specs[i].form))) continue;
            error(d_.abbrev, formOffset(a, i), "ptxas-form",
                  std::string(formName(specs[i].form)) + " (of " + std::string(attributeName(specs[i].name)) +
                      ") in a DWARF " + std::to_string(version) + " unit at " + hex(firstUnit[t][version]) + ": " +
                      std::string(problem));
          }
        }
      }
    }
  }

  // Offset of the form of an abbreviation's spec `index` in .debug_abbrev
  // (the abbreviation's own offset when the bytes do not decode).
  uint64_t formOffset(const read::Abbrev& a, size_t index) const {
    ByteReader r(d_.abbrev->bytes, a.offset);
    r.uleb();  // code
    r.uleb();  // tag
    r.u8();    // children
    for (size_t k = 0; k < index; ++k) {
      r.uleb();
      r.uleb();
    }
    r.uleb();  // the attribute name; the form follows
    return r.ok() ? r.offset() : a.offset;
  }

  // ---- references ----------------------------------------------------------
  void references() {
    std::vector<uint32_t> siblingOffsets;  // made at the first DW_AT_sibling (nvcc and clang write none)
    for (const read::Die& die : d_.dies) {
      if (die.isNull()) continue;
      const read::Unit& u = d_.unitOf(die);
      const read::AttrRange attrs = d_.attributes(die);
      for (auto it = attrs.begin(); it != attrs.end(); ++it) {
        if (!dw::isReferenceForm(it.declaredForm()) && it.declaredForm() != DW_FORM_indirect) continue;
        const read::AttrValue v = *it;
        if (!v.isReference()) continue;
        bool unitRelative = v.form != DW_FORM_ref_addr;
        // A symbolic reference (`.b64 .debug_info+311`: LLVM's ref_addr
        // into another unit) is the offset ptxas fills in; one that names
        // no place in .debug_info cannot be followed.
        const std::optional<uint64_t> at = d_.referenceTarget(v);
        if (!at) {
          error(d_.info, v.offset, "ref-target",
                std::string(attributeName(v.name)) + " is '" + v.reloc->expression() +
                    "', not an offset into .debug_info", &die);
          continue;
        }
        const uint64_t targetOffset = *at;
        if (unitRelative && (targetOffset < u.offset || targetOffset >= u.end)) {
          error(d_.info, v.offset, "ref-target",
                std::string(attributeName(v.name)) + " refers to " + hex(targetOffset) + ", outside its unit (" +
                    hex(u.offset) + "-" + hex(u.end) + ")", &die);
          continue;
        }
        const read::Die* target = d_.dieAt(targetOffset);
        if (!target) {
          const read::Die* inside = dieContaining(targetOffset);
          error(d_.info, v.offset, "ref-target",
                std::string(attributeName(v.name)) + " refers to " + hex(targetOffset) + ", which is not the start of a DIE" +
                    (inside ? " (it is inside " + describe(*inside) + ")" : ""), &die);
          continue;
        }
        if (v.name == DW_AT_type && !isTypeTag(target->tag))
          error(d_.info, v.offset, "type-target",
                "DW_AT_type refers to " + describe(*target) + ", which is not a type", &die);
        if (v.name == DW_AT_sibling) {
          if (siblingOffsets.empty()) siblingOffsets = nextSiblingOffsets();
          const uint64_t expected = siblingOffsets[static_cast<size_t>(&die - d_.dies.data())];
          if (targetOffset != expected)
            error(d_.info, v.offset, "sibling",
                  "DW_AT_sibling is " + hex(targetOffset) + " but the next sibling starts at " + hex(expected), &die);
        }
      }
    }
    // A list offset inside another list that is not one of its entries.
    for (size_t i = 1; i < d_.locLists.size(); ++i) {
      const read::LocList& prev = d_.locLists[i - 1];
      const read::LocList& cur = d_.locLists[i];
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
        error(d_.loc, cur.offset, "loclist-offset",
              "location-list offset " + hex(cur.offset) + " lands inside the list at " + hex(prev.offset));
    }
  }

  // For each DIE, the offset of the first entry after it and all of its
  // children (where DW_AT_sibling must point): one pass with a stack of the
  // open DIEs, instead of a scan of each subtree (quadratic in deep trees).
  // 32 bits: decodeInfo takes no .debug_info past 4 GiB.
  std::vector<uint32_t> nextSiblingOffsets() const {
    std::vector<uint32_t> next;
    reserveExactly(next, d_.dies.size());  // mapped in with a call, not faulted page by page (reserve.h)
    next.resize(d_.dies.size());
    for (const read::Unit& u : d_.units) {
      const size_t first = u.firstDie, last = u.firstDie + u.dieCount;
      std::vector<size_t> open;  // DIEs whose children are not closed yet
      auto closeAt = [&](size_t at) {  // `at`: index of the entry after the subtree
        work::step(work::siblingScan);
        next[open.back()] = at < last ? d_.dies[at].offset : static_cast<uint32_t>(u.end);
        open.pop_back();
      };
      for (size_t k = first; k < last; ++k) {
        work::step(work::siblingScan);
        const read::Die& die = d_.dies[k];
        if (die.isNull()) {
          // The NULL at depth+1 closes its parent's children; what follows is the sibling.
          while (!open.empty() && d_.dies[open.back()].depth + 1 > die.depth) closeAt(k);  // malformed depth
          if (!open.empty() && d_.dies[open.back()].depth + 1 == die.depth) closeAt(k + 1);
          next[k] = k + 1 < last ? d_.dies[k + 1].offset : static_cast<uint32_t>(u.end);
          continue;
        }
        while (!open.empty() && d_.dies[open.back()].depth >= die.depth) closeAt(k);
        if (die.hasChildren) {
          open.push_back(k);
        } else {
          next[k] = k + 1 < last ? d_.dies[k + 1].offset : static_cast<uint32_t>(u.end);
        }
      }
      while (!open.empty()) {
        work::step(work::siblingScan);
        next[open.back()] = static_cast<uint32_t>(u.end);
        open.pop_back();
      }
    }
    return next;
  }

  // For each DIE, its nearest ancestor below the unit's root that has a
  // DW_AT_name (kNone when none): one pass, parents come before children.
  std::vector<uint32_t> namedScopes() const {
    std::vector<uint32_t> scope(d_.dies.size(), read::kNone);
    for (size_t i = 0; i < d_.dies.size(); ++i) {
      const read::Die* p = d_.parentOf(d_.dies[i]);
      if (!p || p->depth == 0) continue;
      const auto pi = static_cast<size_t>(p - d_.dies.data());
      scope[i] = d_.name(*p).empty() ? scope[pi] : static_cast<uint32_t>(pi);
    }
    return scope;
  }

  // Is `want` "outer::inner::name", the named scopes around `die` and its
  // name? (nvcc names function-scope statics `kernel::var` in
  // .debug_pubnames.) Matched from the end without building the name: each
  // scope visited consumes its name from `want`, so an entry costs at most its
  // own length, however deep the scopes.
  bool isQualifiedName(const read::Die& die, std::string_view want, const std::vector<uint32_t>& scopes) const {
    std::string_view name = d_.name(die);
    if (!want.ends_with(name)) return false;
    want.remove_suffix(name.size());
    for (uint32_t p = scopes[static_cast<size_t>(&die - d_.dies.data())]; p != read::kNone; p = scopes[p]) {
      work::step(work::qualifiedName);
      std::string_view scope = d_.name(d_.dies[p]);
      if (!want.ends_with("::") || want.size() < scope.size() + 2) return false;
      want.remove_suffix(2);
      if (!want.ends_with(scope)) return false;
      want.remove_suffix(scope.size());
    }
    return want.empty();
  }

  // ---- name tables ---------------------------------------------------------
  // The unit starting at `offset`: a binary search (units are in section
  // order), so that many sets naming many units stay n log n.
  const read::Unit* unitAt(uint64_t offset) const {
    auto it = std::lower_bound(d_.units.begin(), d_.units.end(), offset, [](const read::Unit& u, uint64_t o) {
      work::step(work::unitLookup);
      return u.offset < o;
    });
    return it != d_.units.end() && it->offset == offset ? &*it : nullptr;
  }

  void pubnames() {
    const std::vector<uint32_t> scopes = namedScopes();
    for (const read::NameSet& s : d_.pubnameSets) {
      const read::Unit* u = unitAt(s.infoOffset);
      if (!u) {
        error(d_.pubnames, s.offset + 6, "pubnames-header",
              "pubnames set names .debug_info offset " + hex(s.infoOffset) + ", where no unit starts");
        continue;
      }
      if (s.infoLength == u->length) {
        report(Severity::note, d_.pubnames, s.offset + 10, "pubnames-header",
               "debug_info_length " + std::to_string(s.infoLength) +
                   " is the unit_length field (the Chapter 6 convention; DWARF says the unit's size, " +
                   std::to_string(u->length + 4) + ")");
      } else if (s.infoLength != u->length + 4) {
        error(d_.pubnames, s.offset + 10, "pubnames-header",
              "debug_info_length " + std::to_string(s.infoLength) + " matches neither the unit's size (" +
                  std::to_string(u->length + 4) + ") nor its unit_length field (" + std::to_string(u->length) + ")");
      }
      uint64_t end = s.entries.empty() ? s.offset + 14 : s.entries.back().offset + 4 + s.entries.back().name.size() + 1;
      uint64_t actual = end + 4 - s.offset - 4;
      if (s.length != actual)
        error(d_.pubnames, s.offset, "pubnames-header",
              "set length " + std::to_string(s.length) + " does not match its contents (" + std::to_string(actual) +
                  " bytes up to and including the 0 terminator)");
      for (const read::NameEntry& e : s.entries) {
        const read::Die* die = d_.dieAt(u->offset + e.dieOffset);
        if (!die || &d_.unitOf(*die) != u) {
 error(d_.pubnames, e.offset, "pubnames-entry",
                "entry '" + printable(e.name) + "' names offset " + std::to_string(e.dieOffset) +
                    ", which is not the start of a DIE of the unit");
        } else if (d_.name(*die) != e.name && d_.linkageName(*die) != e.name && !isQualifiedName(*die, e.name, scopes)) {
          error(d_.pubnames, e.offset, "pubnames-entry",
                "entry '" + printable(e.name) + "' names " + describe(*die) + ", whose name is not '" +
                    printable(e.name) + "'");
        }
      }
    }
  }

  void aranges() {
    // Per unit, its DIEs' (low_pc, high_pc) label pairs, sorted: built once
    // for each unit a set names, then each range is a binary search (a scan
    // of the unit's DIEs per range was ranges x DIEs).
    std::map<const read::Unit*, std::vector<std::pair<std::string_view, std::string_view>>> pcPairs;
    for (const read::ArangeSet& s : d_.arangeSets) {
      const read::Unit* u = unitAt(s.infoOffset);
      if (!u) {
        error(d_.aranges, s.offset + 6, "aranges-header",
              "aranges set names .debug_info offset " + hex(s.infoOffset) + ", where no unit starts");
        continue;
      }
      for (const read::Range& r : s.ranges) {
        if (!r.addressReloc) continue;  // numeric ranges: nothing to match against
        std::string_view begin = r.addressReloc->symbol;
        std::string_view end = r.lengthReloc && r.lengthReloc->isDifference() && r.lengthReloc->minus() == begin
                                   ? r.lengthReloc->symbol
                                   : std::string_view();
        if (end.empty()) {
          error(d_.aranges, r.offset + s.addressSize, "aranges-range",
                "range starting at " + std::string(begin) + " has no `end-" + std::string(begin) + "` length");
          continue;
        }
        auto [it, added] = pcPairs.try_emplace(u);
        if (added) it->second = labelPairs(*u);
        work::step(work::arangeMatch);
        if (!std::binary_search(it->second.begin(), it->second.end(), std::pair(begin, end)))
          error(d_.aranges, r.offset, "aranges-range",
                "range " + std::string(begin) + ".." + std::string(end) +
                    " is not the low/high pc of any DIE of the unit at " + hex(u->offset));
      }
    }
  }

  // The (low_pc, high_pc) label pairs of the unit's DIEs, sorted.
  std::vector<std::pair<std::string_view, std::string_view>> labelPairs(const read::Unit& u) const {
    std::vector<std::pair<std::string_view, std::string_view>> pairs;
    for (uint32_t i = 0; i < u.dieCount; ++i) {
      work::step(work::arangeMatch);
      const read::Die& die = d_.dies[u.firstDie + i];
      if (die.isNull()) continue;
      std::optional<read::AttrValue> lo = d_.attribute(die, DW_AT_low_pc);
      std::optional<read::AttrValue> hi = d_.attribute(die, DW_AT_high_pc);
      if (lo && hi && lo->reloc && hi->reloc) pairs.emplace_back(lo->reloc->symbol, hi->reloc->symbol);
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

  // ---- DWARF against the PTX -------------------------------------------------
  void symbols() {
    // A location list's entries chain their labels (one range ends where the
    // next begins), so the name just found defined is often the next one
    // asked about: compared first, it spares a lookup in the name index
    // (cache misses in a table of 150,000 names). The others are fetched
    // kLookAhead relocations ahead (10% of the rules' time on one thread).
    std::string_view lastDefined;
    std::array<ptx::Module::NameKey, kLookAhead> ahead;  // the symbols' keys, by relocation index mod kLookAhead
    for (const SectionImage& s : m_.sections) {
      if (!s.name.starts_with(".debug")) continue;
      const std::span<const Relocation> relocations = s.relocations;
      auto fetch = [&](size_t i) {
        ptx::Module::NameKey& key = ahead[i % kLookAhead];
        key = m_.nameKey(relocations[i].symbol);
        m_.prefetch(key);
      };
      for (size_t i = 0; i < std::min(kLookAhead, relocations.size()); ++i) fetch(i);
      for (size_t i = 0; i < relocations.size(); ++i) {
        const ptx::Module::NameKey symbol = ahead[i % kLookAhead];
        if (i + kLookAhead < relocations.size()) fetch(i + kLookAhead);
        const Relocation& r = relocations[i];
        for (const bool minus : {false, true}) {
          const std::string_view name = minus ? std::string_view(r.minus()) : symbol.name;
          if (name.empty() || name.starts_with(".debug") || name == lastDefined) continue;
          if (m_.definesSymbol(minus ? m_.nameKey(name) : symbol)) {
            lastDefined = name;
            continue;
          }
          error(&s, r.offset, "symbol-defined", "'" + std::string(name) + "' is not defined in this PTX file");
        }
      }
    }
  }

  // Lists share tails: each expression is checked once per address class it
  // is held against, not once per attribute naming it. The class an entry is
  // first checked with is kept in a flat vector by entry, a byte each (tens
  // of thousands of entries in a large nvcc -G file: a set of them took
  // megabytes, eight bytes each 400 KB); the rare further classes, classes
  // outside a byte's codes, and entries outside Dwarf::locEntries, in a set.
  // A class of -1: none (not DW_AT_location, or no DW_AT_address_class).
  static constexpr uint8_t kNotYet = 0, kOtherClass = UINT8_MAX;  // the codes of classes -1..252 lie between
  std::vector<uint8_t> firstClassChecked;
  std::set<std::pair<const read::LocEntryRef*, int64_t>> moreClassesChecked;

  static uint8_t classCode(int64_t cls) { return cls >= -1 && cls < kOtherClass - 2 ? uint8_t(cls + 2) : kOtherClass; }

  bool firstCheckOf(const read::LocEntryRef& e, int64_t cls) {
    const size_t index = d_.locEntryIndex(e);
    const uint8_t code = classCode(cls);
    if (code == kOtherClass || index == SIZE_MAX) return moreClassesChecked.emplace(&e, cls).second;
    if (firstClassChecked.empty()) firstClassChecked.assign(d_.allLocEntries().size(), kNotYet);
    uint8_t& first = firstClassChecked[index];
    if (first == kNotYet) {
      first = code;
      return true;
    }
    return first != code && moreClassesChecked.emplace(&e, cls).second;
  }

  void locations() {
    for (const read::Die& die : d_.dies) {
      if (die.isNull()) continue;
      const read::AttrRange attrs = d_.attributes(die);
      std::optional<read::AttrValue> cls;  // DW_AT_address_class, decoded at the first location
      bool clsRead = false;
      for (auto it = attrs.begin(); it != attrs.end(); ++it) {
        if (!read::isLocationAttribute(it.name())) continue;
        const read::AttrValue v = *it;
        if (!clsRead) {
          cls = d_.attribute(die, DW_AT_address_class);
          clsRead = true;
        }
        if (v.isBlock()) {
          checkExpression(die, v.block(), d_.info, v.value, d_.unitOf(die).addressSize,
                          v.name == DW_AT_location ? cls : std::nullopt);
        } else if (v.reloc) {
          const std::optional<uint64_t> offset = d_.offsetIn(".debug_loc", v.value, v.reloc);
          const read::LocList* list = offset ? d_.locListAt(*offset) : nullptr;
          if (!list) continue;
          const std::optional<read::AttrValue> classHere = v.name == DW_AT_location ? cls : std::nullopt;
          const int64_t classValue = classHere ? static_cast<int64_t>(classHere->value) : -1;
          for (size_t k = 0; k < list->entries.size(); ++k) {
            const read::LocEntry e = list->entries[k];
            if (e.kind != read::LocEntry::range || !firstCheckOf(list->entries.refs()[k], classValue)) continue;
            checkExpression(die, e.expr, d_.loc, e.exprOffset, list->addressSize, classHere);
          }
        }
      }
    }
  }

  void checkExpression(const read::Die& die, std::span<const uint8_t> bytes, const SectionImage* sec, uint64_t at,
                       uint8_t addressSize, const std::optional<read::AttrValue>& addressClass) {
    // The operations before one that does not decode are checked too: each
    // stands on its own.
    read::OperationReader ops(bytes, {addressSize, 4, sec, at});
    for (read::Operation op; ops.next(op);) {
      uint64_t opAt = at + op.offset;
      if (op.op == DW_OP_regx || op.op == DW_OP_bregx) checkRegister(die, op.operands[0], sec, opAt, addressClass);
      if (op.op == DW_OP_addr && op.reloc && addressClass) checkSpace(die, *op.reloc, *addressClass);
    }
    if (ops.failed()) error(sec, at + ops.errorOffset(), "expression", "location expression: " + ops.error(), &die);
  }

  void checkRegister(const read::Die& die, uint64_t packed, const SectionImage* sec, uint64_t at,
                     const std::optional<read::AttrValue>& addressClass) {
    const std::optional<cuda::RegisterName> name = cuda::unpackRegisterName(packed);
    if (!name) {
      error(sec, at, "register-name",
            "DW_OP_regx operand " + hex(packed) + " is not a packed PTX register name ('%' and at most 8 bytes)", &die);
      return;
    }
    const std::string_view reg = name->view();
    if (const ptx::Function* f = enclosingFunction(die); f && !m_.declaresRegister(*f, reg))
      error(sec, at, "register-name", "register " + std::string(reg) + " is not declared in " + f->name, &die);
    if (addressClass && addressClass->value != cuda::ADDR_reg_space && sec == d_.info)
      error(d_.info, addressClass->offset, "address-class",
            "located in register " + std::string(reg) + " but DW_AT_address_class is " + className(addressClass->value) +
                " (expected 2 ADDR_reg_space)", &die);
  }

  static std::string className(uint64_t v) {
    std::string_view n = cuda::addressClassName(v);
    return std::to_string(v) + (n.empty() ? "" : " " + std::string(n));
  }

  void checkSpace(const read::Die& die, const Relocation& r, const read::AttrValue& addressClass) {
    const ptx::Variable* var = nullptr;
    if (const ptx::Function* f = enclosingFunction(die))
      var = m_.findVariable(r.symbol, static_cast<int32_t>(f - m_.functions.data()));
    if (!var) var = m_.findVariable(r.symbol);
    if (!var) var = m_.findParameter(r.symbol);
    if (!var) return;  // undefined symbols are the symbol-defined rule's business
    uint8_t expected = 0;
    switch (var->space) {
      case ptx::StateSpace::global: expected = cuda::ADDR_global_space; break;
      case ptx::StateSpace::shared: expected = cuda::ADDR_shared_space; break;
      case ptx::StateSpace::const_: expected = cuda::ADDR_const_space; break;
      case ptx::StateSpace::local: expected = cuda::ADDR_local_space; break;
      case ptx::StateSpace::param: expected = cuda::ADDR_param_space; break;
      case ptx::StateSpace::tex: expected = cuda::ADDR_tex_space; break;
      case ptx::StateSpace::surf: expected = cuda::ADDR_surf_space; break;
      default: return;
    }
    if (addressClass.value == expected) return;
    // cuda-gdb (gdb/cuda/cuda-tdep.c, cuda_read_memory_partial) reads a
    // class-5 variable from global memory with no thread in focus, and a
    // class-12 one through the focused thread's generic window, which maps
    // global memory at the same addresses: a .global variable's address is a
    // valid generic address (LLVM 22 gives address-space-0 globals class
    // 12 on purpose). The other state spaces' addresses are window offsets,
    // which read as generic addresses name other memory.
    if (addressClass.value == cuda::ADDR_generic_space && var->space == ptx::StateSpace::global) {
      report(Severity::note, d_.info, addressClass.offset, "address-class",
             "DW_AT_address_class is " + className(addressClass.value) + " for '" + std::string(r.symbol) +
                 "', declared .global: a valid generic address; cuda-gdb reads it only with a thread in focus, "
                 "where with 5 ADDR_global_space it reads it without one",
             &die);
      return;
    }
    error(d_.info, addressClass.offset, "address-class",
          "DW_AT_address_class is " + className(addressClass.value) + " but '" + std::string(r.symbol) + "' is declared " +
              std::string(ptx::stateSpaceName(var->space)) + " (expected " + className(expected) + ")", &die);
  }

  void declFiles() {
    for (const read::Die& die : d_.dies) {
      if (die.isNull()) continue;
      const read::AttrRange attrs = d_.attributes(die);
      // The first DW_AT_stmt_list, as attribute() would find it, from the
      // same walk (a lookup of its own for each DIE was 4 M instructions of
      // a check of a 20 MB nvcc -G file, for the one DIE that has it).
      std::optional<read::AttrValue> stmtList;
      for (auto it = attrs.begin(); it != attrs.end(); ++it) {
        if (it.name() == DW_AT_stmt_list && !stmtList) stmtList = *it;
        if (it.name() != DW_AT_decl_file && it.name() != DW_AT_call_file) continue;
        const read::AttrValue v = *it;
        if (!v.isConstant() || v.value == 0) continue;
        if (!m_.findFile(static_cast<unsigned>(v.value)) || v.value > UINT32_MAX)
          error(d_.info, v.offset, "decl-file",
                std::string(attributeName(v.name)) + " " + std::to_string(v.value) + " has no `.file " +
                    std::to_string(v.value) + "` in the PTX", &die);
      }
      if (const std::optional<read::AttrValue>& s = stmtList) {
        const std::optional<read::SectionOffset> line = s->reloc ? d_.resolve(*s->reloc) : std::nullopt;
        if (!line || line->section != ".debug_line" || line->offset != 0)
          error(d_.info, s->offset, "stmt-list",
                "DW_AT_stmt_list must be `.b32 .debug_line` (ptxas builds the line table), not " +
                    (s->reloc ? s->reloc->expression() : std::to_string(s->value)), &die);
      }
    }
  }

  // Labels are in file order, and code addresses follow it.
  void pcRanges() {
    for (const PcLabels::Entry& pc : pcLabels()) {
      const ptx::Label *begin = label(pc.low), *end = label(pc.high);
      if (!pc.sameFunction || !pc.highIsAddress) continue;
      if (end < begin || (end == begin && pc.highAddendBelowLow)) {
        const read::Die& die = d_.dies[pc.die];
        const auto [lo, hi] = pcAttributes(die);
        error(d_.info, hi->offset, "pc-range",
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
  void scopeOverlaps() {
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
      const read::Die& die = d_.dies[pc.die];
      if (die.parent == read::kNone) continue;
      scopes.push_back({die.parent, pc.low, pc.high, pc.die});
    }
    std::stable_sort(scopes.begin(), scopes.end(), [](const Scope& a, const Scope& b) {
      return a.parent != b.parent ? a.parent < b.parent : a.begin < b.begin;
    });
    // In start order, each scope is compared with the sibling reaching furthest
    // among those that started before it.
    auto lines = [this](const Scope& s) {
      const ptx::Label &low = m_.labels[s.begin], &high = m_.labels[s.end];
      return "[" + low.name.str() + ", " + high.name.str() + ") (lines " + std::to_string(low.line) + "-" +
             std::to_string(high.line) + ")";
    };
    const Scope* widest = nullptr;
    for (size_t i = 0; i < scopes.size(); ++i) {
      const Scope& cur = scopes[i];
      if (i == 0 || cur.parent != scopes[i - 1].parent) widest = nullptr;
      if (widest && cur.begin < widest->end) {
        const read::Die& die = d_.dies[cur.die];
        std::optional<read::AttrValue> lo = d_.attribute(die, DW_AT_low_pc);
        report(Severity::note, d_.info, lo->offset, "scope-overlap",
               lines(cur) + " starts inside its sibling " + describe(d_.dies[widest->die]) + " " + lines(*widest) +
                   "; LLVM's verifier reports \"DIEs have overlapping address ranges\"",
               &die);
      }
      if (!widest || cur.end > widest->end) widest = &cur;
    }
  }

  void subprograms() {
    const std::vector<PcLabels::Entry>& pcs = pcLabels();
    auto pc = pcs.begin();  // the entries are in DIE order, as this walk
    std::optional<NearestName> functionNames;  // made at the first name that matches none
    for (uint32_t dieIndex = 0; dieIndex < d_.dies.size(); ++dieIndex) {
      const read::Die& die = d_.dies[dieIndex];
      if (die.tag != DW_TAG_subprogram) continue;
      std::optional<read::AttrValue> lo = d_.attribute(die, DW_AT_low_pc);
      if (!lo) continue;  // declarations and abstract instances name no PTX code
      std::optional<read::AttrValue> from;
      std::string_view name = ptxName(die, &from);
      const ptx::Function* f = m_.findFunction(name);
      if (!f) {
        warning(d_.info, from ? from->offset : die.offset, "linkage-name",
                (name.empty() ? std::string("subprogram has no linkage name or name")
                              : "linkage name '" + std::string(name) + "' names no PTX function") +
                    "; cuda-gdb looks registers up by it" + nearestFunction(name, functionNames), &die);
        continue;
      }
      while (pc != pcs.end() && pc->die < dieIndex) ++pc;
      if (pc == pcs.end() || pc->die != dieIndex) continue;  // neither pc is relocated
      const std::pair<std::optional<read::AttrValue>, const ptx::Label*> pcLabelPairs[] = {
          {lo, label(pc->low)}, {d_.attribute(die, DW_AT_high_pc), label(pc->high)}};
      for (const auto& [value, l] : pcLabelPairs) {
        if (!l) continue;  // not relocated, or symbol-defined reports it
        const int32_t fi = static_cast<int32_t>(f - m_.functions.data());
        const int32_t holder = m_.functionOf(*l, fi);
        if (holder != fi)
          error(d_.info, value->offset, "subprogram-pc",
                std::string(attributeName(value->name)) + " label " + l->name.str() + " is " +
                    (holder < 0 ? std::string("outside every function")
                                : "in " + m_.functions[static_cast<size_t>(holder)].name) +
                    ", not in " + f->name, &die);
      }
    }
  }

  // " (the PTX defines '_Z3fooi')" when a function's name shares a long
  // prefix with `name`: the first function of the longest.
  std::string nearestFunction(std::string_view name, std::optional<NearestName>& functionNames) const {
    if (name.empty()) return "";
    if (!functionNames) {
      std::vector<std::string_view> names;
      names.reserve(m_.functions.size());
      for (const ptx::Function& f : m_.functions) names.push_back(f.name);
      functionNames.emplace(std::move(names));
    }
    const NearestName::Answer best = functionNames->nearest(name);
    if (best.index == SIZE_MAX || best.shared < 3 || best.shared * 2 < name.size()) return "";
    return " (the PTX defines '" + m_.functions[best.index].name + "')";
  }

  // ---- PTX version rules ------------------------------------------------------
  void versionRules() {
    const ptx::Version& v = m_.version;
    if (!v.present) return;
    std::string have = std::to_string(v.major) + "." + std::to_string(v.minor);
    for (const SectionImage& s : m_.sections)
      for (const Relocation& r : s.relocations)
        if (r.isDifference())
          for (std::string_view name : {r.symbol, r.minus()})
            if (m_.findLabel(name))
              error(&s, r.offset, "label-difference-labels",
                    "'" + r.expression() + "': " + std::string(name) +
                        " is a code label; ptxas computes A-B only between labels inside debug sections");
    for (const SectionImage& s : m_.sections) {
      if (!v.atLeast(7, 0))
        for (const SectionLabel& l : s.labels)
          report(Severity::error, &s, l.offset, "section-label-version",
                 "label " + l.name + " inside " + s.name + " needs .version 7.0 or later (this file is " + have + ")")
              .loc = l.loc;
      if (v.atLeast(7, 5)) continue;
      for (const Relocation& r : s.relocations)
        if (r.isDifference())
          error(&s, r.offset, "label-difference-version",
                "'" + r.expression() + "' needs .version 7.5 or later (this file is " + have + ")");
      for (uint32_t off : s.negativeOperands)
        error(&s, off, "label-difference-version",
              "negative numbers in " + s.name + " need .version 7.5 or later (this file is " + have + ")");
    }
  }

  // ---- line information -----------------------------------------------------
  void lines() {
    const ptx::LineTable table = ptx::buildLineTable(m_);
    checkLineTable(m_, table, out_);
    subprogramLines();
    inlineCallSites();
  }

  // A subprogram with code whose PTX function has no .loc: a debugger can stop
  // in it but not step it or show its source. Only where the file has a line
  // table at all.
  void subprogramLines() {
    if (m_.locs.empty()) return;
    std::vector<bool> hasLoc(m_.functions.size());
    for (const ptx::LocRecord& r : m_.locs)
      if (r.function >= 0) hasLoc[static_cast<size_t>(r.function)] = true;
    for (const read::Die& die : d_.dies) {
      if (die.tag != DW_TAG_subprogram || !d_.hasAttribute(die, DW_AT_low_pc)) continue;
      const ptx::Function* f = m_.findFunction(ptxName(die));
      if (!f || !f->hasBody || hasLoc[static_cast<size_t>(f - m_.functions.data())]) continue;
      warning(d_.info, die.offset, "subprogram-lines",
              "PTX function " + f->name + " has no .loc: a debugger can stop in it but not step it or show its source",
              &die);
    }
  }

  // Where the line table describes inlining (`.loc ... inlined_at`), each
  // DW_TAG_inlined_subroutine's call site should be one of its call sites.
  // nvcc -G describes inlining in the DIEs only and -lineinfo in the line
  // table only, so the rule speaks only when a file has both.
  void inlineCallSites() {
    struct Site {
      uint64_t file, line, col;
      bool operator==(const Site&) const = default;
    };
    struct SiteHash {
      size_t operator()(const Site& s) const { return std::hash<uint64_t>()((s.file << 40) ^ (s.line << 12) ^ s.col); }
    };
    std::unordered_set<Site, SiteHash> sites, sitesAnyColumn;
    for (const ptx::LocInlining& r : m_.locInlinings) {
      sites.insert({r.inlinedAt.file, r.inlinedAt.line, r.inlinedAt.col});
      sitesAnyColumn.insert({r.inlinedAt.file, r.inlinedAt.line, 0});
    }
    if (sites.empty()) return;
    for (const read::Die& die : d_.dies) {
      if (die.tag != DW_TAG_inlined_subroutine) continue;
      std::optional<read::AttrValue> file = d_.attribute(die, DW_AT_call_file);
      std::optional<read::AttrValue> line = d_.attribute(die, DW_AT_call_line);
      std::optional<read::AttrValue> col = d_.attribute(die, DW_AT_call_column);
      if (!file || !line || !file->isConstant() || !line->isConstant()) continue;
      bool withColumn = col && col->isConstant();
      Site s{file->value, line->value, withColumn ? col->value : 0};
      if (withColumn ? sites.count(s) : sitesAnyColumn.count(s)) continue;
      warning(d_.info, line->offset, "inline-call-site",
              "call site " + std::to_string(s.file) + ":" + std::to_string(s.line) +
                  (withColumn ? ":" + std::to_string(s.col) : "") +
                  " is no inlined_at of the line table, which describes inlining elsewhere", &die);
    }
  }

  // The rules of operands.cpp (strings, section operands, type cycles, section labels).
  void operandRules() {
    const detail::Report toError = [this](const SectionImage* s, uint64_t offset, std::string_view rule,
                                          std::string message, const read::Die* die, SourceLoc at) {
      Diagnostic& d = this->report(Severity::error, s, offset, rule, std::move(message), die);
      if (at.line != 0) d.loc = at;
    };
    detail::stringOffsets(d_, toError);
    detail::debugSectionOperands(m_, d_, toError);
    detail::typeCycles(d_, toError);
    detail::sectionLabels(m_, toError);
  }

  const ptx::Label* label(uint32_t index) const { return index == PcLabels::kNoLabel ? nullptr : &m_.labels[index]; }

  const std::vector<PcLabels::Entry>& pcLabels() const {
    std::call_once(pcLabels_.built, [this] {
      // The entries with their relocations first, then the lookups of the
      // relocations' names, each kLookAhead entries after its name index
      // entry was asked for (the misses overlap, as in symbols()). One
      // vector, turned from relocations to labels in place: with the names
      // in a second one it took twice the memory.
      std::vector<PcLabels::Entry>& entries = pcLabels_.entries;
      const Relocation* infoRelocations = d_.info ? d_.info->relocations.data() : nullptr;
      auto relocationIndex = [&](const read::AttrValue& v) { return static_cast<uint32_t>(v.reloc - infoRelocations); };
      // At most a DIE each: reserved for that, filled ahead (reserve.h), not
      // grown by doubling into fresh pages.
      reserveUpTo(entries, d_.dies.size());
      for (uint32_t i = 0; i < d_.dies.size(); ++i) {
        const read::Die& die = d_.dies[i];
        if (die.isNull()) continue;
        const auto [lo, hi] = pcAttributes(die);
        const bool relocatedLow = lo && lo->reloc, relocatedHigh = hi && hi->reloc;
        if (!relocatedLow && !relocatedHigh) continue;
        PcLabels::Entry e{i, false, false, false, false, relocatedLow ? relocationIndex(*lo) : PcLabels::kNoLabel,
                          relocatedHigh ? relocationIndex(*hi) : PcLabels::kNoLabel};
        if (relocatedLow && relocatedHigh) {
          e.highIsAddress = hi->form == DW_FORM_addr;
          e.highAddendBelowLow = hi->reloc->addend() < lo->reloc->addend();
          e.addendsZero = lo->reloc->addend() == 0 && hi->reloc->addend() == 0;
        }
        entries.push_back(e);
        fillAhead(entries);
      }
      // The keys of entries[i]'s low and high labels, at i mod kLookAhead.
      std::array<std::pair<ptx::Module::NameKey, ptx::Module::NameKey>, kLookAhead> ahead;
      auto keyOf = [&](uint32_t relocation) {
        return m_.nameKey(relocation == PcLabels::kNoLabel ? std::string_view() : infoRelocations[relocation].symbol);
      };
      auto fetch = [&](size_t i) {
        auto& [low, high] = ahead[i % kLookAhead];
        low = keyOf(entries[i].low);
        high = keyOf(entries[i].high);
        if (!low.name.empty()) m_.prefetch(low);
        if (!high.name.empty()) m_.prefetch(high);
      };
      auto labelOf = [this](const ptx::Module::NameKey& key) {
        const ptx::Label* l = key.name.empty() ? nullptr : m_.findLabel(key);
        return l ? static_cast<uint32_t>(l - m_.labels.data()) : PcLabels::kNoLabel;
      };
      for (size_t i = 0; i < std::min(kLookAhead, entries.size()); ++i) fetch(i);
      int32_t function = -1;  // the last label's: scopes come in PTX order, mostly
      for (size_t i = 0; i < entries.size(); ++i) {
        const auto [low, high] = ahead[i % kLookAhead];
        if (i + kLookAhead < entries.size()) fetch(i + kLookAhead);
        PcLabels::Entry& e = entries[i];
        e.low = labelOf(low);
        e.high = labelOf(high);
        if (e.low == PcLabels::kNoLabel || e.high == PcLabels::kNoLabel) continue;
        function = m_.functionOf(m_.labels[e.low], function);
        e.sameFunction = function >= 0 && m_.functionOf(m_.labels[e.high], function) == function;
      }
    });
    return pcLabels_.entries;
  }

  // A DIE's DW_AT_low_pc and DW_AT_high_pc (the first of each), in one walk
  // of its attributes; none read when it has neither.
  std::pair<std::optional<read::AttrValue>, std::optional<read::AttrValue>> pcAttributes(const read::Die& die) const {
    std::optional<read::AttrValue> lo, hi;
    const read::AttrRange attrs = d_.attributes(die);
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

  // How far ahead of its lookups a loop over many names asks for their name
  // index entries (Module::prefetchName).
  static constexpr size_t kLookAhead = 16;

  const ptx::Module& m_;
  const read::Dwarf& d_;
  Diagnostics& out_;
  PcLabels& pcLabels_;
  mutable const read::Die* lastSubprogram_ = nullptr;  // enclosingFunction()'s last answer
  mutable const ptx::Function* lastFunction_ = nullptr;
  // enclosingSubprogram's last answer for the DIEs of a parent.
  mutable uint32_t lastParent_ = read::kNone - 1;
  mutable const read::Die* lastParentAnswer_ = nullptr;
  // rememberedSubprogram's answers by DIE index (read::kNone: no subprogram
  // encloses it), made at the first long walk; and the DIEs of a walk.
  static constexpr unsigned kShortWalk = 16;
  static constexpr uint32_t kNotWalked = read::kNone - 1;
  mutable std::vector<uint32_t> enclosing_;
  mutable std::vector<uint32_t> walked_;

 public:
  // The rules, in the order their diagnostics are reported (before the
  // stable sort by line). Each reads the module and the DWARF only, so they
  // may run concurrently, each into its own Diagnostics.
  using Rule = void (Checker::*)();
  static constexpr Rule kRuleOrder[] = {
      &Checker::structure, &Checker::references, &Checker::pubnames,    &Checker::aranges,
      &Checker::symbols,   &Checker::locations,  &Checker::declFiles,   &Checker::subprograms,
      &Checker::pcRanges,  &Checker::versionRules, &Checker::lines,
      &Checker::ptxasForms, &Checker::scopeOverlaps, &Checker::operandRules,
  };
  // The order they start in on several threads: the longest first (their
  // times on a 20 MB nvcc -G file, 5.5 ms for locations down to 0.1 ms), so
  // that the threads finish together; operandRules last left one thread
  // alone with it for 2 ms.
  static constexpr Rule kStartOrder[] = {
      &Checker::locations, &Checker::symbols,   &Checker::subprograms, &Checker::operandRules,
      &Checker::references, &Checker::declFiles, &Checker::pubnames,  &Checker::lines,
      &Checker::scopeOverlaps, &Checker::pcRanges, &Checker::versionRules, &Checker::structure,
      &Checker::aranges,   &Checker::ptxasForms,
  };
  // kRuleOrder's index of the rule that starts `n`th.
  static constexpr size_t reportIndexOfStart(size_t n) {
    for (size_t i = 0; i < std::size(kRuleOrder); ++i)
      if (kRuleOrder[i] == kStartOrder[n]) return i;
    return SIZE_MAX;
  }
};

static_assert([] {
  std::array<bool, std::size(Checker::kRuleOrder)> seen{};
  if (std::size(Checker::kStartOrder) != seen.size()) return false;
  for (size_t n = 0; n < seen.size(); ++n) {
    const size_t i = Checker::reportIndexOfStart(n);
    if (i >= seen.size() || seen[i]) return false;
    seen[i] = true;
  }
  return true;
}(), "kStartOrder holds each rule of kRuleOrder once");

// ---- round trip --------------------------------------------------------------
void Checker::roundTrip() {
    // One section at a time, so only one re-encoded image is alive at once.
    Diagnostics encodeDiags;
    std::optional<write::ImageDifference> diff;
    // The last decoded section of each name, as compareImages() picks (a map:
    // a scan per section is quadratic in a file of many sections).
    std::map<std::string_view, const SectionImage*, work::CountingLess<work::sectionLookup>> lastOfName;
    for (const SectionImage& in : d_.sections) lastOfName[in.name] = &in;
    for (const SectionImage& s : m_.sections) {  // the debug sections, compared where they are
      if (!s.name.starts_with(".debug")) continue;
      auto found = lastOfName.find(s.name);
      const SectionImage* decoded = found == lastOfName.end() ? nullptr : found->second;
      if (!decoded) {
        diff = write::ImageDifference{s.name, 0, "section missing after re-encoding"};
        break;
      }
      if (decoded == &s) {  // the section the model was decoded from: compared as it is re-encoded
        if ((diff = write::preserveDifference(d_, s, encodeDiags))) break;
        continue;
      }
      SectionImage again = write::encodePreserve(d_, *decoded, encodeDiags);
      if ((diff = write::compareImages(std::span(&s, 1), std::span(&again, 1)))) break;
    }
    if (!diff) return;
    const SectionImage* sec = m_.section(diff->section);
    error(sec, diff->offset, "round-trip",
          "decode and re-encode differ at " + diff->section + "+" + hex(diff->offset) + ": " + diff->message);
}

}  // namespace

std::span<const RuleInfo> rules() { return kRules; }

namespace {
constexpr std::string_view kSilent = "accepts it without a word (exit 0)";
// Measured with tools/faults/measure_faults.sh and the form probe
// (tools/faults/probe_ptxas_forms.py); rules absent here are "not measured".
constexpr std::pair<std::string_view, RuleBehaviour> kBehaviour[] = {
    {"unit-length", {Severity::error, "stops: \"Attempted to truncate larger than current size\" (exit 255, no line)"}},
    {"unit-version", {Severity::error, kSilent}},
    {"unit-address-size",
     {Severity::error, "stops when .address_size is not the host's (exit 255); a unit header's size: accepted"}},
    {"abbrev-offset", {Severity::error, kSilent}},
    {"abbrev-code", {Severity::error, kSilent}},
    {"abbrev-terminated", {Severity::error, kSilent}},
    {"children-terminated", {Severity::error, kSilent}},
    {"form-version",
     {Severity::error,
      "stops on sec_offset, exprloc, ref_sig8: \"Error in get_form_value default\" (exit 1, no line)"}},
    {"ptxas-form",
     {Severity::error, "stops: \"Error in get_form_value default\" (exit 1, no line); ref_addr in DWARF 3/4: misread"}},
    {"block-bounds", {Severity::error, "stops: \"Attempted to Dereference Out of Bounds\" (exit 255, no line)"}},
    {"ref-target", {Severity::error, kSilent}},
    {"type-target", {Severity::error, kSilent}},
    {"pubnames-header", {Severity::error, kSilent}},
    {"pubnames-entry", {Severity::error, kSilent}},
    {"symbol-defined", {Severity::error, "accepts it without a word and writes 0 there"}},
    {"address-class", {Severity::error, kSilent}},
    {"register-name", {Severity::error, kSilent}},
    {"decl-file", {Severity::error, kSilent}},
    {"subprogram-pc", {Severity::error, kSilent}},
    {"pc-range", {Severity::error, kSilent}},
    {"scope-overlap", {Severity::note, kSilent}},
    {"linkage-name", {Severity::warning, "accepts it; cuda-gdb then shows the function's registers as unavailable"}},
    {"stmt-list", {Severity::error, kSilent}},
    {"section-label-version",
     {Severity::error, "stops at the line: \"Feature 'Defining labels in .section' requires .version 7.0\""}},
    {"label-difference-version", {Severity::error, "stops at the line: the feature requires PTX ISA .version 7.5"}},
    {"split-section", {Severity::warning, "accepts it and overlays the blocks"}},
    {"wide-constant", {Severity::warning, "accepts it and writes the low 32 bits, zero-extended"}},
    {"round-trip", {Severity::error, kSilent}},
    {"source-file", {Severity::warning, "accepts it (a debugger then shows no source)"}},    {"subprogram-lines", {Severity::warning}},
    {"inline-call-site", {Severity::warning}},
};
}  // namespace

RuleBehaviour behaviour(std::string_view ruleId) {
  for (const auto& [id, b] : kBehaviour)
    if (id == ruleId) return b;
  return {};
}

Diagnostics run(const ptx::Module& module, const read::Dwarf& dwarf, const Options& options) {
  constexpr size_t kRuleCount = std::size(Checker::kRuleOrder);
  const unsigned threads = threadCount(options.threads);
  // With threads to spare, the round trip (the longest task) starts first,
  // speculatively: its result is dropped when a rule finds an error.
  const bool speculate = options.roundTrip && threads > 1;
  std::vector<Diagnostics> found(kRuleCount + 1);  // per rule, then the round trip
  PcLabels pcLabels;
  runTasks(kRuleCount + (speculate ? 1 : 0), threads, [&](size_t task) {
    const bool roundTrip = speculate && task == 0;  // the round trip first, then the rules longest first
    const size_t rule = roundTrip ? kRuleCount : Checker::reportIndexOfStart(speculate ? task - 1 : task);
    Checker checker(module, dwarf, found[rule], pcLabels);
    if (rule == kRuleCount) checker.roundTrip();
    else (checker.*Checker::kRuleOrder[rule])();
  });
  Diagnostics out;
  for (size_t rule = 0; rule < kRuleCount; ++rule)
    std::move(found[rule].items.begin(), found[rule].items.end(), std::back_inserter(out.items));
  if (options.roundTrip && !out.hasErrors()) {
    if (!speculate) Checker(module, dwarf, found[kRuleCount], pcLabels).roundTrip();
    std::move(found[kRuleCount].items.begin(), found[kRuleCount].items.end(), std::back_inserter(out.items));
  }
  if (options.sources) {
    Diagnostics sources = checkSources(module, dwarf, {.directory = options.sourceDirectory});
    std::move(sources.items.begin(), sources.items.end(), std::back_inserter(out.items));
  }
  std::stable_sort(out.items.begin(), out.items.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
  return out;
}

}  // namespace ptxdwarf::check
