// `ptxdump diff`: both files loaded, one library call, its text out.
#include "diff.h"

#include <optional>

#include "commands.h"
#include "dump_util.h"

namespace ptxdump {

namespace {

void appendDiagnostics(const ptxdwarf::Diagnostics& diags, const std::string& path, std::string& err) {
  for (const ptxdwarf::Diagnostic& d : diags.items) {
    err += d.format(path);
    if (!d.section.empty() && d.offset >= 0) {
      err += " (";
      err += d.section;
      err += '+';
      detail::appendHex(err, static_cast<uint64_t>(d.offset));
      err += ')';
    }
    err += '\n';
  }
}

}  // namespace

int runDiff(const DiffRequest& request, std::string& out, std::string& err) {
  // The DWARF of each side, its files for DW_AT_decl_file, its bodies for the
  // line table and the code labels, the name index to find the labels by.
  std::optional<LoadedFile> a = loadFile(request.oldFile, err);
  std::optional<LoadedFile> b = loadFile(request.newFile, err);
  if (!a || !b) return kUnreadable;
  bool broken = false;
  for (const LoadedFile* f : {&*a, &*b})
    if (f->dwarf.diagnostics.hasErrors()) {
      appendDiagnostics(f->dwarf.diagnostics, f->path, err);
      broken = true;
    }
  if (broken) return kUnreadable;
  const std::vector<ptxdwarf::view::DiffLine> lines =
      ptxdwarf::view::diff(a->read.module, a->dwarf, b->read.module, b->dwarf, request.options);
  ptxdwarf::view::printDiff(out, lines);
  return lines.empty() ? kOk : kProblems;
}

}  // namespace ptxdump
