#include "core/serve/serve_counters.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

#include "core/report/json_writer.h"

namespace th::serve {

// A sampled series: values at times, in time order, with the min and max of
// each block of kBlock values for range queries.
struct CounterIndex::Sampled {
  static constexpr size_t kBlock = 64;
  std::vector<int64_t> t;
  std::vector<double> v;
  std::vector<double> block_min, block_max;

  void Finish() {
    std::vector<size_t> order(t.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t[a] < t[b]; });
    std::vector<int64_t> ts(t.size());
    std::vector<double> vs(v.size());
    for (size_t k = 0; k < order.size(); ++k) {
      ts[k] = t[order[k]];
      vs[k] = v[order[k]];
    }
    t = std::move(ts);
    v = std::move(vs);
    for (size_t b = 0; b < v.size(); b += kBlock) {
      const auto [lo, hi] =
          std::minmax_element(v.begin() + b, v.begin() + std::min(v.size(), b + kBlock));
      block_min.push_back(*lo);
      block_max.push_back(*hi);
    }
  }
  // Min and max of v[a, b), a < b.
  std::pair<double, double> MinMax(size_t a, size_t b) const {
    double lo = v[a], hi = v[a];
    while (a < b) {
      if (a % kBlock == 0 && a + kBlock <= b) {
        lo = std::min(lo, block_min[a / kBlock]);
        hi = std::max(hi, block_max[a / kBlock]);
        a += kBlock;
      } else {
        lo = std::min(lo, v[a]);
        hi = std::max(hi, v[a]);
        ++a;
      }
    }
    return {lo, hi};
  }
};

namespace {

std::string IdText(const StringPool& s, StringId text, int64_t number) {
  return text != kEmptyString ? std::string(s.Get(text)) : std::to_string(number);
}

std::string ProcessName(const EventGraph& g, TrackId id) {
  const Track& t = g.tracks[id];
  return t.process_name != kEmptyString ? std::string(g.strings.Get(t.process_name))
                                        : "process " + IdText(g.strings, t.pid_str, t.pid);
}

}  // namespace

CounterIndex::CounterIndex(const ServeRun& run) {
  const EventGraph& g = run.graph();
  const std::string rank = "rank " + std::to_string(run.trace().info.rank);
  auto add_sampled = [&](CounterTrack track, std::unique_ptr<Sampled> s) {
    s->Finish();
    track.samples = static_cast<int64_t>(s->t.size());
    tracks_.push_back(std::move(track));
    sampled_.push_back(std::move(s));
    derived_.push_back({0, GpuCounter::kUtilisation});
  };
  // Chrome `C` counters: per (track, event name, series).
  std::map<std::tuple<TrackId, StringId, StringId>, std::unique_ptr<Sampled>> chrome;
  for (size_t r = 0; r < g.counters.size(); ++r) {
    const EventId e = g.counters.event[r];
    auto& s = chrome[{g.events.track[e], g.events.name[e], g.counters.series[r]}];
    if (!s) s = std::make_unique<Sampled>();
    s->t.push_back(run.Relative(g.events.ts[e]));
    s->v.push_back(g.counters.value[r]);
  }
  for (auto& [key, s] : chrome) {
    const auto [track, name, series] = key;
    CounterTrack t;
    t.name = std::string(g.strings.Get(name));
    if (g.strings.Get(series) != g.strings.Get(name))
      t.name += ": " + std::string(g.strings.Get(series));
    t.group = {rank, ProcessName(g, track)};
    add_sampled(std::move(t), std::move(s));
  }
  // Allocator totals: per (device type, device, field).
  std::map<std::tuple<int, int, int>, std::unique_ptr<Sampled>> memory;
  const MemoryArgsTable& m = g.memory_args;
  for (size_t r = 0; r < m.size(); ++r) {
    const int64_t ts = run.Relative(g.events.ts[m.event[r]]);
    for (int field = 0; field < 2; ++field) {
      const int64_t value = field == 0 ? m.total_allocated[r] : m.total_reserved[r];
      if (value == kNoValue) continue;
      auto& s = memory[{m.device_type[r], m.device_id[r], field}];
      if (!s) s = std::make_unique<Sampled>();
      s->t.push_back(ts);
      s->v.push_back(static_cast<double>(value));
    }
  }
  for (auto& [key, s] : memory) {
    const auto [type, device, field] = key;
    CounterTrack t;
    t.name = field == 0 ? "Total Allocated" : "Total Reserved";
    t.unit = "bytes";
    t.group = {rank, type == 1   ? "GPU " + std::to_string(device) + " memory"
                     : type == 0 ? std::string("CPU memory")
                                 : "device type " + std::to_string(type) + " memory " +
                                       std::to_string(device)};
    add_sampled(std::move(t), std::move(s));
  }
  // Derived per GPU.
  gpus_ = BuildGpuCounters(run);
  for (size_t k = 0; k < gpus_.size(); ++k) {
    const GpuCounterData& d = gpus_[k];
    const std::string gpu = "GPU " + std::to_string(d.device);
    for (GpuCounter what :
         {GpuCounter::kUtilisation, GpuCounter::kSmEfficiency, GpuCounter::kOccupancy}) {
      CounterTrack t;
      t.derived = true;
      t.unit = "%";
      t.group = {rank, gpu + " counters"};
      t.samples = d.kernels;
      if (what == GpuCounter::kUtilisation) {
        t.name = "GPU utilisation";
      } else if (what == GpuCounter::kSmEfficiency) {
        t.name = "est. SM efficiency";
        t.inferred = true;
        if (d.num_sms == 0)
          t.unavailable = "SM count not known: the trace gives no device properties for " + gpu;
      } else {
        t.name = "est. achieved occupancy";
        t.inferred = true;
        t.samples = d.with_occupancy;
        if (d.with_occupancy == 0)
          t.unavailable = "no kernel of " + gpu + " carries \"est. achieved occupancy %\"";
      }
      tracks_.push_back(std::move(t));
      sampled_.push_back(nullptr);
      derived_.push_back({k, what});
    }
  }
}

CounterIndex::~CounterIndex() = default;

CounterAnswer CounterIndex::Query(size_t track, int64_t t0, int64_t t1, int64_t width) const {
  CounterAnswer out;
  if (!tracks_[track].unavailable.empty()) return out;
  if (!sampled_[track]) {
    const auto [gpu, what] = derived_[track];
    out.buckets = GpuCounterBuckets(gpus_[gpu], what, t0, t1, width);
    return out;
  }
  const Sampled& s = *sampled_[track];
  size_t a = static_cast<size_t>(std::lower_bound(s.t.begin(), s.t.end(), t0) - s.t.begin());
  if (a > 0) out.before = s.v[a - 1];
  const Int128 span = static_cast<Int128>(t1) - t0;
  while (a < s.t.size() && s.t[a] < t1) {
    const int64_t px = static_cast<int64_t>((static_cast<Int128>(s.t[a]) - t0) * width / span);
    const int64_t next = BucketStart(t0, t1, width, px + 1);
    const size_t b =
        static_cast<size_t>(std::lower_bound(s.t.begin() + a, s.t.end(), next) - s.t.begin());
    const auto [lo, hi] = s.MinMax(a, b);
    out.buckets.push_back({px, lo, hi, s.v[b - 1]});
    a = b;
  }
  return out;
}

std::string CounterTracksJson(const CounterIndex& index) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Key("counters").BeginArray();
    for (size_t k = 0; k < index.tracks().size(); ++k) {
      const CounterTrack& t = index.tracks()[k];
      w.BeginObject().Field("track", static_cast<int64_t>(k)).Field("name", t.name);
      w.Key("group").BeginArray();
      for (const std::string& g : t.group) w.String(g);
      w.EndArray().Field("unit", t.unit).Field("kind", t.inferred ? "inferred" : "measured");
      w.Field("source", t.derived ? "derived" : "sampled").Field("samples", t.samples);
      w.Key("unavailable");
      if (t.unavailable.empty())
        w.Null();
      else
        w.String(t.unavailable);
      w.EndObject();
    }
    w.EndArray().EndObject();
  }
  return out.str();
}

std::string CounterJson(const CounterIndex& index, size_t track, const CounterAnswer& answer) {
  const CounterTrack& t = index.tracks()[track];
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Field("track", static_cast<int64_t>(track)).Field("name", t.name);
    w.Field("unit", t.unit).Field("kind", t.inferred ? "inferred" : "measured");
    w.Key("unavailable");
    if (t.unavailable.empty())
      w.Null();
    else
      w.String(t.unavailable);
    w.Key("before");
    if (answer.before)
      w.Double(*answer.before);
    else
      w.Null();
    w.Key("buckets").BeginArray();
    for (const CounterBucket& b : answer.buckets) {
      w.BeginArray().Int(b.px).Double(b.min).Double(b.max).Double(b.last).EndArray();
    }
    w.EndArray().EndObject();
  }
  return out.str();
}

}  // namespace th::serve
