// The one way the library runs work in parallel: a fixed list of independent
// tasks, taken in order by a few threads (the caller's included).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

#include "ptxdwarf/threads.h"

namespace ptxdwarf {

// 0 means one per CPU this process may run on.
inline unsigned threadCount(unsigned requested) { return requested ? requested : usableThreads(); }

// Runs task(0) .. task(count-1), each once, on up to `threads` threads; tasks
// start in index order, so put the longest first. An exception from a task
// (std::bad_alloc, say) is rethrown here once every thread has stopped. When
// no more threads can be started, those there are do the work.
template <typename Task>
void runTasks(size_t count, unsigned threads, const Task& task) {
  const size_t workers = std::max<size_t>(1, std::min<size_t>(threads, count));
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(workers);
  auto work = [&](size_t w) {
    try {
      for (size_t i; (i = next.fetch_add(1)) < count;) task(i);
    } catch (...) {
      errors[w] = std::current_exception();
      next = count;  // the others stop after their current task
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  try {
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
  } catch (const std::system_error&) {  // no thread to be had: fewer workers
  }
  work(0);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ptxdwarf
