// The index of every name a PTX module defines: functions, parameters,
// variables, code labels, sections and the labels inside them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ptxdwarf/ptx/module.h"
#include "../work.h"

namespace ptxdwarf::ptx {

// One open-addressing table keyed by a keyed hash (chosen names cannot
// collide). A slot holds the name's hash and, for a name defined once as a
// function, parameter, variable, label or section, that definition itself
// (kind and index packed in 32 bits): most names are found without a second
// cache miss and take no other memory. Any other name's slot holds the
// first of its definitions in `definitions_`, chained in file order (a label
// and a function may share a name, and so may locals of different
// functions; a section label needs its `sub`). Slots hold indices into the
// module's vectors, not views, so a copy of the module may share the index.
class NameIndex {
 public:
  enum class Kind : uint8_t { function, parameter, returnValue, variable, label, section, sectionLabel };
  // A name with its hash: a caller that looks a name up more than once
  // hashes it once.
  struct Key {
    std::string_view name;
    uint32_t hash = 0;
  };

  // The key of `name`: its hash under this process's secret.
  static Key key(std::string_view name);

  // Indexes every name `m` defines. A name's module-scope variable first,
  // the functions' own variables after the functions and their parameters:
  // a lookup finds the module's at once.
  explicit NameIndex(const Module& m);

  bool defines(const Module& m, const Key& key) const { return slotOf(m, key) != nullptr; }
  // Calls visit(kind, index, sub) for each definition of `key`'s name, in
  // file order, until it returns true.
  template <class Visit>
  void visit(const Module& m, const Key& key, Visit visit) const {
    const Slot* slot = slotOf(m, key);
    if (!slot) return;
    if (!(slot->ref & kChained)) {
      visit(static_cast<Kind>(slot->ref >> kIndexBits), slot->ref & kIndexMask, uint32_t{0});
      return;
    }
    for (uint32_t at = slot->ref & ~kChained; at != kNone; at = definitions_[at].next) {
      work::step(work::nameIndexProbe);
      const Definition& d = definitions_[at];
      if (visit(d.kind, d.index, d.sub)) return;
    }
  }

 private:
  struct Definition {
    Kind kind;
    uint8_t declared = 0;    // on a chain's first definition: kFunctionDeclared | kModuleVariableDeclared, the chain holds one
    uint32_t index = 0;      // into functions, parameters, variables, labels or sections
    uint32_t sub = 0;        // the section label within it
    uint32_t next = kNone;   // the next definition of the same name
    uint32_t last = kNone;   // on a chain's first definition: the chain's tail, where add() appends
  };
  // Eight bytes a slot: the table has at least 4/3 as many slots as the module has names.
  struct Slot {
    uint32_t hash = 0;
    uint32_t ref = kNone;  // kNone: empty; kChained | position in definitions_; else packed (kind, index)
  };
  // A definition on its way into the table.
  struct Pending {
    std::string_view name;
    uint32_t hash;
    Kind kind;
    uint8_t declaration;
    uint32_t index, sub;
  };
  static constexpr uint8_t kFunctionDeclared = 1, kModuleVariableDeclared = 2;
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kChained = uint32_t{1} << 31;
  static constexpr unsigned kIndexBits = 28;  // a packed index; larger ones are chained
  static constexpr uint32_t kIndexMask = (uint32_t{1} << kIndexBits) - 1;

  static bool isNamed(const Module& m, Kind kind, uint32_t index, uint32_t sub, std::string_view name);
  bool isNamed(const Module& m, uint32_t ref, std::string_view name) const;  // a slot's definition
  const Slot* slotOf(const Module& m, const Key& key) const;
  void insert(const Module& m, const Pending& p);
  uint32_t chain(const Pending& p);
  // A second definition of a name: a packed first one moves to a chain.
  void append(const Module& m, Slot& slot, const Pending& p);

  std::vector<Slot> slots_;  // any size (not a power of two), at most three quarters full
  std::vector<Definition> definitions_;
};

}  // namespace ptxdwarf::ptx
