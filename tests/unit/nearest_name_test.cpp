// check::NearestName (the "did you mean" of a name that matches no
// function) against the scan of every name it replaced.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "check/nearest_name.h"

using ptxdwarf::check::NearestName;

namespace {

// What the rule did before: the first name of the longest shared prefix.
NearestName::Answer scanAll(const std::vector<std::string_view>& names, std::string_view name) {
  NearestName::Answer best;
  for (size_t i = 0; i < names.size(); ++i) {
    size_t n = 0;
    while (n < names[i].size() && n < name.size() && names[i][n] == name[n]) ++n;
    if (n > best.shared) best = {i, n};
  }
  return best;
}

TEST(NearestName, FirstOfTheLongestSharedPrefix) {
  std::vector<std::string> owned = {"_Z3fooi", "_Z3barf", "_Z3fooif", "kernel", "_Z3fooi", "_Z4foo2i"};
  std::vector<std::string_view> names(owned.begin(), owned.end());
  NearestName index(names);
  EXPECT_EQ(index.nearest("_Z3fooj").index, 0u);   // "_Z3foo" with 0, 2 and 4: the first
  EXPECT_EQ(index.nearest("_Z3fooj").shared, 6u);
  EXPECT_EQ(index.nearest("_Z3fooif2").index, 2u);  // all of "_Z3fooif"
  EXPECT_EQ(index.nearest("_Z3fooif2").shared, 8u);
  EXPECT_EQ(index.nearest("kern").index, 3u);
  EXPECT_EQ(index.nearest("_Z4").index, 5u);
  EXPECT_EQ(index.nearest("_Z").index, 0u);
  EXPECT_EQ(index.nearest("x").index, SIZE_MAX);  // no first character in common
  EXPECT_EQ(index.nearest("").index, SIZE_MAX);
  EXPECT_EQ(NearestName({}).nearest("a").index, SIZE_MAX);
}

TEST(NearestName, AgreesWithAScanOfEveryName) {
  std::mt19937 random(7);
  auto word = [&](size_t most) {
    std::string s(random() % (most + 1), 'a');
    for (char& c : s) c = static_cast<char>('a' + random() % 3);  // few letters: long shared prefixes, ties
    return s;
  };
  for (size_t n : {1, 2, 3, 10, 100, 1000}) {
    std::vector<std::string> owned;
    for (size_t i = 0; i < n; ++i) owned.push_back(word(8));
    std::vector<std::string_view> names(owned.begin(), owned.end());
    NearestName index(names);
    for (int q = 0; q < 300; ++q) {
      const std::string name = q % 5 == 0 ? owned[random() % n] : word(10);
      const NearestName::Answer want = scanAll(names, name), got = index.nearest(name);
      ASSERT_EQ(got.shared, want.shared) << name << " among " << n;
      ASSERT_EQ(got.index, want.index) << name << " among " << n;
    }
  }
}

}  // namespace
