// The least a command that reads a whole PTX file costs here: the file
// mapped as ptxdump maps it (FileText::load), every byte looked at (its
// lines counted), each megabyte's pages given back behind the count as the
// reader gives them back (ReadOptions::consumed), and nothing else -- no
// model, no threads. run.sh times it beside `wc -l` and `check`: the kernel's
// share of this program's run is the share no reader of the file can go
// below on the machine (mapping the page cache, or copying it as wc does,
// and the process's own start and exit), the floor under target 2's system
// time.
//   usage: ptxdwarf_floor FILE
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "commands.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ptxdwarf_floor FILE\n");
    return 2;
  }
  ptxdump::FileText text;
  std::string error;
  if (!text.load(argv[1], error)) {
    std::fprintf(stderr, "%s: error: cannot read file: %s\n", argv[1], error.c_str());
    return 2;
  }
  const std::string_view view = text.view();
  constexpr uint64_t kStep = uint64_t{1} << 20;  // ReadOptions::consumedStep's default
  uint64_t lines = 0;
  for (uint64_t at = 0; at < view.size(); at += kStep) {
    const std::string_view window = view.substr(at, kStep);
    lines += static_cast<uint64_t>(std::count(window.begin(), window.end(), '\n'));
    text.release(at, at + window.size());
  }
  std::printf("%llu %s\n", static_cast<unsigned long long>(lines), argv[1]);
  return 0;
}
