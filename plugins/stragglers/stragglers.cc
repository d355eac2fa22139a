// stragglers: which rank makes the others wait, how often, how sure we are,
// and what it was doing meanwhile.
//
// Phase 1: collectives of every rank, matched across ranks (collective_model.h).
// Phase 2: per-rank clock offsets from the end times of the collectives every
//          rank ran (a blocking collective completes everywhere at about the
//          same moment): offset = median over collectives of (end - the
//          collective's median end), centred on the median rank.
// Phase 3: arrival lateness = corrected start - the collective's median
//          corrected start; per rank and step the median over the step's
//          collectives; robust z-score (median/MAD) over all ranks x steps;
//          the rank whose median z over the steps reaches the threshold is
//          the straggler. Also: who starts last at each collective, how often,
//          and how unlikely that is by chance (binomial tail).
// Phase 4: per rank and step, compute (union of its computation kernels)
//          against wait (its collectives' duration beyond the transfer time).
// Phase 5: the straggler's top kernels and CPU ops while the others waited.
// Also HTA's get_potential_stragglers (late start of one selected NCCL kernel,
// top k per step), for comparison.
#include <tracehound/sdk.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "collective_model.h"

namespace {

using th::collectives::ExtractInstances;
using th::collectives::Instance;
using th::collectives::kNoStep;
using th::collectives::kNoTime;
using th::collectives::Match;
using th::collectives::MatchAcrossRanks;
using th::collectives::Median;
using th::collectives::StepIndex;
using th::sdk::Context;
using th::sdk::Declaration;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// P(X >= k) for X ~ Binomial(n, p).
double BinomialTail(int64_t k, int64_t n, double p) {
  if (k <= 0) return 1.0;
  double tail = 0;
  for (int64_t i = k; i <= n; ++i)
    tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                     static_cast<double>(i) * std::log(p) +
                     static_cast<double>(n - i) * std::log1p(-p));
  return std::min(1.0, tail);
}

// Robust scale: 1.4826 MAD (consistent with the standard deviation for normal
// data); when more than half the values are equal (MAD = 0), 1.2533 x the
// mean absolute deviation; 0 when all are equal.
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

std::string Fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string Us(double ns) { return Fmt("%.1f µs", ns / 1e3); }

// The tables it publishes.
th::sdk::Schema StragglerStepsTable() {
  return th::sdk::Schema("straggler_steps")
      .View("straggler-steps")
      .Int("rank")
      .Int("step")
      .Int("compute", "ns")
      .Int("wait", "ns")
      .Int("collective", "ns")
      .Real("lateness", "ns")
      .Real("z");
}
th::sdk::Schema StragglersTable() {
  return th::sdk::Schema("stragglers")
      .View("stragglers")
      .Int("rank")
      .Real("clock_offset", "ns")
      .Real("clock_residual", "ns")
      .Int("arrived_last", "count")
      .Real("arrived_last_pct", "%")
      .Real("p_chance")
      .Real("lateness", "ns")
      .Real("z")
      .Int("steps_flagged", "count")
      .Int("steps_latest", "count")
      .Int("straggler");
}
th::sdk::Schema StragglerActivityTable() {
  return th::sdk::Schema("straggler_activity")
      .Int("rank")
      .Text("source")
      .Text("name")
      .Int("overlap", "ns")
      .Real("share", "%");
}
th::sdk::Schema StragglersHtaTable() {
  return th::sdk::Schema("stragglers_hta").Int("rank").Int("count", "count").Int("candidate");
}

class Stragglers final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("stragglers", "1.0.0", th::sdk::kDetector,
                       "The rank that arrives late at collectives: robust z-score of arrival "
                       "lateness over ranks x steps after clock-offset correction, last-arrival "
                       "counts, compute vs wait per rank and step, and what the straggler did "
                       "while the others waited")
        .Reads({"events", "tracks", "edges", "profiler_steps", "collective_args", "name_classes",
                "class_rules"})
        .Publishes(StragglersTable())
        .Publishes(StragglerStepsTable())
        .Publishes(StragglerActivityTable())
        .Publishes(StragglersHtaTable())
        .Option("z_threshold", 3.5,
                "robust z-score (median/MAD) of lateness at which a rank is a straggler")
        .Min(0)
        .Option("min_lateness_us", 10.0,
                "a straggler is also at least this late (median over the collectives) after "
                "the median rank: µs of lateness can be outliers without mattering")
        .Min(0)
        .Option("min_ranks", int64_t{3},
                "ranks needed to report a straggler (the robust z needs 3; with 2, a rank latest "
                "in significantly many steps)")
        .Min(2)
        .Option("top_activities", int64_t{5},
                "kernels and CPU ops listed for the straggler's late windows")
        .Range(1, 100)
        .Option("hta_candidates", int64_t{2},
                "k of HTA's get_potential_stragglers (num_candidates), reported for comparison")
        .Min(1);
  }

  void Run(Context& ctx) override {
    const auto& traces = ctx.traces();
    const double z_threshold = ctx.GetDouble("z_threshold");
    const auto min_ranks = static_cast<size_t>(ctx.GetInt("min_ranks"));

    std::vector<StepIndex> steps;
    std::vector<std::vector<Instance>> inst;
    for (const auto& t : traces) {
      steps.emplace_back(t);
      inst.push_back(ExtractInstances(t, steps.back()));
    }
    HtaStragglers(ctx, steps);

    // Ranks taking part: traces with collectives.
    std::vector<size_t> part;
    for (size_t t = 0; t < traces.size(); ++t)
      if (!inst[t].empty()) part.push_back(t);
    const size_t R = part.size();
    std::vector<Match> matches = MatchAcrossRanks(inst);
    std::vector<const Match*> full;  // run by every rank, same collective
    for (const Match& m : matches)
      if (R >= 2 && m.members.size() == R && !m.name_mismatch) full.push_back(&m);
    if (full.empty()) {
      ctx.Warn(R < 2 ? "needs collectives on two ranks or more; found " + std::to_string(R)
                     : "no collective ran on every rank; nothing to compare");
      ctx.Metric("straggler_ranks", static_cast<double>(R), "count", th::sdk::kMeasured);
      PublishEmpty(ctx);
      return;
    }
    std::vector<size_t> slot(traces.size(), SIZE_MAX);  // trace -> index in part
    for (size_t p = 0; p < R; ++p) slot[part[p]] = p;
    auto at = [&](const Match& m, size_t p) -> const Instance& {
      for (auto [t, i] : m.members)
        if (slot[t] == p) return inst[t][i];
      throw std::logic_error("rank missing from a full match");
    };
    const size_t C = full.size();

    // Phase 2: clock offsets from end times.
    std::vector<std::vector<double>> d(R);
    for (const Match* m : full) {
      std::vector<double> ends;
      for (size_t p = 0; p < R; ++p) ends.push_back(static_cast<double>(at(*m, p).end));
      double centre = Median(ends);
      for (size_t p = 0; p < R; ++p) d[p].push_back(ends[p] - centre);
    }
    std::vector<double> offset(R);
    for (size_t p = 0; p < R; ++p) offset[p] = Median(d[p]);
    const double shift = Median(offset);
    for (double& o : offset) o -= shift;
    // Residual disagreement of the corrected end times (robust sigma).
    std::vector<double> residual_all;
    std::vector<std::vector<double>> residual(R);
    for (const Match* m : full) {
      std::vector<double> ends;
      for (size_t p = 0; p < R; ++p) ends.push_back(static_cast<double>(at(*m, p).end) - offset[p]);
      double centre = Median(ends);
      for (size_t p = 0; p < R; ++p) {
        residual[p].push_back(std::abs(ends[p] - centre));
        residual_all.push_back(std::abs(ends[p] - centre));
      }
    }
    const double clock_residual = 1.4826 * Median(residual_all);

    // Phase 3: lateness per collective, last arrivals, cells per (rank, step).
    std::vector<std::vector<double>> late(R, std::vector<double>(C));
    std::vector<int64_t> last_count(R, 0);
    std::vector<size_t> last_of(C);
    std::vector<int64_t> step_of(C);
    for (size_t c = 0; c < C; ++c) {
      std::vector<double> a;
      std::map<int64_t, int> votes;
      for (size_t p = 0; p < R; ++p) {
        a.push_back(static_cast<double>(at(*full[c], p).ts) - offset[p]);
        ++votes[at(*full[c], p).step];
      }
      double centre = Median(a);
      size_t last = 0;
      for (size_t p = 0; p < R; ++p) {
        late[p][c] = a[p] - centre;
        if (a[p] > a[last]) last = p;
      }
      last_of[c] = last;
      ++last_count[last];
      int best = -1;
      for (const auto& [s, n] : votes)
        if (n > best) best = n, step_of[c] = s;
    }
    std::vector<int64_t> step_numbers;  // steps holding collectives (kNoStep first if any)
    for (int64_t s : step_of) step_numbers.push_back(s);
    std::sort(step_numbers.begin(), step_numbers.end());
    step_numbers.erase(std::unique(step_numbers.begin(), step_numbers.end()), step_numbers.end());
    const size_t S = step_numbers.size();
    auto step_slot = [&](int64_t s) {
      return static_cast<size_t>(std::lower_bound(step_numbers.begin(), step_numbers.end(), s) -
                                 step_numbers.begin());
    };
    std::vector<std::vector<double>> cell(R, std::vector<double>(S, kNaN));
    for (size_t p = 0; p < R; ++p)
      for (size_t s = 0; s < S; ++s) {
        std::vector<double> v;
        for (size_t c = 0; c < C; ++c)
          if (step_of[c] == step_numbers[s]) v.push_back(late[p][c]);
        cell[p][s] = Median(v);
      }
    std::vector<double> cells;
    for (const auto& row : cell) cells.insert(cells.end(), row.begin(), row.end());
    const double cell_median = Median(cells);
    const double scale = RobustScale(cells, cell_median);
    const bool robust = R >= 3 && scale > 0;
    std::vector<std::vector<double>> z(R, std::vector<double>(S, kNaN));
    std::vector<double> score(R, kNaN);
    std::vector<int64_t> flagged_steps(R, 0), latest_steps(R, 0);
    for (size_t s = 0; s < S; ++s) {
      size_t latest = 0;
      for (size_t p = 0; p < R; ++p)
        if (cell[p][s] > cell[latest][s]) latest = p;
      ++latest_steps[latest];
    }
    for (size_t p = 0; p < R; ++p) {
      if (!robust) continue;
      std::vector<double> zs;
      for (size_t s = 0; s < S; ++s) {
        z[p][s] = (cell[p][s] - cell_median) / scale;
        zs.push_back(z[p][s]);
        flagged_steps[p] += z[p][s] >= z_threshold;
      }
      score[p] = Median(zs);
    }

    // The candidate: the highest score (robust), else the most frequent last arrival.
    size_t cand = 0;
    for (size_t p = 1; p < R; ++p) {
      bool better = robust ? score[p] > score[cand] : last_count[p] > last_count[cand];
      if (better) cand = p;
    }
    std::vector<double> p_last(R);
    for (size_t p = 0; p < R; ++p)
      p_last[p] =
          BinomialTail(last_count[p], static_cast<int64_t>(C), 1.0 / static_cast<double>(R));
    std::vector<double> cand_late(late[cand].begin(), late[cand].end());
    const double typical_late = Median(cand_late);
    // Without a robust z (two ranks), the steps count: collectives within a
    // step share its speed, so they are not independent draws.
    const double p_steps =
        BinomialTail(latest_steps[cand], static_cast<int64_t>(S), 1.0 / static_cast<double>(R));
    const bool is_straggler = R >= min_ranks &&
                              (robust ? score[cand] >= z_threshold : p_steps < 0.05) &&
                              typical_late >= ctx.GetDouble("min_lateness_us") * 1e3;
    // Confidence: not by chance x consistent over steps x above clock noise.
    const double f_chance = 1.0 - (robust ? p_last[cand] : p_steps);
    const double f_steps = static_cast<double>(latest_steps[cand]) / static_cast<double>(S + 1);
    const double f_clock =
        clock_residual > 0 ? std::clamp(typical_late / (3 * clock_residual), 0.0, 1.0) : 1.0;
    double confidence = f_chance * f_steps * f_clock;
    if (!robust) confidence = std::min(confidence, 0.5);

    // Phase 4: compute vs wait per rank and step.
    // Wait uses every collective run by two ranks or more (transfer = shortest).
    std::map<std::pair<size_t, int64_t>, double> wait, coll_time;
    for (const Match& m : matches) {
      if (m.members.size() < 2) continue;
      int64_t transfer = INT64_MAX;
      for (auto [t, i] : m.members) transfer = std::min(transfer, inst[t][i].dur());
      for (auto [t, i] : m.members) {
        const Instance& x = inst[t][i];
        wait[{t, x.step}] += static_cast<double>(x.dur() - transfer);
        coll_time[{t, x.step}] += static_cast<double>(x.dur());
      }
    }
    std::vector<std::pair<size_t, int64_t>> rows;  // (trace, step) rows of straggler_steps
    for (size_t p = 0; p < R; ++p) {
      std::set<int64_t> ns(step_numbers.begin(), step_numbers.end());
      for (int64_t n : steps[part[p]].Numbers()) ns.insert(n);
      for (int64_t n : ns) rows.push_back({part[p], n});
    }
    std::map<std::pair<size_t, int64_t>, uint32_t> row_of;
    for (size_t r = 0; r < rows.size(); ++r) row_of[rows[r]] = static_cast<uint32_t>(r);
    std::vector<uint32_t> g;
    std::vector<int64_t> b, e;
    for (size_t p = 0; p < R; ++p) {
      const auto& t = traces[part[p]];
      for (uint64_t i = 0; i < t.size(); ++i) {
        if (t.kind(i) != TH_EVENT_KERNEL || t.kernel_class(i) != th::sdk::KernelClass::kComp)
          continue;
        auto it = row_of.find({part[p], steps[part[p]].StepOf(i)});
        if (it == row_of.end()) continue;
        g.push_back(it->second);
        b.push_back(t.ts(i));
        e.push_back(t.end(i));
      }
    }
    std::vector<int64_t> compute = ctx.IntervalUnion(g, b, e, rows.size());
    {
      std::vector<int64_t> rank_col, step_col, compute_col, wait_col, coll_col;
      std::vector<double> late_col, z_col;
      for (size_t r = 0; r < rows.size(); ++r) {
        auto [t, n] = rows[r];
        const size_t p = slot[t];
        size_t s = step_slot(n);
        bool has = s < S && step_numbers[s] == n;
        rank_col.push_back(traces[t].rank());
        step_col.push_back(n == kNoStep ? -1 : n);
        compute_col.push_back(compute[r]);
        wait_col.push_back(static_cast<int64_t>(wait[{t, n}]));
        coll_col.push_back(static_cast<int64_t>(coll_time[{t, n}]));
        late_col.push_back(has ? cell[p][s] : kNaN);
        z_col.push_back(has ? z[p][s] : kNaN);
      }
      ctx.Publish(th::sdk::Table("straggler_steps")
                      .Int("rank", rank_col)
                      .Int("step", step_col)
                      .Int("compute", compute_col, "ns")
                      .Int("wait", wait_col, "ns")
                      .Int("collective", coll_col, "ns")
                      .Real("lateness", late_col, "ns")
                      .Real("z", z_col));
    }

    // Per rank.
    {
      std::vector<int64_t> rank_col, last_col, flagged_col, latest_col, straggler_col;
      std::vector<double> offset_col, residual_col, last_pct_col, p_col, late_col, score_col;
      for (size_t p = 0; p < R; ++p) {
        std::vector<double> lp(late[p].begin(), late[p].end());
        rank_col.push_back(traces[part[p]].rank());
        offset_col.push_back(offset[p]);
        residual_col.push_back(1.4826 * Median(residual[p]));
        last_col.push_back(last_count[p]);
        last_pct_col.push_back(100.0 * static_cast<double>(last_count[p]) / static_cast<double>(C));
        p_col.push_back(p_last[p]);
        late_col.push_back(Median(lp));
        score_col.push_back(score[p]);
        flagged_col.push_back(flagged_steps[p]);
        latest_col.push_back(latest_steps[p]);
        straggler_col.push_back(is_straggler && p == cand);
        th::sdk::Scope scope;
        scope.rank = traces[part[p]].rank();
        ctx.Metric("clock_offset", offset[p], "ns", th::sdk::kInferred, scope);
        ctx.Metric("arrived_last", static_cast<double>(last_count[p]), "count", th::sdk::kMeasured,
                   scope);
        if (robust) ctx.Metric("lateness_z", score[p], "", th::sdk::kInferred, scope);
      }
      ctx.Publish(th::sdk::Table("stragglers")
                      .Int("rank", rank_col)
                      .Real("clock_offset", offset_col, "ns")
                      .Real("clock_residual", residual_col, "ns")
                      .Int("arrived_last", last_col, "count")
                      .Real("arrived_last_pct", last_pct_col, "%")
                      .Real("p_chance", p_col)
                      .Real("lateness", late_col, "ns")
                      .Real("z", score_col)
                      .Int("steps_flagged", flagged_col, "count")
                      .Int("steps_latest", latest_col, "count")
                      .Int("straggler", straggler_col));
    }
    ctx.Metric("straggler_ranks", static_cast<double>(R), "count", th::sdk::kMeasured);
    ctx.Metric("straggler_collectives", static_cast<double>(C), "count", th::sdk::kMeasured);
    ctx.Metric("clock_residual", clock_residual, "ns", th::sdk::kInferred);
    ctx.Metric("straggler_confidence", confidence, "", th::sdk::kInferred);

    // Phase 5: what the candidate did while the others waited.
    const size_t top = static_cast<size_t>(ctx.GetInt("top_activities"));
    std::vector<std::pair<int64_t, int64_t>> windows;  // candidate's raw clock
    for (size_t c = 0; c < C; ++c) {
      if (last_of[c] != cand) continue;
      std::vector<double> others;
      for (size_t p = 0; p < R; ++p)
        if (p != cand) others.push_back(static_cast<double>(at(*full[c], p).ts) - offset[p]);
      auto from = static_cast<int64_t>(std::llround(Median(others) + offset[cand]));
      int64_t to = at(*full[c], cand).ts;
      if (to > from) windows.push_back({from, to});
    }
    std::sort(windows.begin(), windows.end());
    std::vector<std::pair<int64_t, int64_t>> merged;
    for (auto w : windows) {
      if (!merged.empty() && w.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, w.second);
      else
        merged.push_back(w);
    }
    int64_t window_total = 0;
    for (auto w : merged) window_total += w.second - w.first;
    std::vector<std::string> act_source, act_name;
    std::vector<int64_t> act_rank, act_ns;
    std::vector<double> act_share;
    std::string summary;
    std::vector<uint32_t> gpu_g;
    std::vector<int64_t> gpu_b, gpu_e;
    int64_t gpu_busy = 0;
    {
      const auto& t = traces[part[cand]];
      auto overlap = [&](int64_t b0, int64_t e0) {
        int64_t sum = 0;
        auto it = std::upper_bound(merged.begin(), merged.end(), std::make_pair(b0, INT64_MAX));
        if (it != merged.begin()) --it;
        for (; it != merged.end() && it->first < e0; ++it)
          sum += std::max<int64_t>(0, std::min(e0, it->second) - std::max(b0, it->first));
        return sum;
      };
      // Kernels by their time inside the windows; host events by their self
      // time there (the innermost op, annotation, Python frame or runtime call
      // on each thread gets the time, so nesting counts once).
      std::map<std::string, int64_t> kernels, host;
      std::vector<int64_t> self(t.size(), 0);
      std::vector<uint32_t> kg;
      std::vector<int64_t> kb, ke;
      for (uint64_t i = 0; i < t.size() && !merged.empty(); ++i) {
        const uint32_t k = t.kind(i);
        if (k == TH_EVENT_KERNEL && t.kernel_class(i) == th::sdk::KernelClass::kComp) {
          if (int64_t o = overlap(t.ts(i), t.end(i))) {
            kernels[std::string(t.name(i))] += o;
            kg.push_back(0);
            kb.push_back(t.ts(i));
            ke.push_back(t.end(i));
          }
        } else if (IsHost(k)) {
          if (int64_t o = overlap(t.ts(i), t.end(i))) {
            self[i] += o;
            if (t.parent(i) != th::sdk::kNoRow && IsHost(t.kind(t.parent(i))))
              self[t.parent(i)] -= o;
          }
        }
      }
      for (uint64_t i = 0; i < t.size(); ++i)
        if (self[i] > 0) host[std::string(t.name(i))] += self[i];
      // GPU busy inside the windows: union of the kernels, clipped per window.
      if (!kg.empty()) {
        for (size_t j = 0; j < kb.size(); ++j) {
          int64_t b0 = kb[j], e0 = ke[j];
          for (const auto& w : merged) {
            int64_t lo = std::max(b0, w.first), hi = std::min(e0, w.second);
            if (hi > lo) {
              gpu_g.push_back(0);
              gpu_b.push_back(lo);
              gpu_e.push_back(hi);
            }
          }
        }
        gpu_busy = ctx.IntervalUnion(gpu_g, gpu_b, gpu_e, 1)[0];
      }
      for (auto [source, by_name] : {std::pair{"host", &host}, std::pair{"kernel", &kernels}}) {
        std::vector<std::pair<int64_t, std::string>> v;
        for (const auto& [n, o] : *by_name) v.push_back({-o, n});
        std::sort(v.begin(), v.end());
        for (size_t j = 0; j < v.size() && j < top; ++j) {
          act_rank.push_back(t.rank());
          act_source.push_back(source);
          act_name.push_back(v[j].second);
          act_ns.push_back(-v[j].first);
          act_share.push_back(window_total ? 100.0 * static_cast<double>(-v[j].first) /
                                                 static_cast<double>(window_total)
                                           : kNaN);
          if (j < (std::string_view(source) == "host" ? 3u : 2u))
            summary += std::string(summary.empty() ? "" : "; ") + source + " " +
                       Short(v[j].second, std::string_view(source) == "kernel") + " " +
                       Fmt("%.1f%%", act_share.back());
        }
      }
      ctx.Publish(th::sdk::Table("straggler_activity")
                      .Int("rank", act_rank)
                      .Text("source", act_source)
                      .Text("name", act_name)
                      .Int("overlap", act_ns, "ns")
                      .Real("share", act_share, "%"));
    }

    const int64_t cand_rank = traces[part[cand]].rank();
    ctx.Log("candidate rank " + std::to_string(cand_rank) + ", " +
            (robust ? "robust z " + Fmt("%.2f", score[cand])
                    : std::string("no robust z (") + std::to_string(R) + " ranks)") +
            ", last at " + std::to_string(last_count[cand]) + "/" + std::to_string(C) +
            " collectives, confidence " + Fmt("%.2f", confidence) +
            (is_straggler ? "" : ": not a straggler"));
    if (!is_straggler) return;
    // P1; a pipeline's `severity:` for the plugin changes it (the host applies it).
    const th_severity severity = th::sdk::P1;
    th::sdk::Scope scope;
    scope.rank = cand_rank;
    std::string what =
        "Rank " + std::to_string(cand_rank) + " starts last at " +
        std::to_string(last_count[cand]) + " of " + std::to_string(C) + " collectives run by all " +
        std::to_string(R) + " ranks (chance p = " + Fmt("%.2g", p_last[cand]) +
        "); typical lateness " + Us(typical_late) + " after the median rank" +
        (robust ? ", robust z " + Fmt("%.1f", score[cand]) + " over " + std::to_string(R) +
                      " ranks x " + std::to_string(S) + " steps"
                : ", latest in " + std::to_string(latest_steps[cand]) + " of " + std::to_string(S) +
                      " steps (chance p = " + Fmt("%.2g", p_steps) + "; with " + std::to_string(R) +
                      " ranks there is no robust z: it may be the others that are early)") +
        ". Clocks corrected by per-rank offsets from collective end times (residual " +
        Us(clock_residual) + ")." +
        (window_total > 0
             ? " While the others waited (" + Us(static_cast<double>(window_total)) +
                   " in all) its GPU was busy " +
                   Fmt("%.0f%%",
                       100.0 * static_cast<double>(gpu_busy) / static_cast<double>(window_total)) +
                   " of the time" + (summary.empty() ? "" : "; it ran: " + summary) + "."
             : std::string());
    ctx.Add(
        th::sdk::Finding(severity, "rank " + std::to_string(cand_rank) +
                                       " is a straggler: last at " +
                                       Fmt("%.0f%%", 100.0 * static_cast<double>(last_count[cand]) /
                                                         static_cast<double>(C)) +
                                       " of collectives")
            .What(what)
            .Suggest("look at what the rank runs before the collectives (the kernels and ops "
                     "in straggler_activity): data loading, uneven shards, a slower GPU")
            .Confidence(confidence)
            .In(scope)
            .Evidence("arrived_last", static_cast<double>(last_count[cand]), "count",
                      th::sdk::kMeasured)
            .Evidence("collectives", static_cast<double>(C), "count", th::sdk::kMeasured)
            .Evidence("p_chance", p_last[cand], "", th::sdk::kInferred)
            .Evidence("lateness", typical_late, "ns", th::sdk::kInferred)
            .Evidence("z", robust ? score[cand] : kNaN, "", th::sdk::kInferred)
            .Evidence("steps_latest", static_cast<double>(latest_steps[cand]), "count",
                      th::sdk::kInferred)
            .Evidence("clock_residual", clock_residual, "ns", th::sdk::kInferred)
            .Evidence("late_window", static_cast<double>(window_total), "ns", th::sdk::kInferred)
            .Evidence("late_window_gpu_busy", static_cast<double>(gpu_busy), "ns",
                      th::sdk::kMeasured));
  }

 private:
  // Host events whose self time names what a thread was doing.
  static bool IsHost(uint32_t kind) {
    return kind == TH_EVENT_CPU_OP || kind == TH_EVENT_USER_ANNOTATION ||
           kind == TH_EVENT_PYTHON_FUNCTION || kind == TH_EVENT_RUNTIME || kind == TH_EVENT_DRIVER;
  }
  static std::string Short(const std::string& name, bool kernel) {
    std::string s = kernel ? name.substr(0, name.find('(')) : name;
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }

  static void PublishEmpty(Context& ctx) {
    ctx.Publish(th::sdk::Table(StragglersTable()));
    ctx.Publish(th::sdk::Table(StragglerStepsTable()));
    ctx.Publish(th::sdk::Table(StragglerActivityTable()));
  }

  // HTA 0.6.1's get_potential_stragglers(num_candidates = k) with its default
  // metric (hta/analyzers/straggler.py), on the raw clocks: the steps HTA keeps
  // (the last dropped when there are two or more); the NCCL kernels
  // ("ncclKernel*", stream > 0, step > 0) at least 1 % of the mean step time
  // long; the last one per (rank, stream, step, name); the (stream, name)
  // whose duration varies most across ranks; its start time; per step the
  // ranks at or above the k-th latest start; the k ranks counted most often.
  static void HtaStragglers(Context& ctx, const std::vector<StepIndex>& steps) {
    const auto& traces = ctx.traces();
    const auto k = static_cast<size_t>(ctx.GetInt("hta_candidates"));
    std::set<int64_t> valid;
    for (const StepIndex& s : steps) {
      std::vector<int64_t> n = s.Numbers();
      if (n.size() >= 2) n.pop_back();
      valid.insert(n.begin(), n.end());
    }
    std::vector<int64_t> rank_col, count_col, cand_col;
    if (!valid.empty()) {
      struct Row {
        size_t trace;
        int64_t stream, step, ts, dur;
        std::string name;
      };
      int64_t t_min = INT64_MAX, t_max = INT64_MIN;
      std::vector<Row> comm;
      for (size_t t = 0; t < traces.size(); ++t) {
        const auto& tr = traces[t];
        for (uint64_t i = 0; i < tr.size(); ++i) {
          const uint32_t kind = tr.kind(i);
          if (kind == TH_EVENT_METADATA || kind == TH_EVENT_FLOW || kind == TH_EVENT_COUNTER)
            continue;
          const bool gpu = tr.track_of(i).kind == TH_TRACK_GPU_STREAM;
          int64_t step = kNoStep;
          if (gpu) {
            if (steps[t].LaunchTs(i) != kNoTime) step = steps[t].StepAt(steps[t].LaunchTs(i));
          } else {
            step = steps[t].StepAt(tr.ts(i));
          }
          if (!valid.count(step)) continue;
          t_min = std::min(t_min, tr.ts(i));
          t_max = std::max(t_max, tr.end(i));
          if (kind == TH_EVENT_KERNEL && tr.track_of(i).stream > 0 && step > 0 &&
              tr.name(i).substr(0, 10) == "ncclKernel")
            comm.push_back(
                {t, tr.track_of(i).stream, step, tr.ts(i), tr.dur(i), std::string(tr.name(i))});
        }
      }
      const double mean_step =
          static_cast<double>(t_max - t_min) / static_cast<double>(valid.size());
      // Last long kernel per (rank, stream, step, name).
      std::map<std::tuple<size_t, int64_t, int64_t, std::string>, Row> last;
      for (const Row& r : comm) {
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
      for (const auto& t : traces) counts[t.rank()] = 0;
      if (best) {
        std::map<int64_t, std::vector<std::pair<int64_t, size_t>>> by_step;  // (ts, trace)
        for (const auto& [key, r] : last)
          if (r.stream == best->first && r.name == best->second)
            by_step[r.step].push_back({r.ts, r.trace});
        for (auto& [s, v] : by_step) {
          std::sort(v.rbegin(), v.rend());
          int64_t threshold = v[std::min(k, v.size()) - 1].first;
          for (auto [ts, t] : v)
            if (ts >= threshold) ++counts[traces[t].rank()];
        }
      }
      std::vector<std::pair<int64_t, int64_t>> order;  // (-count, rank)
      for (auto [rank, n] : counts) order.push_back({-n, rank});
      std::sort(order.begin(), order.end());
      for (size_t i = 0; i < order.size(); ++i) {
        rank_col.push_back(order[i].second);
        count_col.push_back(-order[i].first);
        cand_col.push_back(i < k && best ? 1 : 0);
      }
    }
    ctx.Publish(th::sdk::Table("stragglers_hta")
                    .Int("rank", rank_col)
                    .Int("count", count_col, "count")
                    .Int("candidate", cand_col));
  }
};

}  // namespace

TH_PLUGIN(Stragglers)
