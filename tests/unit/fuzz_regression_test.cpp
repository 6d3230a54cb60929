// Every input a fuzzer ever broke, replayed: fixtures/malformed/fuzz/*.bin
// are section-level inputs (fuzz_input.h layout), *.ptx are PTX text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "properties.h"

namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryFindingStaysFixed) {
  int replayed = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(std::string(PTXDWARF_FIXTURES) + "/malformed/fuzz")) {
    std::ifstream f(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string input = ss.str();
    const auto* data = reinterpret_cast<const uint8_t*>(input.data());
    std::string why;
    if (e.path().extension() == ".ptx") {
      EXPECT_TRUE(ptxdwarf::fuzz::readAndCheck(input, &why)) << e.path() << ": " << why;
    } else {
      ptxdwarf::fuzz::decodeAndDump(data, input.size());
      EXPECT_TRUE(ptxdwarf::fuzz::roundTrips(data, input.size(), &why)) << e.path() << ": " << why;
    }
    ++replayed;
  }
  EXPECT_GE(replayed, 2);
}
