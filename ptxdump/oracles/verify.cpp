// `ptxdump verify`: decode with ptxdwarf, hand the same (linked) section images
// to LLVM and libdwarf from memory, and list every disagreement.
#include "verify.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "commands.h"
#include "oracle.h"
#include "ptxdwarf/check/check.h"

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

// What one oracle run gives back to the parent.
struct OracleOutcome {
  enum class Kind { compared, failed, crashed } kind = Kind::failed;
  std::string text;                // compared: the summary; failed/crashed: why
  std::string notCompared;         // compared: what one side could not express, "; "-separated
  std::vector<std::string> diffs;  // compared: the disagreements
};

// Writes all of `data` to `fd`; false when the reader went away.
bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// The oracles are third-party code that crashes on some broken input (LLVM's
// adapter on a block running past its unit, its verifier on an undefined
// abbreviation, its DIE-range check recursing through a deep tree). Each runs
// in a child process: a crash becomes a finding of this file, and verify goes
// on. The child sends back the summary, what could not be compared and the
// disagreements as NUL-separated strings, the first byte saying which outcome
// it is.
OracleOutcome runContained(const Oracle& o, std::span<const SectionImage> linked, const OracleView& ours) {
  OracleOutcome outcome;
  int fds[2];
  if (pipe(fds) != 0) {
    outcome.text = std::string("cannot start the oracle: pipe: ") + std::strerror(errno);
    return outcome;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = fork();
  if (child < 0) {
    outcome.text = std::string("cannot start the oracle: fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return outcome;
  }
  if (child == 0) {
    close(fds[0]);
    std::string error, message;
    std::optional<OracleView> theirs = o.view(linked, &error);
    if (!theirs) {
      message = "F" + error;
    } else {
      Comparison c = compare(ours, *theirs, o.name);
      message = "C" + summary(*theirs) + '\0';
      for (size_t i = 0; i < c.notCompared.size(); ++i) message += (i ? "; " : "") + c.notCompared[i];
      for (const std::string& d : c.disagreements) message += '\0' + d;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(writeAll(fds[1], message) ? 0 : 1);
  }
  close(fds[1]);
  std::string message;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    message.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int wstatus = 0;
  while (waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    outcome.kind = OracleOutcome::Kind::crashed;
    outcome.text = std::string(o.name) + " crashed (signal " + std::to_string(sig) + ", " + strsignal(sig) +
                   ") reading these sections; nothing of it was compared";
    return outcome;
  }
  // A sanitizer's fault handler turns the signal into an exit status.
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || message.empty()) {
    outcome.kind = OracleOutcome::Kind::crashed;
    outcome.text = std::string(o.name) + " crashed (exit status " +
                   std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1) +
                   ", no answer) reading these sections; nothing of it was compared";
    return outcome;
  }
  outcome.kind = message[0] == 'C' ? OracleOutcome::Kind::compared : OracleOutcome::Kind::failed;
  size_t start = 1, end;
  size_t field = 0;
  do {
    end = message.find('\0', start);
    std::string part = message.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (field == 0)
      outcome.text = std::move(part);
    else if (field == 1 && outcome.kind == OracleOutcome::Kind::compared)
      outcome.notCompared = std::move(part);
    else
      outcome.diffs.push_back(std::move(part));
    ++field;
    start = end + 1;
  } while (end != std::string::npos);
  return outcome;
}

// What our check finds that LLVM's verifier reports too: overlapping sibling
// scopes, which nvcc -G writes for CUB code. Returns how many.
size_t addSharedFindings(const ptx::Module& m, const read::Dwarf& dwarf, OracleView& ours) {
  size_t n = 0;
  for (const Diagnostic& d : check::run(m, dwarf, {.roundTrip = false}).items) {
    if (d.rule != "scope-overlap" || d.offset < 0) continue;
    // The DIE holding the attribute the diagnostic points at.
    auto it = std::upper_bound(dwarf.dies.begin(), dwarf.dies.end(), static_cast<uint64_t>(d.offset),
                               [](uint64_t o, const read::Die& die) { return o < die.offset; });
    if (it == dwarf.dies.begin()) continue;
    char buf[96];
    std::snprintf(buf, sizeof buf, "verifier: error: DIEs have overlapping address ranges: [0x%08llx: ",
                  static_cast<unsigned long long>(std::prev(it)->offset));
    ours.sharedFindings.push_back(buf);
    ++n;
  }
  return n;
}

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
    size_t overlaps = addSharedFindings(m, file->dwarf, ours);
    size_t problems = 0;
    // Our decoder's own errors, once (every oracle comparison would repeat them).
    for (const std::string& message : ours.messages) {
      err += path + ": verify[ours]: " + message + "\n";
      ++problems;
    }
    for (const Oracle& o : oracles) {
      if (!o.requested) continue;
      auto start = std::chrono::steady_clock::now();
      OracleOutcome outcome = runContained(o, linked, ours);
      if (outcome.kind == OracleOutcome::Kind::failed) {
        err += path + ": verify[" + o.name + "]: error: " + outcome.text + "\n";
        status = kUnreadable;
        continue;
      }
      if (outcome.kind == OracleOutcome::Kind::crashed) {  // a finding: the input broke a reader
        err += path + ": verify[" + o.name + "]: " + outcome.text + "\n";
        out += path + ": " + o.name + ": crashed; nothing compared\n";
        ++problems;
        continue;
      }
      const std::vector<std::string>& diffs = outcome.diffs;
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      for (const std::string& d : diffs) err += path + ": verify[" + o.name + "]: " + d + "\n";
      problems += diffs.size();
      out += path + ": " + o.name + ": " + outcome.text + " compared; " +
             (diffs.empty() ? std::string("all agree") : plural(diffs.size(), "disagreement", "disagreements"));
      if (request.verbose) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " (%.1f ms)", ms);
        out += buf;
      }
      out += "\n";
      if (!outcome.notCompared.empty()) out += path + ": " + o.name + ": could not compare: " + outcome.notCompared + "\n";
    }
    if (overlaps)
      out += path + ": " + plural(overlaps, "sibling scope overlaps", "sibling scopes overlap") +
             " in the PTX (check: scope-overlap); LLVM's verifier reporting it finds the same fact, not a "
             "disagreement\n";
    if (problems && status == kOk) status = kProblems;
  }
  if (linkedOperands || addedLine) {
    out += "note: the oracles read the sections as a linker leaves them:";
    if (linkedOperands)
      out += " " + plural(linkedOperands, "symbolic operand", "symbolic operands") +
             " patched in (.debug_* symbols as section offsets, code labels, functions and variables at "
             "PTX line * 256);";
    if (addedLine)
      out +=
          " a .debug_line with the PTX .file table and no rows stands in for the one ptxas generates, so "
          "LLVM's verifier checks DW_AT_stmt_list and DW_AT_decl_file against a table that exists (of its "
          "report only what our check finds too is not a disagreement: overlapping sibling scopes)";
    out += "\n";
  }
  return status;
}

}  // namespace ptxdump
