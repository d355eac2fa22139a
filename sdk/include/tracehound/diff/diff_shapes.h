// Parity of input shapes: ops matched by (class, normalised name) whose most
// common input shape signature (Kineto's Input Dims and Input type, as the
// op_inputs table holds them) differs between A and B are not like for like.
// Header-only: the `tracehound diff` command and the `trace-diff` plugin
// warn alike.
#ifndef TRACEHOUND_DIFF_DIFF_SHAPES_H_
#define TRACEHOUND_DIFF_DIFF_SHAPES_H_

#include <tracehound/diff/diff_profile.h>
#include <tracehound/diff/diff_types.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace th::diff {

namespace shapes_internal {

// The row's most common signature (ties: the smallest text); null if none.
inline const std::string* MostCommon(const Profile& p, const ProfileRow& r) {
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

}  // namespace shapes_internal

// One warning per row with signatures on both sides whose most common
// signature differs (ties: the smallest text), in (class, name) order, at
// most `max_ops`, then one line counting the rest. Without shapes on a side
// one warning says the comparison was not made.
inline std::vector<std::string> ShapeWarnings(const Profile& a, const Profile& b,
                                              size_t max_ops = 10) {
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
    const std::string* sa = shapes_internal::MostCommon(a, ra);
    const std::string* sb = shapes_internal::MostCommon(b, b.rows[it->second]);
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

#endif  // TRACEHOUND_DIFF_DIFF_SHAPES_H_
