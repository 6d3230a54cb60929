// The parts of view/diff.h's comparison (internal to view/diff*.cpp): the
// spelling of attribute values and of the symbols in them (diff_values.cpp),
// the line tables' comparison and the list merge (diff_lines.cpp).
//
// A value is spelled by meaning, where each symbol is replaced by what it
// stands for, a code label in two ways (two values are equal where either
// spelling is), and as shown, the symbol as written with its meaning after it,
// for the lines printed. ValueSpeller is the diff's own value renderer until the library's
// printing layer has one that takes a symbol hook; SymbolMeanings is what the
// diff adds to any renderer.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/view/diff.h"

namespace ptxdwarf::view::diffdetail {

void appendDec(std::string& out, uint64_t v);
void appendHex(std::string& out, uint64_t v, int width = 1);  // "0x" and at least `width` digits

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

// The diff's spelling of one attribute value: the dump's, without its
// form-specific widths (decimal constants, "quoted strings", named constants,
// decl_file as the resolved path, expressions decoded, location lists by their
// entries), its symbols through SymbolMeanings.
class ValueSpeller {
 public:
  ValueSpeller(const ptx::Module& module, const read::Dwarf& dwarf, const SymbolMeanings& symbols)
      : module_(module), dwarf_(dwarf), symbols_(symbols) {}

  // Spells `v`, an attribute of `die`, into `out`; for a reference that
  // resolves to a DIE spells nothing and returns the DIE's index (the caller
  // spells it by its path), else returns read::kNone. `brief`: a location
  // list as `<location list>` (its entries are compared where values are
  // compared, not where DIEs are paired).
  uint32_t spell(std::string& out, const read::Die& die, const read::AttrValue& v, Spelling spelling,
                 bool brief) const;
  // An address-sized operand: the symbol, else the number.
  void address(std::string& out, uint64_t value, const Relocation* reloc, uint8_t addressSize,
               Spelling spelling) const;
  // One .debug_aranges range: `[begin, end)`.
  void range(std::string& out, const read::ArangeSet& set, const read::Range& r, Spelling spelling) const;

 private:
  void locationList(std::string& out, const read::Unit& unit, const read::AttrValue& v, Spelling spelling) const;
  void expression(std::string& out, std::span<const uint8_t> bytes, const SectionImage* section,
                  uint64_t sectionOffset, uint8_t addressSize, Spelling spelling) const;
  void operation(std::string& out, const read::Operation& op, uint8_t addressSize, Spelling spelling) const;
  void constant(std::string& out, const read::Unit& unit, const read::AttrValue& v) const;
  bool fileName(std::string& out, const read::Unit& unit, uint64_t index) const;

  const ptx::Module& module_;
  const read::Dwarf& dwarf_;
  const SymbolMeanings& symbols_;
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
