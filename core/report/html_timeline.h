// The timelines of the HTML report, bounded whatever the trace's size:
// - the swimlane of one representative steady-state step: every rank's GPU
//   streams and the host threads that launched their work, on one time axis;
//   every event of that step is kept up to a cap, beyond it the longest ones
//   are kept and each lane also gets its busy share per pixel bucket;
// - the memory timeline of each device (allocated and reserved), reduced to
//   the maximum per time bucket.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/report/analysis_report.h"

namespace th {

struct TimelineLimits {
  size_t max_swimlane_events = 60000;  // events kept on the swimlane
  int density_buckets = 1000;          // per lane, when events were left out
  int memory_buckets = 1200;           // per device
  size_t max_memory_devices = 32;
  size_t max_name_chars = 300;         // per event name shown on the swimlane
  size_t name_budget_bytes = 2 << 20;  // beyond it, names are cut to 40 characters
};

struct SwimlaneLane {
  int64_t rank = 0;
  size_t trace = 0;  // index in the TraceSet
  TrackId track = 0;
  bool gpu = false;
  int32_t device = -1;
  int64_t stream = -1;
  std::string name;              // "GPU 0 stream 7", "thread 1234 (python)"
  int depth = 1;                 // rows of nested slices
  int64_t events = 0;            // events of the lane in the window (kept or not)
  std::vector<uint8_t> density;  // busy % per bucket; empty when nothing was left out
};

struct SwimlaneEvent {
  uint32_t lane = 0;
  int64_t ts = 0, dur = 0;  // ns from Swimlane::origin_ns (on the lane's rank axis)
  uint32_t name = 0;        // index into Swimlane::names
  uint16_t depth = 0;
  EventKind kind = EventKind::kOther;
  int64_t launch = -1;  // index of the host event that launched it, when kept
};

struct RankWindow {
  int64_t rank = 0;
  size_t trace = 0;
  int64_t begin_ns = 0, end_ns = 0;  // trace clock
  int64_t shift_ns = 0;              // subtracted from the trace clock to reach the axis
};

struct Swimlane {
  bool available = false;
  std::string reason;  // why not, when !available
  bool has_step = false;
  int64_t step = -1;
  std::string choice;     // how the step (or window) was chosen
  std::string alignment;  // how ranks share the axis
  int64_t span_ns = 0;    // axis runs 0 .. span_ns
  std::vector<RankWindow> windows;
  std::vector<SwimlaneLane> lanes;
  std::vector<std::string> names;
  std::vector<SwimlaneEvent> events;  // time order per lane
  int64_t total_events = 0;           // in the windows, before the cap
  int64_t names_cut = 0;              // names shortened to stay within the budgets
};

Swimlane BuildSwimlane(const AnalysisReport& report, const TimelineLimits& limits);

struct MemorySeries {
  int64_t rank = 0;
  int device_type = 0;      // c10 DeviceType (0 CPU, 1 CUDA, ...)
  std::string device_name;  // "CUDA 0", "CPU"
  int device = 0;
  int64_t events = 0;
  bool cumulative = false;  // no Total Allocated: running sum of Bytes (inferred, relative)
  int64_t capacity = -1;    // bytes, -1 unknown
  int64_t peak = -1;
  std::string tier;        // oom-risk's tier (LOW, MEDIUM, HIGH); empty: not assessed
  int64_t origin_ns = 0;   // trace clock of t = 0
  std::vector<int64_t> t;  // ns from origin_ns, bucket starts
  std::vector<int64_t> allocated, reserved;  // max in the bucket (bytes; reserved -1 unknown)
};

struct MemoryTimeline {
  std::vector<MemorySeries> series;
  int64_t devices = 0;  // before the cap
  int64_t memory_events = 0;
};

MemoryTimeline BuildMemoryTimeline(const AnalysisReport& report, const TimelineLimits& limits);

}  // namespace th
