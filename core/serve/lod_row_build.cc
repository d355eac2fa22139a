// BuildRow, the choice of pyramid levels and the pyramid (lod_row.h).
#include <algorithm>
#include <array>
#include <bit>

#include "core/serve/lod_levels.h"
#include "core/serve/lod_row.h"

namespace th::serve {
namespace {

// Appends a narrow event's share to a level's entries; buckets arrive in
// non-decreasing order except for the spill of the event before, so the
// bucket is the last entry, the one before it, or new.
void AddToBucket(PyramidLevel* level, int64_t bucket, uint32_t count, int64_t busy) {
  auto& b = level->bucket;
  size_t i = b.size();
  if (i == 0 || b[i - 1] < bucket) {  // the common case: a new bucket at the end
    b.push_back(bucket);
    level->count.push_back(count);
    level->busy_ns.push_back(busy);
    return;
  }
  while (i > 0 && b[i - 1] > bucket) --i;
  if (i > 0 && b[i - 1] == bucket) {
    level->count[i - 1] += count;
    level->busy_ns[i - 1] = SaturatingAdd(level->busy_ns[i - 1], busy);
    return;
  }
  b.insert(b.begin() + static_cast<std::ptrdiff_t>(i), bucket);
  level->count.insert(level->count.begin() + static_cast<std::ptrdiff_t>(i), count);
  level->busy_ns.insert(level->busy_ns.begin() + static_cast<std::ptrdiff_t>(i), busy);
}

void Shrink(PyramidLevel* l) {
  l->bucket.shrink_to_fit();
  l->count.shrink_to_fit();
  l->busy_ns.shrink_to_fit();
}

// The buckets of `level` for the events of classes [min_class, level).
PyramidLevel BuildLevel(int level, int min_class, std::span<const int64_t> ts,
                        std::span<const int64_t> dur, std::span<const int8_t> cls) {
  PyramidLevel out;
  out.level = level;
  for (size_t p = 0; p < ts.size(); ++p) {
    if (cls[p] >= level || cls[p] < min_class) continue;
    const int64_t bucket = FloorShift(ts[p], level);
    const Int128 bucket_end = (static_cast<Int128>(bucket) + 1) * Pow2(level);
    const Int128 end = EventEnd(ts[p], dur[p]);
    const Int128 inside = std::min(end, bucket_end) - ts[p];
    AddToBucket(&out, bucket, 1, static_cast<int64_t>(inside));
    // dur < 2^level: the spill stays inside the next bucket (which exists: a
    // bucket_end past INT64_MAX leaves no spill).
    if (end > bucket_end) AddToBucket(&out, bucket + 1, 0, static_cast<int64_t>(end - bucket_end));
  }
  return out;
}

// Level `level` from the stored level below it: its buckets merged (counts by
// start and clipped busy time add up) plus the events of the classes between.
PyramidLevel BuildLevelFrom(const PyramidLevel& below, int level, std::span<const int64_t> ts,
                            std::span<const int64_t> dur, std::span<const int8_t> cls) {
  const PyramidLevel extra = BuildLevel(level, below.level, ts, dur, cls);
  const int shift = level - below.level;
  PyramidLevel out;
  out.level = level;
  size_t i = 0, j = 0;
  while (i < below.bucket.size() || j < extra.bucket.size()) {
    const bool from_below =
        j == extra.bucket.size() ||
        (i < below.bucket.size() && FloorShift(below.bucket[i], shift) <= extra.bucket[j]);
    const int64_t bucket = from_below ? FloorShift(below.bucket[i], shift) : extra.bucket[j];
    const uint32_t count = from_below ? below.count[i] : extra.count[j];
    const int64_t busy = from_below ? below.busy_ns[i++] : extra.busy_ns[j++];
    if (!out.bucket.empty() && out.bucket.back() == bucket) {
      out.count.back() += count;
      out.busy_ns.back() = SaturatingAdd(out.busy_ns.back(), busy);
    } else {
      out.bucket.push_back(bucket);
      out.count.push_back(count);
      out.busy_ns.push_back(busy);
    }
  }
  return out;
}

// occupied[L]: buckets of level L holding a start. Two starts share a bucket
// of level L iff (a ^ b) >> L == 0, i.e. L >= bit_width(a ^ b).
std::array<uint64_t, kMaxLevel + 1> OccupiedBuckets(std::span<const int64_t> starts) {
  std::array<uint64_t, 66> above{};  // above[w]: neighbours with bit_width == w
  for (size_t i = 1; i < starts.size(); ++i)
    ++above[std::bit_width(static_cast<uint64_t>(starts[i] ^ starts[i - 1]))];
  for (int w = 64; w >= 0; --w) above[w] += above[w + 1];  // now: bit_width >= w
  std::array<uint64_t, kMaxLevel + 1> occupied{};
  for (int level = 0; level <= kMaxLevel; ++level)
    occupied[level] = starts.empty() ? 0 : 1 + above[level + 1];
  return occupied;
}

// The pyramid of a row: the chosen levels that fit the budget, kept from the
// top down by their occupied buckets (an estimate of their entries), built
// from the bottom up, then the lowest dropped while the real entries exceed it.
std::vector<PyramidLevel> BuildPyramid(std::span<const int64_t> ts, std::span<const int64_t> dur,
                                       std::span<const int8_t> cls) {
  const std::vector<int> chosen = ChoosePyramidLevels(ts);
  if (chosen.empty()) return {};
  const auto occupied = OccupiedBuckets(ts);
  const size_t budget = ts.size() / kEventsPerPyramidBucket;
  size_t first = chosen.size(), estimate = 0;
  while (first > 0 && estimate + occupied[chosen[first - 1]] <= budget)
    estimate += occupied[chosen[--first]];
  std::vector<PyramidLevel> levels;
  size_t entries = 0;
  for (size_t k = first; k < chosen.size(); ++k) {
    levels.push_back(levels.empty() ? BuildLevel(chosen[k], -1, ts, dur, cls)
                                    : BuildLevelFrom(levels.back(), chosen[k], ts, dur, cls));
    entries += levels.back().bucket.size();
  }
  size_t drop = 0;
  while (drop < levels.size() && entries > budget) entries -= levels[drop++].bucket.size();
  levels.erase(levels.begin(), levels.begin() + static_cast<std::ptrdiff_t>(drop));
  for (PyramidLevel& l : levels) Shrink(&l);
  return levels;
}

}  // namespace

std::vector<int> ChoosePyramidLevels(std::span<const int64_t> starts) {
  std::vector<int> levels;
  const size_t n = starts.size();
  if (n <= kRowEventsWithoutPyramid) return levels;
  const auto occupied = OccupiedBuckets(starts);
  for (int level = 0; level <= kMaxLevel; level += kLevelStep) {
    if (occupied[level] * kEventsPerBucketMin > n) continue;
    levels.push_back(level);
    if (occupied[level] <= kTopBuckets) break;
  }
  return levels;
}

RowIndex BuildRow(const EventColumns& events, TrackId track, uint16_t depth,
                  std::vector<EventId> order) {
  RowIndex row;
  row.track = track;
  row.depth = depth;
  const size_t n = order.size();
  std::vector<int64_t> ts(n), dur(n), ends(n);
  bool sorted = true;
  for (size_t p = 0; p < n; ++p) {
    ts[p] = events.ts[order[p]];
    dur[p] = events.dur[order[p]];
    if (p > 0 && sorted)
      sorted = ts[p - 1] != ts[p]     ? ts[p - 1] < ts[p]
               : dur[p - 1] != dur[p] ? dur[p - 1] > dur[p]
                                      : order[p - 1] < order[p];
  }
  if (!sorted) {  // TrackEvents gives time order already; kept for any other caller
    std::sort(order.begin(), order.end(), [&events](EventId a, EventId b) {
      if (events.ts[a] != events.ts[b]) return events.ts[a] < events.ts[b];
      if (events.dur[a] != events.dur[b]) return events.dur[a] > events.dur[b];
      return a < b;
    });
    for (size_t p = 0; p < n; ++p) {
      ts[p] = events.ts[order[p]];
      dur[p] = events.dur[order[p]];
    }
  }
  row.cls.resize(n);
  Int128 reach = INT64_MIN;
  for (size_t p = 0; p < n; ++p) {
    row.cls[p] = static_cast<int8_t>(DurationClass(dur[p]));
    const Int128 end = EventEnd(ts[p], dur[p]);
    ends[p] = SaturateToInt64(end);
    reach = std::max({reach, end, static_cast<Int128>(ts[p]) + 1});
  }
  if (n > 0) {
    row.first_start = ts[0];
    row.reach = SaturateToInt64(reach);
  }
  row.tree = BlockMaxTree(ts, row.cls, ends);
  row.levels = BuildPyramid(ts, dur, row.cls);
  row.order = std::move(order);
  row.order.shrink_to_fit();
  return row;
}

size_t RowIndex::bytes() const {
  size_t b = sizeof(RowIndex) + order.capacity() * sizeof(EventId) + cls.capacity() + tree.bytes();
  for (const PyramidLevel& l : levels) b += sizeof(PyramidLevel) + l.bytes();
  return b;
}

}  // namespace th::serve
