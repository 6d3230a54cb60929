// The threads the library's parallel work runs on, kept between batches.
//
// A thread is not started per batch: on the virtual machines this project
// runs on, a thread asked of an idle vCPU starts 2-3 ms later (measured by
// ptxdwarf_wake_probe: 2.9 ms median to start a thread while the other vCPU
// idled, 1.8-2.9 ms to wake a sleeping one, 0.2 us for one that spins), and
// a 40 ms `check` of a 20 MB
// file has four parallel phases. A kept thread spins for a while after its
// batch (kSpinNanoseconds) before it sleeps, so phases a few hundred
// microseconds apart find it awake.
#pragma once

#include <cstddef>

namespace ptxdwarf::workers {

// How long a kept thread spins for its next batch before it sleeps: longer
// than the gaps between one command's phases, short enough that an idle
// library costs nothing for long.
inline constexpr long long kSpinNanoseconds = 3'000'000;

// Calls body(context, 0) on the calling thread and body(context, i) for i in
// 1 .. count-1 on kept threads, as many as can be had (threads other callers
// hold are not waited for), and returns once every call has returned. A
// helper that has not begun when the caller's own call returns is not
// waited for either: its call is dropped. So `body` must share its work out
// (runTasks: every call takes tasks from one counter until none is left),
// and must not throw.
void run(size_t count, void (*body)(void* context, size_t index), void* context);

// Starts kept threads until there are `count`, without waiting for them to
// run: the first batch then need not wait 2-3 ms for its threads.
void start(size_t count);

// Moves the calling thread off `cpu` (sched_getcpu's number) when it is on
// it and may run elsewhere, then lets it run wherever it could before: a
// kept thread's first step, away from the CPU of the thread that started it.
// A no-op for cpu < 0, off Linux, and where only one CPU is allowed.
void leaveCpu(int cpu);

// Threads started so far (tests: they are kept, not started per batch).
size_t started();

}  // namespace ptxdwarf::workers
