// The one way the library runs work in parallel: a fixed list of independent
// tasks, taken in order by a few threads (the caller's included), or two
// halves of which one stays on the caller's thread (runBeside). The threads
// are the library's kept ones (workers.h), used only when a caller asks for
// more than one.
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

// Runs mine() on the calling thread and, at the same time, theirs() on a kept
// thread when one can be had -- else theirs() after mine(), on the calling
// thread too; returns once both have returned. For work of which one half
// must stay on the caller's thread (it hands text to the caller's sink).
// mine() must not wait for theirs(): it may not have begun. An exception from
// either is rethrown here once both have stopped (mine()'s first).
template <typename Mine, typename Theirs>
void runBeside(const Mine& mine, const Theirs& theirs) {
  struct Shared {
    const Mine& mine;
    const Theirs& theirs;
    std::atomic<bool> taken{false};
    std::exception_ptr errors[2];
  } shared{mine, theirs, {}, {}};
  auto work = [](void* context, size_t w) {
    Shared& s = *static_cast<Shared*>(context);
    if (w == 0) {
      try {
        s.mine();
      } catch (...) {
        s.errors[0] = std::current_exception();
      }
    }
    if (s.taken.exchange(true)) return;  // the other thread has theirs()
    try {
      s.theirs();
    } catch (...) {
      s.errors[1] = std::current_exception();
    }
  };
  workers::run(2, work, &shared);
  for (const std::exception_ptr& e : shared.errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ptxdwarf
