// `ptxdump diff A B`: a semantic diff of two PTX files' debug information, for
// producer regression tests (new output against a golden file).
//
// What is compared: the DIE trees, attribute by attribute, the .debug_pubnames
// names, the .debug_aranges ranges and the line table: the `.file` paths (as a
// debugger shows them, whatever their numbers) and the `.loc` rows, each by its
// code position -- its function and the ordinal of the instruction it applies
// to there, `#k` for the k-th further row at one position -- with its source
// position and inline stack. What is not: DIE offsets, abbreviation
// codes, attribute forms (data1 5 equals data4 5; flag 1 equals flag_present),
// the order of attributes in a DIE, and where in .debug_loc a list lives (a
// location list is compared by its entries). A reference is compared by the DIE
// it points at: equal when the two targets are matched DIEs.
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
// Children are matched by step; children left unmatched on both sides with the
// same tag are then paired in order when most of their other attributes agree, so
// a renamed DIE is one changed DW_AT_name rather than a removal and an addition.
// Sibling order is not a difference unless `order` is set.
//
// Output, one line per difference, in tree order (old file's order):
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
// then a summary: `3 DIEs changed, 1 added, 0 removed` (and `, N name-table
// entries different` when pubnames or aranges differ, `, N line-table entries
// different` when the line tables do).
//
// Values are spelled like the text dump, without form-specific widths: decimal
// constants, "quoted strings", `ADDR_global_space (5)`, DW_LANG_* and other
// named constants, decl_file as the resolved path, references as the target's
// path, location expressions decoded (`DW_OP_regx %r1`), location lists as
// `[begin, end): expr; ...`, relocated values as the PTX symbol expression.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdump {

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
  std::string before;        // old value (changed/removed); empty otherwise
  std::string after;         // new value (changed/added); empty otherwise
  uint64_t descendants = 0;  // die lines: DIEs below the added/removed one

  // The line as `ptxdump diff` prints it (without the newline).
  std::string text() const;
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

// The differences from (oldModule, oldDwarf) to (newModule, newDwarf), in output order.
std::vector<DiffLine> diffDwarf(const ptxdwarf::ptx::Module& oldModule, const ptxdwarf::read::Dwarf& oldDwarf,
                                const ptxdwarf::ptx::Module& newModule, const ptxdwarf::read::Dwarf& newDwarf);
std::vector<DiffLine> diffDwarf(const ptxdwarf::ptx::Module& oldModule, const ptxdwarf::read::Dwarf& oldDwarf,
                                const ptxdwarf::ptx::Module& newModule, const ptxdwarf::read::Dwarf& newDwarf,
                                const DiffOptions& options);

DiffSummary summarize(const std::vector<DiffLine>& lines);
// "3 DIEs changed, 1 added, 0 removed" (+ ", 2 name-table entries different",
// ", 1 line-table entry different").
std::string summaryText(const DiffSummary& summary);

struct DiffRequest {
  std::string oldFile;
  std::string newFile;
  DiffOptions options;
};
// Difference lines and the summary to `out`; load and decode errors to `err`.
// Exit 0 equal, 1 different, 2 a file could not be read, parsed or decoded.
int runDiff(const DiffRequest& request, std::string& out, std::string& err);

}  // namespace ptxdump
