// `ptxdump diff A B`: a semantic diff of two PTX files' debug information, for
// producer regression tests (new output against a golden file). The
// comparison and its text are the library's (ptxdwarf/view/diff.h).
#pragma once

#include <string>

#include "ptxdwarf/view/diff.h"

namespace ptxdump {

struct DiffRequest {
  std::string oldFile;
  std::string newFile;
  ptxdwarf::view::DiffOptions options;
};
// Difference lines and the summary to `out`; load and decode errors to `err`.
// Exit 0 equal, 1 different, 2 a file could not be read, parsed or decoded.
int runDiff(const DiffRequest& request, std::string& out, std::string& err);

}  // namespace ptxdump
