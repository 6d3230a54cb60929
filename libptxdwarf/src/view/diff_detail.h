// The parts of view/diff.h's comparison (internal to view/diff*.cpp): what
// the symbols in values stand for (diff_symbols.cpp), the line tables'
// comparison and the list merge (diff_lines.cpp).
//
// Values are spelled by print::Renderer's plain spelling, their symbols
// through SymbolMeanings: by meaning, where each symbol is replaced by what it
// stands for, a code label in two ways (two values are equal where either
// spelling is), and as shown, the symbol as written with its meaning after it,
// for the lines printed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/view/diff.h"

namespace ptxdwarf::view::diffdetail {

enum class Spelling : uint8_t {
  bySource,       // by meaning, a code label by its source place: `@_Z3foo/a.cu:8#0+0`
  byInstruction,  // by meaning, a code label by its instruction: `@_Z3foo+12`
  shown,          // as written, meaning after: `$L__tmp3 (_Z3foo+12 a.cu:8:3)`
};

// What the symbolic operands of one file stand for (see view/diff.h).
class SymbolMeanings {
 public:
  SymbolMeanings(const ptx::Module& module, const read::Dwarf& dwarf);
  ~SymbolMeanings();

  // The operand `r` (a symbol, `symbol+addend`, or `A-B+addend`).
  void append(std::string& out, const Relocation& r, Spelling spelling) const;

 private:
  struct Definition {
    enum class Kind : uint8_t { label, function, parameter, variable };
    Kind kind = Kind::label;
    uint32_t index = 0;  // into Module::labels, functions, parameters or variables
  };
  // A `.loc` record of a function body, where it stands among the function's.
  struct Anchor {
    uint32_t loc = 0;         // into Module::locs
    uint32_t runLoc = 0;      // the first record of its run
    uint32_t occurrence = 0;  // runs of its line before its run, in the function
    uint32_t runStart = 0;    // the instruction the run's first record applies to
  };
  // `name` alone, by meaning or as written (shown).
  void appendSymbol(std::string& out, std::string_view name, Spelling spelling) const;
  void appendMeaning(std::string& out, std::string_view name, Spelling spelling) const;
  const Definition* find(std::string_view name) const;
  // The record in force at instruction `index` of `function` (the last at or
  // before it), or nullptr where none is.
  const Anchor* anchorAt(int32_t function, uint32_t index) const;
  // `@F/a.cu:8#0+0`: the label's place in source terms (see view/diff.h).
  void appendSourcePlace(std::string& out, const ptx::Label& label) const;
  // `_Z3foo+12`: its function and instruction ordinal, then ` a.cu:8:3`, its
  // source position, `withSource`.
  void appendCodePosition(std::string& out, const ptx::Label& label, bool withSource) const;
  void appendFile(std::string& out, unsigned file, bool wholePath) const;

  const ptx::Module& module_;
  const read::Dwarf& dwarf_;
  // Made at the first symbol looked up by name: the code labels; at the first
  // that is none, the functions, parameters and variables.
  mutable std::unique_ptr<std::unordered_map<std::string_view, Definition>> labels_, declarations_;
  mutable Definition found_{};  // what find() found through the module's index
  // Made at the first code label looked at: the `.loc` records of function
  // bodies by (function, instruction).
  mutable std::vector<Anchor> anchors_;
};

// An entry of a list compared as a set (aranges, `.file` paths): equal where
// the keys are, or where the alternative keys of two entries left over are;
// printed as shown.
struct ListEntry {
  std::string key;
  std::string alternative;  // empty: none
  std::string shown;
  friend bool operator<(const ListEntry& a, const ListEntry& b) { return a.key < b.key; }
};
// Lines for what only one of two sorted lists holds (entries pair off one to
// one): removed (only in `before`) and added (only in `after`), in key order.
void diffSortedLists(const std::vector<ListEntry>& before, const std::vector<ListEntry>& after,
                     DiffLine::Subject subject, std::vector<DiffLine>& lines);

// The `.file` paths and the `.loc` rows by code position (see view/diff.h).
void diffLineTables(const ptx::Module& before, const ptx::Module& after, std::vector<DiffLine>& lines);

}  // namespace ptxdwarf::view::diffdetail
