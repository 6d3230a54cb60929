// check::run and its rule table. Each rule is reported by one pass, a
// Checker member in the file of its family (structure.cpp, references.cpp,
// name_tables.cpp, locations.cpp, code_labels.cpp, operands.cpp, lines.cpp,
// roundtrip.cpp, sources.cpp); one pass may report several rules where one
// walk finds them.
#include "ptxdwarf/check/check.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <vector>

#include "../parallel.h"
#include "checker.h"

namespace ptxdwarf::check {

namespace {

using Pass = void (Checker::*)();

struct Rule {
  RuleInfo info;
  // The pass that reports it; nullptr for the rules of the PTX reader, whose
  // diagnostics come with ptx::read's result, and for the cubin rules, which
  // check::runCubin reports (check/cubin.h), not check::run.
  Pass pass;
};

constexpr Severity E = Severity::error, W = Severity::warning, N = Severity::note;
// What ptxas 13 does with such a fault, measured with tools/faults/measure_faults.sh and the form probe
// (tools/faults/probe_ptxas_forms.py); kNotMeasured where nobody has seeded one yet.
constexpr std::string_view kSilent = "accepts it without a word (exit 0)", kNotMeasured = RuleInfo{}.ptxas;

// In the order --list-rules prints them. Severity: the most the rule reports.
constexpr Rule kRules[] = {
    {{"unit-header", "unit headers are complete; address size 4 or 8", E, kNotMeasured}, &Checker::decoderFindings},
    {{"unit-length", "each unit's length stays inside .debug_info", E,
      "stops: \"Attempted to truncate larger than current size\" (exit 255, no line)"},
     &Checker::decoderFindings},
    {{"unit-version", "DWARF version 2, 3 or 4", E, kSilent}, &Checker::decoderFindings},
    {{"unit-address-size", "unit address size equals the PTX .address_size", E,
      "stops when .address_size is not the host's (exit 255); a unit header's size: accepted"},
     &Checker::unitHeaders},
    {{"abbrev-offset", "a unit's abbreviation offset names a table inside .debug_abbrev", E, kSilent},
     &Checker::decoderFindings},
    {{"abbrev-code", "every DIE's abbreviation code is defined", E, kSilent}, &Checker::decoderFindings},
    {{"abbrev-terminated", "abbreviation tables end with a 0 code", E, kSilent}, &Checker::decoderFindings},
    {{"abbrev", "abbreviations are well formed (children flag, no duplicate codes)", E, kNotMeasured},
     &Checker::decoderFindings},
    {{"children-terminated", "children lists end with a NULL entry inside the unit", E, kSilent},
     &Checker::decoderFindings},
    {{"form", "forms are known", E, kNotMeasured}, &Checker::decoderFindings},
    {{"form-version", "forms exist in the unit's DWARF version", E,
      "stops on sec_offset, exprloc, ref_sig8: \"Error in get_form_value default\" (exit 1, no line)"},
     &Checker::unitHeaders},
    {{"ptxas-form",
      "forms ptxas reads (DWARF 4's sec_offset, exprloc and ref_sig8 stop it; ref_addr in DWARF 3/4)", E,
      "stops: \"Error in get_form_value default\" (exit 1, no line); ref_addr in DWARF 3/4: misread"},
     &Checker::ptxasForms},
    {{"block-bounds", "block lengths stay inside the unit", E,
      "stops: \"Attempted to Dereference Out of Bounds\" (exit 255, no line)"},
     &Checker::decoderFindings},
    {{"string-bounds", "strings are NUL-terminated inside the unit", E, kNotMeasured}, &Checker::decoderFindings},
    {{"unit-bounds", "attribute values stay inside the unit", E, kNotMeasured}, &Checker::decoderFindings},
    {{"leb128", "LEB128 values are at most 10 bytes and inside the section", E, kNotMeasured},
     &Checker::decoderFindings},
    {{"ref-target", "references land on the start of a DIE (inside the unit for unit-relative forms)", E, kSilent},
     &Checker::references},
    {{"type-target", "DW_AT_type names a type DIE", E, kSilent}, &Checker::references},
    {{"sibling", "DW_AT_sibling names the DIE after the subtree", E, kNotMeasured}, &Checker::references},
    {{"loclist-offset", "location-list offsets land on a list inside .debug_loc", E, kNotMeasured},
     &Checker::locListOffsets},
    {{"loclist-bounds", "location lists end inside .debug_loc", E, kNotMeasured}, &Checker::decoderFindings},
    {{"expression", "location expressions decode completely", E, kNotMeasured}, &Checker::locations},
    {{"pubnames-header", "a pubnames set names a unit and its length (either convention)", E, kSilent},
     &Checker::pubnames},
    {{"pubnames-entry", "each pubnames entry is a DIE with that name or linkage name", E, kSilent},
     &Checker::pubnames},
    {{"pubnames-bounds", "pubnames sets end inside the section", E, kNotMeasured}, &Checker::decoderFindings},
    {{"aranges-header", "an aranges set names a unit", E, kNotMeasured}, &Checker::aranges},
    {{"aranges-range", "aranges ranges are label pairs of a DIE of that unit", E, kNotMeasured}, &Checker::aranges},
    {{"aranges-bounds", "aranges sets end inside the section", E, kNotMeasured}, &Checker::decoderFindings},
    {{"symbol-defined", "every symbolic operand names a label, function, variable, parameter or section", E,
      "accepts it without a word and writes 0 there"},
     &Checker::symbols},
    {{"address-class",
      "DW_AT_address_class matches the PTX state space of the location (2 register, 4 .const, 5 .global, 6 .local, "
      "7 .param, 8 .shared; 12 generic on a .global is a note)",
      E, kSilent},
     &Checker::locations},
    {{"register-name", "DW_OP_regx/bregx names are packed PTX registers the function declares", E, kSilent},
     &Checker::locations},
    {{"decl-file", "DW_AT_decl_file/call_file N has a .file N", E, kSilent}, &Checker::declFiles},
    {{"subprogram-pc", "a subprogram's low/high pc labels lie in the PTX function it names", E, kSilent},
     &Checker::subprograms},
    {{"pc-range", "a DIE's high_pc label does not come before its low_pc label", E, kSilent}, &Checker::pcRanges},
    {{"scope-overlap",
      "sibling scopes' low/high pc label ranges do not overlap (nvcc -G writes some that do)", N, kSilent},
     &Checker::scopeOverlaps},
    {{"linkage-name", "a subprogram's linkage name names a PTX function (cuda-gdb finds registers by it)", W,
      "accepts it; cuda-gdb then shows the function's registers as unavailable"},
     &Checker::subprograms},
    {{"stmt-list", "DW_AT_stmt_list refers to .debug_line", E, kSilent}, &Checker::declFiles},
    {{"section-label-version", "labels inside a section need .version 7.0 or later", E,
      "stops at the line: \"Feature 'Defining labels in .section' requires .version 7.0\""},
     &Checker::versionRequirements},
    {{"label-difference-version", "A-B operands and negative numbers need .version 7.5 or later", E,
      "stops at the line: the feature requires PTX ISA .version 7.5"},
     &Checker::versionRequirements},
    {{"label-difference-labels",
      "A-B names two labels defined inside debug sections (ptxas rejects code labels)", E, kNotMeasured},
     &Checker::labelDifferenceLabels},
    {{"split-section", "a section is written in one block (ptxas overlays repeated blocks)", W,
      "accepts it and overlays the blocks"},
     nullptr},
    {{"wide-constant", "a non-negative .b32/.b64 constant fits 32 bits (ptxas 13 keeps only the low 32)", W,
      "accepts it and writes the low 32 bits, zero-extended"},
     nullptr},
    {{"string-offset", "DW_FORM_strp names a NUL-terminated string inside .debug_str", E, kNotMeasured},
     &Checker::stringOffsets},
    {{"section-operand", "a .debug_x+N operand names a section of the file, N inside it and not negative", E,
      kNotMeasured},
     &Checker::debugSectionOperands},
    {{"type-cycle",
      "DW_AT_type chains do not loop (a pointer to itself, a typedef loop, an array of itself)", E, kNotMeasured},
     &Checker::typeCycles},
    {{"section-label",
      "a label inside a section is defined once and not named like a function or variable", E, kNotMeasured},
     &Checker::sectionLabels},
    {{"round-trip", "decoding and re-encoding reproduces every byte and relocation", E, kSilent},
     &Checker::roundTrip},
    {{"file-duplicate", "each .file index is given once (ptxas rejects a repeated index)", E, kNotMeasured},
     &Checker::lineTable},
    {{"loc-file", "a .loc or inlined_at names a file index that has a .file", E, kNotMeasured},
     &Checker::lineTable},
    {{"loc-scope", ".loc stands inside a function body", E, kNotMeasured}, &Checker::lineTable},
    {{"loc-function-name", "a function_name label starts a NUL-terminated string in .debug_str", E, kNotMeasured},
     &Checker::lineTable},
    {{"loc-inlined-at", "an inlined_at location is one an earlier .loc used (the inline stack resolves)", E,
      kNotMeasured},
     &Checker::lineTable},
    {{"loc-version", "function_name/inlined_at need .version 7.2 (ptxas 13: 7.0)", E, kNotMeasured},
     &Checker::lineTable},
    {{"subprogram-lines", "a subprogram's PTX function has .loc directives (a debugger can step it)", W,
      kNotMeasured},
     &Checker::subprogramLines},
    {{"inline-call-site", "a DW_TAG_inlined_subroutine's call site is an inlined_at of the line table", W,
      kNotMeasured},
     &Checker::inlineCallSites},
    // The cubin rules (check/cubin.h: `check X.ptx --cubin X.cubin`, or a -g cubin alone). What ptxas
    // makes of correct DWARF is no fault of the DWARF: the debugger's view it leads to is a warning; a
    // register the map cannot have is an error, as register-name is on the PTX.
    {{"cubin-variable-unavailable",
      "a register variable has a register-map entry somewhere in its scope (else cuda-gdb prints <optimized out> "
      "at every stop)",
      W, "keeps no map entry for a register that is never used"},
     nullptr},
    {{"cubin-line-unplaced",
      "a source line with .loc lines before instructions has an address in the cubin's .debug_line (needs the PTX)",
      W, kNotMeasured},
     nullptr},
    {{"cubin-register-unmapped",
      "a DW_OP_regx register can be in the function's register map: declared, not cut to 8 bytes", E,
      "accepts it; cuda-gdb prints the variable <optimized out>"},
     nullptr},
    {{"cubin-function-missing", "a subprogram with code names a function (.text.NAME) of the cubin", W,
      kNotMeasured},
     nullptr},
    {{"source-file",
      "--sources: .file, DW_AT_decl_file, DW_AT_name and DW_AT_comp_dir paths open as a debugger opens them", W,
      "accepts it (a debugger then shows no source)"},
     &Checker::sourceFiles},
};

// The passes in the order their diagnostics are joined, which is the order
// of diagnostics on one PTX line after the sort by line (and the order the
// passes start in on several threads). The round trip and --sources run
// after them (check::run).
constexpr Pass kPasses[] = {
    &Checker::decoderFindings,
    &Checker::unitHeaders,
    &Checker::references,
    &Checker::locListOffsets,
    &Checker::pubnames,
    &Checker::aranges,
    &Checker::symbols,
    &Checker::locations,
    &Checker::declFiles,
    &Checker::subprograms,
    &Checker::pcRanges,
    &Checker::labelDifferenceLabels,
    &Checker::versionRequirements,
    &Checker::lineTable,
    &Checker::subprogramLines,
    &Checker::inlineCallSites,
    &Checker::ptxasForms,
    &Checker::scopeOverlaps,
    &Checker::stringOffsets,
    &Checker::debugSectionOperands,
    &Checker::typeCycles,
    &Checker::sectionLabels,
};

}  // namespace

// Every rule's pass runs, once, and every pass reports a rule. (Checked by a
// unit test, not a static_assert: GCC's UBSan makes comparisons of member
// function pointers non-constant.)
bool passTableIsConsistent() {
  for (const Rule& r : kRules)
    if (r.pass && r.pass != &Checker::roundTrip && r.pass != &Checker::sourceFiles &&
        std::find(std::begin(kPasses), std::end(kPasses), r.pass) == std::end(kPasses))
      return false;
  for (Pass p : kPasses)
    if (std::count(std::begin(kPasses), std::end(kPasses), p) != 1 ||
        std::none_of(std::begin(kRules), std::end(kRules), [p](const Rule& r) { return r.pass == p; }))
      return false;
  return true;
}

namespace {

constexpr auto kRuleInfos = [] {
  std::array<RuleInfo, std::size(kRules)> infos{};
  for (size_t i = 0; i < infos.size(); ++i) infos[i] = kRules[i].info;
  return infos;
}();

void append(Diagnostics& to, Diagnostics& from) {
  std::move(from.items.begin(), from.items.end(), std::back_inserter(to.items));
}

}  // namespace

std::span<const RuleInfo> rules() { return kRuleInfos; }

Diagnostics run(const ptx::Module& module, const read::Dwarf& dwarf, const Options& options) {
  constexpr size_t kRoundTrip = std::size(kPasses);
  CheckRun shared{options};
  std::vector<Diagnostics> found(kRoundTrip + 1);  // per pass, then the round trip
  auto runPass = [&](size_t pass) {
    Checker checker(module, dwarf, found[pass], shared);
    if (pass == kRoundTrip) checker.roundTrip();
    else (checker.*kPasses[pass])();
  };
  // With threads to spare, the round trip (the longest task) starts first,
  // speculatively: its result is dropped when a rule finds an error.
  const unsigned threads = threadCount(options.threads);
  const bool speculate = options.roundTrip && threads > 1;
  runTasks(kRoundTrip + (speculate ? 1 : 0), threads,
           [&](size_t task) { runPass(!speculate ? task : task == 0 ? kRoundTrip : task - 1); });
  Diagnostics out;
  for (size_t pass = 0; pass < kRoundTrip; ++pass) append(out, found[pass]);
  if (options.roundTrip && !out.hasErrors()) {
    if (!speculate) runPass(kRoundTrip);
    append(out, found[kRoundTrip]);
  }
  if (options.sources) {
    Diagnostics sources;
    Checker(module, dwarf, sources, shared).sourceFiles();
    append(out, sources);
  }
  std::stable_sort(out.items.begin(), out.items.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
  return out;
}

}  // namespace ptxdwarf::check
