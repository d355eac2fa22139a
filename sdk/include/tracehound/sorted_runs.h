// Stable sort for input that is a few runs already in order (a trace's
// events per stream, thread or line, written in a few ascending runs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace th::sdk {

// Sorts `v` as std::stable_sort(v.begin(), v.end(), less) does, in
// O(n log r) for input made of r ascending runs: one pass finds the runs, then
// neighbouring runs are merged pairwise until one is left, each merge moving
// only the stretch where the two runs interleave (runs that barely overlap,
// as consecutive chunks of a file do, cost a binary search each).
template <typename T, typename Less = std::less<T>>
void StableSortRuns(std::span<T> v, Less less = Less()) {
  std::vector<size_t> bounds{0};  // run i is [bounds[i], bounds[i + 1])
  for (size_t k = 1; k < v.size(); ++k)
    if (less(v[k], v[k - 1])) bounds.push_back(k);
  bounds.push_back(v.size());
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 2 < bounds.size(); r += 2) {
      // Only the parts of the two runs that interleave move: the first run's
      // values up to the second's first stay (equal ones too: stable), and
      // so do the second run's values from the first's last on.
      const auto first = v.begin() + static_cast<std::ptrdiff_t>(bounds[r]);
      const auto middle = v.begin() + static_cast<std::ptrdiff_t>(bounds[r + 1]);
      const auto last = v.begin() + static_cast<std::ptrdiff_t>(bounds[r + 2]);
      const auto from = std::upper_bound(first, middle, *middle, less);
      const auto to = std::lower_bound(middle, last, *(middle - 1), less);
      std::inplace_merge(from, middle, to, less);
      merged.push_back(bounds[r + 2]);
    }
    if (bounds.size() % 2 == 0) merged.push_back(bounds.back());  // odd run count: last kept
    bounds = std::move(merged);
  }
}

template <typename T, typename Less = std::less<T>>
void StableSortRuns(std::vector<T>& v, Less less = Less()) {
  StableSortRuns(std::span<T>(v), less);
}

// std::stable_sort's result, by run merging when the input is made of runs
// of `min_run` values or more on average (rows in file order, by line or
// thread), else by std::stable_sort.
template <typename T, typename Less = std::less<T>>
void StableSortFewRuns(std::vector<T>& v, Less less = Less(), size_t min_run = 64) {
  size_t runs = 1;
  for (size_t k = 1; k < v.size() && runs * min_run <= v.size(); ++k) runs += less(v[k], v[k - 1]);
  if (runs * min_run <= v.size())
    StableSortRuns(v, less);
  else
    std::stable_sort(v.begin(), v.end(), less);
}

}  // namespace th::sdk
