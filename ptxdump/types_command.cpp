// `ptxdump types`: type layouts (view::typeLayouts) as C declarations with
// pahole's comments, or as JSON.
#include "commands.h"
#include "ptxdwarf/view/types.h"
#include "ptxdwarf/print/views.h"

namespace ptxdump {

using namespace ptxdwarf;

int runTypes(const TypesRequest& request, std::string& out, std::string& err) {
  // Type layouts are the DWARF's alone: no code, no symbols.
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  std::vector<ptxdwarf::view::TypeLayout> types = ptxdwarf::view::typeLayouts(file->dwarf);
  if (!request.names.empty()) ptxdwarf::view::keepTypesNamed(types, file->dwarf, request.names);
  if (request.format == Format::json)
    ptxdwarf::print::typesJson(request.file, types, out);
  else
    ptxdwarf::print::typesText(types, out);
  int status = decodeFailed(*file, err) ? kUnreadable : kOk;
  if (types.empty() && !request.names.empty() && status == kOk) {
    err += request.file + ": no type named";
    for (const std::string& n : request.names) err += " '" + n + "'";
    err += "\n";
    status = kProblems;
  }
  return status;
}

}  // namespace ptxdump
