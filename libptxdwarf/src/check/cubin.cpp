// The cubin rules (ptxdwarf/check/cubin.h) about registers and functions:
// what cuda-gdb does with a `DW_OP_regx %r5` -- it takes the enclosing
// subprogram's linkage name to the function's record of
// `.nv_debug_info_reg_sass`, and the register's entries there to the SASS
// register at the PC (gdb/cuda/cuda-regmap.c) -- done for every PC of the
// variable's scope at once.
#include <algorithm>
#include <span>

#include "cubin_checker.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/cuda.h"
#include "ptxdwarf/dwarf.h"
#include "ptxdwarf/elf/elf.h"
#include "ptxdwarf/format.h"
#include "ptxdwarf/read/expression.h"
#include "../work.h"

namespace ptxdwarf::check {

using namespace dw;

namespace {

std::string rangeText(PcRange r) { return "[" + hex(r.begin) + ", " + hex(r.end) + ")"; }

bool isScope(uint16_t tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

const ptx::RegisterDecl* CubinChecker::declarationOf(const ptx::Function& f, std::string_view reg) const {
  auto [index, first] = declarations_.try_emplace(&f);
  Declarations& declared = index->second;
  if (first)
    for (const ptx::RegisterDecl& d : source_.module.registersOf(f)) {
      work::step(work::registerLookup);
      if (d.isRange())
        declared.ranges[d.name.view()].push_back(&d);
      else
        declared.plain.try_emplace(d.name.view(), &d);
    }
  // The first in declaration order of: the plain declaration of `reg`, and
  // each range named `reg` less 1 to 9 of its trailing digits whose count
  // the index (no leading zero) is below.
  const ptx::RegisterDecl* best = nullptr;
  auto consider = [&](const ptx::RegisterDecl* d) {
    if (!best || d < best) best = d;
  };
  if (auto plain = declared.plain.find(reg); plain != declared.plain.end()) consider(plain->second);
  for (size_t digits = 1; digits <= 9 && digits < reg.size() && isDigit(reg[reg.size() - digits]); ++digits) {
    const std::string_view number = reg.substr(reg.size() - digits);
    if (digits > 1 && number[0] == '0') continue;
    const auto ranges = declared.ranges.find(reg.substr(0, reg.size() - digits));
    if (ranges == declared.ranges.end()) continue;
    const uint64_t value = std::stoull(std::string(number));
    for (const ptx::RegisterDecl* d : ranges->second) {
      work::step(work::registerLookup);
      if (value < d->count) {
        consider(d);
        break;
      }
    }
  }
  return best;
}

CubinChecker::CubinChecker(const Loaded& cubin, const CubinSource& source, Diagnostics& out)
    : cubin_(cubin), source_(source), out_(out), dwarf_(cubin.dwarf) {
  const std::string_view bytes = cubin.text.view();
  elf::Error error;
  if (std::optional<elf::File> file = elf::File::parse(
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), error))
    for (const elf::Section& s : file->sections())
      if (s.name.starts_with(".text.")) codeSize_[s.name.substr(6)] = s.size;
  if (const SectionImage* s = cubin::sectionOrSuffixed(cubin.module(), ".nv_debug_info_reg_sass")) {
    map_ = cubin::decodeRegMap(s->bytes);
    for (const cubin::RegMapFunction& f : map_.functions) {
      RegisterRanges& ranges = mapOf_[f.name];
      for (const cubin::RegMapEntry& e : f.entries) {
        work::step(work::regmapScan);
        if (e.usableByCudaGdb()) ranges[e.reg].entries.emplace_back(e.start, e.end);
        else addLongName(longMapped_[f.name], e.reg);
      }
      for (auto& [reg, held] : ranges) held.index();
    }
  }
}

void CubinChecker::HeldRanges::index() {
  byStart = entries;
  std::sort(byStart.begin(), byStart.end());
  for (size_t i = 1; i < byStart.size(); ++i) byStart[i].second = std::max(byStart[i].second, byStart[i - 1].second);
}

bool CubinChecker::HeldRanges::meets(PcRange r) const {
  // The entries starting before r.end; one of them meets r when the greatest end among them reaches r.begin.
  const auto after = std::lower_bound(byStart.begin(), byStart.end(), r.end,
                                      [](const std::pair<uint32_t, uint32_t>& e, uint64_t pc) { return e.first < pc; });
  return after != byStart.begin() && std::prev(after)->second >= r.begin;
}

void CubinChecker::addLongName(LongNames& names, std::string_view name) {
  if (name.size() <= 8 || !name.starts_with('%')) return;
  for (size_t cut = 2; cut <= 8; ++cut) names.emplace(name.substr(0, cut), name);
}

std::string_view CubinChecker::longerRegister(std::string_view function, const ptx::Function* f,
                                              std::string_view reg) const {
  if (auto mapped = longMapped_.find(function); mapped != longMapped_.end())
    if (auto found = mapped->second.find(reg); found != mapped->second.end()) return found->second;
  if (!f) return {};
  auto [declared, first] = longDeclared_.try_emplace(f);
  if (first)
    for (const ptx::RegisterDecl& d : source_.module.registersOf(*f))
      if (!d.isRange()) addLongName(declared->second, d.name.view());
  auto found = declared->second.find(reg);
  return found == declared->second.end() ? std::string_view() : found->second;
}

std::string_view CubinChecker::nameOf(const read::Die& die) const {
  // A variable of inlined code is named by its abstract origin.
  const read::Die* d = &die;
  for (int hop = 0; d && hop < 4; ++hop) {
    if (std::string_view n = dwarf_.name(*d); !n.empty()) return n;
    const std::optional<read::AttrValue> origin = dwarf_.attribute(*d, DW_AT_abstract_origin);
    d = origin ? dwarf_.referencedDie(*origin) : nullptr;
  }
  return {};
}

std::string CubinChecker::describe(const read::Die& die) const {
  std::string s(tagName(die.tag));
  std::string_view n = nameOf(die);
  if (!n.empty()) s += " '" + escaped(n) + "'";
  return s + " at " + hex(die.offset, 8);
}

Diagnostic& CubinChecker::report(Severity severity, SourceLoc at, uint64_t infoOffset, std::string_view rule,
                                 std::string message, const read::Die& die) {
  Diagnostic& d = out_.items.emplace_back();
  d.severity = severity;
  d.loc = at;
  d.message = std::move(message) + " (in " + describe(die) + ")";
  d.rule = std::string(rule);
  d.section = ".debug_info";
  d.offset = static_cast<int64_t>(infoOffset);
  return d;
}

SourceLoc CubinChecker::ptxLine(const read::Die& die, uint64_t cubinOffset, const ptx::Function* function,
                                std::string_view reg) const {
  // ptxas copies .debug_info byte for byte (relocating the addresses), so
  // the PTX's DIE at the same offset is this one where the tags agree.
  if (const read::Dwarf* own = source_.dwarf; own && own->info)
    if (const read::Die* same = own->dieAt(die.offset); same && same->tag == die.tag)
      if (SourceLoc at = own->info->locate(cubinOffset); at.line != 0) return at;
  if (!function) return {};
  if (const ptx::RegisterDecl* d = reg.empty() ? nullptr : declarationOf(*function, reg))
    return d->loc;
  return function->loc;
}

void CubinChecker::indexScopes() {
  const std::vector<read::Die>& dies = dwarf_.dies;
  subprogramOf_.assign(dies.size(), kNoDie);
  scopeRangeOf_.assign(dies.size(), std::nullopt);
  for (uint32_t i = 0; i < dies.size(); ++i) {
    work::step(work::enclosingWalk);
    const read::Die& d = dies[i];
    const bool parented = d.parent != read::kNone && d.parent < i;
    if (d.tag == DW_TAG_subprogram)
      subprogramOf_[i] = i;
    else if (parented)
      subprogramOf_[i] = subprogramOf_[d.parent];
    // The scope a child of this DIE is in: this one when it is a scope
    // with PCs; the whole function when it has DW_AT_ranges or is the
    // subprogram; else its parent's.
    if (isScope(d.tag) && dwarf_.hasAttribute(d, DW_AT_ranges)) continue;
    if (isScope(d.tag))
      if (std::optional<PcRange> r = pcRange(d)) {
        scopeRangeOf_[i] = r;
        continue;
      }
    if (d.tag != DW_TAG_subprogram && parented) scopeRangeOf_[i] = scopeRangeOf_[d.parent];
  }
}

const read::Die* CubinChecker::enclosingSubprogram(const read::Die& die) const {
  const uint32_t s = subprogramOf_[static_cast<size_t>(&die - dwarf_.dies.data())];
  return s == kNoDie ? nullptr : &dwarf_.dies[s];
}

std::optional<PcRange> CubinChecker::pcRange(const read::Die& die) const {
  const std::optional<read::AttrValue> low = dwarf_.attribute(die, DW_AT_low_pc);
  const std::optional<read::AttrValue> high = dwarf_.attribute(die, DW_AT_high_pc);
  if (!low || !high) return std::nullopt;
  const uint64_t end = high->form == DW_FORM_addr ? high->value : low->value + high->value;
  return PcRange{low->value, end};
}

PcRange CubinChecker::scopeOf(const read::Die& die, uint64_t functionSize) const {
  if (die.parent == read::kNone) return {0, functionSize};
  return scopeRangeOf_[die.parent].value_or(PcRange{0, functionSize});
}

void CubinChecker::functions() {
  for (const read::Die& die : dwarf_.dies) {
    if (die.tag != DW_TAG_subprogram || !dwarf_.hasAttribute(die, DW_AT_low_pc)) continue;  // code of its own
    std::optional<read::AttrValue> attr;
    const std::string_view name = subprogramCodeName(dwarf_, die, &attr);
    if (name.empty() || codeSize_.contains(name)) continue;
    const ptx::Function* f = source_.module.findFunction(name);
    const uint64_t at = attr ? attr->offset : die.offset;
    report(Severity::warning, ptxLine(die, at, f), at, "cubin-function-missing",
           "'" + escaped(name) + "' names no function of the cubin (no .text." + escaped(name) +
               (f ? "; the PTX defines it, ptxas left it out" : "; the PTX has no such function either") +
               "): cuda-gdb finds no code and no register map for it",
           die);
  }
}

void CubinChecker::registers() {
  if (!map_.problem.empty()) {
    Diagnostic& d = out_.warning({}, "the register map does not decode past " + map_.problem +
                                         ": the registers of the functions after it are not checked");
    d.rule = "cubin-register-unmapped";
    d.section = ".nv_debug_info_reg_sass";
  }
  indexScopes();
  for (const read::Die& die : dwarf_.dies) {
    if (die.tag != DW_TAG_variable && die.tag != DW_TAG_formal_parameter) continue;
    const std::optional<read::AttrValue> location = dwarf_.attribute(die, DW_AT_location);
    if (!location) continue;
    const read::Die* subprogram = enclosingSubprogram(die);
    if (!subprogram) continue;  // a global: its location is an address, not a register
    const std::string_view function = subprogramCodeName(dwarf_, *subprogram);
    if (!codeSize_.contains(function)) continue;  // cubin-function-missing says so
    checkVariable(die, *location, function);
  }
}

std::vector<CubinChecker::RegisterUse> CubinChecker::registerUses(const read::Die& die,
                                                                  const read::AttrValue& location) const {
  std::vector<RegisterUse> uses;
  const uint8_t addressSize = dwarf_.unitOf(die).addressSize;
  auto collect = [&](std::span<const uint8_t> bytes, std::optional<PcRange> pcs) {
    read::OperationReader ops(bytes, {addressSize, 4, nullptr, 0});
    for (read::Operation op; ops.next(op);)
      if (op.op == DW_OP_regx) uses.push_back({op.operands[0], pcs});
  };
  if (location.isBlock()) {
    collect(location.block(), std::nullopt);
    return uses;
  }
  const std::optional<uint64_t> offset = dwarf_.offsetIn(".debug_loc", location.value, location.reloc);
  const read::LocList* list = offset ? dwarf_.locListAt(*offset) : nullptr;
  if (!list) return uses;
  // Entries are relative to the unit's base address (its DW_AT_low_pc, 0
  // without one) until a base address selection entry sets another.
  const read::Die& unit = dwarf_.dies[dwarf_.unitOf(die).firstDie];
  const std::optional<read::AttrValue> unitLow = dwarf_.attribute(unit, DW_AT_low_pc);
  uint64_t base = unitLow ? unitLow->value : 0;
  for (const read::LocEntry& e : list->entries) {
    if (e.kind == read::LocEntry::baseAddress) base = e.end;
    if (e.kind == read::LocEntry::range) collect(e.expr, PcRange{base + e.begin, base + e.end});
  }
  return uses;
}

void CubinChecker::checkVariable(const read::Die& die, const read::AttrValue& location, std::string_view function) {
  const std::vector<RegisterUse> uses = registerUses(die, location);
  if (uses.empty()) return;
  const ptx::Function* f = source_.module.findFunction(function);
  const auto mapped = mapOf_.find(function);
  const PcRange scope = scopeOf(die, codeSize_[function]);
  bool available = false;
  std::string why, firstReg;  // for cubin-variable-unavailable: the first register's story
  for (const RegisterUse& use : uses) {
    const std::optional<cuda::RegisterName> name = cuda::unpackRegisterName(use.packed);
    if (!name) {
      report(Severity::error, ptxLine(die, location.offset, f), location.offset, "cubin-register-unmapped",
             "DW_OP_regx operand 0x" + hex(use.packed).substr(2) +
                 " is no packed PTX register name: cuda-gdb cannot look it up in the register map",
             die);
      return;
    }
    const std::string_view reg = name->view();
    const HeldRanges* held = nullptr;
    if (mapped != mapOf_.end())
      if (auto e = mapped->second.find(reg); e != mapped->second.end()) held = &e->second;
    const std::string_view longer = held ? std::string_view() : longerRegister(function, f, reg);
    if (!held && ((f && !source_.module.declaresRegister(*f, reg)) || !longer.empty())) {
      std::string message = "register " + std::string(reg) + " is not in the register map of " + escaped(function);
      message += longer.empty() ? ": the function declares no such register"
                                : ": the function has " + std::string(longer) +
                                      ", and a DW_OP_regx name holds at most 8 bytes";
      report(Severity::error, ptxLine(die, location.offset, f), location.offset, "cubin-register-unmapped",
             message + " (cuda-gdb: <optimized out> everywhere)", die);
      return;
    }
    const PcRange where = use.pcs ? PcRange{std::max(use.pcs->begin, scope.begin), std::min(use.pcs->end, scope.end)}
                                  : scope;
    available = held && where.begin < where.end && held->meets(where);
    std::string heldText;
    for (size_t i = 0; !available && held && i < held->entries.size() && heldText.size() < 80; ++i)
      heldText += (heldText.empty() ? "" : ", ") + hex(held->entries[i].first) + "-" + hex(held->entries[i].second);
    if (available) return;
    if (!firstReg.empty()) continue;
    firstReg = std::string(reg);
    if (mapped == mapOf_.end())
      why = "the cubin's register map has no record for " + escaped(function);
    else if (heldText.empty())
      why = "ptxas kept no entry for " + firstReg + " (it is never used, or its value never lives in a register)";
    else
      why = firstReg + " is mapped at " + heldText + " only, outside " + rangeText(where);
  }
  report(Severity::warning, ptxLine(die, location.offset, f, firstReg), location.offset,
         "cubin-variable-unavailable",
         (nameOf(die).empty() ? std::string("an unnamed ") + (die.tag == DW_TAG_variable ? "variable" : "parameter")
                              : "'" + escaped(nameOf(die)) + "'") +
             " is never available in its scope " + rangeText(scope) + ": " + why +
             "; cuda-gdb prints <optimized out> at every stop",
         die);
}

Diagnostics runCubin(const Loaded& cubin, const CubinSource& source) {
  Diagnostics out;
  CubinChecker checker(cubin, source, out);
  checker.functions();
  checker.registers();
  checker.lines();
  std::stable_sort(out.items.begin(), out.items.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
  return out;
}

Diagnostics runCubin(const Loaded& cubin) {
  Diagnostics out;
  for (const Diagnostic& d : cubin.dwarf.diagnostics.items) out.items.push_back(d);
  const std::optional<std::string> text = cubin::embeddedPtx(cubin.module());
  const ptx::Module none;
  Loaded embedded;
  if (text) embedded = loadText(*text, cubin.path);
  const bool readable = text && embedded.ok();
  if (text && !readable)
    out.warning({}, "the embedded PTX (.nv_debug_ptx_txt) does not read: the diagnostics below name no line");
  Diagnostics found = runCubin(cubin, {readable ? embedded.module() : none, nullptr});
  std::move(found.items.begin(), found.items.end(), std::back_inserter(out.items));
  return out;
}

}  // namespace ptxdwarf::check
