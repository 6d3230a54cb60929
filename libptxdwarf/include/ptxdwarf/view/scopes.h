// The scopes of the code: each subprogram, inlined subroutine and lexical
// block with the PTX instructions it covers (its pc labels, resolved to
// instructions: a label stands for the instruction after it), and the
// variables and parameters it declares. What a debugger builds to answer
// "what is in scope here".
#pragma once

#include <cstdint>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::view {

inline constexpr uint32_t kNoScope = UINT32_MAX;

struct Scope {
  uint32_t die = 0;                // index into Dwarf::dies
  uint32_t parent = kNoScope;      // the enclosing scope, kNoScope for a subprogram
  int32_t function = -1;           // the PTX function its code is in
  uint32_t begin = 0, end = 0;     // [begin, end) into Module::instructions
  std::vector<uint32_t> declarations = {};  // DIE indices of its DW_TAG_formal_parameter/variable children
};

class ScopeTree {
 public:
  ScopeTree(const ptx::Module& module, const read::Dwarf& dwarf);

  const std::vector<Scope>& scopes() const { return scopes_; }
  // The scopes containing `instruction`, innermost first; empty when no
  // subprogram covers it.
  std::vector<uint32_t> chainAt(uint32_t instruction) const;
  // The PTX function whose body holds `instruction`, or -1.
  int32_t functionAt(uint32_t instruction) const;

 private:
  bool rangeOf(const read::Die& die, uint32_t& begin, uint32_t& end, int32_t& function) const;
  // A stretch of a function's instructions that one scope is the innermost of.
  struct Stretch {
    uint32_t begin = 0;             // the first instruction; the stretch ends where the next begins
    uint32_t innermost = kNoScope;  // kNoScope: no scope covers it
  };
  void findStretches(const std::vector<std::vector<uint32_t>>& byFunction);

  const ptx::Module& module_;
  const read::Dwarf& dwarf_;
  std::vector<Scope> scopes_;             // in DIE order: a parent before its children
  // Per PTX function, its instructions cut where the innermost scope
  // changes, in order: chainAt looks its instruction up among them instead
  // of trying every scope of the function.
  std::vector<std::vector<Stretch>> stretches_;
};

}  // namespace ptxdwarf::view
