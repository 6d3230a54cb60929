// The commands only a cubin answers (the dump of one is print::dumpFile's).
#include "commands.h"
#include "ptxdwarf/cubin/cubin.h"

namespace ptxdump {

bool isCubinModule(const ptxdwarf::ptx::Module& m) { return m.fileFormat != "ptx"; }

int runExtractPtx(const ExtractRequest& request, std::string& out, std::string& err) {
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  const ptxdwarf::ptx::Module& m = file->read.module;
  std::optional<std::string> ptx = isCubinModule(m) ? ptxdwarf::cubin::embeddedPtx(m) : std::nullopt;
  if (!ptx) {
    err += request.file + ": error: --ptx: " +
           (isCubinModule(m) ? "the cubin has no embedded PTX (.nv_debug_ptx_txt: ptxas writes it with -g or -lineinfo)"
                             : "not a cubin (the file is PTX already)") +
           "\n";
    return kUnreadable;
  }
  return writeOutput(request.output, *ptx, out, err) ? kOk : kUnreadable;
}

}  // namespace ptxdump
