#include "ptxdwarf/threads.h"

#include <algorithm>
#include <thread>

#include "parallel.h"
#include "workers.h"

#if defined(__linux__)
#include <sched.h>
#endif

namespace ptxdwarf {

unsigned usableThreads() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<unsigned>(count);
  }
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

void runConcurrently(const std::function<void()>& first, const std::function<void()>& second) {
  runTasks(2, 2, [&](size_t task) { task == 0 ? first() : second(); });
}

void startThreads(unsigned count) {
  if (count > 1) workers::start(count - 1);
}

}  // namespace ptxdwarf
