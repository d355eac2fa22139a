// Events in time order across tracks, for sweeps that take every interval by
// start (unions, priority unions) without sorting all events at once:
//
//   GroupByTrack   the rows a plugin keeps, as lists by start: per track its
//                  rows (a counting sort by track), cut into the runs that are
//                  already by start in file order; a track whose runs are
//                  short is sorted instead
//   KeepInTrackOrder  the same lists from an order the trace already has
//                  (track_events): one pass, no sort
//   MergeByStart   visits the rows of several such lists by start (a
//                  tournament tree of losers, one leaf per list)
//   UnionCover     the length of the union of intervals added by start
//
// Scratch: 4 bytes per kept row, plus 60 per list (at most one per
// `min_run` rows).
#ifndef TRACEHOUND_TIME_ORDER_H_
#define TRACEHOUND_TIME_ORDER_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace th::sdk {

// Lists of rows, each by start and of one track: list k is
// rows[offsets[k] .. offsets[k + 1]), of track track[k]; a track's lists
// are consecutive.
struct TrackRows {
  std::vector<uint32_t> rows;
  std::vector<uint32_t> offsets{0};  // lists + 1 entries
  std::vector<uint32_t> track;       // per list
  size_t lists() const { return track.size(); }
  std::span<const uint32_t> Of(size_t list) const {
    return {rows.data() + offsets[list], offsets[list + 1] - offsets[list]};
  }
};

// The rows i < `rows` with keep(i), grouped by track_of(i) < `tracks`, as
// lists by start(i): each track's rows in file order cut where the start
// decreases, or, when those runs hold fewer than `min_run` rows on average,
// sorted (ties by row) into one list. keep is called twice per row.
template <typename Keep, typename TrackOf, typename Start>
TrackRows GroupByTrack(uint64_t rows, uint32_t tracks, Keep keep, TrackOf track_of, Start start,
                       uint32_t min_run = 16) {
  std::vector<uint32_t> first(size_t{tracks} + 1, 0);  // per track, its first slot
  for (uint64_t i = 0; i < rows; ++i)
    if (keep(i)) ++first[track_of(i) + 1];
  for (uint32_t t = 0; t < tracks; ++t) first[t + 1] += first[t];
  TrackRows out;
  out.rows.resize(first[tracks]);
  std::vector<uint32_t> fill(first.begin(), first.end() - 1);
  for (uint64_t i = 0; i < rows; ++i)
    if (keep(i)) out.rows[fill[track_of(i)]++] = static_cast<uint32_t>(i);
  auto by_start = [&](uint32_t a, uint32_t b) {
    const int64_t sa = start(a), sb = start(b);
    return sa != sb ? sa < sb : a < b;
  };
  for (uint32_t t = 0; t < tracks; ++t) {
    if (first[t] == first[t + 1]) continue;
    const uint64_t n = first[t + 1] - first[t];
    uint64_t runs = 1;
    for (uint32_t k = first[t] + 1; k < first[t + 1] && runs * min_run <= n; ++k)
      runs += start(out.rows[k]) < start(out.rows[k - 1]);
    if (runs * min_run > n) {
      std::sort(out.rows.begin() + first[t], out.rows.begin() + first[t + 1], by_start);
      runs = 1;
    }
    for (uint32_t k = first[t] + 1; runs > 1 && k < first[t + 1]; ++k) {
      if (start(out.rows[k]) >= start(out.rows[k - 1])) continue;
      out.offsets.push_back(k);
      out.track.push_back(t);
    }
    out.offsets.push_back(first[t + 1]);
    out.track.push_back(t);
  }
  return out;
}

// The rows with keep(row), per track t < `tracks` in the order events_of(t)
// lists them (already by start: th::sdk::Trace::track_events, where ties go
// to the longer first), one list per track that keeps any; no sort.
template <typename EventsOf, typename Keep>
TrackRows KeepInTrackOrder(uint32_t tracks, EventsOf events_of, Keep keep) {
  TrackRows out;
  // Room for every row: what is never written is never resident (a big
  // block is a fresh mapping), and no growth copies the kept rows.
  size_t at_most = 0;
  for (uint32_t t = 0; t < tracks; ++t) at_most += events_of(t).size();
  out.rows.reserve(at_most);
  for (uint32_t t = 0; t < tracks; ++t) {
    const auto events = events_of(t);
    const size_t before = out.rows.size();
    for (uint32_t k = 0; k < events.size(); ++k)
      if (keep(events[k])) out.rows.push_back(events[k]);
    if (out.rows.size() == before) continue;
    out.offsets.push_back(static_cast<uint32_t>(out.rows.size()));
    out.track.push_back(t);
  }
  return out;
}

// One list of rows by start, and the id MergeByStart hands back with each row.
struct StartList {
  std::span<const uint32_t> rows;
  uint32_t id;
};

// Calls visit(id, row) for every row of every list, by start(id, row); rows
// of equal start by list (the lower first), a list's own in its order.
// prefetch(id, row) is called for the row `ahead` places further down a list
// each time the list advances: for sweeps whose rows are sparse in the
// columns they read (a cache miss per row), it can ask for those columns'
// lines early (__builtin_prefetch).
template <typename Start, typename Visit, typename Prefetch>
void MergeByStart(std::span<const StartList> lists, Start start, Visit visit, Prefetch prefetch,
                  uint32_t ahead = 16) {
  // A tournament tree of losers over the lists (leaves padded to a power of
  // two with empty ones): each row costs one comparison per level, on the
  // fixed path from its list's leaf to the root (a heap's sift costs two, on
  // branches no predictor learns). An exhausted list loses every match.
  const auto k = static_cast<uint32_t>(lists.size());
  if (k == 0) return;
  uint32_t leaves = 1;
  while (leaves < k) leaves *= 2;
  std::vector<int64_t> key(leaves, std::numeric_limits<int64_t>::max());
  std::vector<uint32_t> pos(leaves, 0), size(leaves, 0);
  uint64_t rows = 0;
  for (uint32_t l = 0; l < k; ++l) {
    size[l] = static_cast<uint32_t>(lists[l].rows.size());
    rows += size[l];
    if (size[l] > 0) key[l] = start(lists[l].id, lists[l].rows[0]);
  }
  // a before b: the smaller start, a live list before an exhausted one, the
  // lower list on ties.
  auto before = [&](uint32_t a, uint32_t b) {
    if (key[a] != key[b]) return key[a] < key[b];
    const bool a_done = pos[a] >= size[a], b_done = pos[b] >= size[b];
    return a_done != b_done ? b_done : a < b;
  };
  std::vector<uint32_t> loser(leaves), win(2 * size_t{leaves});
  for (uint32_t l = 0; l < leaves; ++l) win[leaves + l] = l;
  for (uint32_t n = leaves - 1; n >= 1; --n) {
    const uint32_t a = win[2 * n], b = win[2 * n + 1];
    const bool b_wins = before(b, a);
    win[n] = b_wins ? b : a;
    loser[n] = b_wins ? a : b;
  }
  uint32_t winner = win[1];  // with one leaf, win[1] is that leaf
  for (; rows > 0; --rows) {
    const StartList& list = lists[winner];
    uint32_t& p = pos[winner];
    visit(list.id, list.rows[p]);
    if (p + ahead + 1 < size[winner]) prefetch(list.id, list.rows[p + ahead + 1]);
    key[winner] =
        ++p < size[winner] ? start(list.id, list.rows[p]) : std::numeric_limits<int64_t>::max();
    uint32_t cur = winner;
    for (uint32_t n = (winner + leaves) / 2; n >= 1; n /= 2)
      if (before(loser[n], cur)) std::swap(loser[n], cur);
    winner = cur;
  }
}

template <typename Start, typename Visit>
void MergeByStart(std::span<const StartList> lists, Start start, Visit visit) {
  MergeByStart(lists, start, visit, [](uint32_t, uint32_t) {});
}

// The length of the union of [begin, end) intervals added in order of begin;
// empty intervals (end <= begin) add nothing.
struct UnionCover {
  int64_t covered_to = std::numeric_limits<int64_t>::min();
  int64_t total = 0;
  void Add(int64_t begin, int64_t end) {
    if (end <= begin) return;
    const int64_t from = std::max(begin, covered_to);
    if (end > from) total += end - from;
    covered_to = std::max(covered_to, end);
  }
};

}  // namespace th::sdk

#endif  // TRACEHOUND_TIME_ORDER_H_
