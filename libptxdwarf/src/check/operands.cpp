// Rules about what symbolic operands and names point at (issue 15: each is
// something ptxas or llvm-dwarfdump rejects, or crashes on, that passed
// check): label differences and the PTX versions operands and labels inside
// sections need, string offsets, debug-section operands, name-table headers,
// type cycles and labels defined inside sections.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "checker.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "../work.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

std::string typeText(const read::Dwarf& d, const read::Die& die) {
  std::string s(tagName(die.tag));
  if (s.empty()) s = "tag " + hex(die.tag, 8);
  std::string_view n = d.name(die);
  if (!n.empty()) s += " '" + std::string(n) + "'";
  return s + " at " + hex(die.offset, 8);
}

}  // namespace

// ptxas computes A-B only between labels inside debug sections. Like the
// version rules, only for a file that says its .version.
void Checker::labelDifferenceLabels() {
  if (!module_.version.present) return;
  for (const SectionImage& s : module_.sections)
    for (const Relocation& r : s.relocations)
      if (r.isDifference())
        for (std::string_view name : {r.symbol, r.minus()})
          if (module_.findLabel(name))
            error(&s, r.offset, "label-difference-labels",
                  "'" + r.expression() + "': " + std::string(name) +
                      " is a code label; ptxas computes A-B only between labels inside debug sections");
}

// Labels inside sections need .version 7.0; A-B operands and negative numbers 7.5.
void Checker::versionRequirements() {
  const ptx::Version& v = module_.version;
  if (!v.present) return;
  std::string have = std::to_string(v.major) + "." + std::to_string(v.minor);
  for (const SectionImage& s : module_.sections) {
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

void Checker::stringOffsets() {
  const read::Dwarf& d = dwarf_;
  for (const read::Die& die : d.dies) {
    if (die.isNull()) continue;
    const read::AttrRange attrs = d.attributes(die);
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      if (it.declaredForm() != DW_FORM_strp && it.declaredForm() != DW_FORM_indirect) continue;
      const read::AttrValue v = *it;
      if (v.form != DW_FORM_strp) continue;
      std::string what = std::string(attributeName(v.name)) + " (DW_FORM_strp)";
      const std::optional<uint64_t> named = d.offsetIn(".debug_str", v.value, v.reloc);
      if (!named) {
        if (v.reloc->symbol == ".debug_str" && !v.reloc->isDifference()) continue;  // section-operand: `.debug_str-N`
        error(d.info, v.offset, "string-offset",
              what + " is " + v.reloc->expression() + ", not an offset into .debug_str", &die);
        continue;
      }
      const uint64_t at = *named;
      if (!d.str) {
        error(d.info, v.offset, "string-offset", what + " names .debug_str+" + std::to_string(at) +
                                                     ", but the file has no .debug_str section", &die);
        continue;
      }
      const auto bytes = d.str->data();
      if (at >= bytes.size()) {
        error(d.info, v.offset, "string-offset",
              what + " offset " + std::to_string(at) + " is past the end of .debug_str (size " +
                  std::to_string(bytes.size()) + ")", &die);
        continue;
      }
      if (std::find(bytes.begin() + static_cast<ptrdiff_t>(at), bytes.end(), uint8_t{0}) == bytes.end())
        error(d.info, v.offset, "string-offset",
              what + " names the string at .debug_str+" + std::to_string(at) +
                  ", which runs to the end of the section without a NUL", &die);
    }
  }
}

void Checker::debugSectionOperands() {
  const ptx::Module& m = module_;
  const read::Dwarf& d = dwarf_;
  // By name through a map: Module::section() scans, and a file may hold
  // many sections and many operands.
  std::map<std::string_view, const SectionImage*, work::CountingLess<work::sectionLookup>> byName;
  for (const SectionImage& s : m.sections) byName.try_emplace(s.name, &s);
  for (const SectionImage& s : m.sections) {
    if (!s.name.starts_with(".debug")) continue;
    for (const Relocation& r : s.relocations) {
      if (r.isDifference() || !r.symbol.starts_with(".debug")) continue;
      // ptxas builds .debug_line from .file/.loc: naming it needs no block.
      auto found = byName.find(r.symbol);
      const SectionImage* target = found == byName.end() ? nullptr : found->second;
      if (!target && r.symbol != ".debug_line") {
        error(&s, r.offset, "section-operand",
              "'" + r.expression() + "' names section " + std::string(r.symbol) +
                  ", which this file does not define (ptxas accepts it without a word)");
        continue;
      }
      if (r.addend() < 0) {
        error(&s, r.offset, "section-operand",
              "'" + r.expression() + "' points before the start of " + std::string(r.symbol) +
                  "; ptxas rejects a negative addend (`sym-N` is a syntax error)");
      } else if (target && static_cast<uint64_t>(r.addend()) > target->size()) {
        error(&s, r.offset, "section-operand",
              "'" + r.expression() + "' points past the end of " + std::string(r.symbol) + " (size " +
                  std::to_string(target->size()) + ")");
      }
    }
  }
  // A name-table header's debug_info_offset is an offset into .debug_info:
  // `.b32 .debug_pubnames` there reads as offset 0, the first unit, and
  // passed every other rule.
  // (`.debug_info-N` is section-operand's to report.)
  auto notInfo = [&](const Relocation* r) {
    return r && !(r->symbol == ".debug_info" && !r->isDifference()) && !d.offsetIn(".debug_info", 0, r);
  };
  for (const read::NameSet& set : d.pubnameSets)
    if (notInfo(set.infoReloc))
      error(d.pubnames, set.offset + 6, "pubnames-header",
            "debug_info_offset is '" + set.infoReloc->expression() + "', not an offset into .debug_info");
  for (const read::ArangeSet& set : d.arangeSets)
    if (notInfo(set.infoReloc))
      error(d.aranges, set.offset + 6, "aranges-header",
            "debug_info_offset is '" + set.infoReloc->expression() + "', not an offset into .debug_info");
}

void Checker::typeCycles() {
  const read::Dwarf& d = dwarf_;
  // Each DIE has at most one DW_AT_type: the references form a functional
  // graph, and each cycle is found once by walking from every unvisited DIE
  // and marking the walk (linear in the DIEs).
  constexpr uint32_t kNoType = read::kNone;
  std::vector<uint32_t> typeOf(d.dies.size(), kNoType);
  for (size_t i = 0; i < d.dies.size(); ++i) {
    const read::Die& die = d.dies[i];
    if (die.isNull()) continue;
    std::optional<read::AttrValue> t = d.attribute(die, DW_AT_type);
    if (!t || !t->isReference()) continue;
    if (const read::Die* target = d.dieAt(t->value)) typeOf[i] = static_cast<uint32_t>(target - d.dies.data());
  }
  enum : uint8_t { unseen, onWalk, done };
  std::vector<uint8_t> state(d.dies.size(), unseen);
  std::vector<uint32_t> walk;
  for (size_t start = 0; start < d.dies.size(); ++start) {
    walk.clear();
    uint32_t i = static_cast<uint32_t>(start);
    while (i != kNoType && state[i] == unseen) {
      state[i] = onWalk;
      walk.push_back(i);
      i = typeOf[i];
    }
    if (i != kNoType && state[i] == onWalk) {
      // The cycle is the walk from the first visit of `i` on; report it at
      // its DIE of lowest offset, naming each DIE once.
      auto first = std::find(walk.begin(), walk.end(), i);
      std::vector<uint32_t> cycle(first, walk.end());
      auto lowest = std::min_element(cycle.begin(), cycle.end());
      std::rotate(cycle.begin(), lowest, cycle.end());
      std::string chain;
      for (uint32_t k : cycle) chain += typeText(d, d.dies[k]) + " -> ";
      chain += "back to " + hex(d.dies[cycle.front()].offset, 8);
      const read::Die& at = d.dies[cycle.front()];
      std::optional<read::AttrValue> t = d.attribute(at, DW_AT_type);
      error(d.info, t ? t->offset : at.offset, "type-cycle",
            "DW_AT_type loops: " + chain +
                " (no type contains or points to itself through DW_AT_type; llvm-dwarfdump 14 dies of SIGSEGV "
                "naming a pointer to itself)",
            &at);
    }
    for (uint32_t k : walk) state[k] = done;
  }
}

void Checker::sectionLabels() {
  const ptx::Module& m = module_;
  struct Defined {
    std::string_view name;
    const SectionImage* section;
    const SectionLabel* label;
  };
  std::vector<Defined> all;
  for (const SectionImage& s : m.sections)
    for (const SectionLabel& l : s.labels) all.push_back({l.name, &s, &l});
  std::stable_sort(all.begin(), all.end(), [](const Defined& a, const Defined& b) { return a.name < b.name; });
  for (size_t i = 0; i < all.size(); ++i) {
    const Defined& x = all[i];
    auto say = [&](std::string message) {  // at the label's definition, not the byte it stands at
      Diagnostic& d = report(Severity::error, x.section, x.label->offset, "section-label", std::move(message));
      if (x.label->loc.line != 0) d.loc = x.label->loc;
    };
    if (i > 0 && all[i - 1].name == x.name) {
      const SectionLabel& before = *all[i - 1].label;
      say("label '" + std::string(x.name) + "' is defined twice (first in " + all[i - 1].section->name + " at line " +
          std::to_string(before.loc.line) + "); ptxas rejects it (\"Duplicate definition of label\")");
      continue;
    }
    std::string clash;
    if (m.findFunction(x.name)) clash = "a function";
    else if (m.findLabel(x.name)) clash = "a code label";
    else if (m.findVariable(x.name)) clash = "a variable";
    else if (m.findParameter(x.name)) clash = "a parameter";
    if (!clash.empty())
      say("label '" + std::string(x.name) + "' in " + x.section->name + " has the name of " + clash +
          "; ptxas accepts it without a word, and an operand naming it could mean either");
  }
}

}  // namespace ptxdwarf::check
