// What a test does when a tool it needs (nvcc, ptxas, clang, llvm-dwarfdump, g++) is
// missing: it skips and says why, or, where the build requires the tools
// (PTXDWARF_REQUIRE_CUDA, see toolsRequired()), it fails with the same message.
#pragma once

#include <gtest/gtest.h>

#include "tools.h"

// Returns from the test as GTEST_SKIP() and FAIL() do; `message` is streamed
// (`"nvcc not found"`, `skip_`, `a << " not found"`).
#define PTXDWARF_MISSING_TOOL(message)                      \
  do {                                                      \
    if (::ptxdwarf::testsupport::toolsRequired()) {         \
      GTEST_FAIL() << "required tool missing: " << message; \
    } else {                                                \
      GTEST_SKIP() << message;                              \
    }                                                       \
  } while (0)
