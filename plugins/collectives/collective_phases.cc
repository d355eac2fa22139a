#include "collective_phases.h"

#include <algorithm>
#include <cmath>

namespace th::collectives {

MatchTiming TimeMatch(const Match& m, const std::vector<std::vector<Instance>>& inst,
                      const std::vector<int64_t>& rank_of_trace) {
  MatchTiming out;
  if (m.members.size() < 2) return out;
  int64_t min_ts = INT64_MAX, max_ts = INT64_MIN;
  out.transfer = INT64_MAX;
  for (auto [t, i] : m.members) out.transfer = std::min(out.transfer, inst[t][i].dur());
  out.wait_max = out.wait_total = 0;
  for (auto [t, i] : m.members) {
    const Instance& x = inst[t][i];
    out.wait_max = std::max(out.wait_max, x.dur() - out.transfer);
    out.wait_total += x.dur() - out.transfer;
    // Raw clocks: the rank that started last waited least (stragglers
    // corrects the clocks before comparing ranks).
    if (x.ts > max_ts) {
      max_ts = x.ts;
      out.last_rank = rank_of_trace[t];
    }
    min_ts = std::min(min_ts, x.ts);
  }
  out.skew = max_ts - min_ts;
  return out;
}

Bandwidth MeasureBandwidth(const Instance& first, int64_t transfer, size_t present) {
  const int64_t bytes = first.bytes();
  const int64_t bw_time = transfer >= 0 ? transfer : first.dur();
  Bandwidth out{std::nan(""), std::nan(""), ""};
  if (bytes >= 0 && bw_time > 0) {
    out.algbw = static_cast<double>(bytes) / static_cast<double>(bw_time);  // bytes/ns = GB/s
    const int64_t n = first.group_size > 0 ? first.group_size : static_cast<int64_t>(present);
    double f = BusFactor(first.collective, n);
    if (f > 0) out.busbw = out.algbw * f;
  }
  out.basis = bytes < 0 ? "" : transfer >= 0 ? "transfer" : "own duration (lower bound)";
  return out;
}

namespace {

// The match's instances as collective_ranks rows, and into the rank totals.
void AddRanks(const CollectiveRow& row, int64_t id, const std::vector<std::vector<Instance>>& inst,
              const std::vector<int64_t>& rank_of_trace, CollectiveSummary& s) {
  const int64_t transfer = row.timing.transfer;
  for (auto [t, i] : row.match->members) {
    const Instance& x = inst[t][i];
    const int64_t rank = rank_of_trace[t];
    const int64_t wait = transfer >= 0 ? x.dur() - transfer : -1;
    s.rank_rows.push_back(
        {id, rank, x.step == kNoStep ? -1 : x.step, x.ts, x.dur(), wait, x.bytes()});
    RankTotals& r = s.ranks[rank];
    r.time += static_cast<double>(x.dur());
    ++r.count;
    if (transfer >= 0) {
      r.wait += static_cast<double>(wait);
      r.transfer += static_cast<double>(transfer);
      s.time += static_cast<double>(x.dur());
      s.wait += static_cast<double>(wait);
    }
  }
}

}  // namespace

CollectiveSummary SummarizeCollectives(const std::vector<std::vector<Instance>>& inst,
                                       const std::vector<Match>& matches,
                                       const std::vector<int64_t>& rank_of_trace,
                                       size_t ranks_with) {
  CollectiveSummary s;
  for (size_t m = 0; m < matches.size(); ++m) {
    const Match& mt = matches[m];
    const Instance& first = inst[mt.members[0].first][mt.members[0].second];
    const size_t present = mt.members.size();
    s.mismatched += mt.name_mismatch;
    s.incomplete += present < ranks_with;
    const MatchTiming timing = TimeMatch(mt, inst, rank_of_trace);
    if (present >= 2) {
      ++s.matched;
      ++s.ranks[timing.last_rank].last;
    } else {
      ++s.ranks[rank_of_trace[mt.members[0].first]].unmatched;
    }
    const int64_t expected =
        first.group_size > 0 ? first.group_size : static_cast<int64_t>(ranks_with);
    s.partial += present >= 2 && static_cast<int64_t>(present) < expected;
    s.rows.push_back({&mt, &first, timing, MeasureBandwidth(first, timing.transfer, present)});
    AddRanks(s.rows.back(), static_cast<int64_t>(m), inst, rank_of_trace, s);
  }
  return s;
}

}  // namespace th::collectives
