#include "straggler_phases.h"

#include <tracehound/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string_view>
#include <tuple>

namespace th::stragglers {

using th::collectives::Instance;
using th::collectives::Match;
using th::collectives::Median;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string Short(const std::string& name, bool kernel) {
  std::string s = kernel ? name.substr(0, name.find('(')) : name;
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// Per (rank, step slot): the median lateness of the step's collectives.
std::vector<std::vector<double>> StepCells(const Lateness& l) {
  const size_t R = l.late.size(), S = l.step_numbers.size(), C = l.step_of.size();
  std::vector<std::vector<double>> cell(R, std::vector<double>(S, kNaN));
  for (size_t p = 0; p < R; ++p)
    for (size_t s = 0; s < S; ++s) {
      std::vector<double> v;
      for (size_t c = 0; c < C; ++c)
        if (l.step_of[c] == l.step_numbers[s]) v.push_back(l.late[p][c]);
      cell[p][s] = Median(v);
    }
  return cell;
}

// z, score, flagged and latest steps of `v` from the (rank, step) cells.
void ScoreCells(const Lateness& l, double z_threshold, StragglerVerdict& v) {
  const size_t R = l.cell.size(), S = l.step_numbers.size();
  std::vector<double> cells;
  for (const auto& row : l.cell) cells.insert(cells.end(), row.begin(), row.end());
  const double cell_median = Median(cells);
  const double scale = RobustScale(cells, cell_median);
  v.robust = R >= 3 && scale > 0;
  v.z.assign(R, std::vector<double>(S, kNaN));
  v.score.assign(R, kNaN);
  v.flagged_steps.assign(R, 0);
  v.latest_steps.assign(R, 0);
  for (size_t s = 0; s < S; ++s) {
    size_t latest = 0;
    for (size_t p = 0; p < R; ++p)
      if (l.cell[p][s] > l.cell[latest][s]) latest = p;
    ++v.latest_steps[latest];
  }
  for (size_t p = 0; p < R && v.robust; ++p) {
    std::vector<double> zs;
    for (size_t s = 0; s < S; ++s) {
      v.z[p][s] = (l.cell[p][s] - cell_median) / scale;
      zs.push_back(v.z[p][s]);
      v.flagged_steps[p] += v.z[p][s] >= z_threshold;
    }
    v.score[p] = Median(zs);
  }
}

}  // namespace

double BinomialTail(int64_t k, int64_t n, double p) {
  if (k <= 0) return 1.0;
  double tail = 0;
  for (int64_t i = k; i <= n; ++i)
    tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                     static_cast<double>(i) * std::log(p) +
                     static_cast<double>(n - i) * std::log1p(-p));
  return std::min(1.0, tail);
}

double RobustScale(const std::vector<double>& v, double median) {
  std::vector<double> dev;
  double mean_ad = 0;
  for (double x : v) {
    dev.push_back(std::abs(x - median));
    mean_ad += std::abs(x - median);
  }
  if (v.empty()) return 0;
  double mad = Median(dev);
  if (mad > 0) return 1.4826 * mad;
  return 1.253314 * mean_ad / static_cast<double>(v.size());
}

ArrivalMatrix MatchArrivals(const std::vector<std::vector<Instance>>& inst,
                            const std::vector<Match>& matches) {
  ArrivalMatrix a;
  a.slot.assign(inst.size(), SIZE_MAX);
  for (size_t t = 0; t < inst.size(); ++t)
    if (!inst[t].empty()) {
      a.slot[t] = a.part.size();
      a.part.push_back(t);
    }
  const size_t R = a.part.size();
  a.start.resize(R);
  a.end.resize(R);
  a.step.resize(R);
  for (const Match& m : matches) {
    if (R < 2 || m.members.size() != R || m.name_mismatch) continue;
    // Members are by trace, one per participating rank.
    for (auto [t, i] : m.members) {
      const Instance& x = inst[t][i];
      a.start[a.slot[t]].push_back(x.ts);
      a.end[a.slot[t]].push_back(x.end);
      a.step[a.slot[t]].push_back(x.step);
    }
  }
  return a;
}

ClockOffsets EstimateOffsets(const ArrivalMatrix& a) {
  const size_t R = a.ranks(), C = a.collectives();
  ClockOffsets o;
  std::vector<std::vector<double>> d(R);
  for (size_t c = 0; c < C; ++c) {
    std::vector<double> ends;
    for (size_t p = 0; p < R; ++p) ends.push_back(static_cast<double>(a.end[p][c]));
    double centre = Median(ends);
    for (size_t p = 0; p < R; ++p) d[p].push_back(ends[p] - centre);
  }
  o.offset.resize(R);
  for (size_t p = 0; p < R; ++p) o.offset[p] = Median(d[p]);
  const double shift = Median(o.offset);
  for (double& x : o.offset) x -= shift;
  // Residual disagreement of the corrected end times (robust sigma).
  std::vector<double> residual_all;
  std::vector<std::vector<double>> residual(R);
  for (size_t c = 0; c < C; ++c) {
    std::vector<double> ends;
    for (size_t p = 0; p < R; ++p) ends.push_back(static_cast<double>(a.end[p][c]) - o.offset[p]);
    double centre = Median(ends);
    for (size_t p = 0; p < R; ++p) {
      residual[p].push_back(std::abs(ends[p] - centre));
      residual_all.push_back(std::abs(ends[p] - centre));
    }
  }
  o.clock_residual = 1.4826 * Median(residual_all);
  for (size_t p = 0; p < R; ++p) o.residual.push_back(1.4826 * Median(residual[p]));
  return o;
}

size_t Lateness::StepSlot(int64_t n) const {
  auto it = std::lower_bound(step_numbers.begin(), step_numbers.end(), n);
  return it != step_numbers.end() && *it == n ? static_cast<size_t>(it - step_numbers.begin())
                                              : step_numbers.size();
}

Lateness MeasureLateness(const ArrivalMatrix& a, const ClockOffsets& clocks) {
  const size_t R = a.ranks(), C = a.collectives();
  Lateness l;
  l.late.assign(R, std::vector<double>(C));
  l.last_count.assign(R, 0);
  l.last_of.resize(C);
  l.step_of.resize(C);
  for (size_t c = 0; c < C; ++c) {
    std::vector<double> arrival;
    std::map<int64_t, int> votes;
    for (size_t p = 0; p < R; ++p) {
      arrival.push_back(static_cast<double>(a.start[p][c]) - clocks.offset[p]);
      ++votes[a.step[p][c]];
    }
    double centre = Median(arrival);
    size_t last = 0;
    for (size_t p = 0; p < R; ++p) {
      l.late[p][c] = arrival[p] - centre;
      if (arrival[p] > arrival[last]) last = p;
    }
    l.last_of[c] = last;
    ++l.last_count[last];
    int best = -1;
    for (const auto& [s, n] : votes)
      if (n > best) best = n, l.step_of[c] = s;
  }
  l.step_numbers = l.step_of;
  std::sort(l.step_numbers.begin(), l.step_numbers.end());
  l.step_numbers.erase(std::unique(l.step_numbers.begin(), l.step_numbers.end()),
                       l.step_numbers.end());
  l.cell = StepCells(l);
  return l;
}

StragglerVerdict Score(const Lateness& l, const ClockOffsets& clocks, const ScoreOptions& o) {
  const size_t R = l.late.size(), C = l.step_of.size(), S = l.step_numbers.size();
  StragglerVerdict v;
  ScoreCells(l, o.z_threshold, v);
  for (size_t p = 0; p < R; ++p) {
    v.p_last.push_back(
        BinomialTail(l.last_count[p], static_cast<int64_t>(C), 1.0 / static_cast<double>(R)));
    v.typical_late.push_back(Median(l.late[p]));
  }
  size_t& cand = v.candidate;
  for (size_t p = 1; p < R; ++p) {
    bool better = v.robust ? v.score[p] > v.score[cand] : l.last_count[p] > l.last_count[cand];
    if (better) cand = p;
  }
  const double typical_late = v.typical_late[cand];
  // Without a robust z (two ranks), the steps count: collectives within a
  // step share its speed, so they are not independent draws.
  v.p_steps =
      BinomialTail(v.latest_steps[cand], static_cast<int64_t>(S), 1.0 / static_cast<double>(R));
  v.is_straggler = R >= o.min_ranks &&
                   (v.robust ? v.score[cand] >= o.z_threshold : v.p_steps < 0.05) &&
                   typical_late >= o.min_lateness_ns;
  const double f_chance = 1.0 - (v.robust ? v.p_last[cand] : v.p_steps);
  const double f_steps = static_cast<double>(v.latest_steps[cand]) / static_cast<double>(S + 1);
  const double f_clock = clocks.clock_residual > 0
                             ? std::clamp(typical_late / (3 * clocks.clock_residual), 0.0, 1.0)
                             : 1.0;
  v.confidence = f_chance * f_steps * f_clock;
  if (!v.robust) v.confidence = std::min(v.confidence, 0.5);
  return v;
}

CollectiveWaits MeasureWaits(const std::vector<std::vector<Instance>>& inst,
                             const std::vector<Match>& matches) {
  CollectiveWaits w;
  for (const Match& m : matches) {
    if (m.members.size() < 2) continue;
    int64_t transfer = INT64_MAX;
    for (auto [t, i] : m.members) transfer = std::min(transfer, inst[t][i].dur());
    for (auto [t, i] : m.members) {
      const Instance& x = inst[t][i];
      w.wait[{t, x.step}] += static_cast<double>(x.dur() - transfer);
      w.collective[{t, x.step}] += static_cast<double>(x.dur());
    }
  }
  return w;
}

std::vector<Window> LateWindows(const ArrivalMatrix& a, const ClockOffsets& clocks,
                                const Lateness& l, size_t candidate) {
  const size_t R = a.ranks(), C = a.collectives();
  std::vector<Window> windows;
  for (size_t c = 0; c < C; ++c) {
    if (l.last_of[c] != candidate) continue;
    std::vector<double> others;
    for (size_t p = 0; p < R; ++p)
      if (p != candidate) others.push_back(static_cast<double>(a.start[p][c]) - clocks.offset[p]);
    auto from = static_cast<int64_t>(std::llround(Median(others) + clocks.offset[candidate]));
    int64_t to = a.start[candidate][c];
    if (to > from) windows.push_back({from, to});
  }
  std::sort(windows.begin(), windows.end());
  std::vector<Window> merged;
  for (auto w : windows) {
    if (!merged.empty() && w.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, w.second);
    else
      merged.push_back(w);
  }
  return merged;
}

int64_t OverlapWithWindows(const std::vector<Window>& windows, int64_t b, int64_t e) {
  int64_t sum = 0;
  auto it = std::upper_bound(windows.begin(), windows.end(), std::make_pair(b, INT64_MAX));
  if (it != windows.begin()) --it;
  for (; it != windows.end() && it->first < e; ++it)
    sum += std::max<int64_t>(0, std::min(e, it->second) - std::max(b, it->first));
  return sum;
}

TopActivityList TopActivities(const std::map<std::string, int64_t>& host,
                              const std::map<std::string, int64_t>& kernels, size_t top,
                              int64_t window_total) {
  TopActivityList out;
  for (auto [source, by_name] : {std::pair{"host", &host}, std::pair{"kernel", &kernels}}) {
    const bool kernel = std::string_view(source) == "kernel";
    std::vector<std::pair<int64_t, std::string>> v;
    for (const auto& [n, o] : *by_name) v.push_back({-o, n});
    std::sort(v.begin(), v.end());
    for (size_t j = 0; j < v.size() && j < top; ++j) {
      Activity a{source, v[j].second, -v[j].first,
                 window_total
                     ? 100.0 * static_cast<double>(-v[j].first) / static_cast<double>(window_total)
                     : kNaN};
      if (j < (kernel ? 2u : 3u))
        out.summary += std::string(out.summary.empty() ? "" : "; ") + source + " " +
                       Short(a.name, kernel) + " " + th::sdk::Percent(a.share);
      out.rows.push_back(std::move(a));
    }
  }
  return out;
}

HtaResult HtaCandidates(const std::vector<HtaKernel>& comm, double mean_step, size_t k,
                        const std::vector<int64_t>& rank_of_trace) {
  // Last long kernel per (rank, stream, step, name).
  std::map<std::tuple<size_t, int64_t, int64_t, std::string>, HtaKernel> last;
  for (const HtaKernel& r : comm) {
    if (static_cast<double>(r.dur) < 0.01 * mean_step) continue;
    auto key = std::make_tuple(r.trace, r.stream, r.step, r.name);
    auto it = last.find(key);
    if (it == last.end() || r.ts >= it->second.ts) last[key] = r;
  }
  // (stream, name) with the largest mean (over steps) std (over ranks) of dur.
  std::map<std::tuple<int64_t, std::string, int64_t>, std::vector<double>> durs;
  for (const auto& [key, r] : last)
    durs[{r.stream, r.name, r.step}].push_back(static_cast<double>(r.dur) / mean_step);
  std::map<std::pair<int64_t, std::string>, std::pair<double, int>> mean_std;
  for (const auto& [key, v] : durs) {
    if (v.size() < 2) continue;  // std of one value is NaN in pandas
    double m = 0, ss = 0;
    for (double x : v) m += x;
    m /= static_cast<double>(v.size());
    for (double x : v) ss += (x - m) * (x - m);
    auto& acc = mean_std[{std::get<0>(key), std::get<1>(key)}];
    acc.first += std::sqrt(ss / static_cast<double>(v.size() - 1));
    ++acc.second;
  }
  const std::pair<int64_t, std::string>* best = nullptr;
  double best_v = -1;
  for (const auto& [key, acc] : mean_std) {
    double v = acc.first / acc.second;
    if (v > best_v) best_v = v, best = &key;
  }
  std::map<int64_t, int64_t> counts;
  for (int64_t rank : rank_of_trace) counts[rank] = 0;
  if (best) {
    std::map<int64_t, std::vector<std::pair<int64_t, size_t>>> by_step;  // (ts, trace)
    for (const auto& [key, r] : last)
      if (r.stream == best->first && r.name == best->second)
        by_step[r.step].push_back({r.ts, r.trace});
    for (auto& [s, v] : by_step) {
      std::sort(v.rbegin(), v.rend());
      int64_t threshold = v[std::min(k, v.size()) - 1].first;
      for (auto [ts, t] : v)
        if (ts >= threshold) ++counts[rank_of_trace[t]];
    }
  }
  HtaResult out;
  out.selected = best != nullptr;
  std::vector<std::pair<int64_t, int64_t>> order;  // (-count, rank)
  for (auto [rank, n] : counts) order.push_back({-n, rank});
  std::sort(order.begin(), order.end());
  for (auto [n, rank] : order) out.order.push_back({rank, -n});
  return out;
}

}  // namespace th::stragglers
