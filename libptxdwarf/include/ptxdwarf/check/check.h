// Checks a module's DWARF for the mistakes ptxas lets through: structure,
// references, name tables, consistency with the PTX around it (labels,
// registers, state spaces, .file), PTX version rules, and a round trip
// through the preserve-mode encoder. Every diagnostic carries a rule id and
// the PTX line of the offending byte.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::check {

struct Options {
  bool roundTrip = true;
  // Rules run concurrently on up to this many threads (0: one per hardware
  // thread); the diagnostics are the same, in the same order, as on one.
  unsigned threads = 1;
  // Rule source-file (check/sources.h): look for every source path on this
  // machine, as a debugger would, in `sourceDirectory` first when given.
  // Off by default: the other rules read only the file.
  bool sources = false;
  std::string sourceDirectory = {};
};

// A rule, as --list-rules and docs/check-rules.md describe it: its id (each
// diagnostic's Diagnostic::rule), what it checks, the most it reports (error,
// or warning/note for the advisory ones), and what ptxas 13 does with such a
// fault, as measured (docs/check-rules.md, "What catches what"); "not
// measured" where nobody has seeded one yet.
struct RuleInfo {
  std::string_view id{};
  std::string_view summary{};
  Severity severity = Severity::error;
  std::string_view ptxas = "not measured";
};
// Every rule, in the order --list-rules prints them.
std::span<const RuleInfo> rules();

// Runs every rule. The decoder's own diagnostics (structure rules) are
// included, so the result is everything `ptxdump check` reports.
Diagnostics run(const ptx::Module& module, const read::Dwarf& dwarf, const Options& options = {});

}  // namespace ptxdwarf::check
