// The median of a list of figures (step times, per-run medians).
#pragma once

#include <algorithm>
#include <vector>

namespace th {

// What the median of an even count of values is.
enum class EvenMedian {
  kUpperMiddle,    // the upper of the two middle values (a value of the list)
  kMeanOfMiddles,  // the mean of the two middle values
};

// The median of `values`; T{} when there are none.
template <class T>
T Median(std::vector<T> values, EvenMedian even) {
  if (values.empty()) return T{};
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1 || even == EvenMedian::kUpperMiddle) return *mid;
  const T lower = *std::max_element(values.begin(), mid);
  return (lower + *mid) / 2;
}

}  // namespace th
