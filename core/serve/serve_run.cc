#include "core/serve/serve_run.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <limits>

#include "core/import/trace_loader.h"
#include "core/serve/lod_levels.h"
#include "core/serve/rank_merge.h"
#include "core/serve/serve_index_cache.h"
#include "core/serve/serve_overview.h"
#include "core/serve/serve_overview_io.h"

namespace th::serve {
namespace {

using Pairs = std::vector<std::pair<EventId, EventId>>;

// (kernel, call) for the last launch edge to each event, by kernel; and
// (call, kernel) for every such pair, by call.
void LaunchPairs(const EdgeTable& e, Pairs* launch_of, Pairs* launched_by) {
  Pairs by_dst;  // (dst, edge)
  for (size_t k = 0; k < e.size(); ++k)
    if (e.kind[k] == EdgeKind::kLaunch) by_dst.push_back({e.dst[k], static_cast<EventId>(k)});
  std::sort(by_dst.begin(), by_dst.end());
  for (size_t k = 0; k < by_dst.size(); ++k) {
    if (k + 1 < by_dst.size() && by_dst[k + 1].first == by_dst[k].first) continue;  // a later edge
    const EventId call = e.src[by_dst[k].second];
    launch_of->push_back({by_dst[k].first, call});
    launched_by->push_back({call, by_dst[k].first});
  }
  std::sort(launched_by->begin(), launched_by->end());
}

}  // namespace

ServeRun::ServeRun(std::string input, std::string name)
    : input_(std::move(input)), name_(std::move(name)) {}

ServeRun::~ServeRun() = default;

void ServeRun::SetOverview(std::unique_ptr<RunOverview> overview) {
  overviews_.push_back(std::move(overview));
  overview_.store(overviews_.back().get(), std::memory_order_release);
}

std::optional<uint32_t> ServeRun::RowOf(TrackId track, uint16_t depth) const {
  if (track >= track_first_row_.size() || track_first_row_[track] == kNoRow) return std::nullopt;
  for (uint32_t r = track_first_row_[track]; r < index_.row_count(); ++r) {
    const LodRow row = index_.row(r);
    if (row.track != track) break;
    if (row.depth == depth) return r;
  }
  return std::nullopt;
}

int64_t ServeRun::Relative(int64_t abs_ns) const {
  const Int128 rel = static_cast<Int128>(abs_ns) - origin_ns_;
  if (rel < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return SaturateToInt64(rel);
}

std::optional<int64_t> ServeRun::Absolute(int64_t rel_ns) const {
  int64_t out;
  if (__builtin_add_overflow(origin_ns_, rel_ns, &out)) return std::nullopt;
  return out;
}

EventId ServeRun::LaunchOf(EventId event) const {
  auto it = std::lower_bound(launch_of_.begin(), launch_of_.end(), std::pair{event, EventId{0}});
  return it != launch_of_.end() && it->first == event ? it->second : kNoRow;
}

std::vector<EventId> ServeRun::LaunchedBy(EventId call) const {
  std::vector<EventId> out;
  auto it = std::lower_bound(launched_by_.begin(), launched_by_.end(), std::pair{call, EventId{0}});
  for (; it != launched_by_.end() && it->first == call; ++it) out.push_back(it->second);
  return out;
}

size_t ServeRun::RankOfTrack(TrackId track) const {
  auto it = std::upper_bound(ranks_.begin(), ranks_.end(), track,
                             [](TrackId t, const RankSpan& r) { return t < r.first_track; });
  return it == ranks_.begin() ? 0 : static_cast<size_t>(it - ranks_.begin() - 1);
}

void ServeRun::Finish(std::unique_ptr<TraceSet> set, LodIndex index, std::string content_key,
                      bool from_cache, std::vector<RankSpan> ranks) {
  set_ = std::move(set);
  ranks_ = std::move(ranks);
  if (ranks_.empty()) {
    const EventGraph& g = set_->traces.front()->graph;
    ranks_.push_back({set_->traces.front()->info.rank, 0, static_cast<uint32_t>(g.events.size()), 0,
                      static_cast<uint32_t>(g.tracks.size())});
  }
  index_ = std::move(index);
  content_key_ = std::move(content_key);
  index_from_cache_ = from_cache;
  const EventGraph& g = graph();
  track_first_row_.assign(g.tracks.size(), kNoRow);
  int64_t first = std::numeric_limits<int64_t>::max(), reach = std::numeric_limits<int64_t>::min();
  for (uint32_t r = 0; r < index_.row_count(); ++r) {
    const RowIndex& row = index_.row_index(r);
    if (track_first_row_[row.track] == kNoRow) track_first_row_[row.track] = r;
    if (row.size() == 0) continue;
    first = std::min(first, row.first_start);
    reach = std::max(reach, row.reach);
  }
  origin_ns_ = index_.row_count() && first != std::numeric_limits<int64_t>::max() ? first : 0;
  end_rel_ns_ =
      reach > first ? SaturateToInt64(static_cast<Int128>(reach) - static_cast<Int128>(first)) : 0;
  LaunchPairs(g.edges, &launch_of_, &launched_by_);
  ready_.store(true, std::memory_order_release);
}

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The input's fast key and the overview cached under it, which the run then
// answers with; "" when there is no cache or the key cannot be computed.
std::string ReadEarlyOverview(ServeRun* run, const std::string& dir, std::string* note,
                              ServeLoadTimes* spent) {
  if (dir.empty()) return "";
  const Clock::time_point start = Clock::now();
  auto fast = InputFastKey(run->input());
  if (!fast.ok()) return "";  // the import names the problem
  auto cached = ReadCachedOverview(dir, *fast);
  if (cached.ok()) {
    run->SetOverview(std::make_unique<RunOverview>(std::move(*cached)));
    spent->overview_early = true;
  } else if (cached.status().code() != StatusCode::kNotFound) {
    *note += "warning: ignoring the cached overview: " + cached.status().message() + "\n";
  }
  spent->overview_s = Since(start);
  return *fast;
}

// The index of `graph`, from the cache when it is there; *from_cache says which.
LodIndex CachedOrBuiltIndex(const std::string& dir, const std::string& key, const EventGraph& graph,
                            std::string* note, bool* from_cache) {
  *from_cache = false;
  if (!dir.empty()) {
    auto cached = ReadCachedIndex(dir, key, graph);
    if (cached.ok()) {
      *from_cache = true;
      return std::move(*cached);
    }
    if (cached.status().code() != StatusCode::kNotFound)
      *note += "warning: ignoring the cached index: " + cached.status().message() + "\n";
  }
  return BuildLodIndex(graph);
}

// The offsets of every rank of `set` in its order, or none with the reason.
void EstimateClockOffsets(const ClockOffsetSource& source, const TraceSet& set, ServeRun* run) {
  if (!source) return run->SetClockOffsets({}, "no clock offset estimate was asked for");
  auto found = source(set);
  if (!found.ok()) return run->SetClockOffsets({}, found.status().message());
  std::vector<int64_t> offsets;
  for (const auto& trace : set.traces) {
    auto it = std::find_if(found->begin(), found->end(),
                           [&](const RankClockOffset& o) { return o.rank == trace->info.rank; });
    if (it == found->end())
      return run->SetClockOffsets(
          {}, "no clock offset for rank " + std::to_string(trace->info.rank) +
                  " (the stragglers plugin needs collectives on two ranks or more)");
    offsets.push_back(it->offset_ns);
  }
  run->SetClockOffsets(std::move(offsets), "");
}

}  // namespace

Status LoadServeRun(ServeRun* run, const ServeLoadOptions& options, std::string* note,
                    ServeLoadTimes* times) {
  ServeLoadTimes spent;
  const std::string& dir = options.cache_dir;
  const std::string fast_key = ReadEarlyOverview(run, dir, note, &spent);
  if (options.before_import) options.before_import();
  // The content key is read beside the import (the import leaves a core
  // idle in its serial phases).
  Clock::time_point start = Clock::now();
  auto content = std::async(std::launch::async, [&] {
    auto key = InputContentKey(run->input());
    spent.hash_s = Since(start);
    return key;
  });
  auto set = LoadTraceSet({run->input()}, LoadOptions{});
  spent.import_s = Since(start);
  auto key = content.get();
  if (!set.ok()) return set.status();
  if (set->traces.empty()) return InvalidInput(run->input() + ": holds no trace");
  if (!key.ok()) return key.status();
  if (run->overview() && run->overview()->content_key != *key) {
    *note += "warning: ignoring the cached overview " + OverviewCachePath(dir, fast_key) +
             ": it is of other content (the trace changed in place)\n";
    run->DropOverview();
  }
  std::vector<RankSpan> ranks;
  std::unique_ptr<TraceSet> owned;
  if (set->traces.size() > 1) {
    EstimateClockOffsets(options.clock_offsets, *set, run);
    MergedRanks merged = MergeRanks(*set);
    set->traces.clear();  // the ranks' own graphs are not needed any more
    owned = std::move(merged.set);
    ranks = std::move(merged.ranks);
  } else {
    owned = std::make_unique<TraceSet>(std::move(*set));
  }
  start = Clock::now();
  bool from_cache = false;
  LodIndex index = CachedOrBuiltIndex(dir, *key, owned->traces.front()->graph, note, &from_cache);
  spent.index_s = Since(start);
  run->Finish(std::move(owned), std::move(index), *key, from_cache, std::move(ranks));
  // Stored once the run answers: the first view does not wait for the disk.
  if (!run->overview()) {
    start = Clock::now();
    run->SetOverview(std::make_unique<RunOverview>(BuildOverview(*run)));
    if (!fast_key.empty()) {
      Status stored = WriteCachedOverview(dir, fast_key, *run->overview());
      if (!stored.ok()) *note += "warning: overview not cached: " + stored.message() + "\n";
    }
    spent.overview_s += Since(start);
  }
  if (!dir.empty() && !from_cache) {
    start = Clock::now();
    Status stored = WriteCachedIndex(dir, *key, run->index());
    if (!stored.ok()) *note += "warning: index not cached: " + stored.message() + "\n";
    spent.cache_write_s = Since(start);
  }
  if (times) *times = spent;
  return Ok();
}

}  // namespace th::serve
