#include <charconv>

#include "ptxdwarf/ptx/module.h"

namespace ptxdwarf::ptx {

std::string_view stateSpaceName(StateSpace s) {
  switch (s) {
    case StateSpace::none: return "";
    case StateSpace::reg: return ".reg";
    case StateSpace::sreg: return ".sreg";
    case StateSpace::const_: return ".const";
    case StateSpace::global: return ".global";
    case StateSpace::local: return ".local";
    case StateSpace::param: return ".param";
    case StateSpace::shared: return ".shared";
    case StateSpace::tex: return ".tex";
    case StateSpace::surf: return ".surf";
    case StateSpace::sampler: return ".sampler";
    case StateSpace::generic: return ".generic";
  }
  return "";
}

bool Function::declaresRegister(std::string_view reg) const {
  for (const RegisterDecl& d : registers) {
    if (!d.isRange()) {
      if (d.name == reg) return true;
      continue;
    }
    // `%r<4>` declares %r0..%r3: the name is the prefix followed by a decimal index.
    if (!reg.starts_with(d.name)) continue;
    std::string_view digits = reg.substr(d.name.size());
    if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) continue;
    uint64_t n = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (r.ec == std::errc() && r.ptr == digits.data() + digits.size() && n < d.count) return true;
  }
  return false;
}

const SectionImage* Module::section(std::string_view name) const {
  for (const SectionImage& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

void Module::reindex() {
  functionIndex_.clear();
  variableIndex_.clear();
  labelIndex_.clear();
  paramIndex_.clear();
  for (uint32_t i = 0; i < functions.size(); ++i) {
    // A definition wins over the declarations (prototypes) of the same name.
    auto [it, inserted] = functionIndex_.try_emplace(functions[i].name, i);
    if (!inserted && functions[i].hasBody && !functions[it->second].hasBody) it->second = i;
    for (uint32_t p = 0; p < functions[i].params.size(); ++p)
      paramIndex_.try_emplace(functions[i].params[p].name, (uint64_t{i} << 32) | p);
  }
  localIndex_.clear();
  for (uint32_t i = 0; i < variables.size(); ++i) {
    if (variables[i].function < 0) variableIndex_.try_emplace(variables[i].name, i);
    else localIndex_.try_emplace(std::to_string(variables[i].function) + ":" + variables[i].name, i);
  }
  for (uint32_t i = 0; i < labels.size(); ++i) labelIndex_.try_emplace(labels[i].name, i);
  symbols_.clear();
  for (const Label& l : labels) symbols_.try_emplace(l.name, true);
  for (const Function& f : functions) {
    symbols_.try_emplace(f.name, true);
    for (const Variable& p : f.params) symbols_.try_emplace(p.name, true);
    for (const Variable& p : f.returns) symbols_.try_emplace(p.name, true);
  }
  for (const Variable& v : variables) symbols_.try_emplace(v.name, true);
  for (const SectionImage& s : sections) {
    symbols_.try_emplace(s.name, true);
    for (const SectionLabel& l : s.labels) symbols_.try_emplace(l.name, true);
  }
}

const Function* Module::findFunction(std::string_view name) const {
  auto it = functionIndex_.find(name);
  return it == functionIndex_.end() ? nullptr : &functions[it->second];
}

const Variable* Module::findVariable(std::string_view name, int32_t function) const {
  if (function >= 0) {
    auto local = localIndex_.find(std::to_string(function) + ":" + std::string(name));
    if (local != localIndex_.end()) return &variables[local->second];
  }
  auto it = variableIndex_.find(name);
  return it == variableIndex_.end() ? nullptr : &variables[it->second];
}

const Variable* Module::findParameter(std::string_view name) const {
  auto it = paramIndex_.find(name);
  if (it == paramIndex_.end()) return nullptr;
  return &functions[it->second >> 32].params[it->second & 0xffffffffu];
}

const Label* Module::findLabel(std::string_view name) const {
  auto it = labelIndex_.find(name);
  return it == labelIndex_.end() ? nullptr : &labels[it->second];
}

const FileEntry* Module::findFile(unsigned index) const {
  for (const FileEntry& f : files)
    if (f.index == index) return &f;
  return nullptr;
}

bool Module::definesSymbol(std::string_view name) const { return symbols_.find(name) != symbols_.end(); }

}  // namespace ptxdwarf::ptx
