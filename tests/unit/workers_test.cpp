// The kept threads parallel work runs on (workers.h, runTasks): every task
// runs once whatever the threads and callers, exceptions come back, calls
// nest, and threads are kept between batches instead of started per batch.
#include "parallel.h"
#include "workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "ptxdwarf/threads.h"

using namespace ptxdwarf;

namespace {

// Runs `count` tasks on `threads` threads; how many times each ran.
std::vector<int> runCounting(size_t count, unsigned threads) {
  std::unique_ptr<std::atomic<int>[]> runs(new std::atomic<int>[count]());
  runTasks(count, threads, [&](size_t i) { runs[i].fetch_add(1); });
  std::vector<int> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = runs[i].load();
  return out;
}

}  // namespace

TEST(Workers, EveryTaskRunsOnce) {
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{1000}})
      EXPECT_EQ(runCounting(count, threads), std::vector<int>(count, 1)) << threads << " threads, " << count;
}

TEST(Workers, ThreadsAreKeptBetweenBatches) {
  runCounting(100, 3);
  const size_t after = workers::started();
  EXPECT_GE(after, 2u);
  for (int batch = 0; batch < 50; ++batch) runCounting(100, 3);
  EXPECT_EQ(workers::started(), after);  // a batch takes the kept threads, it does not start its own
  startThreads(3);  // there are already two: none is started
  EXPECT_EQ(workers::started(), after);
}

TEST(Workers, AnExceptionComesBackAndTheThreadsStayUsable) {
  std::atomic<int> ran{0};
  EXPECT_THROW(runTasks(200, 2,
                        [&](size_t i) {
                          ran.fetch_add(1);
                          if (i == 3) throw std::runtime_error("task 3");
                        }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 4);  // tasks start in order (how many after 3 depends on timing)
  EXPECT_EQ(runCounting(300, 2), std::vector<int>(300, 1));
}

TEST(Workers, CallsNest) {
  std::atomic<int> inner{0};
  runTasks(8, 2, [&](size_t) { runTasks(10, 2, [&](size_t) { inner.fetch_add(1); }); });
  EXPECT_EQ(inner.load(), 80);
}

TEST(Workers, CallersOnSeveralThreads) {
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int batch = 0; batch < 50; ++batch) runTasks(100, 2, [&](size_t) { total.fetch_add(1); });
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 50 * 100);
}

TEST(Workers, RunConcurrentlyRunsBoth) {
  int first = 0, second = 0;
  runConcurrently([&] { first = 1; }, [&] { second = 2; });
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 2);
  EXPECT_THROW(runConcurrently([] {}, [] { throw std::runtime_error("second"); }), std::runtime_error);
}

#if defined(__linux__)
// A kept thread's first step (workers::leaveCpu): off the CPU it names, and
// afterwards free to run wherever it could before.
TEST(Workers, LeaveCpuMovesTheThreadOffThatCpuAndKeepsItsAffinity) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "one CPU allowed: there is nowhere to move";
  auto affinityKept = [&] {
    cpu_set_t now;
    CPU_ZERO(&now);
    return sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &allowed);
  };
  // Moved in nearly every round: the scheduler may move the thread back
  // between leaveCpu's return and the look (a loaded machine, tests in
  // parallel), while a leaveCpu that does nothing leaves it where it was.
  int moved = 0;
  std::thread([&] {
    for (int round = 0; round < 20; ++round) {
      const int here = sched_getcpu();
      ASSERT_GE(here, 0);
      workers::leaveCpu(here);
      moved += sched_getcpu() != here;
      EXPECT_TRUE(affinityKept()) << "round " << round;
      workers::leaveCpu(-1);  // unknown: nothing to do
      EXPECT_TRUE(affinityKept());
    }
  }).join();
  EXPECT_GE(moved, 15);
}
#endif
