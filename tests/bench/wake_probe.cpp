// How long parallel work waits for its second thread, on this machine:
//   new thread   a std::thread started while the caller spins (the other CPU idle)
//   woken        a thread asleep in a futex wait, woken by notify
//   kept         the library's kept thread (runTasks), a batch a few ms after the last
//   kept, busy   the same with batches back to back (the thread still spinning)
// Each is the time from asking until the other thread runs; medians and 90th
// percentiles of RUNS tries (default 40), with a 5 ms pause before each so
// that the other CPU goes idle. On the virtual machines this project is
// measured on, an idle vCPU takes milliseconds to wake: what the library's
// kept threads (src/workers.h) are for.
//   usage: ptxdwarf_wake_probe [RUNS]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "parallel.h"

namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

void report(const char* what, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::printf("%-12s median %9.1f us   p90 %9.1f us   max %9.1f us\n", what, v[v.size() / 2], v[v.size() * 9 / 10],
              v.back());
}

void idle() { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }

// Until the other thread has written its start time.
Clock::time_point awaitStart(const std::atomic<long long>& started) {
  long long t;
  while ((t = started.load(std::memory_order_acquire)) == 0) {
  }
  return Clock::time_point(Clock::duration(t));
}

long long now() { return Clock::now().time_since_epoch().count(); }

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(2, std::atoi(argv[1])) : 40;
  std::vector<double> fresh, woken, kept, busy;
  for (int i = 0; i < runs; ++i) {
    idle();
    std::atomic<long long> started{0};
    const Clock::time_point asked = Clock::now();
    std::thread t([&] { started.store(now(), std::memory_order_release); });
    fresh.push_back(microseconds(asked, awaitStart(started)));
    t.join();
  }
  for (int i = 0; i < runs; ++i) {
    std::atomic<bool> go{false};
    std::atomic<long long> started{0};
    std::thread t([&] {
      go.wait(false);
      started.store(now(), std::memory_order_release);
    });
    idle();  // asleep by now
    const Clock::time_point asked = Clock::now();
    go.store(true);
    go.notify_one();
    woken.push_back(microseconds(asked, awaitStart(started)));
    t.join();
  }
  // Two tasks, the first spinning until the second has begun: the second runs
  // on the kept thread.
  auto batch = [](std::vector<double>& into) {
    std::atomic<long long> started{0};
    const Clock::time_point asked = Clock::now();
    ptxdwarf::runTasks(2, 2, [&](size_t task) {
      if (task == 1) {
        started.store(now(), std::memory_order_release);
        return;
      }
      while (started.load(std::memory_order_acquire) == 0) {
        if (Clock::now() - asked > std::chrono::seconds(1)) {
          std::fprintf(stderr, "wake_probe: no second thread ran task 1 within a second\n");
          std::exit(1);
        }
      }
    });
    into.push_back(microseconds(asked, Clock::time_point(Clock::duration(started.load()))));
  };
  batch(kept);  // starts the kept thread
  kept.clear();
  for (int i = 0; i < runs; ++i) {
    idle();
    batch(kept);
  }
  for (int i = 0; i < runs; ++i) batch(busy);
  report("new thread", fresh);
  report("woken", woken);
  report("kept", kept);
  report("kept, busy", busy);
}
