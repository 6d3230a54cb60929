// `ptxdump verify`: decode with ptxdwarf, hand the same (linked) section images
// to LLVM and libdwarf from memory, and list every disagreement.
#include "verify.h"

#include <chrono>
#include <cstdio>

#include "commands.h"
#include "oracle.h"

namespace ptxdump {

using namespace ptxdwarf;

namespace {

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string summary(const OracleView& v) {
  size_t nonNull = 0;
  for (const OracleDie& d : v.dies) nonNull += d.tag != 0;
  return plural(v.units.size(), "unit", "units") + ", " + plural(nonNull, "DIE", "DIEs") + ", " +
         plural(v.attributeCount(), "attribute", "attributes") + ", " +
         plural(v.loclists.size(), "location list", "location lists") + ", " +
         plural(v.pubnames.size(), "name", "names") + ", " + plural(v.ranges.size(), "range", "ranges");
}

struct Oracle {
  const char* name;
  bool requested;
  bool available;
  std::optional<OracleView> (*view)(std::span<const SectionImage>, std::string*);
};

}  // namespace

int runVerify(const VerifyRequest& request, std::string& out, std::string& err) {
  Oracle oracles[] = {{"llvm", request.llvm, haveLlvmOracle(), llvmView},
                      {"libdwarf", request.libdwarf, haveLibdwarfOracle(), libdwarfView}};
  bool missing = false;
  for (const Oracle& o : oracles) {
    if (o.requested && !o.available) {
      err += std::string("error: ptxdump-verify was built without ") +
             (o.name == std::string_view("llvm") ? "LLVM DebugInfo" : "libdwarf") + "; cannot verify with " +
             o.name + "\n";
      missing = true;
    }
  }
  if (missing) return kUnreadable;

  int status = kOk;
  bool addedLine = false;
  size_t linkedOperands = 0;
  for (const std::string& path : request.files) {
    std::optional<LoadedFile> file = loadFile(path, err);
    if (!file) {
      status = kUnreadable;
      continue;
    }
    const ptx::Module& m = file->read.module;
    Linker linker(m.sections, &m);
    std::vector<SectionImage> linked = linker.link();
    addedLine |= linker.addedDebugLine();
    for (const SectionImage& s : m.sections)
      if (s.name.starts_with(".debug_")) linkedOperands += s.relocations.size();
    OracleView ours = ourView(file->dwarf, linker);
    size_t problems = 0;
    // Our decoder's own errors, once (every oracle comparison would repeat them).
    for (const std::string& message : ours.messages) {
      err += path + ": verify[ours]: " + message + "\n";
      ++problems;
    }
    for (const Oracle& o : oracles) {
      if (!o.requested) continue;
      std::string error;
      auto start = std::chrono::steady_clock::now();
      std::optional<OracleView> theirs = o.view(linked, &error);
      if (!theirs) {
        err += path + ": verify[" + o.name + "]: error: " + error + "\n";
        status = kUnreadable;
        continue;
      }
      std::vector<std::string> diffs = compareViews(ours, *theirs, o.name);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      for (const std::string& d : diffs) err += path + ": verify[" + o.name + "]: " + d + "\n";
      problems += diffs.size();
      out += path + ": " + o.name + ": " + summary(*theirs) + " compared; " +
             (diffs.empty() ? std::string("all agree") : plural(diffs.size(), "disagreement", "disagreements"));
      if (request.verbose) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " (%.1f ms)", ms);
        out += buf;
      }
      out += "\n";
    }
    if (problems && status == kOk) status = kProblems;
  }
  if (linkedOperands || addedLine) {
    out += "note: the oracles read the sections as a linker leaves them:";
    if (linkedOperands)
      out += " " + plural(linkedOperands, "symbolic operand", "symbolic operands") +
             " patched in (.debug_* symbols as section offsets, code labels, functions and variables at "
             "PTX line * 256);";
    if (addedLine)
      out += " a .debug_line with the PTX .file table and no rows stands in for the one ptxas generates, so "
             "LLVM's verifier checks DW_AT_stmt_list and DW_AT_decl_file against a table that exists (nothing "
             "of its report is filtered)";
    out += "\n";
  }
  return status;
}

}  // namespace ptxdump
