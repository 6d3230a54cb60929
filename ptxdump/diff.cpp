// `ptxdump diff`: both files loaded, one library call, its text out.
#include <optional>

#include "commands.h"

namespace ptxdump {

int runDiff(const DiffRequest& request, std::string& out, std::string& err) {
  // The DWARF of each side, its files for DW_AT_decl_file, its bodies for the
  // line table and the code labels, the name index to find the labels by.
  std::optional<LoadedFile> a = loadFile(request.oldFile, err);
  std::optional<LoadedFile> b = loadFile(request.newFile, err);
  if (!a || !b) return kUnreadable;
  const bool oldBroken = decodeFailed(*a, err), newBroken = decodeFailed(*b, err);  // each file's errors said
  if (oldBroken || newBroken) return kUnreadable;
  const std::vector<ptxdwarf::view::DiffLine> lines =
      ptxdwarf::view::diff(a->read.module, a->dwarf, b->read.module, b->dwarf, request.options);
  ptxdwarf::view::printDiff(out, lines);
  return lines.empty() ? kOk : kProblems;
}

}  // namespace ptxdump
