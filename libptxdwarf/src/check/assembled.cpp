#include "ptxdwarf/check/assembled.h"

#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"

namespace ptxdwarf::check {

Diagnostics checkText(std::string_view ptx, std::string_view filename, const Options& options) {
  ptx::ReadResult r = ptx::read(ptx, filename);
  Diagnostics out = std::move(r.diagnostics);
  if (!r.ok()) return out;
  const read::Dwarf dwarf = read::decode(r.module.sections);
  Diagnostics found = run(r.module, dwarf, options);
  out.items.insert(out.items.end(), found.items.begin(), found.items.end());
  return out;
}

write::Assembled assembleAndCheck(const write::Program& program, std::span<const write::Unit* const> units,
                                  const AssembleCheckOptions& options) {
  write::Assembled m = program.assemble(units, options.assemble);
  if (!m.written()) return m;
  Diagnostics found = checkText(m.ptx, options.filename, options.check);
  m.diagnostics.items.insert(m.diagnostics.items.end(), found.items.begin(), found.items.end());
  return m;
}

write::Assembled assembleAndCheck(const write::Program& program, const write::Unit* unit,
                                  const AssembleCheckOptions& options) {
  return assembleAndCheck(program, std::span<const write::Unit* const>(&unit, unit ? 1 : 0), options);
}

}  // namespace ptxdwarf::check
