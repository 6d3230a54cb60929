// `ptxdump check`: check::run on each file, files in parallel with -j.
#include <algorithm>
#include <atomic>
#include <iterator>
#include <cstdio>
#include <thread>

#include "commands.h"
#include "ptxdwarf/check/check.h"
#include "ptxdwarf/check/cubin.h"
#include "ptxdwarf/threads.h"

namespace ptxdump {

using namespace ptxdwarf;

namespace {

struct CheckResult {
  std::string err;
  size_t errors = 0, warnings = 0;
  bool unreadable = false;
};

// "1 error, 2 warnings"
std::string counts(size_t errors, size_t warnings) {
  return std::to_string(errors) + (errors == 1 ? " error, " : " errors, ") + std::to_string(warnings) +
         (warnings == 1 ? " warning" : " warnings");
}

void appendSortedByLine(Diagnostics& to, Diagnostics from) {
  std::move(from.items.begin(), from.items.end(), std::back_inserter(to.items));
  std::stable_sort(to.items.begin(), to.items.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.loc.line != b.loc.line ? a.loc.line < b.loc.line : a.loc.col < b.loc.col;
  });
}

// The PTX's rules, and with --cubin the cubin's against it; a cubin alone:
// the cubin rules on its embedded PTX. False with `err` written when the
// cubin of --cubin cannot be read or is no cubin.
bool runRules(const LoadedFile& file, const CheckRequest& request, unsigned threads, Diagnostics& diags,
              std::string& err) {
  if (isCubinModule(file.read.module)) {
    if (!request.cubin.empty()) {
      err += file.path + ": error: --cubin: this is a cubin already (check it alone, or give the PTX)\n";
      return false;
    }
    diags = check::runCubin(file);
    return true;
  }
  check::Options options = request;
  options.threads = threads;
  diags = check::run(file.read.module, file.dwarf, options);
  if (request.cubin.empty()) return true;
  std::optional<LoadedFile> cubin = loadFile(request.cubin, err, {.keepText = true, .threads = threads});
  if (!cubin) return false;
  if (!isCubinModule(cubin->read.module)) {
    err += request.cubin + ": error: --cubin: not a cubin (no ELF magic)\n";
    return false;
  }
  appendSortedByLine(diags, check::runCubin(*cubin, {file.read.module, &file.dwarf}));
  return true;
}

// `threads`: for reading the file; the cores `jobs` workers leave free.
CheckResult checkOne(const std::string& path, const CheckRequest& request, unsigned threads) {
  CheckResult r;
  std::optional<LoadedFile> file = loadFile(path, r.err, {.threads = threads});
  Diagnostics diags;
  if (!file || !runRules(*file, request, threads, diags, r.err)) {
    r.unreadable = true;
    return r;
  }
  if (request.werror)
    for (Diagnostic& d : diags.items)
      if (d.severity == Severity::warning) d.severity = Severity::error;
  appendDiagnostics(diags, path, r.err);
  r.errors = diags.errorCount();
  r.warnings = diags.warningCount() + file->read.diagnostics.warningCount();
  return r;
}

}  // namespace

std::string listRules() {
  std::string out;
  for (const check::RuleInfo& r : check::rules()) {
    char head[64];
    std::snprintf(head, sizeof head, "%-26.*s %-8.*s ", static_cast<int>(r.id.size()), r.id.data(),
                  static_cast<int>(severityName(r.severity).size()), severityName(r.severity).data());
    out += head;
    out += r.summary;
    out += "; ptxas: ";
    out += r.ptxas;
    out += '\n';
  }
  return out;
}

int runCheck(const CheckRequest& request, std::string& out, std::string& err) {
  // Standard input can be read once: a second `-` would check nothing and
  // pass, and with -j which one gets the bytes would depend on timing.
  if (!request.cubin.empty() && request.files.size() != 1) {
    err += "ptxdump check: error: --cubin holds one cubin against one PTX file; " +
           std::to_string(request.files.size()) + " files given\n";
    return kUnreadable;
  }
  if (std::count(request.files.begin(), request.files.end(), "-") + (request.cubin == "-") > 1) {
    err += "ptxdump check: error: '-' is named more than once; standard input can be read only once\n";
    return kUnreadable;
  }
  // Files are independent: `jobs` workers take the next unchecked file; output
  // is printed afterwards in argument order, so it does not depend on timing.
  std::vector<CheckResult> results(request.files.size());
  std::atomic<size_t> next{0};
  unsigned jobs = std::max(1u, std::min<unsigned>(request.jobs, static_cast<unsigned>(request.files.size())));
  unsigned readThreads = std::max(1u, ptxdwarf::usableThreads() / jobs);
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < request.files.size();)
      results[i] = checkOne(request.files[i], request, readThreads);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  size_t errors = 0, warnings = 0;
  bool unreadable = false;
  for (size_t i = 0; i < results.size(); ++i) {
    const CheckResult& r = results[i];
    err += r.err;
    errors += r.errors;
    warnings += r.warnings;
    unreadable |= r.unreadable;
    out += request.files[i] + (r.unreadable ? ": not checked (cannot read or parse)\n"
                                            : ": " + counts(r.errors, r.warnings) + "\n");
  }
  if (request.files.size() > 1)
    out += "total: " + std::to_string(request.files.size()) + " files, " + counts(errors, warnings) + "\n";
  if (unreadable) return kUnreadable;
  return errors ? kProblems : kOk;
}

}  // namespace ptxdump
