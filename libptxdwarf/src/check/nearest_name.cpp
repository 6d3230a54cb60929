#include "nearest_name.h"

#include <algorithm>
#include <numeric>

#include "../work.h"

namespace ptxdwarf::check {

namespace {

size_t sharedPrefix(std::string_view a, std::string_view b) {
  return static_cast<size_t>(std::mismatch(a.begin(), a.begin() + static_cast<ptrdiff_t>(std::min(a.size(), b.size())),
                                           b.begin())
                                 .first -
                             a.begin());
}

}  // namespace

NearestName::NearestName(std::vector<std::string_view> names) : names_(std::move(names)) {
  sorted_.resize(names_.size());
  std::iota(sorted_.begin(), sorted_.end(), uint32_t{0});
  std::sort(sorted_.begin(), sorted_.end(), [this](uint32_t a, uint32_t b) { return names_[a] < names_[b]; });
  const size_t n = sorted_.size();
  tree_.assign(2 * n, UINT32_MAX);
  std::copy(sorted_.begin(), sorted_.end(), tree_.begin() + static_cast<ptrdiff_t>(n));
  for (size_t i = n; i-- > 1;) tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
}

uint32_t NearestName::leastIndex(size_t from, size_t to) const {
  uint32_t least = UINT32_MAX;
  for (size_t lo = from + sorted_.size(), hi = to + sorted_.size(); lo < hi; lo /= 2, hi /= 2) {
    work::step(work::nameSuggestion);
    if (lo & 1) least = std::min(least, tree_[lo++]);
    if (hi & 1) least = std::min(least, tree_[--hi]);
  }
  return least;
}

NearestName::Answer NearestName::nearest(std::string_view name) const {
  auto byName = [this](uint32_t i, std::string_view s) {
    work::step(work::nameSuggestion);
    return names_[i] < s;
  };
  // The longest prefix any name shares with `name` is one that a name next
  // to it in sorted order shares.
  const auto at = std::lower_bound(sorted_.begin(), sorted_.end(), name, byName);
  size_t shared = 0;
  if (at != sorted_.end()) shared = sharedPrefix(name, names_[*at]);
  if (at != sorted_.begin()) shared = std::max(shared, sharedPrefix(name, names_[*(at - 1)]));
  if (shared == 0) return {};
  // Every name that shares that prefix: a run of the sorted names.
  const std::string_view prefix = name.substr(0, shared);
  const auto first = std::lower_bound(sorted_.begin(), sorted_.end(), prefix, byName);
  const auto last = std::partition_point(first, sorted_.end(), [&](uint32_t i) {
    work::step(work::nameSuggestion);
    return names_[i].starts_with(prefix);
  });
  return {leastIndex(static_cast<size_t>(first - sorted_.begin()), static_cast<size_t>(last - sorted_.begin())),
          shared};
}

}  // namespace ptxdwarf::check
