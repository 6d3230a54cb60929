// How many threads this process can usefully run at once.
#pragma once

namespace ptxdwarf {

// The CPUs this process may run on (its affinity mask: `taskset -c 0` gives
// 1), else the hardware's thread count; at least 1. A reader or checker that
// splits its work into more threads than this only pays for the split.
unsigned usableThreads();

}  // namespace ptxdwarf
