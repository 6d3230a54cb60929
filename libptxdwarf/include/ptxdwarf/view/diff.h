// A semantic diff of two PTX files' debug information, as data: what a
// producer's regression test compares (new output against a golden file).
// It reads two loaded files (ptx::Module and read::Dwarf each) and writes
// nothing; printDiff spells the result as `ptxdump diff` prints it.
//
// What is compared: the DIE trees, attribute by attribute, the .debug_pubnames
// names, the .debug_aranges ranges and the line table: the `.file` paths (as a
// debugger shows them, whatever their numbers) and the `.loc` rows, each by its
// code position -- its function and the ordinal of the instruction it applies
// to there, `#k` for the k-th further row at one position -- with its source
// position and inline stack. What is not: DIE offsets, abbreviation codes,
// attribute forms (data1 5 equals data4 5; flag 1 equals flag_present), the
// order of attributes in a DIE, and where in .debug_loc a list lives (a
// location list is compared by its entries). A reference is compared by the
// DIE it points at (through `.debug_info+N` too): equal when the two targets
// are matched DIEs.
//
// Symbols are compared by what they stand for, not by their names, so that two
// builds whose labels are numbered differently compare equal:
//  - a code label (`$L__tmp3`, `$L__func_begin0`) by the function it is in and
//    the ordinal of the instruction it labels there (the code position a `.loc`
//    row is compared by); its source position is shown, not compared (the line
//    table's rows compare it);
//  - a section name or a label defined in a debug section (`.debug_loc+138`,
//    LLVM 22's `$L__debug_loc0`) by the section offset it names;
//  - a function, a parameter or a module-scope variable by its name; a local
//    variable by its function and name, the local depot (`__local_depotN`,
//    numbered by function) by its function alone;
//  - a label difference `A-B` by the two meanings; anything else by its name.
//
// DIEs are addressed by a path of `tag[name]` steps from the unit DIE:
//   compile_unit/subprogram[_Z3fooii]/formal_parameter[i]
// The tag has no DW_TAG_ prefix; the name is DW_AT_name, else the linkage name;
// a DIE without either is `#k`, the k-th (from 0) unnamed sibling of its tag; the
// k-th (k >= 1) duplicate of a name among same-tag siblings is `name#k`. With one
// unit DIE on each side the unit step is just its tag (`compile_unit`); with more,
// units are named like any other DIE. Paths deeper than 64 steps are shortened in
// the middle (`a/b/.../y/z`).
//
// Children are matched by step where the step names them by what they are;
// children left unmatched on both sides with the same tag -- among them those
// whose step names them by their place (`#k`: unnamed, or a name their siblings
// share), so that one added in the middle does not shift every later one -- are
// then paired in order when most of their other attributes agree, so a renamed
// DIE is one changed DW_AT_name rather than a removal and an addition; the rest
// of the `#k` ones by step. Sibling order is not a difference unless `order` is set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::view {

struct DiffLine {
  enum class Kind : uint8_t { added, removed, changed };
  enum class Subject : uint8_t {
    die,        // a whole DIE (and its subtree) added or removed
    attribute,  // one attribute added, removed or changed
    order,      // a child moved among its siblings (only with DiffOptions::order)
    pubname,    // a .debug_pubnames entry
    arange,     // a .debug_aranges range
    lineRow,    // a `.loc` row of the line table
    lineFile,   // a `.file` path
  };
  Kind kind = Kind::changed;
  Subject subject = Subject::attribute;
  // DIE path; for pubname lines the name, for lineRow lines the code position,
  // for arange and lineFile lines empty
  std::string path;
  std::string attribute;     // "DW_AT_decl_line" for attribute lines
  // The old value (changed/removed) and the new one (changed/added), empty
  // otherwise. Spelled like the text dump, without form-specific widths:
  // decimal constants, "quoted strings", `ADDR_global_space (5)`, DW_LANG_*
  // and other named constants, decl_file as the resolved path, references as
  // the target's path, location expressions decoded (`DW_OP_regx %r1`),
  // location lists as `[begin, end): expr; ...`; a symbol as written, and
  // where that is not what it stands for, its meaning after it:
  // `$L__tmp3 (_Z3foo+12 a.cu:8:3)` (function+instruction, source position),
  // `$L__debug_loc0 (.debug_loc+0)`.
  std::string before;
  std::string after;
  uint64_t descendants = 0;  // die lines: DIEs below the added/removed one
};

struct DiffOptions {
  bool order = false;  // report children that moved among their siblings
};

struct DiffSummary {
  uint64_t changed = 0;  // DIEs present on both sides with a difference
  uint64_t added = 0;    // DIE lines (subtree roots) only in the new file
  uint64_t removed = 0;  // DIE lines (subtree roots) only in the old file
  uint64_t names = 0;    // pubnames and aranges lines
  uint64_t lines = 0;    // line-table rows and `.file` paths
};

// The differences from (oldModule, oldDwarf) to (newModule, newDwarf), in
// output order: the DIE trees in the old file's order (an added DIE after its
// matched parent's other children), then pubnames, aranges, `.file` paths and
// `.loc` rows. Both modules need their function bodies (ReadOptions::bodies)
// for the line table and the code labels; no name index is needed.
std::vector<DiffLine> diff(const ptx::Module& oldModule, const read::Dwarf& oldDwarf, const ptx::Module& newModule,
                           const read::Dwarf& newDwarf, const DiffOptions& options = {});

DiffSummary summarize(const std::vector<DiffLine>& lines);

// ---- the text `ptxdump diff` prints ----
//
//   ~ PATH: DW_AT_decl_line 1 -> 2          changed attribute
//   + PATH: DW_AT_const_value 3             attribute only in the new file
//   - PATH: DW_AT_const_value 3             attribute only in the old file
//   + PATH                                  DIE only in the new file
//   - PATH (and 4 descendants)              DIE subtree only in the old file
//   ~ PATH: moved 2 -> 0                    (--order) child position changed
//   - pubnames: "_Z3fooii"                  name only in the old file
//   ~ pubnames["_Z3fooii"]: PATH -> PATH     the name points at another DIE
//   + aranges: [func_begin0, func_end0)     range only in the new file
//   ~ line _Z3fooPi+12: /s/a.cu:8:3 -> /s/a.cu:9:3   the row at a code position
//   + line _Z3fooPi+13: /s/a.h:2:1 inlined: bar(int) at /s/a.cu:9:3
//   - file "/s/old.h"                        a `.file` path only in the old file

// One line as printed (without the newline).
std::string diffLineText(const DiffLine& line);
// "3 DIEs changed, 1 added, 0 removed" (+ ", 2 name-table entries different",
// ", 1 line-table entry different").
std::string summaryText(const DiffSummary& summary);
// Every line, then the summary, each ending in a newline.
void printDiff(std::string& out, const std::vector<DiffLine>& lines);

}  // namespace ptxdwarf::view
