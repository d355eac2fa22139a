#include "core/diff/diff_shapes.h"

#include <algorithm>
#include <tuple>

namespace th::diff {
namespace {

// The row's most common signature (ties: the smallest text); null if none.
const std::string* MostCommon(const Profile& p, const ProfileRow& r) {
  const std::string* best = nullptr;
  int64_t best_count = 0;
  for (const auto& [id, count] : r.signatures) {
    const std::string& text = p.signatures[id];
    if (count > best_count || (count == best_count && text < *best)) {
      best = &text;
      best_count = count;
    }
  }
  return best;
}

}  // namespace

std::vector<std::string> ShapeWarnings(const Profile& a, const Profile& b, size_t max_ops) {
  if (a.shaped_events == 0 || b.shaped_events == 0) {
    const char* which = a.shaped_events == 0 && b.shaped_events == 0 ? "neither side has"
                        : a.shaped_events == 0                       ? "side A has no"
                                                                     : "side B has no";
    return {std::string("input shapes and dtypes of matched ops are not compared: ") + which +
            " Kineto Input Dims / Input type (record_shapes)"};
  }
  struct Differs {
    EventClass cls;
    std::string name, a, b;
  };
  std::vector<Differs> found;
  for (const ProfileRow& ra : a.rows) {
    auto it = b.row_index.find(RowKey(ra.cls, ra.name));
    if (it == b.row_index.end()) continue;
    const std::string* sa = MostCommon(a, ra);
    const std::string* sb = MostCommon(b, b.rows[it->second]);
    if (sa && sb && *sa != *sb) found.push_back({ra.cls, ra.name, *sa, *sb});
  }
  std::sort(found.begin(), found.end(), [](const Differs& x, const Differs& y) {
    return std::tie(x.cls, x.name) < std::tie(y.cls, y.name);
  });
  std::vector<std::string> w;
  for (size_t i = 0; i < found.size() && i < max_ops; ++i) {
    const Differs& d = found[i];
    w.push_back("input shapes differ for " + std::string(EventClassName(d.cls)) + " " + d.name +
                " (most common): A " + d.a + ", B " + d.b);
  }
  if (found.size() > max_ops)
    w.push_back("input shapes differ for " + std::to_string(found.size() - max_ops) +
                " more matched ops");
  return w;
}

}  // namespace th::diff
