/* The C API tests' one assertion: a failed EXPECT prints where and why and
 * counts; main returns `failures != 0`. A static counter per program (each test
 * is one translation unit). */
#ifndef PTXDWARF_TESTS_CAPI_EXPECT_H
#define PTXDWARF_TESTS_CAPI_EXPECT_H

#include <stdio.h>

static int failures = 0;

#define EXPECT(cond, ...)                                                \
  do {                                                                   \
    if (!(cond)) {                                                       \
      ++failures;                                                        \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                      \
      fputc('\n', stderr);                                               \
    }                                                                    \
  } while (0)

#endif
