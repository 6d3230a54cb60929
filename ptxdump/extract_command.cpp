// `ptxdump extract`: one section's bytes, and its relocations; or a cubin's
// embedded PTX.
#include "commands.h"
#include "ptxdwarf/cubin/cubin.h"
#include "ptxdwarf/format.h"

namespace ptxdump {

using namespace ptxdwarf;

namespace {

int runExtractPtx(const ExtractRequest& request, std::string& out, std::string& err) {
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});
  if (!file) return kUnreadable;
  const ptx::Module& m = file->read.module;
  std::optional<std::string> ptx = isCubinModule(m) ? cubin::embeddedPtx(m) : std::nullopt;
  if (!ptx) {
    err += request.file + ": error: --ptx: " +
           (isCubinModule(m) ? "the cubin has no embedded PTX (.nv_debug_ptx_txt: ptxas writes it with -g or -lineinfo)"
                             : "not a cubin (the file is PTX already)") +
           "\n";
    return kUnreadable;
  }
  return writeOutput(request.output, *ptx, out, err) ? kOk : kUnreadable;
}

}  // namespace

int runExtract(const ExtractRequest& request, std::string& out, std::string& err) {
  // Raw section bytes over the PTX they came from would lose the PTX.
  if (!request.output.empty() && request.output != "-" && sameFile(request.file, request.output)) {
    err += request.output + ": error: -o names the input file; the section's bytes would replace the PTX\n";
    return kUnreadable;
  }
  if (request.ptx) return runExtractPtx(request, out, err);
  std::optional<LoadedFile> file = loadFile(request.file, err, {.nameIndex = false, .bodies = false});  // the bytes only
  if (!file) return kUnreadable;
  if (request.section.empty()) {
    err += request.file + ": error: --section: the section name is empty\n";
    return kUnreadable;
  }
  const std::string name = request.section.starts_with('.') ? request.section : "." + request.section;
  const SectionImage* section = file->read.module.section(name);
  if (!section) {
    err += request.file + ": error: no section " + name + " in this file";
    const auto& sections = file->read.module.sections;
    if (sections.empty()) {
      err += " (it has no sections)";
    } else {
      err += " (it has:";
      for (const SectionImage& s : sections) err += " " + s.name;
      err += ")";
    }
    err += "\n";
    return kUnreadable;
  }
  const std::string_view bytes(reinterpret_cast<const char*>(section->bytes.data()), section->bytes.size());
  if (!request.output.empty() && !writeOutput(request.output, bytes, out, err)) return kUnreadable;
  if (request.relocations)
    for (const Relocation& r : section->relocations)
      out += hex(r.offset, 8) + " " + std::to_string(r.size) + " " + r.expression() + "\n";
  return kOk;
}

}  // namespace ptxdump
