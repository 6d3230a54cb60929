// What the scaling tests share: the input header, the step count of a pass
// over a generated input at n and 4n, and the `.b8` helpers for the sections
// they generate.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "ptxdwarf/check/check.h"
#include "ptxdwarf/ptx/module.h"
#include "ptxdwarf/read/dwarf.h"
#include "work.h"

namespace ptxdwarf::scaling {

inline constexpr const char* kHeader = ".version 7.5\n.target sm_75\n.address_size 64\n";

// The steps `pass` took to read, decode and check the PTX `make(n)` returns.
inline uint64_t stepsFor(work::Pass pass, const std::function<std::string(size_t)>& make, size_t n) {
  const std::string text = make(n);
  work::reset();
  ptx::ReadResult r = ptx::read(text, "scaling.ptx");
  EXPECT_TRUE(r.ok()) << (r.diagnostics.items.empty() ? "" : r.diagnostics.items[0].message);
  read::Dwarf dwarf = read::decode(r.module.sections);
  check::Options checkOptions;
  checkOptions.threads = 1;
  checkOptions.roundTrip = true;
  check::run(r.module, dwarf, checkOptions);
  return work::steps(pass);
}

// Four times the input may cost at most `limit` times the work (linear: 4;
// n log n at these sizes: under 5; quadratic: 16).
inline void expectLinear(work::Pass pass, const std::function<std::string(size_t)>& make, size_t n, double limit = 6.0) {
  const uint64_t small = stepsFor(pass, make, n), large = stepsFor(pass, make, 4 * n);
  std::printf("steps at n = %zu: %llu, at 4n: %llu (x%.2f)\n", n, static_cast<unsigned long long>(small),
              static_cast<unsigned long long>(large), static_cast<double>(large) / static_cast<double>(small));
  ASSERT_GT(small, 0u) << "the pass did not run";
  EXPECT_LE(static_cast<double>(large), limit * static_cast<double>(small))
      << "n: " << small << " steps, 4n: " << large << " steps";
}

// `.b8` lines of the bytes.
inline std::string bytesLines(const std::vector<uint32_t>& bytes) {
  std::string s;
  for (size_t i = 0; i < bytes.size(); ++i) {
    s += i % 16 == 0 ? (i ? "\n.b8 " : ".b8 ") : ", ";
    s += std::to_string(bytes[i]);
  }
  return s + "\n";
}

// A .debug_info unit: length, version 2, abbreviation offset 0, address size 8, then `body` lines.
inline std::string unit(size_t bodyBytes, const std::string& body) {
  return ".section .debug_info {\n.b32 " + std::to_string(7 + bodyBytes) + "\n.b8 2, 0\n.b32 0\n.b8 8\n" + body +
         "}\n";
}

}  // namespace ptxdwarf::scaling
