// The aggregate level: one row per (class, normalised name) present on either
// side, its time per step on each side, Δ, Δ% and a status:
//   added / removed   present on one side only;
//   unknown           present on both, but a side has fewer than 2 steps;
//   changed           |Δ| > threshold_ns and |Δ| > noise, the larger of the
//                     two sides' per-step spreads (max - min over the side's
//                     kept steps, a step without the name counting 0);
//   unchanged         otherwise.
// Rows are ordered by |Δ| descending, then class, then name. Header-only.
#ifndef TRACEHOUND_DIFF_DIFF_AGGREGATE_H_
#define TRACEHOUND_DIFF_DIFF_AGGREGATE_H_

#include <tracehound/diff/diff_profile.h>
#include <tracehound/diff/diff_types.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace th::diff {

// Round-to-nearest (halves away from zero) of num / den, den > 0.
inline int64_t DivRound(int64_t num, int64_t den) {
  const int64_t q = num / den, r = num % den;
  if (2 * std::llabs(r) >= den) return q + (num < 0 ? -1 : 1);
  return q;
}

namespace aggregate_internal {

inline SideFigures Figures(const Profile& p, const ProfileRow* row) {
  SideFigures f;
  if (!row) return f;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t s = 0; s < row->time_ns.size(); ++s) {
    f.count += row->count[s];
    f.time_ns += row->time_ns[s];
    lo = std::min(lo, row->time_ns[s]);
    hi = std::max(hi, row->time_ns[s]);
  }
  if (!p.steps.empty()) {
    f.time_per_step_ns = DivRound(f.time_ns, static_cast<int64_t>(p.steps.size()));
    f.spread_ns = hi - lo;
  }
  return f;
}

inline const ProfileRow* Find(const Profile& p, const std::string& key) {
  auto it = p.row_index.find(key);
  return it == p.row_index.end() ? nullptr : &p.rows[it->second];
}

inline RowStatus StatusOf(const AggregateRow& r, const Profile& a, const Profile& b,
                          const DiffOptions& o) {
  if (r.a.count == 0 && r.b.count > 0) return RowStatus::kAdded;
  if (r.b.count == 0 && r.a.count > 0) return RowStatus::kRemoved;
  if (a.steps.size() < 2 || b.steps.size() < 2) return RowStatus::kUnknown;
  const int64_t d = std::llabs(r.delta_ns);
  return d > o.threshold_ns && d > r.noise_ns ? RowStatus::kChanged : RowStatus::kUnchanged;
}

}  // namespace aggregate_internal

inline std::vector<AggregateRow> AggregateRows(const Profile& a, const Profile& b,
                                               const DiffOptions& options) {
  using aggregate_internal::Figures;
  using aggregate_internal::Find;
  std::vector<AggregateRow> out;
  auto add = [&](const ProfileRow& row) {
    const std::string key = RowKey(row.cls, row.name);
    AggregateRow r;
    r.cls = row.cls;
    r.name = row.name;
    r.a = Figures(a, Find(a, key));
    r.b = Figures(b, Find(b, key));
    r.delta_ns = r.b.time_per_step_ns - r.a.time_per_step_ns;
    if (r.a.time_per_step_ns != 0) {
      r.has_pct = true;
      r.delta_pct = std::round(static_cast<double>(r.delta_ns) * 10000.0 /
                               static_cast<double>(r.a.time_per_step_ns)) /
                    100.0;
    }
    r.noise_ns = std::max(r.a.spread_ns, r.b.spread_ns);
    r.status = aggregate_internal::StatusOf(r, a, b, options);
    out.push_back(std::move(r));
  };
  for (const ProfileRow& row : a.rows) add(row);
  for (const ProfileRow& row : b.rows)
    if (!Find(a, RowKey(row.cls, row.name))) add(row);
  std::sort(out.begin(), out.end(), [](const AggregateRow& x, const AggregateRow& y) {
    return std::make_tuple(-std::llabs(x.delta_ns), x.cls, std::cref(x.name)) <
           std::make_tuple(-std::llabs(y.delta_ns), y.cls, std::cref(y.name));
  });
  return out;
}

// Per class, the totals of both sides (classes with events only).
inline std::vector<ClassTotal> ClassTotals(const Profile& a, const Profile& b) {
  std::vector<ClassTotal> t(static_cast<size_t>(EventClass::kCount));
  for (size_t c = 0; c < t.size(); ++c) t[c].cls = static_cast<EventClass>(c);
  for (const ProfileRow& r : a.rows)
    for (size_t s = 0; s < r.count.size(); ++s) {
      t[static_cast<size_t>(r.cls)].a_count += r.count[s];
      t[static_cast<size_t>(r.cls)].a_time_ns += r.time_ns[s];
    }
  for (const ProfileRow& r : b.rows)
    for (size_t s = 0; s < r.count.size(); ++s) {
      t[static_cast<size_t>(r.cls)].b_count += r.count[s];
      t[static_cast<size_t>(r.cls)].b_time_ns += r.time_ns[s];
    }
  std::erase_if(t, [](const ClassTotal& c) { return c.a_count == 0 && c.b_count == 0; });
  return t;
}

}  // namespace th::diff

#endif  // TRACEHOUND_DIFF_DIFF_AGGREGATE_H_
