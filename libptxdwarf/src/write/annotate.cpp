#include "ptxdwarf/write/annotate.h"

#include <array>
#include <thread>

#include "../parallel.h"
#include "ptxdwarf/write/encode.h"
#include "annotate_internal.h"
#include "ptx_writer_internal.h"
#include "unit_store.h"

#ifndef PTXDWARF_VERSION_STRING
#define PTXDWARF_VERSION_STRING "unknown"
#endif

namespace ptxdwarf::write::annotating {

void Annotator::run() {
  if (!refuse()) return;
  crlf_ = ptx_text::firstLineEndsInCrlf(text_);
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

void Annotator::unpackable(SourceLoc at, std::string_view name, const std::string& problem) {
  auto [it, first] = unpackable_.try_emplace(std::string(name), Repeats{result_.diagnostics.items.size(), 0});
  if (!first) {
    ++it->second.more;
    return;
  }
  warn(at, "register " + std::string(name) + " gets no variable: " + problem);
}

void Annotator::countRepeatedWarnings() {
  for (const auto& [name, r] : unpackable_)
    if (r.more)
      result_.diagnostics.items[r.diagnostic].message +=
          " (and at " + std::to_string(r.more) + " more declaration" + (r.more == 1 ? "" : "s") + " of " + name + ")";
}

void Annotator::reserveDies() {
  // A declaration's registers are one record (a run).
  const size_t declarations = m_.registers.size();
  const size_t dies =
      16 + m_.variables.size() + 2 * m_.blocks.size() + m_.functions.size() + m_.parameters.size() + declarations;
  constexpr size_t kAttributesPerDie = 7;  // name, decl file and line, type, location, class, +1
  // A declaration's encoded bytes are one register variable's ("%rd1234",
  // 8, 4, 11, 1): a range keeps its first register's (Unit::addRegisterRun).
  constexpr size_t kBytesPerDeclaration = 30;
  b_.unit().reserve(dies, kAttributesPerDie * dies);
  UnitStore::reserveEncoded(b_.unit(), kBytesPerDeclaration * declarations);
}

bool Annotator::fitsPtxString(std::string_view name) {
  if (name.empty()) return false;
  for (unsigned char c : name)
    if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f) return false;
  return true;
}

uint64_t Annotator::registerVariablesForeseen(const ptx::RegisterDecl*& largest) const {
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

bool Annotator::withinGrowthLimit() {
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

bool Annotator::refuse() {
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

void Annotator::removeDebugInformation() {
  for (const SectionImage& section : m_.sections) {
    if (!section.name.starts_with(".debug")) continue;
    if (options_.keepLines && section.name == ".debug_str") continue;
    for (const TextRange& b : section.blocks) edits_.replace(b.begin, static_cast<uint32_t>(b.end - b.begin), "");
  }
  if (options_.keepLines) return;
  auto eraseDirective = [&](SourceLoc at) {  // from the directive to the end of its line
    uint64_t begin = lineIndex_.offset(at.line, at.col);
    uint64_t end = lineIndex_.has(at.line + 1) ? lineStart(at.line + 1) - 1 : text_.size();
    if (end > begin && text_[end - 1] == '\r') --end;
    if (end > begin) edits_.replace(begin, static_cast<uint32_t>(end - begin), "");
  };
  for (const ptx::FileEntry& f : m_.files) eraseDirective(f.loc);
  for (const ptx::LocRecord& l : m_.locs) eraseDirective(l.loc);
}

void Annotator::chooseLabelPrefix() {
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

void Annotator::addLines(std::string_view s) {
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

void Annotator::insertLines(uint64_t offset, std::string_view s, bool late) {
  size_t mark = edits_.mark();
  // At the end of a text that does not end in a line break, start a new line first.
  if (offset == text_.size() && !text_.empty() && text_.back() != '\n') edits_.arena += eol();
  addLines(s);
  edits_.insertSince(offset, mark, late);
}

void Annotator::headerEdits() {
  uint32_t header = std::max({m_.versionLoc.line, m_.targetLoc.line, m_.addressSizeLoc.line});
  std::string file;
  files_.write(file);
  insertLines(header == 0 ? 0 : lineStart(header + 1), file);
  if (!m_.debug && m_.targetLoc.line != 0) {
    uint64_t begin = lineIndex_.offset(m_.targetLoc.line, m_.targetLoc.col);
    uint64_t end = lineIndex_.has(m_.targetLoc.line + 1) ? lineStart(m_.targetLoc.line + 1) : text_.size();
    std::string_view line = text_.substr(begin, end - begin);
    size_t comment = std::min({line.find("//"), line.find("/*"), line.find('\n')});
    if (comment != std::string_view::npos) line = line.substr(0, comment);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    edits_.replace(begin + line.size(), 0, ", debug");  // inserted: nothing erased
  }
}

void Annotator::planFunction(int32_t index) {
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

void Annotator::functionEdits(int32_t index) {
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

bool Annotator::codeAndDwarf() {
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

bool Annotator::encodeDwarf() {
  Diagnostics& diags = result_.diagnostics;
  sections_ =
      encode(b_.unit(), {.pubnamesLength = UnitLengthConvention::totalSize, .threads = options_.threads}, diags);
  b_ = Builder();
  return !diags.hasErrors() && validate(sections_, writeOptions(), diags);
}

WriteOptions Annotator::writeOptions() const {
  return {.style = options_.style,
          .version = m_.version,
          .bytesPerLine = 32,  // 8 words a line when dense: fewer, longer lines
          .crlf = crlf_,
          .threads = options_.threads};
}

void Annotator::writeCode() {
  const WriteOptions options = writeOptions();
  ptx_text::SinkOutput out(sink_, options);
  LocStream locs(*this);
  edits_.apply(text_, [&](std::string_view piece) { out.text(piece); }, locs);
  edits_ = Edits();
  lineIndex_.release();  // every line is placed
  if (!text_.empty() && text_.back() != '\n') out.text(eol());
  out.text(eol());
  out.finish();
}

// Every section's text ends a line: nothing to add after the last.
void Annotator::writeDwarf() { streamSections(sink_, sections_, writeOptions(), result_.diagnostics); }

}  // namespace ptxdwarf::write::annotating

namespace ptxdwarf::write {

using annotating::Annotator;

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
