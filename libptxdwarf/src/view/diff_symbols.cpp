// What the symbols in the diff's values stand for: see diff_detail.h.
#include "diff_detail.h"

#include <algorithm>
#include <map>
#include <utility>

#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/print/render.h"

namespace ptxdwarf::view::diffdetail {

namespace {

std::string_view lastComponent(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// nvcc and LLVM name a function's local depot `__local_depot<the function's ordinal>`.
bool isLocalDepot(std::string_view name) {
  constexpr std::string_view kDepot = "__local_depot";
  if (!name.starts_with(kDepot)) return false;
  name.remove_prefix(kDepot.size());
  return std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

// ---- SymbolMeanings ----

SymbolMeanings::SymbolMeanings(const ptx::Module& module, const read::Dwarf& dwarf)
    : module_(module), dwarf_(dwarf) {}
SymbolMeanings::~SymbolMeanings() = default;

const SymbolMeanings::Definition* SymbolMeanings::find(std::string_view name) const {
  using Kind = Definition::Kind;
  using Index = std::unordered_map<std::string_view, Definition>;
  // The first definition of a name: a code label before a function of its
  // name, and so on. The labels first, by themselves: nearly every symbol of
  // a -G file's DWARF is one.
  auto add = [](Index& index, std::string_view n, Kind kind, size_t i) {
    index.try_emplace(n, Definition{kind, static_cast<uint32_t>(i)});
  };
  // The module's name index where it was built (the read path's): one probe
  // of a slot that holds the label itself.
  if (const ptx::Label* label = module_.findLabel(name)) {
    found_ = {Kind::label, static_cast<uint32_t>(label - module_.labels.data())};
    return &found_;
  }
  if (!labels_) {
    labels_ = std::make_unique<Index>();
    labels_->reserve(module_.labels.size());
    for (size_t i = 0; i < module_.labels.size(); ++i) add(*labels_, module_.labels[i].name, Kind::label, i);
  }
  if (auto it = labels_->find(name); it != labels_->end()) return &it->second;
  if (!declarations_) {
    declarations_ = std::make_unique<Index>();
    declarations_->reserve(module_.functions.size() + module_.parameters.size() + module_.variables.size());
    for (size_t i = 0; i < module_.functions.size(); ++i)
      add(*declarations_, module_.functions[i].name, Kind::function, i);
    for (size_t i = 0; i < module_.parameters.size(); ++i)
      add(*declarations_, module_.parameters[i].name, Kind::parameter, i);
    for (size_t i = 0; i < module_.variables.size(); ++i)
      add(*declarations_, module_.variables[i].name, Kind::variable, i);
  }
  auto it = declarations_->find(name);
  return it == declarations_->end() ? nullptr : &it->second;
}

const SymbolMeanings::Anchor* SymbolMeanings::anchorAt(int32_t function, uint32_t index) const {
  const std::vector<ptx::LocRecord>& locs = module_.locs;
  if (anchors_.empty()) {
    for (uint32_t i = 0; i < locs.size(); ++i)
      if (locs[i].function >= 0) anchors_.push_back({i, i, 0, 0});
    std::stable_sort(anchors_.begin(), anchors_.end(), [&](const Anchor& a, const Anchor& b) {
      const ptx::LocRecord &x = locs[a.loc], &y = locs[b.loc];
      return x.function != y.function ? x.function < y.function : x.instruction < y.instruction;
    });
    // A run: records in a row on one source line (compilers move columns
    // about: LLVM 22 puts inlined code at the callee's column 42 where 19 put
    // column 1). Its occurrence counts the runs of that line before it in the
    // function.
    std::map<std::pair<unsigned, unsigned>, uint32_t> runsOf;
    for (size_t i = 0; i < anchors_.size(); ++i) {
      Anchor& a = anchors_[i];
      const ptx::LocRecord& r = locs[a.loc];
      const ptx::LocRecord* before = i ? &locs[anchors_[i - 1].loc] : nullptr;
      if (before && before->function == r.function) {
        // Line 0 is no line (code the compiler made): it continues the run before it.
        const ptx::LocRecord& run = locs[anchors_[i - 1].runLoc];
        if (r.line == 0 || (run.file == r.file && run.line == r.line)) {
          a.runLoc = anchors_[i - 1].runLoc;
          a.occurrence = anchors_[i - 1].occurrence;
          a.runStart = anchors_[i - 1].runStart;
          continue;
        }
      } else {
        runsOf.clear();
      }
      a.runLoc = a.loc;
      a.occurrence = runsOf[{r.file, r.line}]++;
      a.runStart = r.instruction;
    }
  }
  // The last record of the function at or before the instruction: the one in force there.
  auto after = std::upper_bound(anchors_.begin(), anchors_.end(), std::pair{function, index},
                                [&](const std::pair<int32_t, uint32_t>& at, const Anchor& a) {
                                  const ptx::LocRecord& r = locs[a.loc];
                                  return at.first != r.function ? at.first < r.function : at.second < r.instruction;
                                });
  if (after == anchors_.begin() || locs[(after - 1)->loc].function != function) return nullptr;
  return &*(after - 1);
}

void SymbolMeanings::appendFile(std::string& out, unsigned file, bool wholePath) const {
  if (const ptx::FileEntry* f = module_.findFile(file)) {
    out += wholePath ? std::string_view(f->path) : lastComponent(f->path);
  } else {
    out += "<no .file ";
    appendDec(out, file);
    out += '>';
  }
}

void SymbolMeanings::appendSourcePlace(std::string& out, const ptx::Label& label) const {
  const int32_t function = module_.functionOf(label);
  const ptx::Function& f = module_.functions[static_cast<size_t>(function)];
  out += '@';
  out += f.name;
  if (label.instruction >= f.endInstruction) {
    out += "/end";  // after the last instruction: `$L__func_end0`
    return;
  }
  const Anchor* a = anchorAt(function, label.instruction);
  if (!a) {  // before the function's first `.loc`
    out += '+';
    appendDec(out, label.instruction - std::min(label.instruction, f.firstInstruction));
    return;
  }
  const ptx::LocRecord& r = module_.locs[a->runLoc];
  out += '/';
  appendFile(out, r.file, true);
  out += ':';
  appendDec(out, r.line);
  out += '#';
  appendDec(out, a->occurrence);
  out += '+';
  appendDec(out, label.instruction - std::min(label.instruction, a->runStart));
}

void SymbolMeanings::appendCodePosition(std::string& out, const ptx::Label& label, bool withSource) const {
  const int32_t function = module_.functionOf(label);
  const ptx::Function& f = module_.functions[static_cast<size_t>(function)];
  out += f.name;
  out += '+';
  appendDec(out, label.instruction - std::min(label.instruction, f.firstInstruction));
  const Anchor* a = withSource && label.instruction < f.endInstruction ? anchorAt(function, label.instruction) : nullptr;
  if (!a) return;
  const ptx::LocRecord& r = module_.locs[a->loc];
  out += ' ';
  appendFile(out, r.file, false);
  out += ':';
  appendDec(out, r.line);
  out += ':';
  appendDec(out, r.col);
}

// What `name` stands for. Compared: a code label's place in source terms
// (`@` keeps it apart from any symbol), `.debug_loc+N` for a section or a
// section label, `F/name` for a local variable, `F/__local_depot` for a
// depot, the name for the rest. Shown: only where it is not the name: a code
// label's function, instruction ordinal and source position, a section
// label's offset.
void SymbolMeanings::appendMeaning(std::string& out, std::string_view name, Spelling spelling) const {
  const bool compared = spelling != Spelling::shown;
  if (name.starts_with(".debug")) {
    if (compared) out += name, out += "+0";
    return;
  }
  if (dwarf_.sectionLabels) {
    if (auto it = dwarf_.sectionLabels->find(name); it != dwarf_.sectionLabels->end()) {
      out += it->second.section;
      out += '+';
      appendDec(out, it->second.offset);
      return;
    }
  }
  const Definition* def = find(name);
  using Kind = Definition::Kind;
  if (def && def->kind == Kind::label && module_.labels[def->index].instruction != ptx::kNoIndex &&
      module_.functionOf(module_.labels[def->index]) >= 0) {
    const ptx::Label& label = module_.labels[def->index];
    if (spelling == Spelling::bySource) {
      appendSourcePlace(out, label);
    } else if (spelling == Spelling::byInstruction) {
      out += '@';
      appendCodePosition(out, label, false);
    } else {
      appendCodePosition(out, label, true);
    }
    return;
  }
  if (!compared) return;
  if (def && def->kind == Kind::variable) {
    const ptx::Variable& v = module_.variables[def->index];
    if (v.function >= 0) {
      out += module_.functions[static_cast<size_t>(v.function)].name;
      out += '/';
      out += isLocalDepot(name) ? std::string_view("__local_depot") : name;
      return;
    }
  }
  out += name;
}

void SymbolMeanings::appendSymbol(std::string& out, std::string_view name, Spelling spelling) const {
  if (spelling != Spelling::shown) return appendMeaning(out, name, spelling);
  out += name;
}

void SymbolMeanings::append(std::string& out, const Relocation& r, Spelling spelling) const {
  if (spelling != Spelling::shown) {
    // Whole operands first, so that `.debug_loc+138` equals `$L__debug_loc0+10` at 128.
    if (std::optional<read::SectionOffset> at = dwarf_.resolve(r)) {
      out += at->section;
      out += '+';
      appendDec(out, at->offset);
      return;
    }
    if (r.isDifference()) {
      if (std::optional<int64_t> v = dwarf_.labelDifference(r)) {
        out += '=';
        appendSigned(out, *v);
        return;
      }
    }
  }
  appendSymbol(out, r.symbol, spelling);
  if (r.isDifference()) {
    out += '-';
    appendSymbol(out, r.minus(), spelling);
  }
  print::appendAddend(out, r.addend());
  if (spelling != Spelling::shown) return;
  std::string meanings;
  for (std::string_view name : {std::string_view(r.symbol), std::string_view(r.minus())}) {
    if (name.empty()) continue;
    const size_t before = meanings.size();
    if (before) meanings += ", ";
    appendMeaning(meanings, name, Spelling::shown);
    if (meanings.size() == before + (before ? 2 : 0)) meanings.resize(before);
  }
  if (meanings.empty()) return;
  out += " (";
  out += meanings;
  out += ')';
}

}  // namespace ptxdwarf::view::diffdetail
