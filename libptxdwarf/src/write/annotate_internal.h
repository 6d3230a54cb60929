#pragma once

// Internal to annotate (src/write/annotate*.cpp): the text edits, and the
// Annotator that makes them and the DWARF unit. Its orchestration and text
// edits are in annotate.cpp, its DIE building in annotate_dies.cpp, its
// --rename-registers in annotate_rename.cpp. Not part of the library's interface.

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "../reserve.h"
#include "ptxdwarf/dwarf.h"
#include "../work.h"
#include "ptxdwarf/write/annotate.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/line_table.h"
#include "text_edits.h"

namespace ptxdwarf::write::annotating {

// Text added at an offset of the input, in place of `erase` bytes of it.
struct Insertion {
  uint64_t offset;
  uint32_t begin, size;  // in Edits::arena
  uint32_t erase = 0;
  bool late = false;  // after a `.loc` at the same offset (see Edits::apply)
};

class Edits {
 public:
  // The text appended to `arena` since `mark` goes in at `offset`.
  size_t mark() const { return arena.size(); }
  void insertSince(uint64_t offset, size_t mark, bool late = false) {
    if (arena.size() > mark)
      items.push_back({offset, static_cast<uint32_t>(mark), static_cast<uint32_t>(arena.size() - mark), 0, late});
  }
  void replace(uint64_t offset, uint32_t erase, std::string_view s) {
    items.push_back({offset, static_cast<uint32_t>(arena.size()), static_cast<uint32_t>(s.size()), erase});
    arena += s;
  }

  size_t size() const { return items.size(); }
  void reserve(size_t edits, size_t bytes) {
    reserveUpTo(items, edits);
    arena.reserve(bytes);
  }
  // Puts the edits made since `first` in order. Each function's edits lie in
  // its own body, so sorting them as each function ends leaves the whole
  // list sorted.
  void sortFrom(size_t first) {
    auto begin = items.begin() + static_cast<ptrdiff_t>(first);
    if (!std::is_sorted(begin, items.end(), before)) std::stable_sort(begin, items.end(), before);
  }

  // The edited text, piece by piece, to `out`, with the lines `locs` makes
  // (`.loc`s, in offset order: next() is where the next goes, take() its
  // text) merged in as they come, never held. At one offset a `.loc` goes
  // after the lines inserted early, before those inserted late and before a
  // replaced token.
  template <class Out, class Locs>
  void apply(std::string_view text, Out&& out, Locs& locs) {
    sortFrom(0);
    uint64_t at = 0;
    auto locsUpTo = [&](uint64_t offset, bool atOffsetToo) {
      for (uint64_t o; (o = locs.next()) < offset || (atOffsetToo && o == offset);) {
        if (o > at) out(text.substr(at, o - at)), at = o;
        out(locs.take());
      }
    };
    for (const Insertion& i : items) {
      locsUpTo(i.offset, i.late || i.erase != 0);
      if (i.offset > at) out(text.substr(at, i.offset - at));
      out(std::string_view(arena).substr(i.begin, i.size));
      at = std::max(at, i.offset + i.erase);
    }
    locsUpTo(UINT64_MAX, false);
    out(text.substr(std::min<uint64_t>(at, text.size())));
  }

  std::string arena;

 private:
  // At one offset: lines inserted early, then late, then a replaced token;
  // otherwise the order they were added in (stable sorts).
  static int rank(const Insertion& i) { return i.erase != 0 ? 2 : i.late ? 1 : 0; }
  static bool before(const Insertion& a, const Insertion& b) {
    return a.offset != b.offset ? a.offset < b.offset : rank(a) < rank(b);
  }
  std::vector<Insertion> items;
};

class Annotator {
  // --rename-registers: a function's long register names (and range prefixes)
  // and their new names.
  struct Rename {
    std::string to;
    uint32_t count = 0;  // a range prefix: the range's size; 0 for a plain name
  };
  using Renames = std::map<std::string, Rename, std::less<>>;

 public:
  Annotator(std::string_view text, const ptx::Module& m, const AnnotateOptions& o, Annotated& result,
            const std::function<void(std::string_view)>& sink)
      : text_(text),
        m_(m),
        options_(o),
        result_(result),
        sink_(sink),
        lines_(files_, labels_, {.version = m.version}) {}

  void run();

 private:
  Diagnostic& error(SourceLoc at, std::string message) {
    Diagnostic& d = result_.diagnostics.error(at, std::move(message));
    d.rule = "annotate";
    return d;
  }
  void warn(SourceLoc at, std::string message) {
    result_.diagnostics.warning(at, std::move(message)).rule = "annotate";
  }

  // One warning per register name that cannot be packed, at its first
  // declaration: nvcc -O3 declares `temp_param_reg` at every call site, and
  // thousands of identical warnings would bury any other. The later
  // declarations are counted into the first one's message at the end.
  void unpackable(SourceLoc at, std::string_view name, const std::string& problem);
  void countRepeatedWarnings();

  // Room for what the module will make, so the large tables are allocated
  // once instead of doubling (each doubling copies, and touches new pages).
  void reserveEdits() {
    const size_t edits = 4 * m_.functions.size() + 2 * m_.blocks.size() + 16;  // labels (renames grow it)
    edits_.reserve(edits, 32 * edits);
  }
  // The unit's, on the thread that builds it: a large unit's tables are
  // first touched there, beside the code's edits.
  void reserveDies();

  // Can `.file 1 "NAME"` hold the name as it is? Not a quote or a backslash
  // (PTX string escapes), nor a control byte (a newline would end the line
  // and the rest of the name be read as PTX).
  static bool fitsPtxString(std::string_view name);

  // The output's size, foreseen from what makes it: about 5 bytes per byte
  // of text (a `.loc` per instruction line, a DIE per declaration written
  // out), and about 80 bytes of dense DWARF per register variable, which a
  // register range makes many of from a few bytes of text.
  static constexpr uint64_t kGrowthOfText = 5;
  static constexpr uint64_t kBytesPerRegisterVariable = 80;
  static constexpr uint64_t kSmallFile = 16 * 1024;  // the floor of the limit

  // The register variables the ranges will make: at most those whose names
  // fit in 8 bytes (renamed, a range's stem may be as short as "%r").
  uint64_t registerVariablesForeseen(const ptx::RegisterDecl*& largest) const;

  bool withinGrowthLimit();

  // What annotate does not write over (unless asked to replace it).
  bool refuse();

  // --replace: the input's debug sections go (its .debug_str stays when its
  // `.loc function_name` lines stay), and so do its `.file`/`.loc`
  // directives unless they are kept.
  void removeDebugInformation();

  // A label prefix no label of the input starts with.
  void chooseLabelPrefix();

  uint64_t lineStart(uint32_t line) { return lineIndex_.start(line); }
  std::string_view eol() const { return crlf_ ? "\r\n" : "\n"; }

  // Appends `s` (lines ending in '\n') to the arena with the file's line ending.
  void addLines(std::string_view s);
  void insertLines(uint64_t offset, std::string_view s, bool late = false);

  // `.file 1` after the module header; `, debug` on `.target` where missing.
  void headerEdits();

  DieId typeOf(std::string_view ptxType);

  DieId arrayOf(const ptx::Variable& v);

  unsigned declFile() const { return options_.keepLines ? 0 : 1; }

  void variable(DieId scope, const ptx::Variable& v);

  uint8_t addressSize() const { return m_.addressSize == 32 ? 4 : 8; }

  void registers(DieId scope, const ptx::RegisterDecl& r, const Renames& renames);

  // How many registers of `%stem<count>` have names cuda-gdb can read: those
  // whose digits keep the name within 8 bytes (%r0 .. %r99999 of %r<200000>).
  static uint32_t packableInRange(std::string_view stem, uint32_t count);

  // A function's labels and renames, decided before its edits and its DIEs
  // are made (on two threads when there are two): the labels' numbers follow
  // the functions and blocks in file order either way.
  void planFunction(int32_t index);

  // The lines a function's code gets but its `.loc`s (LocStream makes
  // those as the code is written): renamed tokens and labels.
  void functionEdits(int32_t index);

  // A function's DIEs: its subprogram, parameters, registers and variables,
  // and a lexical block per `{ }` block that holds code.
  void functionDies(int32_t index);

  // The `.loc` lines, made as the code is written (never held: one per line
  // of code is most of the lines annotate adds): before each line holding an
  // instruction, with the first instruction's column, function by function.
  // None with keepLines.
  class LocStream {
   public:
    explicit LocStream(Annotator& a) : a_(a) {
      if (!a.options_.keepLines) advance();
    }
    uint64_t next() const { return next_; }  // UINT64_MAX: no more
    std::string_view take() {
      std::swap(taken_, text_);
      advance();
      return taken_;
    }

   private:
    void advance() {
      next_ = UINT64_MAX;
      text_.clear();
      for (;;) {
        if (k_ == end_ && !nextFunction()) return;
        const ptx::Instruction ins = *instruction_++;
        ++k_;
        if (ins.line == previous_) continue;
        previous_ = ins.line;
        ++a_.result_.stats.instructionLines;
        if (ins.line <= bodyLine_) continue;  // on the line of the body's `{`: no line to put it before
        a_.lines_.loc(text_, {1, ins.line, ins.col});
        ++a_.result_.stats.locs;
        if (text_.empty()) continue;
        a_.withFileLineEnds(text_);
        next_ = a_.lineStart(ins.line);
        return;
      }
    }
    bool nextFunction() {
      const std::vector<ptx::Function>& functions = a_.m_.functions;
      while (f_ < functions.size() && !functions[f_].hasBody) ++f_;
      if (f_ == functions.size()) return false;
      const ptx::Function& f = functions[f_++];
      a_.lines_.beginFunction();
      k_ = f.firstInstruction;
      end_ = f.endInstruction;
      instruction_ = a_.m_.instructions.at(k_);  // then a byte a step
      previous_ = 0;
      bodyLine_ = f.bodyBegin.line;
      return true;
    }

    Annotator& a_;
    size_t f_ = 0;
    uint32_t k_ = 0, end_ = 0, previous_ = 0, bodyLine_ = 0;
    ptx::InstructionPositions::iterator instruction_;  // standing on k_
    uint64_t next_ = UINT64_MAX;
    std::string text_, taken_;
  };

  // "\n" line ends as the file has them.
  void withFileLineEnds(std::string& s) const;

  // ---- --rename-registers ----------------------------------------------------

  // cuda-gdb reads a register location when the name has a leading '%' and at most 8 bytes.
  static bool packable(std::string_view name) { return name.size() <= 8 && name.starts_with('%'); }
  static bool identifierChar(char c);

  // New names start with a stem no register of the module starts with.
  void chooseStem();

  // a, b, ..., z, ba, bb, ...: letters only, so a plain new name never equals
  // a new range name (those end in digits).
  std::string tag(size_t k) const;

  // The function's long register names (and range prefixes) and their new names.
  Renames planRenames(const ptx::Function& f);

  // The new name of register (or range prefix) `name`; `name` when it keeps its own.
  static std::string renamed(std::string_view name, const Renames& renames);

  // Every token of the body that names a renamed register, renamed.
  void renameRegisters(const ptx::Function& f, const Renames& renames);

  // The code and the DWARF share nothing but the plans: with a CPU to spare
  // and a file large enough to pay for a thread, the DWARF is built and
  // encoded on one while the code's edits are made and the edited code is
  // written here. The code then goes out before the DWARF is known to be
  // good (see annotate.h); on one thread the DWARF comes first.
  bool codeAndDwarf();

  void makeEdits() {
    for (size_t f = 0; f < m_.functions.size(); ++f)
      if (m_.functions[f].hasBody) functionEdits(static_cast<int32_t>(f));
  }

  // The sections, encoded and checked for the file's version; the builder's
  // memory goes before the text is made.
  bool encodeDwarf();

  WriteOptions writeOptions() const;

  // The edited text, to the sink in pieces of about 1 MB.
  void writeCode();

  // The sections rendered straight after the code.
  void writeDwarf();

  std::string_view text_;
  const ptx::Module& m_;
  const AnnotateOptions& options_;
  Annotated& result_;
  const std::function<void(std::string_view)>& sink_;
  struct Repeats {
    size_t diagnostic;  // the warning at the name's first declaration
    size_t more;        // declarations after it
  };
  std::unordered_map<std::string, Repeats> unpackable_;
  FileTable files_;
  Labels labels_;
  LineEmitter lines_;
  // The smallest form for each constant: a register variable's decl file
  // takes 1 byte and its line 1 to 4 where the guide's data4 forms take 4
  // and 4 (register variables are most of the DWARF annotate writes).
  Builder b_{UnitOptions{.policy = FormPolicy::compact}};
  Edits edits_;
  std::vector<SectionImage> sections_;
  detail::LineIndex lineIndex_{text_};
  bool crlf_ = false;
  std::string sourceName_;
  // What both halves of a function's annotation (its edits, its DIEs) take
  // from one decision made first: its labels and its renames.
  struct FunctionPlan {
    std::optional<Labels::Function> pc;  // none: no instruction after the body's `{` line
    std::vector<std::optional<std::pair<std::string, std::string>>> blocks;  // by position in blocksOf_
    Renames renames;
  };
  std::vector<FunctionPlan> plans_;
  std::string stem_;
  std::vector<std::vector<size_t>> variablesOf_, blocksOf_;  // by function
  std::map<std::string, DieId, std::less<>> types_;
  std::map<std::string, DieId, std::less<>> typesByName_;
};

}  // namespace ptxdwarf::write::annotating
