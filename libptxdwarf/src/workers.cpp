#include "workers.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace ptxdwarf::workers {

namespace {

void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until `ready()` or kSpinNanoseconds have passed; whether it is.
template <class Ready>
bool spinUntil(const Ready& ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(kSpinNanoseconds);
  for (unsigned i = 1;; ++i) {
    if (ready()) return true;
    pause();
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

// The CPU the calling thread is on; -1 where that cannot be known.
int currentCpu() {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

// One kept thread and the call it is given. `state` goes idle -> posted (a
// caller gave it a call) -> running (it took the call) -> done, and back to
// idle when the caller has seen it done; a caller that finds its call still
// posted takes it back (posted -> idle) instead of waiting for the thread.
struct Worker {
  enum : uint32_t { idle, posted, running, done, stopping };
  std::atomic<uint32_t> state{idle};
  std::atomic<bool> claimed{false};  // by a caller, from posting to seeing it done or taking it back
  void (*body)(void*, size_t) = nullptr;
  void* context = nullptr;
  size_t index = 0;
  std::thread thread;

  void loop(int creatorCpu) {
    leaveCpu(creatorCpu);
    bool hasArena = false;
    auto given = [this] {
      const uint32_t s = state.load(std::memory_order_acquire);
      return s == posted || s == stopping;
    };
    for (;;) {
      if (!spinUntil(given)) {
        const uint32_t s = state.load(std::memory_order_acquire);
        if (s != posted && s != stopping) state.wait(s, std::memory_order_acquire);  // asleep until posted
        continue;
      }
      uint32_t s = posted;
      if (state.compare_exchange_strong(s, running, std::memory_order_acq_rel)) {
        if (!hasArena) {
          takeAllocatorArena();
          hasArena = true;
        }
        body(context, index);
        state.store(done, std::memory_order_release);
        state.notify_all();
      } else if (s == stopping) {
        return;
      }  // else taken back before it began: wait for the next
    }
  }

  // A thread's first allocation may give it an allocator arena of its own
  // (glibc: a heap mapped and made writable), which takes the process's
  // address-space lock for writing, and a thread that sleeps for the lock
  // takes milliseconds to wake on a virtual machine. Taken in the middle of
  // a task it may hold up the other threads' page mapping; taken when the
  // thread starts it waited for the caller mapping its input (ptxdump starts
  // its threads first, and populating a mapped file holds the lock for
  // milliseconds). So it is taken as the first call begins: ptxdump's first
  // batch reads mapped pages and takes no lock.
  static void takeAllocatorArena() {
    void* volatile taken = std::malloc(1);  // volatile: an allocation freed unused may be left out
    std::free(taken);
  }
};

class Pool {
 public:
  ~Pool() {
    for (auto& w : workers_) {
      w->state.store(Worker::stopping, std::memory_order_release);
      w->state.notify_all();
    }
    for (auto& w : workers_) w->thread.join();
  }

  // Up to `count` threads no other caller holds, claimed for the caller;
  // started as needed.
  std::vector<Worker*> claim(size_t count) {
    std::vector<Worker*> claimed;
    if (count == 0) return claimed;
    claimed.reserve(count);
    std::lock_guard lock(mutex_);
    for (auto& w : workers_) {
      if (claimed.size() == count) break;
      if (!w->claimed.exchange(true, std::memory_order_acquire)) claimed.push_back(w.get());
    }
    while (claimed.size() < count) {
      Worker* w = startOne();
      if (!w) break;  // no thread to be had: fewer helpers
      w->claimed.store(true, std::memory_order_relaxed);
      claimed.push_back(w);
    }
    return claimed;
  }

  void startUpTo(size_t count) {
    std::lock_guard lock(mutex_);
    while (workers_.size() < count && startOne()) {
    }
  }

  size_t size() {
    std::lock_guard lock(mutex_);
    return workers_.size();
  }

 private:
  Worker* startOne() {  // mutex_ held
    auto w = std::make_unique<Worker>();
    try {
      w->thread = std::thread([raw = w.get(), cpu = currentCpu()] { raw->loop(cpu); });
    } catch (const std::system_error&) {
      return nullptr;
    }
    workers_.push_back(std::move(w));
    return workers_.back().get();
  }

  std::mutex mutex_;
  std::deque<std::unique_ptr<Worker>> workers_;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void run(size_t count, void (*body)(void*, size_t), void* context) {
  std::vector<Worker*> helpers = pool().claim(count > 1 ? count - 1 : 0);
  for (size_t i = 0; i < helpers.size(); ++i) {
    Worker& w = *helpers[i];
    w.body = body;
    w.context = context;
    w.index = i + 1;
    w.state.store(Worker::posted, std::memory_order_release);
    w.state.notify_all();
  }
  body(context, 0);
  for (Worker* w : helpers) {
    uint32_t expected = Worker::posted;
    if (!w->state.compare_exchange_strong(expected, Worker::idle, std::memory_order_acq_rel)) {
      // Running: wait for it, spinning first (it is awake).
      auto finished = [w] { return w->state.load(std::memory_order_acquire) == Worker::done; };
      if (!spinUntil(finished))
        for (uint32_t s; (s = w->state.load(std::memory_order_acquire)) != Worker::done;) w->state.wait(s);
      w->state.store(Worker::idle, std::memory_order_release);
    }
    w->claimed.store(false, std::memory_order_release);
  }
}

// A new thread starts on its creator's CPU here (Linux places it beside its
// parent; measured: 10 of 12 starts on a 2-vCPU machine), where its spin for
// a first call holds the creator up to kSpinNanoseconds: pthread_create
// returned after 0.8-3.1 ms against 0.06 ms for a thread that does not spin,
// and ptxdump creates its thread just before it maps its input. Moving is
// cheap for the creator; the moved thread waits for the other CPU to wake
// instead of the creator waiting for it.
void leaveCpu(int cpu) {
#if defined(__linux__)
  if (cpu < 0 || sched_getcpu() != cpu) return;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || !CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) < 2)
    return;
  cpu_set_t elsewhere = allowed;
  CPU_CLR(cpu, &elsewhere);
  if (sched_setaffinity(0, sizeof elsewhere, &elsewhere) != 0) return;  // returns on another CPU
  sched_setaffinity(0, sizeof allowed, &allowed);                      // free to move again
#else
  (void)cpu;
#endif
}

void start(size_t count) { pool().startUpTo(count); }

size_t started() { return pool().size(); }

}  // namespace ptxdwarf::workers
