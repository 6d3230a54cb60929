// The one way the library runs work in parallel: a fixed list of independent
// tasks, taken in order by a few threads (the caller's included).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <vector>

#include "ptxdwarf/threads.h"
#include "workers.h"

namespace ptxdwarf {

// 0 means one per CPU this process may run on.
inline unsigned threadCount(unsigned requested) { return requested ? requested : usableThreads(); }

// Runs task(0) .. task(count-1), each once, on up to `threads` threads: the
// caller's and kept ones (workers.h); tasks start in index order, so put the
// longest first. An exception from a task (std::bad_alloc, say) is rethrown
// here once every thread has stopped. Threads that cannot be had (held by
// another caller, or not startable) leave their tasks to those there are.
template <typename Task>
void runTasks(size_t count, unsigned threads, const Task& task) {
  const size_t helpers = std::max<size_t>(1, std::min<size_t>(threads, count));
  struct Shared {
    const Task& task;
    size_t count;
    std::atomic<size_t> next{0};
    std::vector<std::exception_ptr> errors;
  } shared{task, count, {}, std::vector<std::exception_ptr>(helpers)};
  // Each thread takes the next task until none is left.
  auto work = [](void* context, size_t w) {
    Shared& s = *static_cast<Shared*>(context);
    try {
      for (size_t i; (i = s.next.fetch_add(1)) < s.count;) s.task(i);
    } catch (...) {
      s.errors[w] = std::current_exception();
      s.next = s.count;  // the others stop after their current task
    }
  };
  workers::run(helpers, work, &shared);
  for (const std::exception_ptr& e : shared.errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ptxdwarf
