#include "ptxdwarf/view/lookup.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/ptx/lines.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/view/attributes.h"
#include "ptxdwarf/view/type_name.h"
#include "../work.h"
#include "lookup_internal.h"

namespace ptxdwarf::view {

namespace {

using read::AttrValue;
using read::Die;
using read::Dwarf;
using detail::compDirs;
using detail::constantValue;
using detail::expressionText;
using detail::stringValue;
using detail::SourceName;

class Lookup {
 public:
  Lookup(const ptx::Module& m, const Dwarf& d)
      : m_(m), d_(d), scopes_(m, d), ends_(d), lines_(ptx::buildLineTable(m)) {
    for (uint32_t i = 0; i < m.locs.size(); ++i)
      if (m.locs[i].function >= 0 && m.locs[i].instruction != ptx::kNoIndex) codeLocs_.push_back(i);
  }

  LookupResult run(std::string_view where) {
    LookupResult result;
    std::vector<uint32_t> places;
    if (!placesOf(where, places, result.error)) return result;
    std::sort(places.begin(), places.end());
    places.erase(std::unique(places.begin(), places.end()), places.end());
    std::map<std::pair<int32_t, uint32_t>, size_t> groups;  // (function, innermost scope) -> match
    for (uint32_t i : places) {
      const std::vector<uint32_t> chain = scopes_.chainAt(i);
      const int32_t f = scopes_.functionAt(i);
      if (f < 0) continue;
      auto [it, added] = groups.try_emplace({f, chain.empty() ? kNoScope : chain.front()}, result.matches.size());
      if (added) result.matches.push_back(matchAt(i, f, chain));
      Match& match = result.matches[it->second];
      match.instructions.push_back(i);
      match.ptxLines.push_back(m_.instructions[i].line);
    }
    if (result.matches.empty() && result.error.empty())
      result.error = "'" + std::string(where) + "' matches no instruction of a function";
    return result;
  }

 private:
  bool placesOf(std::string_view where, std::vector<uint32_t>& places, std::string& error) {
    const size_t colon = where.rfind(':');
    uint32_t line = 0;
    std::from_chars_result parsed{};
    const bool hasLine = colon != std::string_view::npos && colon + 1 < where.size() &&
                         (parsed = std::from_chars(where.data() + colon + 1, where.data() + where.size(), line)).ptr ==
                             where.data() + where.size();
    if (hasLine && parsed.ec == std::errc::result_out_of_range) {  // the digits are all there, the number too large
      error = "line number " + std::string(where.substr(colon + 1)) + " is out of range (the largest is 4294967295)";
      return false;
    }
    if (hasLine && where.substr(0, colon) == "ptx") return ptxLine(line, places, error);
    if (hasLine) return sourcePlaces(where.substr(0, colon), line, places, error);
    return functionPlaces(where, places, error);
  }

  bool ptxLine(uint32_t line, std::vector<uint32_t>& places, std::string& error) {
    for (const ptx::Function& f : m_.functions) {
      if (!f.hasBody || line < f.bodyBegin.line || line > f.bodyEnd.line) continue;
      auto ins = m_.instructions.at(f.firstInstruction);
      for (uint32_t i = f.firstInstruction; i < f.endInstruction; ++i, ++ins)
        if ((*ins).line >= line) {
          places.push_back(i);
          return true;
        }
    }
    error = "PTX line " + std::to_string(line) + " is not inside a function body with an instruction at or after it";
    return false;
  }

  bool sourcePlaces(std::string_view source, uint32_t line, std::vector<uint32_t>& places, std::string& error) {
    SourceName name(source, compDirs(d_));
    std::vector<unsigned> files;  // the `.file` indices it names, in order (LineTable::files is)
    for (const ptx::LineFile& f : lines_.files)
      if (name.names(ptx::pathOf(lines_, f))) files.push_back(f.index);
    if (files.empty()) {
      error = "no .file names '" + std::string(source) + "'";
      return false;
    }
    for (uint32_t i : codeLocs_) {
      const ptx::LocRecord& r = m_.locs[i];
      if (r.line != line ||
          !std::binary_search(files.begin(), files.end(), r.file, work::CountingLess<work::fileLookup>{}))
        continue;
      const ptx::Function& f = m_.functions[static_cast<size_t>(r.function)];
      if (r.instruction < f.endInstruction) places.push_back(r.instruction);
    }
    if (places.empty()) error = "no .loc for " + std::string(source) + ":" + std::to_string(line) + " precedes an instruction";
    return !places.empty();
  }

  bool functionPlaces(std::string_view name, std::vector<uint32_t>& places, std::string& error) {
    if (const ptx::Function* f = m_.findFunction(name); f && f->endInstruction > f->firstInstruction)
      places.push_back(f->firstInstruction);
    for (const Scope& s : scopes_.scopes())
      if (s.parent == kNoScope && s.end > s.begin && d_.name(d_.dies[s.die]) == name) places.push_back(s.begin);
    if (places.empty()) error = "no function named '" + std::string(name) + "' has code";
    return !places.empty();
  }

  // The .loc in force at an instruction: the last one before it in its function.
  const ptx::LocRecord* locAt(uint32_t instruction, int32_t function) const {
    auto it = std::upper_bound(codeLocs_.begin(), codeLocs_.end(), instruction,
                               [&](uint32_t i, uint32_t loc) { return i < m_.locs[loc].instruction; });
    if (it == codeLocs_.begin()) return nullptr;
    const ptx::LocRecord& r = m_.locs[*(it - 1)];
    return r.function == function ? &r : nullptr;
  }

  Match matchAt(uint32_t instruction, int32_t function, const std::vector<uint32_t>& chain) {
    Match match;
    match.function = m_.functions[static_cast<size_t>(function)].name;
    const ptx::LocRecord* here = locAt(instruction, function);
    for (uint32_t s : chain) {
      const Die& die = d_.dies[scopes_.scopes()[s].die];
      ScopeInfo info;
      info.tag = die.tag;
      info.name = std::string(stringValue(findRecursively(d_, die, {dw::DW_AT_name})));
      info.die = die.offset;
      if (die.tag == dw::DW_TAG_inlined_subroutine) {
        if (auto file = constantValue(d_.attribute(die, dw::DW_AT_call_file)); file && *file <= UINT32_MAX)
          if (const ptx::LineFile* lf = lines_.file(static_cast<unsigned>(*file))) info.callFile = ptx::pathOf(lines_, *lf);
        info.callLine = constantValue(d_.attribute(die, dw::DW_AT_call_line)).value_or(0);
      }
      match.scopes.push_back(std::move(info));
    }
    // Visible: the declarations of every scope up to the frame.
    for (uint32_t s : chain) {
      for (uint32_t decl : scopes_.scopes()[s].declarations) {
        const Die& die = d_.dies[decl];
        VariableInfo v = variable(die, instruction);
        // C++: a name is visible from its declaration on (in the same file).
        auto file = constantValue(findRecursively(d_, die, {dw::DW_AT_decl_file}));
        if (here && file && *file == here->file && v.declLine > here->line) continue;
        match.variables.push_back(std::move(v));
      }
      if (d_.dies[scopes_.scopes()[s].die].tag != dw::DW_TAG_lexical_block) break;  // the frame ends here
    }
    return match;
  }

  VariableInfo variable(const Die& die, uint32_t instruction) const {
    VariableInfo v = detail::describeVariable(d_, die, ends_);
    location(die, instruction, v);
    return v;
  }

  void location(const Die& die, uint32_t instruction, VariableInfo& v) const {
    auto unavailable = [&](std::string why) {
      v.available = false;
      v.location = std::move(why);
    };
    std::optional<AttrValue> loc = d_.attribute(die, dw::DW_AT_location);
    const read::Unit& unit = d_.unitOf(die);
    read::ExpressionContext ctx;
    ctx.addressSize = unit.addressSize;
    ctx.section = d_.info;
    if (!loc) return unavailable("no location (optimized out)");
    if (loc->isBlock()) {
      ctx.sectionOffset = static_cast<uint64_t>(loc->block().data() - d_.info->bytes.data());
      v.location = expressionText(read::decodeExpression(loc->block(), ctx));
      return;
    }
    const std::optional<uint64_t> listAt = d_.offsetIn(".debug_loc", loc->value, loc->reloc);
    if (!listAt) return unavailable("location list " + loc->reloc->expression() + " is not in .debug_loc");
    const uint64_t offset = *listAt;
    const read::LocList* list = d_.locListAt(offset);
    if (!list || !d_.loc) return unavailable("no location list at .debug_loc+" + std::to_string(offset));
    for (const read::LocEntry& e : list->entries) {
      if (e.kind != read::LocEntry::range || !e.beginReloc || !e.endReloc) continue;
      const ptx::Label* b = m_.findLabel(e.beginReloc->symbol);
      const ptx::Label* end = m_.findLabel(e.endReloc->symbol);
      if (!b || !end || instruction < b->instruction || instruction >= end->instruction) continue;
      ctx.section = d_.loc;
      ctx.sectionOffset = e.exprOffset;
      v.location = expressionText(read::decodeExpression(e.expr, ctx));
      return;
    }
    unavailable("not available here (no range of .debug_loc+" + std::to_string(offset) + " covers it)");
  }

  const ptx::Module& m_;
  const Dwarf& d_;
  ScopeTree scopes_;
  SubtreeEnds ends_;  // for the type names of the variables shown
  ptx::LineTable lines_;
  std::vector<uint32_t> codeLocs_;  // .loc records inside functions, in instruction order
};

}  // namespace

LookupResult lookup(const ptx::Module& module, const read::Dwarf& dwarf, std::string_view where) {
  return Lookup(module, dwarf).run(where);
}

}  // namespace ptxdwarf::view
