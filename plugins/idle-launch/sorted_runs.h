// Sorting input that is mostly in order already (a trace's events per stream
// or thread, written in a few ascending runs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace th::idle_launch {

// Sorts `v` by `less`, stably (equal elements keep their order), in
// O(n log r) for input made of r ascending runs: one pass finds the runs, then
// neighbouring runs are merged pairwise until one is left.
template <typename T, typename Less = std::less<T>>
void SortByRuns(std::vector<T>& v, Less less = Less()) {
  std::vector<size_t> bounds{0};
  for (size_t k = 1; k < v.size(); ++k)
    if (less(v[k], v[k - 1])) bounds.push_back(k);
  bounds.push_back(v.size());
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t r = 0; r + 2 < bounds.size(); r += 2) {
      std::inplace_merge(v.begin() + static_cast<std::ptrdiff_t>(bounds[r]),
                         v.begin() + static_cast<std::ptrdiff_t>(bounds[r + 1]),
                         v.begin() + static_cast<std::ptrdiff_t>(bounds[r + 2]), less);
      merged.push_back(bounds[r + 2]);
    }
    if ((bounds.size() - 1) % 2 == 1) merged.push_back(bounds.back());  // the odd run out
    bounds.swap(merged);
  }
}

}  // namespace th::idle_launch
