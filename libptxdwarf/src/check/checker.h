// What every check pass shares: the module and its DWARF, the list a pass
// reports into, and the questions several rules ask (which DIE holds an
// offset, which PTX function a DIE describes, which code labels a DIE's pc
// attributes name). A pass is one member function, defined in the file of
// its family; check.cpp's rule table names the pass that reports each rule.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ptxdwarf/check/check.h"
#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::check {

// The rule table and the passes agree (check.cpp): for a unit test.
bool passTableIsConsistent();

// The code labels that DIEs' DW_AT_low_pc and DW_AT_high_pc relocations
// name, looked up once for the three rules that hold scopes against the PTX
// (subprograms, pcRanges, scopeOverlaps). Built by the first pass that asks.
struct PcLabels {
  struct Entry {
    uint32_t die;  // index into Dwarf::dies
    // Into Module::labels; kNoLabel: not relocated, or no label of that name.
    uint32_t low, high;
    // What the range rules ask of the two values (meaningful when both are relocated).
    bool highIsAddress;       // DW_AT_high_pc is DW_FORM_addr (not an offset from low_pc)
    bool highAddendBelowLow;  // high_pc's addend is less than low_pc's
    bool addendsZero;         // both name their labels with no addend
    bool sameFunction;        // both labels found, in one function's body
  };
  static constexpr uint32_t kNoLabel = UINT32_MAX;
  std::vector<Entry> entries;  // the DIEs with a relocated low_pc or high_pc, in DIE order
  std::once_flag built;
};

// What the passes of one check::run share (they may run on several threads).
struct CheckRun {
  const Options& options;
  PcLabels pcLabels = {};
};

class Checker {
 public:
  Checker(const ptx::Module& module, const read::Dwarf& dwarf, Diagnostics& out, CheckRun& run)
      : module_(module), dwarf_(dwarf), out_(out), run_(run) {}

  // ---- the passes, by family (file) ------------------------------------------
  // structure.cpp: units, abbreviations, forms
  void decoderFindings();
  void unitHeaders();
  void ptxasForms();
  // references.cpp: references between DIEs and into .debug_loc
  void references();
  void locListOffsets();
  // name_tables.cpp: .debug_pubnames and .debug_aranges
  void pubnames();
  void aranges();
  // locations.cpp: location expressions, and DIEs against the PTX's declarations and .file table
  void locations();
  void declFiles();
  // code_labels.cpp: symbols and the code labels of subprograms and scopes
  void symbols();
  void subprograms();
  void pcRanges();
  void scopeOverlaps();
  // operands.cpp: what symbolic operands and labels inside sections name and need
  void labelDifferenceLabels();
  void versionRequirements();
  void stringOffsets();
  void debugSectionOperands();
  void typeCycles();
  void sectionLabels();
  // lines.cpp: the line table (.file/.loc) and the DIEs' view of it
  void lineTable();
  void subprogramLines();
  void inlineCallSites();
  // roundtrip.cpp: decode and re-encode; run last, on DWARF the rules found no error in
  void roundTrip();
  // sources.cpp: the paths a debugger would open (Options::sources)
  void sourceFiles();

 private:
  // ---- reporting ---------------------------------------------------------------
  // At `offset` of `section` (its PTX line and column), naming `die` (or the
  // DIE holding a .debug_info offset).
  Diagnostic& report(Severity sev, const SectionImage* section, uint64_t offset, std::string_view rule,
                     std::string message, const read::Die* die = nullptr);
  void error(const SectionImage* s, uint64_t off, std::string_view rule, std::string msg,
             const read::Die* die = nullptr) {
    report(Severity::error, s, off, rule, std::move(msg), die);
  }
  void warning(const SectionImage* s, uint64_t off, std::string_view rule, std::string msg,
               const read::Die* die = nullptr) {
    report(Severity::warning, s, off, rule, std::move(msg), die);
  }

  // "DW_TAG_variable 'x' at 0x0000002a"; a name quoted in a message is spelled
  // as every output spells names (ptxdwarf/format.h).
  std::string describe(const read::Die& die) const;
  const read::Die* dieContaining(uint64_t offset) const;

  // ---- questions several rules ask --------------------------------------------------
  // The name a subprogram's code goes by in PTX: its linkage name, else that
  // of the declaration or abstract instance it completes (clang writes
  // definitions as DW_AT_specification of an in-class declaration), else the
  // first DW_AT_name along the same chain (LLVM's concrete out-of-line instance
  // of an inlined kernel, as Triton writes it, names itself only through
  // DW_AT_abstract_origin). `attr` receives the attribute the name came from.
  std::string_view ptxName(const read::Die& die, std::optional<read::AttrValue>* attr = nullptr) const;
  // The PTX function a DIE belongs to: its enclosing subprogram's name, looked
  // up among the module's functions; when the name finds nothing (the
  // linkage-name rule reports that), the function holding the subprogram's
  // low_pc label.
  const ptx::Function* enclosingFunction(const read::Die& die) const;
  const read::Die* enclosingSubprogram(const read::Die& die) const;
  const read::Die* rememberedSubprogram(const read::Die& die) const;
  const ptx::Function* functionOf(const read::Die& subprogram) const;
  // A DIE's DW_AT_low_pc and DW_AT_high_pc (the first of each), in one walk
  // of its attributes; none read when it has neither.
  std::pair<std::optional<read::AttrValue>, std::optional<read::AttrValue>> pcAttributes(const read::Die& die) const;
  const std::vector<PcLabels::Entry>& pcLabels() const;  // code_labels.cpp
  const ptx::Label* label(uint32_t index) const {
    return index == PcLabels::kNoLabel ? nullptr : &module_.labels[index];
  }

  // ---- helpers of one family ----------------------------------------------------
  // locations.cpp
  void checkExpression(const read::Die& die, std::span<const uint8_t> bytes, const SectionImage* sec, uint64_t at,
                       uint8_t addressSize, const std::optional<read::AttrValue>& addressClass);
  void checkRegister(const read::Die& die, uint64_t packed, const SectionImage* sec, uint64_t at,
                     const std::optional<read::AttrValue>& addressClass);
  void checkSpace(const read::Die& die, const Relocation& r, const read::AttrValue& addressClass);

  const ptx::Module& module_;
  const read::Dwarf& dwarf_;
  Diagnostics& out_;
  CheckRun& run_;
  mutable const read::Die* lastSubprogram_ = nullptr;  // enclosingFunction()'s last answer
  mutable const ptx::Function* lastFunction_ = nullptr;
  // enclosingSubprogram's last answer for the DIEs of a parent.
  mutable uint32_t lastParent_ = read::kNone - 1;
  mutable const read::Die* lastParentAnswer_ = nullptr;
  // rememberedSubprogram's answers by DIE index (read::kNone: no subprogram
  // encloses it), made at the first long walk; and the DIEs of a walk.
  static constexpr unsigned kShortWalk = 16;
  static constexpr uint32_t kNotWalked = read::kNone - 1;
  mutable std::vector<uint32_t> enclosing_;
  mutable std::vector<uint32_t> walked_;
};

}  // namespace ptxdwarf::check
