// annotate's DWARF: the DIEs of the module's variables, functions and
// registers, and the location lists and line ends of a function's code.
#include "annotate_internal.h"

namespace ptxdwarf::write::annotating {

namespace {

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

}  // namespace

DieId Annotator::typeOf(std::string_view ptxType) {
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

DieId Annotator::arrayOf(const ptx::Variable& v) {
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

void Annotator::variable(DieId scope, const ptx::Variable& v) {
  using S = ptx::StateSpace;
  if (v.space != S::global && v.space != S::shared && v.space != S::const_ && v.space != S::local) return;
  b_.variable(scope, {.name = v.name.str(),
                      .declFile = declFile(),
                      .declLine = declFile() ? v.loc.line : 0,
                      .type = arrayOf(v),
                      .location = Location::symbol({v.name.str()}, v.space, addressSize()),
                      .external = v.function < 0 && isExternal(v.linkage)});
  ++result_.stats.variables;
}

void Annotator::registers(DieId scope, const ptx::RegisterDecl& r, const Renames& renames) {
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

uint32_t Annotator::packableInRange(std::string_view stem, uint32_t count) {
  if (stem.size() >= 8 || !cuda::packRegister(stem)) return 0;  // not even one digit fits
  uint64_t fit = 1;  // 10^(digits the name has room for)
  for (size_t room = 8 - stem.size(); room > 0 && fit <= count; --room) fit *= 10;
  return static_cast<uint32_t>(std::min<uint64_t>(count, fit));
}

void Annotator::functionDies(int32_t index) {
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

void Annotator::withFileLineEnds(std::string& s) const {
  if (!crlf_) return;
  std::string converted;
  for (char c : s) {
    if (c == '\n') converted += '\r';
    converted += c;
  }
  s.swap(converted);
}

}  // namespace ptxdwarf::write::annotating
