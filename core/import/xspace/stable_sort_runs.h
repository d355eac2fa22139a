// Stable sort for items that are a few runs already in order (one per line of
// a capture): the same result as std::stable_sort, by merging adjacent runs
// pairwise instead of sorting from scratch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace th::xspace {

// Sorts `items` as std::stable_sort(items->begin(), items->end(), less) does.
template <typename T, typename Less>
void StableSortRuns(std::vector<T>* items, Less less) {
  std::vector<size_t> bounds{0};  // run i is [bounds[i], bounds[i + 1])
  for (size_t i = 1; i < items->size(); ++i)
    if (less((*items)[i], (*items)[i - 1])) bounds.push_back(i);
  bounds.push_back(items->size());
  while (bounds.size() > 2) {
    std::vector<size_t> merged{0};
    for (size_t k = 0; k + 2 < bounds.size(); k += 2) {
      std::inplace_merge(items->begin() + bounds[k], items->begin() + bounds[k + 1],
                         items->begin() + bounds[k + 2], less);
      merged.push_back(bounds[k + 2]);
    }
    if (bounds.size() % 2 == 0) merged.push_back(bounds.back());  // odd run count: last kept
    bounds = std::move(merged);
  }
}

}  // namespace th::xspace
