// The C API: a module read or opened (ptxdwarf::load) and the debugger's view of it.
#include "capi.h"
#include "ptxdwarf/cubin/cubin.h"

using namespace ptxdwarf;
using namespace ptxdwarf::capi;

namespace {

// The module of a load, or the load's errors as PTXDWARF_E_PARSE.
ptxdwarf_module* moduleOf(Loaded loaded) {
  if (!loaded.ok()) fail(PTXDWARF_E_PARSE, joinErrors(loaded.read.diagnostics, loaded.path));
  auto m = std::make_unique<ptxdwarf_module>();
  m->loaded = std::move(loaded);
  return m.release();
}

}  // namespace

ptxdwarf_status ptxdwarf_module_read(const char* text, size_t length, const char* filename, ptxdwarf_module** out) {
  return guard([&] {
    needOut(out, "out");
    // The module keeps no view of the caller's text (loadText records the
    // operands' positions): the text may go once this returns.
    const std::string_view bytes = textOf(text, length);
    Loaded loaded = loadText(bytes, filename ? filename : "<input>");
    // A cubin's lookup reads its bytes again: the module keeps a copy.
    if (cubin::looksLikeCubin(bytes)) loaded.text = FileText(std::string(bytes));
    *out = moduleOf(std::move(loaded));
  });
}

ptxdwarf_status ptxdwarf_module_open(const char* path, unsigned threads, ptxdwarf_module** out) {
  return guard([&] {
    needOut(out, "out");
    std::string file = required(path, "the path");
    *out = moduleOf(load(file, {.threads = threads ? threads : 1}));
  });
}

void ptxdwarf_module_free(ptxdwarf_module* module) { delete module; }

ptxdwarf_status ptxdwarf_lookup_at(const ptxdwarf_module* module, const char* where, ptxdwarf_lookup** out) {
  return guard([&] {
    const ptxdwarf_module& m = need(module, "the module");
    std::string at = required(where, "the place");
    needOut(out, "out");
    auto l = std::make_unique<ptxdwarf_lookup>();
    l->result = view::lookup(m.loaded, at);
    if (l->result.matches.empty()) fail(PTXDWARF_E_NOT_FOUND, l->result.error);
    for (const view::Match& match : l->result.matches) {
      auto& perVariable = l->sass.emplace_back();
      for (const view::VariableInfo& v : match.variables) {
        auto& strings = perVariable.emplace_back();
        if (v.sass)
          for (const std::string& s : *v.sass) strings.push_back(s.c_str());
      }
    }
    *out = l.release();
  });
}

void ptxdwarf_lookup_free(ptxdwarf_lookup* lookup) { delete lookup; }

size_t ptxdwarf_lookup_match_count(const ptxdwarf_lookup* lookup) { return lookup ? lookup->result.matches.size() : 0; }

namespace {

const view::Match& matchAt(const ptxdwarf_lookup* lookup, size_t match) {
  return itemAt(need(lookup, "the lookup").result.matches, match, "match");
}

}  // namespace

ptxdwarf_status ptxdwarf_lookup_match(const ptxdwarf_lookup* lookup, size_t match, ptxdwarf_match_info* out) {
  return guard([&] {
    const view::Match& m = matchAt(lookup, match);
    needOut(out, "out");
    *out = {m.function.c_str(), m.ptxLines.data(), m.ptxLines.size(), m.scopes.size(), m.variables.size()};
  });
}

ptxdwarf_status ptxdwarf_lookup_scope(const ptxdwarf_lookup* lookup, size_t match, size_t index,
                                      ptxdwarf_scope_info* out) {
  return guard([&] {
    const view::ScopeInfo& s = itemAt(matchAt(lookup, match).scopes, index, "scope");
    needOut(out, "out");
    *out = {s.tag, s.name.c_str(), s.die, s.callFile.c_str(), s.callLine};
  });
}

ptxdwarf_status ptxdwarf_lookup_variable(const ptxdwarf_lookup* lookup, size_t match, size_t index,
                                         ptxdwarf_variable_info* out) {
  return guard([&] {
    const view::VariableInfo& v = itemAt(matchAt(lookup, match).variables, index, "variable");
    needOut(out, "out");
    *out = {v.name.c_str(), v.parameter ? 1 : 0, v.type.c_str(), v.location.c_str(), v.available ? 1 : 0,
            v.addressClass, v.declLine, v.die};
  });
}

ptxdwarf_status ptxdwarf_lookup_match_pc(const ptxdwarf_lookup* lookup, size_t match, uint64_t* pc, uint32_t* line) {
  return guard([&] {
    const view::Match& m = matchAt(lookup, match);
    needOut(pc, "pc");
    if (!m.pc) fail(PTXDWARF_E_NOT_FOUND, "a match on a PTX file has no SASS address");
    *pc = *m.pc;
    if (line) *line = m.line;
  });
}

ptxdwarf_status ptxdwarf_lookup_variable_sass(const ptxdwarf_lookup* lookup, size_t match, size_t index,
                                              const char* const** sass, size_t* count) {
  return guard([&] {
    itemAt(matchAt(lookup, match).variables, index, "variable");
    needOut(sass, "sass");
    needOut(count, "count");
    const std::vector<const char*>& strings = lookup->sass[match][index];
    *sass = strings.data();
    *count = strings.size();
  });
}
