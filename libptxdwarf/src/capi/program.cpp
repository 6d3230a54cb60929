// The C API: whole PTX modules assembled (write::Program) and their diagnostics.
#include "capi.h"

#include "ptxdwarf/check/assembled.h"

using namespace ptxdwarf;
using namespace ptxdwarf::capi;

// ---- Programs ---------------------------------------------------------------------


ptxdwarf_status ptxdwarf_program_create(const ptxdwarf_program_options* options, ptxdwarf_program** out) {
  return guard([&] {
    needOut(out, "out");
    *out = new ptxdwarf_program(programOptions(options));
  });
}

void ptxdwarf_program_free(ptxdwarf_program* program) { delete program; }

ptxdwarf_status ptxdwarf_program_add_file(ptxdwarf_program* program, const char* path, unsigned* id) {
  return guard([&] {
    write::Program& p = programOf(program);
    needOut(id, "id");
    *id = p.files().add(required(path, "the path"));
  });
}

ptxdwarf_status ptxdwarf_program_add_file_info(ptxdwarf_program* program, const char* path, uint64_t timestamp,
                                               uint64_t size, unsigned* id) {
  return guard([&] {
    write::Program& p = programOf(program);
    needOut(id, "id");
    *id = p.files().add(required(path, "the path"), timestamp, size);
  });
}

ptxdwarf_status ptxdwarf_program_code(ptxdwarf_program* program, const char* text) {
  return guard([&] { programOf(program).code() += required(text, "the text"); });
}

ptxdwarf_status ptxdwarf_program_begin_function(ptxdwarf_program* program, const char** begin_label,
                                                const char** end_label) {
  return guard([&] {
    write::Labels::Function f = programOf(program).beginFunction();
    const char* begin = program->keep(std::move(f.begin));
    const char* end = program->keep(std::move(f.end));
    if (begin_label) *begin_label = begin;
    if (end_label) *end_label = end;
  });
}

ptxdwarf_status ptxdwarf_program_end_function(ptxdwarf_program* program) {
  return guard([&] { programOf(program).endFunction(); });
}

ptxdwarf_status ptxdwarf_program_label(ptxdwarf_program* program, const char** name) {
  return guard([&] {
    write::Program& p = programOf(program);
    needOut(name, "name");
    *name = program->keep(p.label());
  });
}

ptxdwarf_status ptxdwarf_program_new_label(ptxdwarf_program* program, const char** name) {
  return guard([&] {
    write::Program& p = programOf(program);
    needOut(name, "name");
    *name = program->keep(p.labels().temporary());
  });
}

ptxdwarf_status ptxdwarf_program_place_label(ptxdwarf_program* program, const char* name) {
  return guard([&] { programOf(program).place(required(name, "the label name")); });
}

ptxdwarf_status ptxdwarf_program_loc(ptxdwarf_program* program, unsigned file, unsigned line, unsigned column,
                                     const ptxdwarf_inlined_call* inlined, size_t depth, size_t* written) {
  return guard([&] {
    write::Program& p = programOf(program);
    if (depth && !inlined) fail(PTXDWARF_E_INVALID_ARGUMENT, "the inline stack is NULL");
    std::vector<write::InlinedCall> stack;
    for (size_t k = 0; k < depth; ++k)
      stack.push_back({required(inlined[k].function, "an inlined function name"),
                       {inlined[k].call_file, inlined[k].call_line, inlined[k].call_column}});
    size_t n = p.loc({file, line, column}, stack);
    if (written) *written = n;
  });
}

size_t ptxdwarf_diagnostics_count(const ptxdwarf_diagnostics* diagnostics) {
  return diagnostics ? diagnostics->diagnostics.items.size() : 0;
}

ptxdwarf_status ptxdwarf_diagnostics_get(const ptxdwarf_diagnostics* diagnostics, size_t index,
                                         ptxdwarf_diagnostic* out) {
  return guard([&] {
    const Diagnostic& d = diagnosticAt(diagnostics, index);
    needOut(out, "out");
    *out = ptxdwarf_diagnostic{static_cast<ptxdwarf_severity>(d.severity),
                               d.loc.line,
                               d.loc.col,
                               d.message.c_str(),
                               d.rule.c_str(),
                               d.section.c_str(),
                               d.offset};
  });
}

ptxdwarf_status ptxdwarf_diagnostics_format(const ptxdwarf_diagnostics* diagnostics, size_t index, const char* filename,
                                            char** out) {
  return guard([&] {
    const Diagnostic& d = diagnosticAt(diagnostics, index);
    needOut(out, "out");
    *out = mallocCopy(d.format(filename ? filename : "<assembled>"));
  });
}

void ptxdwarf_diagnostics_free(ptxdwarf_diagnostics* diagnostics) { delete diagnostics; }

ptxdwarf_status ptxdwarf_program_assemble(const ptxdwarf_program* program, const ptxdwarf_unit* const* units,
                                          size_t count, const ptxdwarf_assemble_options* options, char** ptx,
                                          ptxdwarf_diagnostics** diagnostics) {
  return guard([&] {
    const write::Program& p = need(program, "the program").program;
    needOut(ptx, "ptx");
    if (count && !units) fail(PTXDWARF_E_INVALID_ARGUMENT, "the unit array is NULL");
    std::vector<const write::Unit*> list;
    for (size_t k = 0; k < count; ++k) {
      if (!units[k]) fail(PTXDWARF_E_INVALID_ARGUMENT, "unit " + std::to_string(k) + " is NULL");
      list.push_back(&units[k]->builder.unit());
    }
    check::AssembleCheckOptions a;
    if (options) {
      a.assemble.style = styleOf(options->style);
      a.assemble.encode = encodeOptions(options->encode);
      if (options->filename) a.filename = options->filename;
    }
    const std::span<const write::Unit* const> unitList(list);
    write::Assembled m =
        options && options->check ? check::assembleAndCheck(p, unitList, a) : p.assemble(unitList, a.assemble);
    if (!m.written()) fail(PTXDWARF_E_ASSEMBLE, joinErrors(m.diagnostics, {}));
    auto found = std::make_unique<ptxdwarf_diagnostics>();
    found->diagnostics = std::move(m.diagnostics);
    *ptx = mallocCopy(m.ptx);
    if (diagnostics) *diagnostics = found.release();
  });
}

