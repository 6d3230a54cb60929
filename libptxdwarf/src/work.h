// Work counters: how many basic steps each pass that could grow faster than
// its input took, counted per thread. They exist for the scaling tests (the
// same generated input at n and 4n must cost about 4x, not 16x): counting
// steps instead of timing them makes those tests exact on a busy machine.
// One increment of a thread-local integer per step; no effect on results.
#pragma once

#include <array>
#include <cstdint>

namespace ptxdwarf::work {

enum Pass : unsigned {
  abbrevTableLookup,  // abbreviation tables looked up by their offset
  locListEntries,     // .debug_loc entries decoded or visited (the round trip's visits too)
  siblingScan,        // DIEs visited to find where a subtree ends
  qualifiedName,      // scope names visited to build qualified names
  nameIndexProbe,     // slots probed in the module's name index
  sectionLookup,      // sections compared to find one by name
  unitLookup,         // units examined to find the one at an offset
  arangeMatch,        // DIEs and pc pairs examined to match aranges ranges
  fileLookup,         // .file entries examined to find one by index
  attachWalk,         // ancestors visited when a subtree is attached (cycle check)
  annotatePlacement,  // declarations annotate examines to put them in their function or `{ }` block
  annotateRename,     // renamed names annotate tries for a token of the code (--rename-registers)
  sectionLinesByOperand,  // debug-section lines the reader took operand by operand, not a line at a
                          // time (what the fast paths decline; a writer's whole section must not be)
  registerLookup,     // register declarations compared to find the one a name is declared by
  nameSuggestion,     // steps to find the name a misspelt one was meant to be ("did you mean")
  variableIdBytes,    // bytes of the variable ids --statistics counts unique variables by
  enclosingWalk,      // DIEs walked up to find the subprogram that encloses a DIE (check)
  locationText,       // characters written to spell a location expression (lookup)
  scopeLookup,        // scopes compared to find the innermost one at an instruction (lookup)
  elfScan,            // a cubin's sections, symbols and relocations examined to relocate its debug sections
  cubinLineRows,      // cubin line table rows decoded, and their inline frames walked
  regmapScan,         // register map entries and records examined to find a register at a PC (lookup, check)
  sectionsReadAhead,  // `.section` blocks the reader took from its second thread (SectionsAhead)
  textReadAhead,      // bytes of text the second thread searched for `.section` or read as a block
  kPassCount
};

inline thread_local std::array<uint64_t, kPassCount> counters{};

inline void step(Pass p, uint64_t n = 1) { counters[p] += n; }

// std::less that counts each comparison as a step of `P`: the work of a
// sorted container's or a binary search's lookups, as it is done.
template <Pass P>
struct CountingLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    step(P);
    return a < b;
  }
};
inline void reset() { counters.fill(0); }
inline uint64_t steps(Pass p) { return counters[p]; }

}  // namespace ptxdwarf::work
