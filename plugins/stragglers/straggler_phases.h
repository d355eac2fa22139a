// The phases of the stragglers detector, each a function from plain inputs to
// a plain result (no plugin context, no trace), so that each is tested on
// small hand-built inputs:
//
//   MatchArrivals     collectives every rank ran -> start/end/step per rank
//   EstimateOffsets   per-rank clock offsets from the end times
//   MeasureLateness   corrected lateness per collective and per (rank, step)
//   Score             robust z, last arrivals, the candidate and the verdict
//   CollectiveWaits   wait and collective time per (trace, step)
//   LateWindows       when the candidate was late while the others waited
//   TopActivities     the candidate's top kernels and host events there
//   HtaCandidates     HTA's get_potential_stragglers on its kernel rows
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collective_model.h"

namespace th::stragglers {

// P(X >= k) for X ~ Binomial(n, p).
double BinomialTail(int64_t k, int64_t n, double p);

// Robust scale: 1.4826 MAD (consistent with the standard deviation for normal
// data); when more than half the values are equal (MAD = 0), 1.2533 x the
// mean absolute deviation; 0 when all are equal.
double RobustScale(const std::vector<double>& v, double median);

// The collectives every participating rank ran (same position, same
// collective): row p is participating rank p, column c is collective c.
struct ArrivalMatrix {
  std::vector<size_t> part;                 // trace index of each participating rank
  std::vector<size_t> slot;                 // trace index -> row, SIZE_MAX when absent
  std::vector<std::vector<int64_t>> start;  // [rank][collective], raw clock
  std::vector<std::vector<int64_t>> end;    // [rank][collective], raw clock
  std::vector<std::vector<int64_t>> step;   // [rank][collective], step of the instance

  size_t ranks() const { return part.size(); }
  size_t collectives() const { return start.empty() ? 0 : start[0].size(); }
};

// Participating ranks are the traces with collectives; a match counts when
// every one of them (two or more) holds it without a name mismatch.
ArrivalMatrix MatchArrivals(const std::vector<std::vector<th::collectives::Instance>>& inst,
                            const std::vector<th::collectives::Match>& matches);

struct ClockOffsets {
  std::vector<double> offset;    // per rank: median of (end - the collective's median end),
                                 // centred on the median rank
  std::vector<double> residual;  // per rank: 1.4826 x median |corrected end - median|
  double clock_residual = 0;     // 1.4826 x median over all ranks and collectives
};

ClockOffsets EstimateOffsets(const ArrivalMatrix& a);

struct Lateness {
  std::vector<std::vector<double>> late;  // [rank][collective]: corrected start - median
  std::vector<size_t> last_of;            // per collective: the rank that started last
  std::vector<int64_t> last_count;        // per rank: collectives it started last
  std::vector<int64_t> step_of;           // per collective: the step most ranks put it in
  std::vector<int64_t> step_numbers;      // distinct step_of values, ascending
  std::vector<std::vector<double>> cell;  // [rank][step slot]: median lateness in the step

  // Slot of step `n` in step_numbers, or step_numbers.size() when absent.
  size_t StepSlot(int64_t n) const;
};

Lateness MeasureLateness(const ArrivalMatrix& a, const ClockOffsets& clocks);

struct ScoreOptions {
  double z_threshold = 3.5;
  double min_lateness_ns = 10e3;
  size_t min_ranks = 3;
};

struct StragglerVerdict {
  bool robust = false;                 // three ranks or more and a non-zero scale
  std::vector<std::vector<double>> z;  // [rank][step slot], NaN when not robust
  std::vector<double> score;           // per rank: median z over the steps, NaN when not robust
  std::vector<int64_t> flagged_steps;  // per rank: steps with z >= threshold
  std::vector<int64_t> latest_steps;   // per rank: steps where it is the latest
  std::vector<double> p_last;          // per rank: P(last this often by chance)
  std::vector<double> typical_late;    // per rank: median lateness over the collectives
  size_t candidate = 0;                // highest score, else most frequent last arrival
  double p_steps = 1;                  // P(candidate latest in this many steps by chance)
  bool is_straggler = false;
  double confidence = 0;  // not by chance x consistent over steps x above clock noise
};

StragglerVerdict Score(const Lateness& l, const ClockOffsets& clocks, const ScoreOptions& o);

// Per (trace, step): the time the trace's collectives (run by two ranks or
// more) spent beyond the match's shortest instance, and their whole time.
struct CollectiveWaits {
  std::map<std::pair<size_t, int64_t>, double> wait, collective;
};

CollectiveWaits MeasureWaits(const std::vector<std::vector<th::collectives::Instance>>& inst,
                             const std::vector<th::collectives::Match>& matches);

using Window = std::pair<int64_t, int64_t>;  // [from, to)

// On the candidate's raw clock, for each collective it started last: from the
// median corrected start of the others to its own start; merged, by start.
std::vector<Window> LateWindows(const ArrivalMatrix& a, const ClockOffsets& clocks,
                                const Lateness& l, size_t candidate);

// Length of [b, e) inside the merged, sorted windows.
int64_t OverlapWithWindows(const std::vector<Window>& windows, int64_t b, int64_t e);

struct Activity {
  std::string source;  // host or kernel
  std::string name;
  int64_t overlap = 0;  // ns inside the windows
  double share = 0;     // % of window_total, NaN when it is 0
};

struct TopActivityList {
  std::vector<Activity> rows;  // host first, then kernels; each by overlap, longest first
  std::string summary;         // the top 3 host events and top 2 kernels, with shares
};

TopActivityList TopActivities(const std::map<std::string, int64_t>& host,
                              const std::map<std::string, int64_t>& kernels, size_t top,
                              int64_t window_total);

// A communication kernel row as HTA's straggler analysis sees it.
struct HtaKernel {
  size_t trace;
  int64_t stream, step, ts, dur;
  std::string name;
};

// Per rank (ranks given), how often it was among the k latest starters of the
// (stream, name) kernel whose duration (over mean_step) varies most across
// ranks; ordered by count (descending) then rank. `selected` is false when no
// kernel qualified.
struct HtaCount {
  int64_t rank, count;
};
struct HtaResult {
  std::vector<HtaCount> order;
  bool selected = false;
};

HtaResult HtaCandidates(const std::vector<HtaKernel>& comm, double mean_step, size_t k,
                        const std::vector<int64_t>& rank_of_trace);

}  // namespace th::stragglers
