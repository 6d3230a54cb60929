// view::lookup on a cubin: the debugger's view (cuda-gdb's) read from the
// ELF file ptxas writes, with no GPU. The code is placed as the driver
// loads it (each function at its own address), the DIE tree gives the
// scopes and variables, `.debug_line` the addresses of a source line (gdb's
// breakpoint rule, lookup.h), `.nv_debug_info_reg_sass` where a PTX
// register is at a PC (cubin/locate.h).
#include <algorithm>
#include <charconv>
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "lookup_internal.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cubin/line_program.h"
#include "ptxdwarf/cubin/locate.h"
#include "ptxdwarf/cubin/regmap.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/read/expression.h"
#include "ptxdwarf/view/attributes.h"
#include "ptxdwarf/view/lookup.h"
#include "ptxdwarf/view/type_name.h"
#include "../cubin/intervals.h"
#include "../work.h"

namespace ptxdwarf::view {

namespace {

using read::AttrValue;
using read::Die;
using read::Dwarf;
using detail::compDirs;
using detail::stringValue;

std::optional<uint64_t> constant(const std::optional<AttrValue>& v) {
  if (!v || !v->isConstant()) return std::nullopt;
  return v->value;
}


bool isScopeTag(uint16_t tag) {
  return tag == dw::DW_TAG_subprogram || tag == dw::DW_TAG_lexical_block || tag == dw::DW_TAG_inlined_subroutine;
}

bool isDeclarationTag(uint16_t tag) { return tag == dw::DW_TAG_variable || tag == dw::DW_TAG_formal_parameter; }

// A subprogram, inlined subroutine or lexical block with the placed
// addresses it covers.
struct CubinScope {
  uint32_t die = 0;
  uint32_t parent = kNoScope;
  uint32_t depth = 0;           // 0 for a subprogram
  uint64_t low = 0, high = 0;
  std::vector<uint32_t> declarations = {};  // DIE indices of its variable/parameter children
  uint32_t gdbBlock = kNoScope;  // gdb's block at its addresses: itself, or the nearest enclosing scope that is one
};

// A line table row with where its sequence ends, in address order.
struct RowAt {
  uint64_t address = 0;
  uint64_t sequenceEnd = 0;
  const cubin::LineTable* table = nullptr;
  const cubin::LineRow* row = nullptr;
};

std::vector<RowAt> rowsByAddress(const std::vector<cubin::LineTable>& tables) {
  std::vector<RowAt> rows;
  for (const cubin::LineTable& t : tables) {
    size_t sequenceBegin = rows.size();
    for (const cubin::LineRow& r : t.rows) {
      if (!r.endSequence) {
        rows.push_back({r.address, 0, &t, &r});
        continue;
      }
      for (size_t i = sequenceBegin; i < rows.size(); ++i) rows[i].sequenceEnd = r.address;
      sequenceBegin = rows.size();
    }
    rows.resize(sequenceBegin);  // a sequence with no end_sequence row covers nothing
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RowAt& a, const RowAt& b) { return a.address < b.address; });
  return rows;
}

// The row in force at `pc`: the last row at or before it whose sequence
// runs past it (nullptr: none).
const RowAt* rowAt(const std::vector<RowAt>& rows, uint64_t pc) {
  auto it = std::upper_bound(rows.begin(), rows.end(), pc, [](uint64_t a, const RowAt& r) { return a < r.address; });
  if (it == rows.begin()) return nullptr;
  --it;
  return pc < it->sequenceEnd ? &*it : nullptr;
}

std::string spaceName(uint64_t addressClass) {
  std::string_view n = cuda::addressClassName(addressClass);
  if (n.starts_with("ADDR_")) n.remove_prefix(5);
  if (n.ends_with("_space")) n.remove_suffix(6);
  return n.empty() ? "class " + std::to_string(addressClass) : std::string(n);
}

std::string signedHex(int64_t v) {
  return (v < 0 ? "-" : "+") + hex(v < 0 ? static_cast<uint64_t>(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
}

class CubinLookup {
 public:
  CubinLookup(const cubin::ReadResult& r, const Dwarf& d) : r_(r), d_(d), ends_(d) {
    buildScopes();
    if (const SectionImage* line = r.module.section(".debug_line")) lineTables_ = cubin::decodeLinePrograms(line->bytes);
    if (const SectionImage* sass = cubin::sectionOrSuffixed(r.module, ".nv_debug_line_sass"))
      sassTables_ = cubin::decodeLinePrograms(sass->bytes);
    if (const SectionImage* map = cubin::sectionOrSuffixed(r.module, ".nv_debug_info_reg_sass"))
      regMap_ = cubin::decodeRegMap(map->bytes);
    for (const cubin::RegMapFunction& f : regMap_.functions) recordOf_.try_emplace(f.name, &f);  // the first of a name
    rows_ = rowsByAddress(lineTables_);
    sassRows_ = rowsByAddress(sassTables_);
  }

  LookupResult run(std::string_view where) {
    LookupResult result;
    result.cubin = true;
    std::vector<uint64_t> places;
    if (!placesOf(where, places, result.error)) return result;
    for (uint64_t pc : places)
      if (const cubin::CodeSection* f = functionAt(pc)) result.matches.push_back(matchAt(pc, *f));
    if (result.matches.empty() && result.error.empty())
      result.error = "'" + std::string(where) + "' matches no address of a function";
    return result;
  }

 private:
  void buildScopes() {
    std::vector<std::pair<uint32_t, uint32_t>> open;  // (depth, scope) of the enclosing scopes
    for (uint32_t i = 0; i < d_.dies.size(); ++i) {
      const Die& die = d_.dies[i];
      if (die.isNull()) continue;
      while (!open.empty() && open.back().first >= die.depth) open.pop_back();
      if (isDeclarationTag(die.tag) && !open.empty() && open.back().first + 1 == die.depth) {
        scopes_[open.back().second].declarations.push_back(i);
        continue;
      }
      uint64_t low = 0, high = 0;
      if (!isScopeTag(die.tag) || !rangeOf(die, low, high)) continue;
      CubinScope s;
      s.die = i;
      s.parent = open.empty() ? kNoScope : open.back().second;
      s.depth = open.empty() ? 0 : scopes_[s.parent].depth + 1;
      s.low = low;
      s.high = high;
      open.emplace_back(die.depth, static_cast<uint32_t>(scopes_.size()));
      scopes_.push_back(std::move(s));
    }
    // gdb's blocks: a lexical block that declares nothing is none of gdb's
    // (its parent's block stands for it); a parent comes before its scopes.
    for (CubinScope& s : scopes_) {
      const bool block = d_.dies[s.die].tag != dw::DW_TAG_lexical_block || !s.declarations.empty();
      s.gdbBlock = block ? static_cast<uint32_t>(&s - scopes_.data()) : s.parent == kNoScope ? kNoScope : scopes_[s.parent].gdbBlock;
    }
    findStretches();
  }

  // The addresses cut where the innermost scope changes, in order: a sweep
  // over the scopes' bounds with the open scopes in a heap by depth (a
  // closed one leaves it when it comes to the top), so that the scopes at
  // an address are found in log time however many a function has.
  void findStretches() {
    std::vector<uint32_t> byLow(scopes_.size());
    for (uint32_t i = 0; i < byLow.size(); ++i) byLow[i] = i;
    std::stable_sort(byLow.begin(), byLow.end(), [&](uint32_t a, uint32_t b) { return scopes_[a].low < scopes_[b].low; });
    std::vector<uint64_t> bounds;
    for (const CubinScope& sc : scopes_) {
      bounds.push_back(sc.low);
      bounds.push_back(sc.high);
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    const auto deeper = [&](uint32_t a, uint32_t b) {  // the heap's top: the deepest, then the later DIE
      return scopes_[a].depth != scopes_[b].depth ? scopes_[a].depth < scopes_[b].depth : a < b;
    };
    std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(deeper)> open(deeper);
    size_t next = 0;
    for (uint64_t at : bounds) {
      for (; next < byLow.size() && scopes_[byLow[next]].low == at; ++next) open.push(byLow[next]);
      while (!open.empty() && scopes_[open.top()].high <= at) open.pop();
      const uint32_t innermost = open.empty() ? kNoScope : open.top();
      if (stretches_.empty() || stretches_.back().second != innermost) stretches_.emplace_back(at, innermost);
    }
  }

  bool rangeOf(const Die& die, uint64_t& low, uint64_t& high) const {
    const std::optional<AttrValue> lo = d_.attribute(die, dw::DW_AT_low_pc);
    const std::optional<AttrValue> hi = d_.attribute(die, dw::DW_AT_high_pc);
    if (!lo || !hi) return false;
    low = lo->value;
    high = hi->form == dw::DW_FORM_addr ? hi->value : low + hi->value;  // DWARF 4: an offset from low_pc
    return high > low;
  }

  // The innermost scope containing `pc` (kNoScope: none).
  uint32_t innermostAt(uint64_t pc) const {
    auto it = std::upper_bound(stretches_.begin(), stretches_.end(), pc,
                               [](uint64_t a, const std::pair<uint64_t, uint32_t>& s) { return a < s.first; });
    return it == stretches_.begin() ? kNoScope : (it - 1)->second;
  }

  // The scopes containing `pc`, innermost first.
  std::vector<uint32_t> chainAt(uint64_t pc) const {
    std::vector<uint32_t> chain;
    for (uint32_t s = innermostAt(pc); s != kNoScope; s = scopes_[s].parent) {
      work::step(work::scopeLookup);
      chain.push_back(s);
    }
    return chain;
  }

  // gdb's innermost block at `pc` (kNoScope: none).
  uint32_t gdbBlockAt(uint64_t pc) const {
    work::step(work::scopeLookup);
    const uint32_t s = innermostAt(pc);
    return s == kNoScope ? kNoScope : scopes_[s].gdbBlock;
  }

  // The function's record of the register map, indexed (nullptr: it has none).
  const cubin::FunctionRegisters* registersOf(std::string_view function) const {
    work::step(work::regmapScan);
    const auto record = recordOf_.find(function);
    if (record == recordOf_.end()) return nullptr;
    return &indexed_.try_emplace(function, *record->second).first->second;
  }

  // The function whose placed code holds `pc` (the code sections are placed
  // in order: their addresses ascend).
  const cubin::CodeSection* functionAt(uint64_t pc) const {
    const std::vector<cubin::CodeSection>& code = r_.cubin.code;
    auto it = std::upper_bound(code.begin(), code.end(), pc,
                               [](uint64_t a, const cubin::CodeSection& c) { return a < c.address; });
    if (it == code.begin()) return nullptr;
    --it;
    return pc < it->address + std::max<uint64_t>(it->size, 1) ? &*it : nullptr;
  }

  const cubin::CodeSection* functionNamed(std::string_view name) const {
    if (const cubin::CodeSection* c = r_.cubin.codeOf(name)) return c;
    for (const CubinScope& s : scopes_)
      if (s.parent == kNoScope && d_.name(d_.dies[s.die]) == name)
        if (const cubin::CodeSection* c = functionAt(s.low)) return c;
    return nullptr;
  }

  bool placesOf(std::string_view where, std::vector<uint64_t>& places, std::string& error) {
    const size_t colon = where.rfind(':');
    uint32_t line = 0;
    std::from_chars_result parsed{};
    const bool hasLine = colon != std::string_view::npos && colon + 1 < where.size() &&
                         (parsed = std::from_chars(where.data() + colon + 1, where.data() + where.size(), line)).ptr ==
                             where.data() + where.size();
    if (hasLine && parsed.ec == std::errc::result_out_of_range) {
      error = "line number " + std::string(where.substr(colon + 1)) + " is out of range (the largest is 4294967295)";
      return false;
    }
    if (hasLine && where.substr(0, colon) == "ptx") return ptxLinePlaces(line, places, error);
    if (hasLine) return sourcePlaces(where.substr(0, colon), line, places, error);
    return functionPlaces(where, places, error);
  }

  // FUNCTION or FUNCTION+PC.
  bool functionPlaces(std::string_view where, std::vector<uint64_t>& places, std::string& error) {
    std::string_view name = where;
    uint64_t pc = 0;
    if (const size_t plus = where.rfind('+'); plus != std::string_view::npos && plus > 0) {
      std::string_view digits = where.substr(plus + 1);
      int base = 10;
      if (digits.starts_with("0x") || digits.starts_with("0X")) {
        digits.remove_prefix(2);
        base = 16;
      }
      const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), pc, base);
      if (digits.empty() || r.ptr != digits.data() + digits.size() || r.ec != std::errc{}) {
        error = "'" + std::string(where.substr(plus + 1)) + "' is not an address (FUNCTION+0xPC)";
        return false;
      }
      name = where.substr(0, plus);
    }
    const cubin::CodeSection* f = functionNamed(name);
    if (!f) {
      error = "no function named '" + std::string(name) + "' has code in the cubin";
      return false;
    }
    if (pc >= std::max<uint64_t>(f->size, 1)) {
      error = "+" + hex(pc) + " is past the end of " + f->name + " (" + hex(f->size) + " bytes of SASS)";
      return false;
    }
    places.push_back(f->address + pc);
    return true;
  }

  // gdb's breakpoint rule for SOURCE:LINE (lookup.h).
  bool sourcePlaces(std::string_view source, uint32_t line, std::vector<uint64_t>& places, std::string& error) {
    detail::SourceName name(source, compDirs(d_));
    std::vector<std::vector<uint32_t>> named(lineTables_.size());  // per table: the files SOURCE names
    bool any = false;
    for (size_t t = 0; t < lineTables_.size(); ++t)
      for (uint32_t f = 1; f <= lineTables_[t].header.files.size(); ++f)
        if (name.names(lineTables_[t].header.filePath(f))) {
          named[t].push_back(f);
          any = true;
        }
    if (!any) {
      error = "no file of the line table is named '" + std::string(source) + "'";
      return false;
    }
    const auto candidate = [&](const RowAt& r) {
      if (!r.row->isStmt || r.row->line == 0) return false;
      const std::vector<uint32_t>& files = named[static_cast<size_t>(r.table - lineTables_.data())];
      return std::binary_search(files.begin(), files.end(), r.row->file);
    };
    // 1. The is_stmt rows of LINE, or of the smallest line after it that has some.
    uint32_t best = 0;
    bool exact = false;
    for (const RowAt& r : rows_) {
      if (!candidate(r)) continue;
      if (r.row->line == line) exact = true;
      else if (r.row->line > line && (best == 0 || r.row->line < best)) best = r.row->line;
    }
    if (!exact && best == 0) {
      error = "no line table row of " + std::string(source) + " is at or after line " + std::to_string(line);
      return false;
    }
    const uint32_t chosen = exact ? line : best;
    std::vector<uint64_t> found;
    for (const RowAt& r : rows_)
      if (candidate(r) && r.row->line == chosen && (found.empty() || found.back() != r.address))
        found.push_back(r.address);
    // 2. One address per innermost block: the lowest.
    std::unordered_set<uint32_t> blocksSeen;
    for (uint64_t pc : found) {
      const uint32_t block = gdbBlockAt(pc);
      if (block != kNoScope && !blocksSeen.insert(block).second) continue;
      places.push_back(pastPrologue(pc));
    }
    std::sort(places.begin(), places.end());
    places.erase(std::unique(places.begin(), places.end()), places.end());
    return true;
  }

  // 3. An address at its function's entry moves to the function's first
  // is_stmt row of another line.
  uint64_t pastPrologue(uint64_t pc) const {
    const cubin::CodeSection* f = functionAt(pc);
    const RowAt* entry = rowAt(rows_, pc);
    if (!f || pc != f->address || !entry) return pc;
    const uint64_t end = f->address + f->size;
    for (auto it = std::upper_bound(rows_.begin(), rows_.end(), pc,
                                    [](uint64_t a, const RowAt& r) { return a < r.address; });
         it != rows_.end() && it->address < end; ++it)
      if (it->row->isStmt && it->row->line != 0 && it->row->line != entry->row->line) return it->address;
    return pc;
  }

  // ptx:LINE: the lowest address per function of the embedded PTX's line
  // (`.nv_debug_line_sass`), or of the next line that has one.
  bool ptxLinePlaces(uint32_t line, std::vector<uint64_t>& places, std::string& error) {
    uint32_t best = 0;
    for (const RowAt& r : sassRows_)
      if (r.row->line >= line && (best == 0 || r.row->line < best)) best = r.row->line;
    if (best == 0) {
      error = "no SASS address of the cubin is at PTX line " + std::to_string(line) + " or after it";
      return false;
    }
    std::unordered_set<const cubin::CodeSection*> seen;
    for (const RowAt& r : sassRows_) {
      if (r.row->line != best) continue;
      const cubin::CodeSection* f = functionAt(r.address);
      if (!f || !seen.insert(f).second) continue;
      places.push_back(r.address);
    }
    std::sort(places.begin(), places.end());
    return !places.empty();
  }

  Match matchAt(uint64_t pc, const cubin::CodeSection& f) const {
    Match match;
    match.function = f.name;
    match.pc = pc - f.address;
    if (const RowAt* ptx = rowAt(sassRows_, pc)) match.ptxLines.push_back(ptx->row->line);
    const RowAt* here = rowAt(rows_, pc);
    if (here) match.line = here->row->line;
    const std::vector<uint32_t> chain = chainAt(pc);
    for (uint32_t s : chain) match.scopes.push_back(scopeInfo(d_.dies[scopes_[s].die], here));
    const cubin::FunctionRegisters* registers = registersOf(f.name);
    for (uint32_t s : chain) {
      for (uint32_t decl : scopes_[s].declarations) {
        const Die& die = d_.dies[decl];
        VariableInfo v = variable(die, pc, *match.pc, registers);
        auto file = constant(findRecursively(d_, die, {dw::DW_AT_decl_file}));
        if (here && file && *file == here->row->file && v.declLine > here->row->line) continue;
        match.variables.push_back(std::move(v));
      }
      if (d_.dies[scopes_[s].die].tag != dw::DW_TAG_lexical_block) break;  // the frame ends here
    }
    return match;
  }

  ScopeInfo scopeInfo(const Die& die, const RowAt* here) const {
    ScopeInfo info;
    info.tag = die.tag;
    info.name = std::string(stringValue(findRecursively(d_, die, {dw::DW_AT_name})));
    info.die = die.offset;
    if (die.tag == dw::DW_TAG_inlined_subroutine) {
      if (auto file = constant(d_.attribute(die, dw::DW_AT_call_file)); file && here && *file > 0)
        info.callFile = here->table->header.filePath(*file);
      info.callLine = constant(d_.attribute(die, dw::DW_AT_call_line)).value_or(0);
    }
    return info;
  }

  VariableInfo variable(const Die& die, uint64_t pc, uint64_t relativePc, const cubin::FunctionRegisters* registers) const {
    VariableInfo v = detail::describeVariable(d_, die, ends_);
    v.sass.emplace();  // a cubin's: empty unless the location evaluates to one
    location(die, pc, relativePc, registers, v);
    return v;
  }

  void location(const Die& die, uint64_t pc, uint64_t relativePc, const cubin::FunctionRegisters* registers,
                VariableInfo& v) const {
    const std::optional<AttrValue> loc = d_.attribute(die, dw::DW_AT_location);
    const read::Unit& unit = d_.unitOf(die);
    read::ExpressionContext ctx;
    ctx.addressSize = unit.addressSize;
    if (!loc) {
      v.available = false;
      v.location = "no location (optimized out)";
      return;
    }
    if (loc->isBlock()) {
      ctx.section = d_.info;
      ctx.sectionOffset = static_cast<uint64_t>(loc->block().data() - d_.info->bytes.data());
      evaluate(read::decodeExpression(loc->block(), ctx), relativePc, registers, v);
      return;
    }
    const std::optional<uint64_t> listAt = d_.offsetIn(".debug_loc", loc->value, loc->reloc);
    const read::LocList* list = listAt ? d_.locListAt(*listAt) : nullptr;
    if (!list || !d_.loc) {
      v.available = false;
      v.location = "no location list at .debug_loc+" + std::to_string(listAt.value_or(loc->value));
      return;
    }
    uint64_t base = 0;
    if (auto lowPc = d_.attribute(d_.dies[unit.firstDie], dw::DW_AT_low_pc)) base = lowPc->value;
    std::vector<uint32_t> covering;
    rangesOf(*list, base).covering(pc, covering);
    if (!covering.empty()) {  // the first in the list
      const read::LocEntry& e = list->entries[*std::min_element(covering.begin(), covering.end())];
      ctx.section = d_.loc;
      ctx.sectionOffset = e.exprOffset;
      evaluate(read::decodeExpression(e.expr, ctx), relativePc, registers, v);
      return;
    }
    v.available = false;
    v.location = "not available here (no range of .debug_loc+" + std::to_string(*listAt) + " covers +" +
                 hex(relativePc) + ")";
  }

  // A location list's ranges, placed, by the PCs they cover (ids: entry
  // positions): made at the list's first use, so that a stop finds its
  // range without going through the list. DWARF 2-4 lists are offsets from
  // the unit's base address (`base`: its DW_AT_low_pc) until a base address
  // selection entry.
  const cubin::IntervalIndex& rangesOf(const read::LocList& list, uint64_t base) const {
    auto [indexed, first] = listRanges_.try_emplace({&list, base}, work::locListEntries);
    if (!first) return indexed->second;
    for (uint32_t i = 0; i < list.entries.size(); ++i) {
      work::step(work::locListEntries);
      const read::LocEntry& e = list.entries[i];
      if (e.kind == read::LocEntry::baseAddress) base = e.end;
      const uint64_t begin = base + e.begin, end = base + e.end;
      if (e.kind == read::LocEntry::range && begin < end) indexed->second.add(begin, end - 1, i);
    }
    indexed->second.build();
    return indexed->second;
  }

  // The expression's location in SASS terms, as cuda-gdb reads it.
  void evaluate(const read::Expression& e, uint64_t relativePc, const cubin::FunctionRegisters* registers,
                VariableInfo& v) const {
    v.location = detail::expressionText(e);
    std::vector<std::string>& sass = v.sass.emplace();
    std::vector<const read::Operation*> ops;
    for (const read::Operation& op : e.ops)
      if (op.op != dw::DW_OP_nop) ops.push_back(&op);
    if (!e.ok || ops.empty()) return;
    bool hasRegister = false;
    for (const read::Operation* op : ops) {
      if (op->op != dw::DW_OP_regx && op->op != dw::DW_OP_bregx) continue;
      const std::optional<std::string> reg = cuda::unpackRegister(op->operands[0]);
      if (!reg) continue;
      hasRegister = true;
      const cubin::RegisterAt at = registers ? registers->locate(*reg, relativePc)
                                             : cubin::locateRegister(nullptr, *reg, relativePc);
      if (!at.available) {
        v.available = false;
        sass.clear();
        v.location += " (optimized out: " + at.reason + ")";
        return;
      }
      if (op->op == dw::DW_OP_regx) sass.insert(sass.end(), at.sass.begin(), at.sass.end());
      else sass.push_back("[" + cubin::joinSass(at.sass) + signedHex(static_cast<int64_t>(op->operands[1])) + "]");
    }
    if (hasRegister) return;
    int64_t offset = 0;
    for (size_t i = 1; i < ops.size(); ++i) {
      if (ops[i]->op != dw::DW_OP_plus_uconst) return;  // not a plain address: no SASS spelling
      offset += static_cast<int64_t>(ops[i]->operands[0]);
    }
    if (ops[0]->op == dw::DW_OP_addr) {
      const uint64_t address = ops[0]->operands[0] + static_cast<uint64_t>(offset);
      sass.push_back(v.addressClass ? "[" + spaceName(v.addressClass) + "+" + hex(address) + "]" : "[" + hex(address) + "]");
    } else if (ops[0]->op == dw::DW_OP_fbreg) {
      sass.push_back("[CFA" + signedHex(static_cast<int64_t>(ops[0]->operands[0]) + offset) + "]");
    }
  }

  const cubin::ReadResult& r_;
  const Dwarf& d_;
  SubtreeEnds ends_;
  std::vector<CubinScope> scopes_;  // in DIE order: a scope before those inside it
  std::vector<std::pair<uint64_t, uint32_t>> stretches_;  // (first address, innermost scope), ascending
  std::vector<cubin::LineTable> lineTables_, sassTables_;
  std::vector<RowAt> rows_, sassRows_;
  cubin::RegMap regMap_;
  std::unordered_map<std::string_view, const cubin::RegMapFunction*> recordOf_;  // by function name
  mutable std::unordered_map<std::string_view, cubin::FunctionRegisters> indexed_;  // made at a function's first stop
  mutable std::map<std::pair<const read::LocList*, uint64_t>, cubin::IntervalIndex> listRanges_;  // by list and base
};

// The cubin read again with its code placed as the driver loads it.
LookupResult lookupPlaced(std::span<const uint8_t> cubinBytes, std::string_view filename, std::string_view where,
                          cubin::ReadOptions options) {
  options.placeCode = true;
  const cubin::ReadResult r = cubin::read(cubinBytes, filename, options);
  if (!r.ok()) {
    LookupResult result;
    result.cubin = true;
    result.error = r.diagnostics.items.empty() ? "not a readable cubin" : r.diagnostics.items.front().message;
    return result;
  }
  const Dwarf dwarf = read::decode(r.module.sections);
  return CubinLookup(r, dwarf).run(where);
}

}  // namespace

LookupResult lookupCubin(std::span<const uint8_t> cubinBytes, std::string_view filename, std::string_view where) {
  return lookupPlaced(cubinBytes, filename, where, {});
}

LookupResult lookup(const Loaded& file, std::string_view where) {
  // A cubin's module is cubin::read's (its format an ELF's); a PTX text may
  // be a caller's borrowed one, gone by now: not looked at.
  if (file.read.module.fileFormat != "ptx") {
    // Read again, the file's pages handed back as the sections are copied (a mapped file's: read back from it).
    const std::string_view text = file.text.view();
    cubin::ReadOptions options;
    options.release = [&file](uint64_t begin, uint64_t end) { file.text.release(begin, end); };
    return lookupPlaced(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()), file.path,
                        where, options);
  }
  return lookup(file.read.module, file.dwarf, where);
}

}  // namespace ptxdwarf::view
