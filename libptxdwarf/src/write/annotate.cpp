#include "ptxdwarf/write/annotate.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <exception>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <thread>
#include <vector>

#include "../parallel.h"
#include "../reserve.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/work.h"
#include "ptxdwarf/write/builder.h"
#include "ptxdwarf/write/encode.h"
#include "ptxdwarf/write/line_table.h"

#ifndef PTXDWARF_VERSION_STRING
#define PTXDWARF_VERSION_STRING "unknown"
#endif

namespace ptxdwarf::write {

namespace {

// Text added at an offset of the input. Several at one offset keep the order
// they were added in.
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
  void insert(uint64_t offset, std::string_view s) {
    size_t m = mark();
    arena += s;
    insertSince(offset, m);
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

// Where the text's lines start, found as far as they are asked for: the
// edits ask in about increasing order, so the text is scanned once, as
// they are made (on the thread that makes them, not before the threads
// part).
class LineStarts {
 public:
  explicit LineStarts(std::string_view text) : text_(text) {}

  // Line N (from 1) starts at this offset; the text's size past its last line.
  uint64_t operator()(uint32_t line) {
    if (line == 0) return 0;
    scanTo(line);
    return line <= starts_.size() ? starts_[line - 1] : text_.size();
  }
  bool has(uint32_t line) {
    scanTo(line);
    return line <= starts_.size();
  }
  void release() { starts_ = {}; }

 private:
  void scanTo(uint32_t line) {
    if (starts_.empty()) {
      // Room for a line of every 8 bytes, filled once, in place: nvcc -O3
      // writes lines of 14 bytes on average, and a vector that outgrows its
      // room copies itself into twice the memory.
      reserveUpTo(starts_, text_.size() / 8 + 2);
      starts_.push_back(0);
    }
    const char* base = text_.data();
    const char* end = base + text_.size();
    while (starts_.size() < line && !done_) {
      const char* p = base + starts_.back();
      const void* nl = p < end ? std::memchr(p, '\n', static_cast<size_t>(end - p)) : nullptr;
      if (!nl) {
        done_ = true;
        break;
      }
      starts_.push_back(static_cast<uint32_t>(static_cast<const char*>(nl) + 1 - base));
    }
  }

  std::string_view text_;
  std::vector<uint32_t> starts_;  // line N starts at starts_[N-1] (ptx::read takes at most 4 GiB)
  bool done_ = false;             // no line break after the last start
};

struct BaseType {
  const char* name;
  uint8_t encoding;
  uint8_t size;
};

// The C type a PTX register or variable type reads as.
std::optional<BaseType> baseTypeOf(std::string_view t) {
  using namespace dw;
  static const std::map<std::string_view, BaseType> kTypes{
      {".pred", {"bool", DW_ATE_boolean, 1}},
      {".b8", {"unsigned char", DW_ATE_unsigned_char, 1}},
      {".u8", {"unsigned char", DW_ATE_unsigned_char, 1}},
      {".s8", {"signed char", DW_ATE_signed_char, 1}},
      {".b16", {"unsigned short", DW_ATE_unsigned, 2}},
      {".u16", {"unsigned short", DW_ATE_unsigned, 2}},
      {".s16", {"short", DW_ATE_signed, 2}},
      {".f16", {"half", DW_ATE_float, 2}},
      {".bf16", {"__nv_bfloat16", DW_ATE_float, 2}},
      {".f16x2", {"half2", DW_ATE_unsigned, 4}},
      {".bf16x2", {"__nv_bfloat162", DW_ATE_unsigned, 4}},
      {".b32", {"unsigned int", DW_ATE_unsigned, 4}},
      {".u32", {"unsigned int", DW_ATE_unsigned, 4}},
      {".s32", {"int", DW_ATE_signed, 4}},
      {".f32", {"float", DW_ATE_float, 4}},
      {".b64", {"unsigned long long", DW_ATE_unsigned, 8}},
      {".u64", {"unsigned long long", DW_ATE_unsigned, 8}},
      {".s64", {"long long", DW_ATE_signed, 8}},
      {".f64", {"double", DW_ATE_float, 8}},
      {".b128", {"unsigned __int128", DW_ATE_unsigned, 16}},
  };
  auto it = kTypes.find(t);
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

bool isExternal(ptx::Linkage l) {
  return l == ptx::Linkage::visible || l == ptx::Linkage::extern_ || l == ptx::Linkage::weak;
}

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

  void run() {
    if (!refuse()) return;
    size_t firstBreak = text_.find('\n');
    crlf_ = firstBreak != std::string_view::npos && firstBreak > 0 && text_[firstBreak - 1] == '\r';
    chooseLabelPrefix();
    if (options_.renameRegisters) chooseStem();
    sourceName_ = options_.sourceName.empty() ? m_.filename : options_.sourceName;
    if (options_.replace) removeDebugInformation();
    if (!options_.keepLines) {
      if (!fitsPtxString(sourceName_)) {
        error({}, "the source name '" + sourceName_ + "' cannot be written in a PTX .file string");
        return;
      }
      files_.add(sourceName_);
      headerEdits();
    }
    // In order before the functions add theirs (`, debug` on `.target` comes
    // before the `.file` line after the header): the list stays sorted
    // function by function, and apply() finds nothing left to sort.
    edits_.sortFrom(0);
    b_.compileUnit({.producer = std::string("ptxdwarf annotate ") + PTXDWARF_VERSION_STRING,
                    .language = dw::DW_LANG_Mips_Assembler,
                    .name = sourceName_,
                    .stmtList = !options_.keepLines || !m_.files.empty()});
    for (size_t v = 0; v < m_.variables.size(); ++v)
      if (m_.variables[v].function < 0) variable(b_.root(), m_.variables[v]);
    // Each function's variables and blocks, so each function looks at its own only.
    variablesOf_.resize(m_.functions.size());
    blocksOf_.resize(m_.functions.size());
    for (size_t v = 0; v < m_.variables.size(); ++v)
      if (m_.variables[v].function >= 0) variablesOf_[static_cast<size_t>(m_.variables[v].function)].push_back(v);
    for (size_t b = 0; b < m_.blocks.size(); ++b)
      if (m_.blocks[b].function >= 0) blocksOf_[static_cast<size_t>(m_.blocks[b].function)].push_back(b);
    reserveEdits();
    plans_.resize(m_.functions.size());
    for (size_t f = 0; f < m_.functions.size(); ++f)
      if (m_.functions[f].hasBody) planFunction(static_cast<int32_t>(f));
    if (!codeAndDwarf()) return;
    writeDwarf();
  }

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
  void unpackable(SourceLoc at, std::string_view name, const std::string& problem) {
    auto [it, first] = unpackable_.try_emplace(std::string(name), Repeats{result_.diagnostics.items.size(), 0});
    if (!first) {
      ++it->second.more;
      return;
    }
    warn(at, "register " + std::string(name) + " gets no variable: " + problem);
  }
  void countRepeatedWarnings() {
    for (const auto& [name, r] : unpackable_)
      if (r.more)
        result_.diagnostics.items[r.diagnostic].message +=
            " (and at " + std::to_string(r.more) + " more declaration" + (r.more == 1 ? "" : "s") + " of " + name + ")";
  }

  // Room for what the module will make, so the large tables are allocated
  // once instead of doubling (each doubling copies, and touches new pages).
  void reserveEdits() {
    const size_t edits = 4 * m_.functions.size() + 2 * m_.blocks.size() + 16;  // labels (renames grow it)
    edits_.reserve(edits, 32 * edits);
  }
  // The unit's, on the thread that builds it: a large unit's tables are
  // first touched there, beside the code's edits.
  void reserveDies() {
    size_t dies = 16 + m_.variables.size() + 2 * m_.blocks.size(), declarations = 0;
    // A declaration's registers are one record (a run).
    dies += m_.functions.size() + m_.parameters.size() + m_.registers.size();
    declarations += m_.registers.size();
    constexpr size_t kAttributesPerDie = 7;  // name, decl file and line, type, location, class, +1
    // A declaration's encoded bytes are one register variable's ("%rd1234",
    // 8, 4, 11, 1): a range keeps its first register's (Unit::addRegisterRun).
    constexpr size_t kBytesPerDeclaration = 30;
    b_.unit().reserve(dies, kAttributesPerDie * dies);
    b_.unit().reserveEncoded(kBytesPerDeclaration * declarations);
  }

  // Can `.file 1 "NAME"` hold the name as it is? Not a quote or a backslash
  // (PTX string escapes), nor a control byte (a newline would end the line
  // and the rest of the name be read as PTX).
  static bool fitsPtxString(std::string_view name) {
    if (name.empty()) return false;
    for (unsigned char c : name)
      if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f) return false;
    return true;
  }

  // The output's size, foreseen from what makes it: about 5 bytes per byte
  // of text (a `.loc` per instruction line, a DIE per declaration written
  // out), and about 80 bytes of dense DWARF per register variable, which a
  // register range makes many of from a few bytes of text.
  static constexpr uint64_t kGrowthOfText = 5;
  static constexpr uint64_t kBytesPerRegisterVariable = 80;
  static constexpr uint64_t kSmallFile = 16 * 1024;  // the floor of the limit

  // The register variables the ranges will make: at most those whose names
  // fit in 8 bytes (renamed, a range's stem may be as short as "%r").
  uint64_t registerVariablesForeseen(const ptx::RegisterDecl*& largest) const {
    uint64_t total = 0, most = 0;
    for (const ptx::RegisterDecl& r : m_.registers) {
      uint64_t n = 1;
      if (r.isRange())
        n = options_.renameRegisters ? std::min<uint64_t>(r.count, packableInRange("%r", r.count))
                                     : packableInRange(r.name, r.count);
      total += n;
      if (n > most) most = n, largest = &r;
    }
    return total;
  }

  bool withinGrowthLimit() {
    if (options_.maxGrowth == 0) return true;
    const ptx::RegisterDecl* largest = nullptr;
    const uint64_t registers = registerVariablesForeseen(largest);
    const uint64_t foreseen = kGrowthOfText * text_.size() + kBytesPerRegisterVariable * registers;
    const uint64_t limit = uint64_t{options_.maxGrowth} * std::max<uint64_t>(text_.size(), kSmallFile);
    if (foreseen <= limit) return true;
    error(largest ? largest->loc : SourceLoc{1, 1},
          "the annotated file would be about " + std::to_string(foreseen / 1024) + " KiB, over the limit of " +
              std::to_string(limit / 1024) + " KiB (" + std::to_string(options_.maxGrowth) +
              " times the input's size, at least 16 KiB): its register declarations make " +
              std::to_string(registers) +
              " variables; --max-growth (AnnotateOptions::maxGrowth) raises the limit, 0 lifts it");
    return false;
  }

  // What annotate does not write over (unless asked to replace it).
  bool refuse() {
    if (text_.size() > UINT32_MAX) {  // as ptx::read refuses it: line starts are 32-bit offsets
      error({1, 1}, "file is larger than 4 GiB; PTX this large is not supported");
      return false;
    }
    if (!withinGrowthLimit()) return false;
    if (options_.replace) return true;
    for (const char* name : {".debug_info", ".debug_abbrev", ".debug_loc", ".debug_pubnames"})
      if (const SectionImage* s = m_.section(name)) {
        error(s->loc,
              std::string("the file already has ") + name + "; annotate adds debug information to PTX that has none");
        return false;
      }
    if (!options_.keepLines && (!m_.files.empty() || !m_.locs.empty())) {
      SourceLoc at = !m_.files.empty() ? m_.files[0].loc : m_.locs[0].loc;
      error(at, "the file already has line information (.file/.loc); --keep-lines keeps it and adds only the DWARF");
      return false;
    }
    return true;
  }

  // --replace: the input's debug sections go (its .debug_str stays when its
  // `.loc function_name` lines stay), and so do its `.file`/`.loc`
  // directives unless they are kept.
  void removeDebugInformation() {
    for (const SectionImage& section : m_.sections) {
      if (!section.name.starts_with(".debug")) continue;
      if (options_.keepLines && section.name == ".debug_str") continue;
      for (const TextRange& b : section.blocks) edits_.replace(b.begin, static_cast<uint32_t>(b.end - b.begin), "");
    }
    if (options_.keepLines) return;
    auto eraseDirective = [&](SourceLoc at) {  // from the directive to the end of its line
      uint64_t begin = lineStart(at.line) + (at.col ? at.col - 1 : 0);
      uint64_t end = starts_.has(at.line + 1) ? lineStart(at.line + 1) - 1 : text_.size();
      if (end > begin && text_[end - 1] == '\r') --end;
      if (end > begin) edits_.replace(begin, static_cast<uint32_t>(end - begin), "");
    };
    for (const ptx::FileEntry& f : m_.files) eraseDirective(f.loc);
    for (const ptx::LocRecord& l : m_.locs) eraseDirective(l.loc);
  }

  // A label prefix no label of the input starts with.
  void chooseLabelPrefix() {
    for (unsigned k = 0;; ++k) {
      std::string prefix = "$__ptxdwarf" + (k ? std::to_string(k) : std::string()) + "_";
      bool used = std::any_of(m_.labels.begin(), m_.labels.end(),
                              [&](const ptx::Label& l) { return l.name.starts_with(prefix); });
      if (!used) {
        labels_ = Labels(prefix);
        return;
      }
    }
  }

  uint64_t lineStart(uint32_t line) { return starts_(line); }
  std::string_view eol() const { return crlf_ ? "\r\n" : "\n"; }

  // Appends `s` (lines ending in '\n') to the arena with the file's line ending.
  void addLines(std::string_view s) {
    if (!crlf_) {
      edits_.arena += s;
      if (!s.empty() && s.back() != '\n') edits_.arena += '\n';
      return;
    }
    for (size_t pos = 0; pos < s.size();) {
      size_t nl = s.find('\n', pos);
      if (nl == std::string_view::npos) nl = s.size();
      edits_.arena.append(s.substr(pos, nl - pos));
      edits_.arena += eol();
      pos = nl + 1;
    }
  }
  void insertLines(uint64_t offset, std::string_view s, bool late = false) {
    size_t mark = edits_.mark();
    // At the end of a text that does not end in a line break, start a new line first.
    if (offset == text_.size() && !text_.empty() && text_.back() != '\n') edits_.arena += eol();
    addLines(s);
    edits_.insertSince(offset, mark, late);
  }

  // `.file 1` after the module header; `, debug` on `.target` where missing.
  void headerEdits() {
    uint32_t header = std::max({m_.versionLoc.line, m_.targetLoc.line, m_.addressSizeLoc.line});
    std::string file;
    files_.write(file);
    insertLines(header == 0 ? 0 : lineStart(header + 1), file);
    if (!m_.debug && m_.targetLoc.line != 0) {
      uint64_t begin = lineStart(m_.targetLoc.line) + (m_.targetLoc.col ? m_.targetLoc.col - 1 : 0);
      uint64_t end = starts_.has(m_.targetLoc.line + 1) ? lineStart(m_.targetLoc.line + 1) : text_.size();
      std::string_view line = text_.substr(begin, end - begin);
      size_t comment = std::min({line.find("//"), line.find("/*"), line.find('\n')});
      if (comment != std::string_view::npos) line = line.substr(0, comment);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
      edits_.insert(begin + line.size(), ", debug");
    }
  }

  DieId typeOf(std::string_view ptxType) {
    auto it = types_.find(ptxType);
    if (it != types_.end()) return it->second;
    DieId t = kNoDie;
    if (std::optional<BaseType> bt = baseTypeOf(ptxType)) {
      auto named = typesByName_.find(bt->name);
      t = named != typesByName_.end() ? named->second : b_.baseType(bt->name, bt->encoding, bt->size);
      typesByName_[bt->name] = t;
    }
    types_.emplace(std::string(ptxType), t);
    return t;
  }

  DieId arrayOf(const ptx::Variable& v) {
    DieId element = typeOf(v.type);
    const std::span<const uint64_t> dims = m_.dimsOf(v);
    if (dims.empty() || element == kNoDie) return element;
    DieId array = b_.arrayType(element);
    for (uint64_t d : dims) {
      if (d == 0) {
        b_.unit().add(array, dw::DW_TAG_subrange_type);  // `[]`: no count
      } else {
        b_.subrange(array, d);
      }
    }
    return array;
  }

  unsigned declFile() const { return options_.keepLines ? 0 : 1; }

  void variable(DieId scope, const ptx::Variable& v) {
    switch (v.space) {
      case ptx::StateSpace::global:
      case ptx::StateSpace::shared:
      case ptx::StateSpace::const_:
      case ptx::StateSpace::local:
        break;
      default:
        return;
    }
    b_.variable(scope, {.name = v.name.str(),
                        .declFile = declFile(),
                        .declLine = declFile() ? v.loc.line : 0,
                        .type = arrayOf(v),
                        .location = Location::symbol({v.name.str()}, v.space, addressSize()),
                        .external = v.function < 0 && isExternal(v.linkage)});
    ++result_.stats.variables;
  }

  uint8_t addressSize() const { return m_.addressSize == 32 ? 4 : 8; }

  void registers(DieId scope, const ptx::RegisterDecl& r, const Renames& renames) {
    const DieId type = typeOf(r.type);
    const unsigned file = declFile(), line = file ? r.loc.line : 0;
    auto one = [&](std::string_view name) {
      // A PTX identifier holds only [A-Za-z0-9_$%]: the length and the '%'
      // decide, and the builder checks the rest.
      try {
        if (packable(name) && name.size() >= 2) {
          b_.registerVariable(scope, {.reg = name, .declFile = file, .declLine = line, .type = type});
          ++result_.stats.registerVariables;
          return;
        }
      } catch (const BuildError&) {
      }
      unpackable(r.loc, name, registerProblem(name));
      ++result_.stats.skippedRegisters;
    };
    if (!r.isRange()) return one(renamed(r.name, renames));
    // `%r<N>`: %r0 .. %r(N-1), named from the range's stem (its new one when
    // renamed). Those whose names fit go to the builder at once; the rest
    // (%r12345678 ...) share one warning, however many they are.
    std::string_view stem = r.name;
    if (auto it = renames.find(r.name); it != renames.end() && it->second.count > 0) stem = it->second.to;
    const uint32_t fit = packableInRange(stem, r.count);
    if (fit > 0) {
      b_.registerVariables(scope, {.stem = stem, .count = fit, .declFile = file, .declLine = line, .type = type});
      result_.stats.registerVariables += fit;
    }
    if (fit == r.count) return;
    const std::string from = std::string(stem) + std::to_string(fit), to = std::string(stem) + std::to_string(r.count - 1);
    warn(r.loc, (fit + 1 == r.count ? "register " + from + " gets no variable: "
                                     : "registers " + from + " .. " + to + " of " + r.name.str() + "<" +
                                           std::to_string(r.count) + "> get no variables: ") +
                    registerProblem(from));
    result_.stats.skippedRegisters += r.count - fit;
  }

  // How many registers of `%stem<count>` have names cuda-gdb can read: those
  // whose digits keep the name within 8 bytes (%r0 .. %r99999 of %r<200000>).
  static uint32_t packableInRange(std::string_view stem, uint32_t count) {
    if (stem.size() >= 8 || !cuda::packRegister(stem)) return 0;  // not even one digit fits
    uint64_t fit = 1;  // 10^(digits the name has room for)
    for (size_t room = 8 - stem.size(); room > 0 && fit <= count; --room) fit *= 10;
    return static_cast<uint32_t>(std::min<uint64_t>(count, fit));
  }

  // A function's labels and renames, decided before its edits and its DIEs
  // are made (on two threads when there are two): the labels' numbers follow
  // the functions and blocks in file order either way.
  void planFunction(int32_t index) {
    const ptx::Function& f = m_.functions[static_cast<size_t>(index)];
    FunctionPlan& plan = plans_[static_cast<size_t>(index)];
    if (options_.renameRegisters) plan.renames = planRenames(f);
    const uint32_t bodyLine = f.bodyBegin.line;
    if (f.firstInstruction < f.endInstruction && m_.instructions[f.firstInstruction].line > bodyLine &&
        f.bodyEnd.line > bodyLine)
      plan.pc = labels_.function();
    for (size_t k : blocksOf_[static_cast<size_t>(index)]) {
      const ptx::Block& blk = m_.blocks[k];
      if (blk.firstInstruction < blk.endInstruction && m_.instructions[blk.firstInstruction].line > bodyLine &&
          blk.close.line > bodyLine) {
        std::string begin = labels_.temporary();
        plan.blocks.emplace_back(std::pair{std::move(begin), labels_.temporary()});
      } else {
        plan.blocks.emplace_back(std::nullopt);
      }
    }
  }

  // The lines a function's code gets but its `.loc`s (LocStream makes
  // those as the code is written): renamed tokens and labels.
  void functionEdits(int32_t index) {
    const ptx::Function& f = m_.functions[static_cast<size_t>(index)];
    const FunctionPlan& plan = plans_[static_cast<size_t>(index)];
    const size_t firstEdit = edits_.size();
    renameRegisters(f, plan.renames);
    if (plan.pc) insertLines(lineStart(m_.instructions[f.firstInstruction].line), plan.pc->begin + ":\n");
    const std::vector<size_t>& blocks = blocksOf_[static_cast<size_t>(index)];
    for (size_t j = 0; j < blocks.size(); ++j) {
      if (!plan.blocks[j]) continue;
      const ptx::Block& blk = m_.blocks[blocks[j]];
      insertLines(lineStart(m_.instructions[blk.firstInstruction].line), plan.blocks[j]->first + ":\n");
      insertLines(lineStart(blk.close.line), plan.blocks[j]->second + ":\n");
    }
    if (plan.pc) insertLines(lineStart(f.bodyEnd.line), plan.pc->end + ":\n", /*late=*/true);
    edits_.sortFrom(firstEdit);
  }

  // A function's DIEs: its subprogram, parameters, registers and variables,
  // and a lexical block per `{ }` block that holds code.
  void functionDies(int32_t index) {
    const ptx::Function& f = m_.functions[static_cast<size_t>(index)];
    const FunctionPlan& plan = plans_[static_cast<size_t>(index)];
    const std::optional<Labels::Function>& pc = plan.pc;
    DieId sp = b_.subprogram({.name = f.name,
                              .linkageName = f.name,
                              .declFile = declFile(),
                              .declLine = declFile() ? f.loc.line : 0,
                              .external = isExternal(f.linkage),
                              .lowPc = pc ? std::optional<SymbolRef>(SymbolRef{pc->begin}) : std::nullopt,
                              .highPc = pc ? std::optional<SymbolRef>(SymbolRef{pc->end}) : std::nullopt});
    ++result_.stats.subprograms;
    for (const ptx::Variable& p : m_.paramsOf(f)) {
      b_.formalParameter(sp, {.name = p.name.str(),
                              .declFile = declFile(),
                              .declLine = declFile() ? p.loc.line : 0,
                              .type = arrayOf(p),
                              .location = Location::symbol({p.name.str()}, ptx::StateSpace::param, addressSize())});
      ++result_.stats.parameters;
    }
    // The function's own registers and variables, then each `{ }` block's in
    // a lexical block. Declarations are grouped by block first (stable, so in
    // file order within one), so a function of many blocks is not a
    // blocks-times-declarations walk.
    const std::vector<size_t>& variables = variablesOf_[static_cast<size_t>(index)];
    std::vector<std::pair<int32_t, uint32_t>> regsByBlock, varsByBlock;  // (block, index)
    const std::span<const ptx::RegisterDecl> regs = m_.registersOf(f);
    work::step(work::annotatePlacement, regs.size() + variables.size());
    for (uint32_t i = 0; i < regs.size(); ++i) {
      if (regs[i].block < 0)
        registers(sp, regs[i], plan.renames);
      else
        regsByBlock.emplace_back(regs[i].block, i);
    }
    for (uint32_t i = 0; i < variables.size(); ++i) {
      const ptx::Variable& v = m_.variables[variables[i]];
      if (v.block < 0)
        variable(sp, v);
      else
        varsByBlock.emplace_back(v.block, i);
    }
    auto byBlock = [](const std::pair<int32_t, uint32_t>& a, const std::pair<int32_t, uint32_t>& b) {
      return a.first < b.first;
    };
    std::stable_sort(regsByBlock.begin(), regsByBlock.end(), byBlock);
    std::stable_sort(varsByBlock.begin(), varsByBlock.end(), byBlock);
    std::map<int32_t, DieId> scopes;
    const std::vector<size_t>& blocks = blocksOf_[static_cast<size_t>(index)];
    for (size_t j = 0; j < blocks.size(); ++j) {
      const size_t k = blocks[j];
      const ptx::Block& blk = m_.blocks[k];
      auto parent = scopes.find(blk.parent);
      DieId scope = parent != scopes.end() ? parent->second : sp;
      if (plan.blocks[j]) scope = b_.lexicalBlock(scope, {plan.blocks[j]->first}, {plan.blocks[j]->second});
      scopes[static_cast<int32_t>(k)] = scope;
      const std::pair<int32_t, uint32_t> key{static_cast<int32_t>(k), 0};
      for (auto [it, end] = std::equal_range(regsByBlock.begin(), regsByBlock.end(), key, byBlock); it != end; ++it) {
        work::step(work::annotatePlacement);
        registers(scope, regs[it->second], plan.renames);
      }
      for (auto [it, end] = std::equal_range(varsByBlock.begin(), varsByBlock.end(), key, byBlock); it != end; ++it) {
        work::step(work::annotatePlacement);
        variable(scope, m_.variables[variables[it->second]]);
      }
    }
  }

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
  void withFileLineEnds(std::string& s) const {
    if (!crlf_) return;
    std::string converted;
    for (char c : s) {
      if (c == '\n') converted += '\r';
      converted += c;
    }
    s.swap(converted);
  }

  // ---- --rename-registers ----------------------------------------------------

  // cuda-gdb reads a register location when the name has a leading '%' and at most 8 bytes.
  static bool packable(std::string_view name) { return name.size() <= 8 && name.starts_with('%'); }
  static bool identifierChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '%';
  }

  // New names start with a stem no register of the module starts with.
  void chooseStem() {
    stem_ = "%_";
    auto taken = [&] {
      for (const ptx::RegisterDecl& r : m_.registers)
        if (r.name.starts_with(stem_)) return true;
      return false;
    };
    while (taken()) stem_ += '_';
  }

  // a, b, ..., z, ba, bb, ...: letters only, so a plain new name never equals
  // a new range name (those end in digits).
  std::string tag(size_t k) const {
    std::string letters;
    do {
      letters.insert(letters.begin(), static_cast<char>('a' + k % 26));
      k /= 26;
    } while (k);
    return stem_ + letters;
  }

  // The function's long register names (and range prefixes) and their new names.
  Renames planRenames(const ptx::Function& f) {
    Renames renames;
    size_t next = 0;
    for (const ptx::RegisterDecl& r : m_.registersOf(f)) {
      if (renames.count(r.name)) continue;  // the same name declared in another block
      size_t digits = r.isRange() ? std::to_string(r.count - 1).size() : 0;
      if (packable(r.name.str() + std::string(digits, '0'))) continue;
      std::string to = tag(next++);
      if (to.size() + digits > 8) {
        warn(r.loc, "registers " + r.name.str() + "<" + std::to_string(r.count) + "> are too many to rename to 8 bytes");
        continue;
      }
      renames.emplace(r.name, Rename{to, r.count});
      ++result_.stats.renamedRegisters;
    }
    return renames;
  }

  // The new name of register (or range prefix) `name`; `name` when it keeps its own.
  static std::string renamed(std::string_view name, const Renames& renames) {
    if (renames.empty()) return std::string(name);
    work::step(work::annotateRename);
    auto exact = renames.find(name);
    if (exact != renames.end()) return exact->second.to;
    // A register of a renamed range: a prefix, then digits. Only the splits
    // inside the trailing digits can be one, shortest prefix first (as the
    // map orders prefixes of one another), so a token costs a few lookups
    // whatever the number of renames.
    size_t digitsBegin = name.size();
    while (digitsBegin > 0 && name[digitsBegin - 1] >= '0' && name[digitsBegin - 1] <= '9') --digitsBegin;
    for (size_t split = std::max<size_t>(digitsBegin, 1); split < name.size(); ++split) {
      work::step(work::annotateRename);
      auto it = renames.find(name.substr(0, split));
      if (it == renames.end() || it->second.count == 0) continue;
      std::string_view digits = name.substr(split);
      if ((digits.size() > 1 && digits[0] == '0') || digits.size() > 10) continue;
      if (std::stoull(std::string(digits)) < it->second.count) return it->second.to + std::string(digits);
    }
    return std::string(name);
  }

  // Every token of the body that names a renamed register, renamed.
  void renameRegisters(const ptx::Function& f, const Renames& renames) {
    if (renames.empty()) return;
    uint64_t begin = lineStart(f.bodyBegin.line) + (f.bodyBegin.col ? f.bodyBegin.col - 1 : 0);
    uint64_t end = std::min<uint64_t>(lineStart(f.bodyEnd.line) + f.bodyEnd.col, text_.size());
    for (uint64_t i = begin; i < end;) {
      char c = text_[i];
      if (c == '/' && i + 1 < end && (text_[i + 1] == '/' || text_[i + 1] == '*')) {  // comments stay as written
        size_t stop = text_[i + 1] == '/' ? text_.find('\n', i) : text_.find("*/", i + 2);
        i = stop == std::string_view::npos ? end : stop + 1;
        continue;
      }
      if (!identifierChar(c) || (i > 0 && identifierChar(text_[i - 1]))) {
        ++i;
        continue;
      }
      uint64_t j = i;
      while (j < end && identifierChar(text_[j])) ++j;
      std::string_view token = text_.substr(i, j - i);
      std::string to = renamed(token, renames);
      if (to != token) edits_.replace(i, static_cast<uint32_t>(j - i), to);
      i = j;
    }
  }

  // The code and the DWARF share nothing but the plans: with a CPU to spare
  // and a file large enough to pay for a thread, the DWARF is built and
  // encoded on one while the code's edits are made and the edited code is
  // written here. The code then goes out before the DWARF is known to be
  // good (see annotate.h); on one thread the DWARF comes first.
  bool codeAndDwarf() {
    bool encoded = false;
    auto dwarf = [&] {
      reserveDies();
      for (size_t f = 0; f < m_.functions.size(); ++f)
        if (m_.functions[f].hasBody) functionDies(static_cast<int32_t>(f));
      countRepeatedWarnings();
      encoded = encodeDwarf();
    };
    auto oneThread = [&] {
      makeEdits();
      dwarf();
      if (encoded) writeCode();
      return encoded;
    };
    constexpr size_t kWorthAThread = 20000;  // instructions
    if (threadCount(options_.threads) < 2 || m_.instructions.size() < kWorthAThread) return oneThread();
    // The code goes to the sink on the caller's thread; the DWARF is built on
    // a kept one when one can be had. Its work counters there are the
    // caller's to see (tests count every step of an annotate).
    const std::thread::id caller = std::this_thread::get_id();
    std::array<uint64_t, work::kPassCount> elsewhere{};
    runBeside(
        [&] {
          makeEdits();
          writeCode();
        },
        [&] {
          const std::array<uint64_t, work::kPassCount> before = work::counters;
          dwarf();
          if (std::this_thread::get_id() == caller) return;
          for (size_t i = 0; i < elsewhere.size(); ++i) elsewhere[i] = work::counters[i] - before[i];
        });
    for (size_t i = 0; i < elsewhere.size(); ++i) work::counters[i] += elsewhere[i];
    return encoded;
  }

  void makeEdits() {
    for (size_t f = 0; f < m_.functions.size(); ++f)
      if (m_.functions[f].hasBody) functionEdits(static_cast<int32_t>(f));
  }

  // The sections, encoded and checked for the file's version; the builder's
  // memory goes before the text is made.
  bool encodeDwarf() {
    Diagnostics& diags = result_.diagnostics;
    sections_ =
        encode(b_.unit(), {.pubnamesLength = UnitLengthConvention::totalSize, .threads = options_.threads}, diags);
    b_ = Builder();
    return !diags.hasErrors() && validate(sections_, writeOptions(), diags);
  }

  WriteOptions writeOptions() const {
    WriteOptions wo;
    wo.style = options_.style;
    wo.version = m_.version;
    wo.crlf = crlf_;
    wo.threads = options_.threads;
    wo.bytesPerLine = 32;  // 8 words a line when dense: fewer, longer lines
    return wo;
  }

  // The edited text, to the sink in pieces of about 1 MB.
  void writeCode() {
    constexpr size_t kChunk = size_t{1} << 20;
    std::string buffer;
    buffer.reserve(kChunk + 64 * 1024);
    auto put = [&](std::string_view piece) {
      if (buffer.size() + piece.size() > kChunk && !buffer.empty()) {
        sink_(buffer);
        buffer.clear();
      }
      if (piece.size() >= kChunk)
        sink_(piece);  // a long stretch of the input: straight through
      else
        buffer.append(piece);
    };
    LocStream locs(*this);
    edits_.apply(text_, put, locs);
    edits_ = Edits();
    starts_.release();  // every line is placed
    if (!text_.empty() && text_.back() != '\n') put(eol());
    put(eol());
    if (!buffer.empty()) sink_(buffer);
  }

  // The sections rendered straight after the code.
  void writeDwarf() {
    bool endsInNewline = false;
    const bool written = streamSections(
        [&](std::string_view piece) {
          if (!piece.empty()) endsInNewline = piece.back() == '\n';
          sink_(piece);
        },
        sections_, writeOptions(), result_.diagnostics);
    if (written && !endsInNewline) sink_(eol());
  }

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
  LineStarts starts_{text_};
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

}  // namespace

Annotated annotate(std::string_view text, const ptx::Module& module, const AnnotateOptions& options,
                   const std::function<void(std::string_view)>& sink) {
  Annotated result;
  Annotator(text, module, options, result, sink).run();
  result.streamed = !result.diagnostics.hasErrors();
  return result;
}

Annotated annotate(std::string_view text, const ptx::Module& module, const AnnotateOptions& options) {
  std::string out;
  Annotated result = annotate(text, module, options, [&](std::string_view piece) {
    if (out.empty()) out.reserve(text.size() * 5);  // the usual size of annotated text, one allocation
    out.append(piece);
  });
  result.streamed = false;
  if (!result.diagnostics.hasErrors()) result.ptx = std::move(out);
  return result;
}

}  // namespace ptxdwarf::write
