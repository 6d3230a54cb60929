// Finding and running external tools (nvcc, clang, ptxas) without a shell.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxdwarf::testsupport {

// The absolute path of an executable `name`: each PATH directory in order, then
// /usr/local/cuda/bin. nullopt when not found, or when the comma-separated list in
// the environment variable PTXDWARF_DISABLE_TOOLS names it (to exercise skip paths).
std::optional<std::string> findTool(std::string_view name);

// Whether this build requires the tools the corpus runs (nvcc, ptxas, clang, llvm-dwarfdump):
// configured with PTXDWARF_REQUIRE_CUDA (the default when the tests are built), a missing tool
// fails the test that needs it instead of skipping it, so a machine without CUDA cannot pass.
bool toolsRequired();

struct CommandResult {
  int exitCode = -1;  // the exit status; 128+N when killed by signal N; 127 when it could not start
  std::string out, err;
  bool timedOut = false;
  bool ok() const { return exitCode == 0 && !timedOut; }
  // "exit 2: <first lines of stderr>" for failure messages.
  std::string summary() const;
};

struct RunOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  size_t maxOutputBytes = 16u << 20;  // per stream; the rest is discarded
};

// Runs argv[0] (searched in PATH when it has no '/') with argv, no shell, stdin
// from /dev/null, capturing stdout and stderr. Killed (SIGKILL) after the timeout.
CommandResult runCommand(const std::vector<std::string>& argv, const RunOptions& options = {});

// "a b 'c d'" — for messages only; never passed to a shell.
std::string formatCommand(const std::vector<std::string>& argv);

std::optional<std::string> readFile(const std::string& path, std::string* error = nullptr);
// Writes through a temporary file in the same directory and renames it into place,
// so concurrent readers see the old or the new contents, never a partial file.
bool writeFile(const std::string& path, std::string_view data, std::string* error = nullptr);

}  // namespace ptxdwarf::testsupport
