// Intervals found by a point: the register map's entries covering a PC, a
// location list's ranges covering one. Sorted by their first point, with a
// tree of the greatest last point over each stretch of them, so that those
// holding a point are found in O((1 + found) log n) -- without looking at
// the others, however many there are (a register a function moves through
// thousands of SASS registers, a variable's list of thousands of ranges).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../work.h"

namespace ptxdwarf::cubin {

class IntervalIndex {
 public:
  explicit IntervalIndex(work::Pass pass = work::regmapScan) : pass_(pass) {}

  // [first, last], both inclusive, known by `id`; then build() once.
  void add(uint64_t first, uint64_t last, uint32_t id) { items_.push_back({first, last, id}); }
  void build() {
    std::stable_sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.first < b.first; });
    while (leaves_ < items_.size()) leaves_ *= 2;
    lasts_.assign(2 * leaves_, 0);
    for (size_t i = 0; i < items_.size(); ++i) lasts_[leaves_ + i] = items_[i].last;
    for (size_t node = leaves_ - 1; node >= 1; --node) lasts_[node] = std::max(lasts_[2 * node], lasts_[2 * node + 1]);
  }
  // Appends the ids of the intervals holding `at` to `out`, in no particular order.
  void covering(uint64_t at, std::vector<uint32_t>& out) const {
    const size_t startedBy = static_cast<size_t>(
        std::upper_bound(items_.begin(), items_.end(), at, [](uint64_t a, const Item& i) { return a < i.first; }) -
        items_.begin());
    collect(1, 0, leaves_, startedBy, at, out);
  }

 private:
  struct Item {
    uint64_t first = 0, last = 0;
    uint32_t id = 0;
  };
  // The intervals below `node` (items [lo, hi)) before `before` whose last point reaches `at`.
  void collect(size_t node, size_t lo, size_t hi, size_t before, uint64_t at, std::vector<uint32_t>& out) const {
    work::step(pass_);
    if (lo >= before || lasts_[node] < at) return;
    if (hi - lo == 1) {
      out.push_back(items_[lo].id);
      return;
    }
    const size_t mid = lo + (hi - lo) / 2;
    collect(2 * node, lo, mid, before, at, out);
    collect(2 * node + 1, mid, hi, before, at, out);
  }

  work::Pass pass_;
  std::vector<Item> items_;
  std::vector<uint64_t> lasts_{0, 0};  // node 1 the root, leaves from leaves_ on
  size_t leaves_ = 1;
};

}  // namespace ptxdwarf::cubin
