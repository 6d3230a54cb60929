// What the cubin rules (ptxdwarf/check/cubin.h) share: the cubin's register
// map and functions indexed, the PTX it was compiled from, and where a
// finding stands in that PTX. One member function a rule family: cubin.cpp
// the registers and functions, cubin_lines.cpp the line table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ptxdwarf/check/cubin.h"
#include "ptxdwarf/cubin/regmap.h"

namespace ptxdwarf::check {

// A PC range [begin, end) of a function's SASS.
struct PcRange {
  uint64_t begin = 0, end = 0;
};

class CubinChecker {
 public:
  CubinChecker(const Loaded& cubin, const CubinSource& source, Diagnostics& out);

  // cubin.cpp
  void functions();  // cubin-function-missing
  void registers();  // cubin-register-unmapped, cubin-variable-unavailable
  // cubin_lines.cpp
  void lines();      // cubin-line-unplaced

 private:
  // One DW_OP_regx of a variable's location: the packed register and the
  // PCs it holds there (a location list entry's; none: the whole scope).
  struct RegisterUse {
    uint64_t packed = 0;
    std::optional<PcRange> pcs;
  };
  // One register's entries in a function's map: their PC ranges (`end`
  // inclusive, as cuda-gdb takes it) as the map lists them, and sorted by
  // start with the greatest end so far, so that whether any meets a range
  // is a binary search (a register may have thousands of entries).
  struct HeldRanges {
    std::vector<std::pair<uint32_t, uint32_t>> entries;
    std::vector<std::pair<uint32_t, uint32_t>> byStart;  // (start, greatest end up to here)
    void index();
    bool meets(PcRange r) const;
  };
  using RegisterRanges = std::unordered_map<std::string_view, HeldRanges>;
  // Register names over 8 bytes (no DW_OP_regx can name them) by each of their
  // prefixes a DW_OP_regx can hold: what a name cut to fit was cut from.
  using LongNames = std::unordered_map<std::string_view, std::string_view>;
  static void addLongName(LongNames& names, std::string_view name);
  std::string_view longerRegister(std::string_view function, const ptx::Function* f, std::string_view reg) const;
  // A function's register declarations by name: a plain one's (the first of
  // a name) and the ranges' (`%r` of `%r<13>`, in declaration order), so
  // that where a register is declared costs its name's declarations, not
  // the function's.
  struct Declarations {
    std::unordered_map<std::string_view, const ptx::RegisterDecl*> plain;
    std::unordered_map<std::string_view, std::vector<const ptx::RegisterDecl*>> ranges;
  };
  // The declaration in `f` of `reg`: `%r<13>` for %r5, `.reg .u32 %lidx0;` for %lidx0 (the first in order).
  const ptx::RegisterDecl* declarationOf(const ptx::Function& f, std::string_view reg) const;

  void checkVariable(const read::Die& die, const read::AttrValue& location, std::string_view function);
  std::vector<RegisterUse> registerUses(const read::Die& die, const read::AttrValue& location) const;
  // The SASS PCs of the innermost scope around `die` that has them; the
  // function's whole code when none does (or one has DW_AT_ranges).
  PcRange scopeOf(const read::Die& die, uint64_t functionSize) const;
  std::optional<PcRange> pcRange(const read::Die& die) const;
  const read::Die* enclosingSubprogram(const read::Die& die) const;
  // For each DIE, what its children's enclosingSubprogram and scopeOf are,
  // made in one pass over the tree (a parent before its children) so that a
  // variable deep in nested blocks costs no walk up them.
  void indexScopes();
  static constexpr uint32_t kNoDie = UINT32_MAX;
  std::vector<uint32_t> subprogramOf_;  // by DIE index: the subprogram it is or is in; kNoDie
  // by DIE index: the PCs of the innermost scope it is or is in that has them; nullopt: the function's whole code
  std::vector<std::optional<PcRange>> scopeRangeOf_;
  // Where `die` stands in the PTX: the byte at `cubinOffset` of the PTX's
  // own .debug_info when the PTX has the same DIE there; else the
  // declaration of `reg` in `function`, or the function's directive.
  SourceLoc ptxLine(const read::Die& die, uint64_t cubinOffset, const ptx::Function* function,
                    std::string_view reg = {}) const;
  Diagnostic& report(Severity severity, SourceLoc at, uint64_t infoOffset, std::string_view rule, std::string message,
                     const read::Die& die);
  std::string describe(const read::Die& die) const;
  std::string_view nameOf(const read::Die& die) const;  // its DW_AT_name, or its abstract origin's

  const Loaded& cubin_;
  const CubinSource& source_;
  Diagnostics& out_;
  const read::Dwarf& dwarf_;
  std::unordered_map<std::string_view, uint64_t> codeSize_;  // by function: the size of its `.text.<name>`
  cubin::RegMap map_;
  std::unordered_map<std::string_view, RegisterRanges> mapOf_;  // by function
  std::unordered_map<std::string_view, LongNames> longMapped_;   // by function: the map's long names
  mutable std::unordered_map<const ptx::Function*, LongNames> longDeclared_;  // the PTX's, made when first asked
  mutable std::unordered_map<const ptx::Function*, Declarations> declarations_;  // made when first asked
};

// The name a subprogram's code goes by (its linkage name, through
// DW_AT_specification and DW_AT_abstract_origin; else its DW_AT_name): what
// cuda-gdb looks its register map up by. Checker::ptxName.
std::string_view subprogramCodeName(const read::Dwarf& dwarf, const read::Die& die,
                                    std::optional<read::AttrValue>* attr = nullptr);

}  // namespace ptxdwarf::check
