// OverlapIntegral: F(t) = Σ w_i · |[s_i, e_i) ∩ (-∞, t)| over weighted
// intervals, in O(log n) per t from prefix sums over the starts and the ends:
// F(t) = t·W_s(t) − (Σ w·s)(t) − (t·W_e(t) − (Σ w·e)(t)), where W_s sums the
// weights of the intervals started by t and W_e of those ended by t. The
// integral over [a, b) is F(b) − F(a). With integer weights and Acc = Int128
// it is exact; with floating weights Acc = long double.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace th::serve {

template <typename Weight, typename Acc>
class OverlapIntegral {
 public:
  struct Interval {
    int64_t start = 0, end = 0;  // end >= start
    Weight weight{};
  };

  OverlapIntegral() = default;
  explicit OverlapIntegral(std::vector<Interval> intervals) {
    std::vector<std::pair<int64_t, Weight>> starts, ends;
    for (const Interval& i : intervals) {
      if (i.end <= i.start) continue;
      starts.push_back({i.start, i.weight});
      ends.push_back({i.end, i.weight});
    }
    Fill(std::move(starts), &starts_);
    Fill(std::move(ends), &ends_);
  }

  bool empty() const { return starts_.t.empty(); }
  Acc At(int64_t t) const { return Part(starts_, t) - Part(ends_, t); }
  Acc Over(int64_t a, int64_t b) const { return At(b) - At(a); }

 private:
  struct Prefix {
    std::vector<int64_t> t;  // sorted
    std::vector<Acc> w, wt;  // prefix sums of w and w·t (size + 1)
  };
  static void Fill(std::vector<std::pair<int64_t, Weight>> v, Prefix* p) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    p->t.reserve(v.size());
    p->w.assign(1, Acc{0});
    p->wt.assign(1, Acc{0});
    for (const auto& [t, w] : v) {
      p->t.push_back(t);
      p->w.push_back(p->w.back() + static_cast<Acc>(w));
      p->wt.push_back(p->wt.back() + static_cast<Acc>(w) * static_cast<Acc>(t));
    }
  }
  // Σ over points p <= t of w·(t − p).
  static Acc Part(const Prefix& p, int64_t t) {
    const size_t k = static_cast<size_t>(std::upper_bound(p.t.begin(), p.t.end(), t) - p.t.begin());
    return static_cast<Acc>(t) * p.w[k] - p.wt[k];
  }

  Prefix starts_, ends_;
};

}  // namespace th::serve
