// `ptxdump types`: type layouts (view::typeLayouts) as C declarations with
// pahole's comments, or as JSON.
#include <algorithm>

#include "commands.h"
#include "ptxdwarf/view/types.h"
#include "report.h"
#include "view_format.h"

namespace ptxdump {

using namespace ptxdwarf;

int runTypes(const TypesRequest& request, std::string& out, std::string& err) {
  // Type layouts are the DWARF's alone: no code, no symbols.
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  std::vector<ptxdwarf::view::TypeLayout> types = ptxdwarf::view::typeLayouts(file->dwarf);
  if (!request.names.empty()) {
    const ptxdwarf::read::Dwarf& d = file->dwarf;
    std::erase_if(types, [&](const ptxdwarf::view::TypeLayout& t) {
      const ptxdwarf::read::Die* die = d.dieAt(t.die);
      std::string_view plain = die ? d.name(*die) : std::string_view();
      return std::none_of(request.names.begin(), request.names.end(),
                          [&](const std::string& n) { return n == t.name || (!plain.empty() && n == plain); });
    });
  }
  if (request.format == Format::json)
    appendTypesJson(request.file, types, out);
  else
    appendTypesText(types, out);
  int status = kOk;
  if (file->dwarf.diagnostics.hasErrors()) {
    appendDiagnostics(file->dwarf.diagnostics, request.file, err);
    status = kUnreadable;
  }
  if (types.empty() && !request.names.empty() && status == kOk) {
    err += request.file + ": no type named";
    for (const std::string& n : request.names) err += " '" + n + "'";
    err += "\n";
    status = kProblems;
  }
  return status;
}

}  // namespace ptxdump
