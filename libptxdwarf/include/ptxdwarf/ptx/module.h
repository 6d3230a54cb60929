// The non-debug half of a PTX file, indexed so DWARF can be checked against it.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ptxdwarf/diagnostic.h"
#include "ptxdwarf/section.h"

namespace ptxdwarf::ptx {

class NameIndex;

enum class StateSpace : uint8_t {
  none, reg, sreg, const_, global, local, param, shared, tex, surf, sampler, generic
};
std::string_view stateSpaceName(StateSpace s);  // ".global", ... ; "" for none

enum class Linkage : uint8_t { none, visible, extern_, weak, common };

struct Version {
  unsigned major = 0;
  unsigned minor = 0;
  bool present = false;
  // true when this version is at least major.minor
  bool atLeast(unsigned maj, unsigned min) const {
    return major > maj || (major == maj && minor >= min);
  }
};

struct FileEntry {
  unsigned index = 0;
  std::string path;
  std::optional<uint64_t> timestamp;
  std::optional<uint64_t> size;
  SourceLoc loc;
};

// A source position as `.loc` and `inlined_at` write it: `FILE LINE [COL]`.
struct SourcePosition {
  unsigned file = 0;
  unsigned line = 0;
  unsigned col = 0;
  friend bool operator==(const SourcePosition&, const SourcePosition&) = default;
};

inline constexpr uint32_t kNoIndex = UINT32_MAX;

// The inlining operands of a `.loc`: `function_name $L__info_string1,
// inlined_at 2 477 5`. In a table of their own (Module::locInlinings): nvcc
// -G writes none, and in each record they took 32 of its 60 bytes.
struct LocInlining {
  uint32_t functionName = kNoIndex;  // the callee's name string label: an index into Module::locFunctionNames
  SourcePosition inlinedAt;          // the call site
  SourceLoc functionNameLoc, inlinedAtLoc;  // the operands, for diagnostics
};

// `.loc 3 151 9`, and for inlined code its LocInlining.
struct LocRecord {
  unsigned file = 0;
  unsigned line = 0;
  unsigned col = 0;
  int32_t function = -1;  // index into Module::functions, -1 at module scope
  // The instruction this location applies to: the first one after the
  // directive (an index into Module::instructions). Equal to the function's
  // instruction end when no instruction follows it in the function;
  // kNoIndex at module scope.
  uint32_t instruction = kNoIndex;
  uint32_t inlining = kNoIndex;  // into Module::locInlinings; kNoIndex when not inlined
  SourceLoc loc;

  SourcePosition position() const { return {file, line, col}; }
  bool isInlined() const { return inlining != kNoIndex; }
};
static_assert(sizeof(LocRecord) == 32, "one per .loc: keep it small");

// An instruction of a function body, where the PTX has it. Labels and `.loc`
// directives point at instructions by index; a function's are contiguous.
struct Instruction {
  uint32_t line = 0;
  uint32_t col = 0;
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

// Every instruction's position, in text order, recorded by the reader and
// kept compactly encoded by the library (a 20 MB nvcc -G file has 254,000
// instructions). Indexing decodes from the checkpoint before; iterating
// decodes a step at a time.
class InstructionPositions {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Instruction;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Instruction;

    iterator() = default;
    Instruction operator*() const { return current_; }
    iterator& operator++() {
      if (++index_ < count_) current_ = decodeNext(p_, current_);
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++*this;
      return before;
    }
    size_t index() const { return index_; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.index_ == b.index_; }

   private:
    friend class InstructionPositions;
    iterator(const uint8_t* p, Instruction current, size_t index, size_t count)
        : p_(p), current_(current), index_(index), count_(count) {}
    const uint8_t* p_ = nullptr;  // the next instruction's bytes
    Instruction current_{};
    size_t index_ = 0;
    size_t count_ = 0;
  };
  using const_iterator = iterator;
  using value_type = Instruction;

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  Instruction operator[](size_t i) const { return *at(i); }
  Instruction back() const { return last_; }
  // An iterator standing on instruction `i` (end() when i == size()).
  iterator at(size_t i) const;
  iterator begin() const { return at(0); }
  iterator end() const { return iterator(nullptr, {}, count_, count_); }
  // The bytes the positions take (what the encoding is for).
  size_t encodedBytes() const { return bytes_.size() + checkpoints_.size() * sizeof(Checkpoint); }
  friend bool operator==(const InstructionPositions& a, const InstructionPositions& b);

 private:
  struct Checkpoint {
    uint32_t pos = 0;  // of the group's first instruction in bytes_
    Instruction before{};  // the instruction before the group's first ({0, 0} for the first group)
  };
  friend struct InstructionPositionsEncoding;  // the encoding, internal to the library
  static Instruction decodeNext(const uint8_t*& p, Instruction before);

  std::vector<uint8_t> bytes_;
  std::vector<Checkpoint> checkpoints_;
  Instruction last_{};
  size_t count_ = 0;
};

// A `{ }` block inside a function body: registers declared in it are scoped to it.
struct Block {
  int32_t function = -1;
  int32_t parent = -1;                // the enclosing block, -1 for the body itself
  uint32_t firstInstruction = 0;      // [first, end) into Module::instructions
  uint32_t endInstruction = 0;
  SourceLoc open, close;              // `{` and `}`
};

// A variable or parameter declaration: `.shared .align 4 .b8 buf[128];`
// The members are ordered for size (48 bytes, not 56 with the padding
// between small and large ones): nvcc -G declares tens of thousands, a
// `.param` for every call.
struct Variable {
  SymbolName name;                  // kept in Module::names (as are the names below)
  SymbolName type;                  // ".b8", ".u64", ".texref", ...
  uint32_t firstDim = 0;            // [firstDim, endDim) into Module::dims (Module::dimsOf)
  uint32_t endDim = 0;
  SourceLoc loc;
  uint32_t align = 0;               // 0 when not given
  int32_t function = -1;            // -1: module scope
  int32_t block = -1;               // the `{ }` block declaring it inside a body, -1 for none
  StateSpace space = StateSpace::none;
  Linkage linkage = Linkage::none;
};
static_assert(sizeof(void*) != 8 || sizeof(Variable) == 48, "nvcc -G declares tens of thousands: keep it small");

// `.reg .b32 %r<4>;` declares %r0..%r3 (range form); `.reg .pred p, q;` plain names.
struct RegisterDecl {
  SymbolName name;         // "%r" for the range form, else the full name
  SymbolName type;         // ".b32"
  uint32_t count = 0;      // range form: number of registers; 0 for a plain name
  int32_t block = -1;      // the `{ }` block declaring it, -1 for the function body
  bool isRange() const { return count != 0; }
  SourceLoc loc;
};
static_assert(sizeof(void*) != 8 || sizeof(RegisterDecl) == 32, "tens of thousands in a large file: keep it small");

// A code label (`name:`). 16 bytes: its function is the one whose label
// range holds it (Module::functionOf), and of where it was written only the
// line is kept (the column is a label's indentation, which nothing asks for).
struct Label {
  SymbolName name;
  // The instruction the label stands for: the next one in the function (PTX
  // ISA: a label takes the location of the next instruction); the function's
  // instruction end when none follows.
  uint32_t instruction = kNoIndex;
  uint32_t line = 0;
};
static_assert(sizeof(void*) != 8 || sizeof(Label) == 16, "one per code label: keep it small");

// A function's parameters and registers are ranges of the module's
// (Module::paramsOf, returnsOf, registersOf), as its labels and
// instructions are: a vector each per function, grown by doubling, was 4,500
// allocations in fresh heap pages for a 20 MB nvcc -G file, and a third of
// its check's page faults.
struct Function {
  std::string name;
  bool isEntry = false;
  Linkage linkage = Linkage::none;
  bool hasBody = false;
  uint32_t firstReturn = 0;        // [firstReturn, firstParam): .func return parameters,
  uint32_t firstParam = 0;         // [firstParam, endParam): parameters, into Module::parameters
  uint32_t endParam = 0;
  uint32_t firstRegister = 0;      // [first, end) into Module::registers
  uint32_t endRegister = 0;
  uint32_t firstLabel = 0;         // [first, end) into Module::labels: a body's labels are contiguous
  uint32_t endLabel = 0;
  uint32_t firstInstruction = 0;   // [first, end) into Module::instructions
  uint32_t endInstruction = 0;
  uint32_t firstVariable = 0;      // [first, end) into Module::variables: its body's (Module::reindex)
  uint32_t endVariable = 0;
  SourceLoc loc;                   // the `.entry`/`.func` directive
  SourceLoc bodyBegin, bodyEnd;    // `{` and `}`
};

struct Module {
  std::string filename;
  // What the module was read from, as llvm-dwarfdump's first line names it:
  // "ptx", or "elf64-unknown" for a cubin (cubin::read; LLVM knows no CUDA ELF).
  std::string_view fileFormat = "ptx";
  // The characters of the labels', variables' and registers' names and types
  // (a name is a pointer, not a 32-byte string: a 20 MB nvcc -G file has
  // 100,000 labels and 60,000 variables and registers). Copies of a Module
  // share what was kept before the copy.
  StringStore names;
  Version version;
  std::vector<std::string> targets;  // ".target sm_90, debug" -> {"sm_90", "debug"}
  bool debug = false;                // `debug` among the targets
  unsigned addressSize = 0;          // 0 when no .address_size (PTX default is 32)
  SourceLoc versionLoc, targetLoc, addressSizeLoc;
  std::vector<FileEntry> files;
  std::vector<LocRecord> locs;
  std::vector<LocInlining> locInlinings;      // of the inlined records, in their order (LocRecord::inlining)
  std::vector<std::string> locFunctionNames;  // `function_name` labels, each once
  InstructionPositions instructions;          // every function's, in text order
  std::vector<Block> blocks;                  // `{ }` blocks inside bodies, in text order
  std::vector<Function> functions;
  std::vector<Variable> variables;   // module scope and function scope (Variable::function)
  std::vector<Variable> parameters;  // every function's return parameters, then parameters, function by function
  std::vector<RegisterDecl> registers;  // every body's `.reg` declarations, function by function
  // The array dimensions of variables and parameters (0 for `[]`), declaration by declaration.
  std::vector<uint64_t> dims;
  std::vector<Label> labels;         // code labels, in order
  std::vector<SectionImage> sections;  // every `.section`, blocks of one name concatenated

  std::span<const Variable> returnsOf(const Function& f) const {
    return rangeOf(parameters, f.firstReturn, f.firstParam);
  }
  std::span<const Variable> paramsOf(const Function& f) const { return rangeOf(parameters, f.firstParam, f.endParam); }
  std::span<const RegisterDecl> registersOf(const Function& f) const {
    return rangeOf(registers, f.firstRegister, f.endRegister);
  }
  // The array dimensions of a variable or parameter; empty when it is no array.
  std::span<const uint64_t> dimsOf(const Variable& v) const { return rangeOf(dims, v.firstDim, v.endDim); }
  // The index into `functions` of the function whose body defines `label`,
  // one of `labels`: `guess` when its label range holds the label (the
  // function expected, or the last answer for labels visited in order),
  // else a binary search of the ranges.
  int32_t functionOf(const Label& label, int32_t guess = -1) const;
  // The inlining operands of an inlined record (r.isInlined()).
  const LocInlining& inliningOf(const LocRecord& r) const { return locInlinings[r.inlining]; }
  // Does the body of `f` declare `reg` ("%r3" matches `%r<4>`, `%SP` matches `%SP`)?
  // The declarations one by one; looked up by name where a function has
  // more than kDeclarationsScanned (and reindex() was called).
  bool declaresRegister(const Function& f, std::string_view reg) const;
  static constexpr size_t kDeclarationsScanned = 64;

  const SectionImage* section(std::string_view name) const;
  const Function* findFunction(std::string_view name) const;
  const Variable* findVariable(std::string_view name, int32_t function = -1) const;
  const Variable* findParameter(std::string_view name) const;
  const Label* findLabel(std::string_view name) const;
  const FileEntry* findFile(unsigned index) const;
  // Any definition a symbolic operand may name: label, function, variable,
  // parameter, or a section name.
  bool definesSymbol(std::string_view name) const;
  // Builds the name index (and indexFiles()); the reader calls it, callers
  // that edit a Module call it again.
  void reindex();
  // Builds only the index findFile() uses (it scans without one).
  void indexFiles();

 private:
  template <class T>
  static std::span<const T> rangeOf(const std::vector<T>& v, uint32_t first, uint32_t end) {
    return std::span<const T>(v).subspan(first, end - first);
  }

  // Calls visit(kind, index, sub) for each definition of `key`'s name, in
  // file order, until it returns true (NameIndex::visit).
  template <class Visit>
  void visitDefinitions(std::string_view name, Visit visit) const;

  // Every name the module defines (reindex()); shared by copies.
  std::shared_ptr<const NameIndex> nameIndex_;
  std::vector<std::pair<unsigned, uint32_t>> fileIndex_;  // (.file index, position in files), sorted; from reindex()
  // A function's declarations (registers, or its body's variables) where it
  // has more than kDeclarationsScanned: their positions by the hash of
  // their names, then in declaration order. Made when the function is first
  // searched (nvcc's kernels have hundreds of call sites' `.param`s, which
  // check rarely asks about); reset by reindex(), shared by copies.
  struct DeclarationOrder;  // module.cpp
  std::shared_ptr<DeclarationOrder> declarationOrder_;
  // The variable of function `function` named `name` declared first, or nullptr.
  const Variable* localNamed(int32_t function, std::string_view name) const;
};

struct ReadOptions {
  // Called about every `consumedStep` bytes with a range [begin, end) of the
  // text the reader will not look at again. The Module keeps no view of the
  // text, so a caller that mapped the file can drop those pages as the read
  // goes on.
  std::function<void(uint64_t begin, uint64_t end)> consumed;
  uint64_t consumedStep = uint64_t{1} << 20;
  // Build the name index (Module::reindex) before returning. A caller may
  // turn this off to build it later, e.g. on another thread while it decodes
  // the sections; the find* functions find nothing until it is built.
  bool index = true;
  // Record what function bodies hold: instructions, code labels, `.loc`
  // records, and the variables and registers they declare. Bodies are read
  // (and their errors reported) either way; a caller that only looks at the
  // debug sections and the module scope turns this off and saves most of
  // the memory of a large nvcc -G file. Off, those vectors stay empty and a
  // function's instruction and label ranges are empty.
  bool bodies = true;
  // 2 or more: the large `.section` blocks (nvcc and LLVM write them after
  // the functions) are read on a second thread while the reader is still in
  // the functions. The result is the same; 1 reads on the caller's thread
  // alone.
  unsigned threads = 1;
};

struct ReadResult {
  Module module;
  Diagnostics diagnostics;
  bool ok() const { return !diagnostics.hasErrors(); }
};

// Reads a whole PTX file in one pass. On a syntax error the result carries a
// diagnostic (file:line:col) and the module holds what was read up to it.
ReadResult read(std::string_view text, std::string_view filename = "<input>",
                const ReadOptions& options = {});

}  // namespace ptxdwarf::ptx
