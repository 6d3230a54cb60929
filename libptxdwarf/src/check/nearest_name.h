// "Did you mean" for a name that matches none of a list: the listed name
// that shares the longest prefix with it, the first in the list's order
// among those that share as long a one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ptxdwarf::check {

class NearestName {
 public:
  // The characters `names` views must outlive the index.
  explicit NearestName(std::vector<std::string_view> names);

  struct Answer {
    size_t index = SIZE_MAX;  // into the list; SIZE_MAX when no name shares a first character
    size_t shared = 0;        // the length of the prefix it shares
  };
  // A binary search of the names in order and one of a tree of their
  // positions: O(log n) a question. Asking each of n names whether any of
  // n functions was meant made a file of n misnamed subprograms quadratic
  // (20,000 of them: 0.9 s of a check).
  Answer nearest(std::string_view name) const;

 private:
  // The least list index among sorted_[from, to).
  uint32_t leastIndex(size_t from, size_t to) const;

  std::vector<std::string_view> names_;
  std::vector<uint32_t> sorted_;  // list indices, by name (equal names in any order: the tree picks)
  // The least list index under each node of a binary tree over sorted_'s
  // positions, searched bottom up (tree_[n + p] is sorted_[p]; tree_[i] the
  // least of tree_[2i] and tree_[2i + 1]).
  std::vector<uint32_t> tree_;
};

}  // namespace ptxdwarf::check
