#include "tools.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace ptxdwarf::testsupport {
namespace {

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool disabledByEnvironment(std::string_view name) {
  const char* list = std::getenv("PTXDWARF_DISABLE_TOOLS");
  if (!list) return false;
  std::string_view rest(list);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    // "clang" also disables versioned names such as "clang-14".
    const std::string_view item = rest.substr(0, comma);
    if (!item.empty() && (name == item || (name.substr(0, item.size()) == item && name.size() > item.size() &&
                                           name[item.size()] == '-')))
      return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

struct Pipe {
  Fd read, write;
  bool open() {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) return false;
    read.fd = p[0];
    write.fd = p[1];
    return true;
  }
};

std::string errnoText(const char* what, int e) { return std::string(what) + ": " + std::strerror(e); }

}  // namespace

std::optional<std::string> findTool(std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
  if (disabledByEnvironment(name)) return std::nullopt;
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (true) {
      const size_t colon = rest.find(':');
      std::string dir(rest.substr(0, colon));
      dirs.push_back(dir.empty() ? "." : dir);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  dirs.push_back("/usr/local/cuda/bin");
  for (const auto& dir : dirs) {
    std::string candidate = dir + "/" + std::string(name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return std::nullopt;
}

bool toolsRequired() {
#ifdef PTXDWARF_REQUIRE_CUDA
  return true;
#else
  return false;
#endif
}

std::string CommandResult::summary() const {
  std::string s = timedOut ? "timed out" : "exit " + std::to_string(exitCode);
  std::string text = err.empty() ? out : err;
  if (text.size() > 2000) text = text.substr(0, 2000) + "...";
  if (!text.empty()) s += ": " + text;
  return s;
}

std::string formatCommand(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      s += a;
    } else {
      s += '\'';
      for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
      s += '\'';
    }
  }
  return s;
}

CommandResult runCommand(const std::vector<std::string>& argv, const RunOptions& options) {
  CommandResult result;
  if (argv.empty()) {
    result.exitCode = 127;
    result.err = "runCommand: empty argv";
    return result;
  }
  Pipe out, err;
  if (!out.open() || !err.open()) {
    result.exitCode = 127;
    result.err = errnoText("pipe", errno);
    return result;
  }
  Fd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (devnull.fd >= 0) posix_spawn_file_actions_adddup2(&actions, devnull.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write.fd, 2);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  out.write.reset();
  err.write.reset();
  if (rc != 0) {
    result.exitCode = 127;
    result.err = errnoText(("cannot run " + argv[0]).c_str(), rc);
    return result;
  }

  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  std::array<pollfd, 2> fds{pollfd{out.read.fd, POLLIN, 0}, pollfd{err.read.fd, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  std::array<char, 65536> buffer{};
  int open = 2;
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      ::kill(pid, SIGKILL);
      break;
    }
    const int n = ::poll(fds.data(), fds.size(), int(std::min<long long>(left.count(), 1000)));
    if (n < 0) {
      if (errno == EINTR) continue;
      ::kill(pid, SIGKILL);
      result.err += errnoText("poll", errno);
      break;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (got > 0) {
        const size_t room = options.maxOutputBytes - std::min(options.maxOutputBytes, sinks[i]->size());
        sinks[i]->append(buffer.data(), std::min(size_t(got), room));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1;  // EOF or error: stop polling this stream
        --open;
      }
    }
  }

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.exitCode = 127;
      result.err += errnoText("waitpid", errno);
      return result;
    }
  }
  if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exitCode = 128 + WTERMSIG(status);
  if (result.timedOut) result.err += "\n[killed after " + std::to_string(options.timeout.count()) + " ms]";
  return result;
}

std::optional<std::string> readFile(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = errnoText(("cannot open " + path).c_str(), errno);
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    if (error) *error = "cannot read " + path;
    return std::nullopt;
  }
  return std::move(ss).str();
}

bool writeFile(const std::string& path, std::string_view data, std::string* error) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      if (error) *error = errnoText(("cannot create " + tmp).c_str(), errno);
      return false;
    }
    out.write(data.data(), std::streamsize(data.size()));
    out.flush();
    if (!out) {
      if (error) *error = "cannot write " + tmp;
      ::unlink(tmp.c_str());
      return false;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    if (error) *error = errnoText(("cannot rename to " + path).c_str(), errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace ptxdwarf::testsupport
