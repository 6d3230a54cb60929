// One timed run of a command, for run.sh: writes to FILE the line
//   wall_seconds max_rss_kb minor_faults system_seconds user_seconds
// in microseconds, from the fork to the wait (GNU time prints %e and %S in
// 10 ms steps: a 40 ms check showed 0 or 0.01 s of system time, 0% or 25%
// of the run). The wall time is the clock's; the system and user times are
// the kernel's, summed over the command's threads, and where it samples at
// the timer tick to split a thread's time between the two (most
// configurations) a single run's split is off by a tick or two: take the
// median of several. The command's output goes where this program's does;
// its exit status is this program's (128 + the signal that ended it).
//   usage: ptxdwarf_rusage -o FILE COMMAND [ARGS...]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace {

double seconds(const timespec& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9; }
double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[1], "-o") != 0) {
    std::fprintf(stderr, "usage: ptxdwarf_rusage -o FILE COMMAND [ARGS...]\n");
    return 2;
  }
  const char* out = argv[2];
  timespec start{}, end{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("ptxdwarf_rusage: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[3], argv + 3);
    std::fprintf(stderr, "ptxdwarf_rusage: %s: %s\n", argv[3], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::perror("ptxdwarf_rusage: wait4");
      return 2;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  std::FILE* f = std::fopen(out, "w");
  if (!f) {
    std::fprintf(stderr, "ptxdwarf_rusage: %s: %s\n", out, std::strerror(errno));
    return 2;
  }
  std::fprintf(f, "%.6f %ld %ld %.6f %.6f\n", seconds(end) - seconds(start), usage.ru_maxrss, usage.ru_minflt,
               seconds(usage.ru_stime), seconds(usage.ru_utime));
  if (std::fclose(f) != 0) {
    std::fprintf(stderr, "ptxdwarf_rusage: %s: %s\n", out, std::strerror(errno));
    return 2;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
