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
  abbrevTableLookup,  // tables examined to find the one at an offset
  locListEntries,     // .debug_loc entries decoded or visited
  siblingScan,        // DIEs visited to find where a subtree ends
  qualifiedName,      // scope names visited to build qualified names
  nameIndexProbe,     // slots probed in the module's name index
  sectionLookup,      // sections compared to find one by name
  unitLookup,         // units examined to find the one at an offset
  kPassCount
};

inline thread_local std::array<uint64_t, kPassCount> counters{};

inline void step(Pass p, uint64_t n = 1) { counters[p] += n; }
inline void reset() { counters.fill(0); }
inline uint64_t steps(Pass p) { return counters[p]; }

}  // namespace ptxdwarf::work
