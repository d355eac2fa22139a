// ServeRun: one trace `tracehound serve` holds (one per INPUT argument), with
// its level-of-detail index and the lookups the HTTP API needs. An INPUT of
// several ranks is one run over their merged graph (rank_merge.h): its event
// and track ids are job-wide (the rank's offset + the rank's own id).
//
// A run is created with its name only (ready() false) and filled once by
// LoadServeRun on the loader thread; request threads read it only after
// ready() turns true (release/acquire), and never write it. Its overview
// (serve_overview.h) may come earlier: read from the cache before the
// import, it answers /runs, meta and the overview's levels meanwhile.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/status.h"
#include "core/graph/trace.h"
#include "core/serve/lod_index.h"
#include "core/serve/rank_merge.h"

namespace th::serve {

struct RunOverview;

class ServeRun {
 public:
  ServeRun(std::string input, std::string name);
  ~ServeRun();
  ServeRun(const ServeRun&) = delete;
  ServeRun& operator=(const ServeRun&) = delete;

  const std::string& input() const { return input_; }
  const std::string& name() const { return name_; }
  bool ready() const { return ready_.load(std::memory_order_acquire); }
  // Whether loading failed (a run opened on demand); then load_error() says why.
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  const std::string& load_error() const { return load_error_; }
  // Loader thread, instead of Finish: the run will not load.
  void Fail(std::string message) {
    load_error_ = std::move(message);
    failed_.store(true, std::memory_order_release);
  }

  // Valid once ready().
  const Trace& trace() const { return *set_->traces.front(); }
  // The traces as imported, when the run is one trace; null for a run of
  // several ranks (their graphs were merged into one: trace()).
  const TraceSet* imported() const { return ranks_.size() == 1 ? set_.get() : nullptr; }
  const EventGraph& graph() const { return trace().graph; }
  const LodIndex& index() const { return index_; }
  // Earliest start of an indexed event (absolute ns) and the latest end,
  // relative to it.
  int64_t origin_ns() const { return origin_ns_; }
  int64_t end_rel_ns() const { return end_rel_ns_; }
  // abs - origin, clamped to the int64 range.
  int64_t Relative(int64_t abs_ns) const;
  // origin + rel, or nullopt when it leaves the int64 range.
  std::optional<int64_t> Absolute(int64_t rel_ns) const;
  // Hex content key of the input (XXH3-128 of its files), for ETags and the cache.
  const std::string& content_key() const { return content_key_; }
  // Whether the index came from the on-disk cache.
  bool index_from_cache() const { return index_from_cache_; }

  // The run's overview, or null: before ready() one read from the cache (its
  // content key not checked yet), after it one whose content key is the run's.
  const RunOverview* overview() const { return overview_.load(std::memory_order_acquire); }
  // Loader thread only. The run keeps every overview it was given until it
  // ends (a request may still read a dropped one).
  void SetOverview(std::unique_ptr<RunOverview> overview);
  void DropOverview() { overview_.store(nullptr, std::memory_order_release); }

  // The ranks of the run in rank order (one for a single trace), and the
  // position in ranks() of a track's rank.
  const std::vector<RankSpan>& ranks() const { return ranks_; }
  size_t RankOfTrack(TrackId track) const;
  // Per-rank clock offsets (ns, same order as ranks()): the rank's clock minus
  // the job's (aligned = raw - offset); empty with clock_note() saying why.
  const std::vector<int64_t>& clock_offsets() const { return clock_offsets_; }
  const std::string& clock_note() const { return clock_note_; }

  // Row of (track, depth), or nullopt when the index has no such row.
  std::optional<uint32_t> RowOf(TrackId track, uint16_t depth) const;
  // The launch call of a GPU event (the last launch edge to it), or kNoRow.
  EventId LaunchOf(EventId event) const;
  // What a launch call launched, ascending.
  std::vector<EventId> LaunchedBy(EventId call) const;

  // Fills the run from a loaded trace set (exactly one trace: a merged one for
  // several ranks, described by `ranks`; empty = the trace's own rank) and its
  // index; then ready() is true.
  void Finish(std::unique_ptr<TraceSet> set, LodIndex index, std::string content_key,
              bool from_cache, std::vector<RankSpan> ranks = {});
  // Loader thread, before Finish.
  void SetClockOffsets(std::vector<int64_t> offsets, std::string note) {
    clock_offsets_ = std::move(offsets);
    clock_note_ = std::move(note);
  }

 private:
  std::string input_, name_;
  std::unique_ptr<TraceSet> set_;
  LodIndex index_;
  int64_t origin_ns_ = 0, end_rel_ns_ = 0;
  std::string content_key_;
  bool index_from_cache_ = false;
  std::vector<RankSpan> ranks_;
  std::vector<int64_t> clock_offsets_;
  std::string clock_note_;
  std::vector<uint32_t> track_first_row_;                 // per track, kNoRow if none
  std::vector<std::pair<EventId, EventId>> launch_of_;    // (event, call), by event
  std::vector<std::pair<EventId, EventId>> launched_by_;  // (call, event), by call
  std::atomic<bool> ready_{false};
  std::atomic<bool> failed_{false};
  std::string load_error_;
  std::vector<std::unique_ptr<RunOverview>> overviews_;
  std::atomic<const RunOverview*> overview_{nullptr};
};

struct RankClockOffset {
  int64_t rank = 0;
  int64_t offset_ns = 0;  // the rank's clock minus the job's: aligned = raw - offset
};

// Estimates the clock offsets of the ranks of a set (two or more); an error
// or an empty answer says why there are none.
using ClockOffsetSource =
    std::function<StatusOr<std::vector<RankClockOffset>>(const TraceSet& set)>;

struct ServeLoadOptions {
  std::string cache_dir;  // "" = no on-disk index cache
  // For inputs of several ranks; null = none (meta says so).
  ClockOffsetSource clock_offsets = nullptr;
  // Called after the cached overview is read, before the import (tests: to
  // look at the run while it imports).
  std::function<void()> before_import = nullptr;
};

// Where loading a run went (seconds; the hash runs beside the import).
struct ServeLoadTimes {
  double import_s = 0, hash_s = 0, index_s = 0, cache_write_s = 0;
  double overview_s = 0;        // reading the cached overview, or building and storing it
  bool overview_early = false;  // answered from the cache before the import
};

// Loads run->input() (files, directories, archives as `info` reads them; it
// one trace or several ranks, merged into one run), takes its index from the cache or builds it,
// and finishes the run (ready), then stores a built index in the cache. With a cache, the run's
// overview is first looked up by the input's fast key and answers at once; once the content key is
// known, an overview of other content is dropped with a warning, and a missing one is built and
// stored. Errors name the input; `note` receives warnings (a corrupt cache file) one per line;
// `times`, when given, where the time went.
Status LoadServeRun(ServeRun* run, const ServeLoadOptions& options, std::string* note,
                    ServeLoadTimes* times = nullptr);

}  // namespace th::serve
