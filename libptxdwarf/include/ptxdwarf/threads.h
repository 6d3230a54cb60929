// How many threads this process can usefully run at once.
#pragma once

#include <functional>

namespace ptxdwarf {

// The CPUs this process may run on (its affinity mask: `taskset -c 0` gives
// 1), else the hardware's thread count; at least 1. A reader or checker that
// splits its work into more threads than this only pays for the split.
unsigned usableThreads();

// The library's parallel work runs on threads it keeps between batches, not
// on threads started per batch: on a virtual machine a thread asked of an
// idle vCPU starts 2-3 ms later, a kept one that is still spinning at once.

// Runs first() and second() at once, each on the calling thread or a kept
// one, or both on the calling thread when no other can be had before it is
// done with one of them; returns when both have returned. An exception from
// either is rethrown once both have stopped. Put the longer one first.
void runConcurrently(const std::function<void()>& first, const std::function<void()>& second);

// Starts kept threads until there are count - 1 (the caller is the count's
// last), without waiting for them: work that begins a few milliseconds
// later (a file mapped first) then finds them awake.
void startThreads(unsigned count);

}  // namespace ptxdwarf
