#include "core/report/trace_summary.h"

#include <algorithm>
#include <array>
#include <set>
#include <unordered_map>

namespace th {

namespace {

void AddTotals(DurationTotal& into, const DurationTotal& d) {
  into.count += d.count;
  into.total_ns += d.total_ns;
}

}  // namespace

TraceSummary Summarize(const Trace& trace) {
  const EventGraph& g = trace.graph;
  const EventColumns& e = g.events;
  TraceSummary s;
  s.path = trace.info.path;
  s.rank = trace.info.rank;
  s.rank_source = trace.info.rank_source;
  s.format = trace.info.format;
  s.events = static_cast<int64_t>(e.size());
  s.base_time_ns = trace.info.base_time_ns;
  s.devices = trace.info.devices;
  s.file_bytes = trace.info.file_bytes;
  s.text_bytes = trace.info.text_bytes;
  s.import_seconds = trace.info.import_seconds;
  s.read_seconds = trace.info.read_seconds;
  s.parse_seconds = trace.info.parse_seconds;
  s.merge_seconds = trace.info.merge_seconds;
  s.finish_seconds = trace.info.finish_seconds;
  s.graph_bytes = g.bytes();
  s.string_bytes = g.strings.bytes();

  std::array<int64_t, 256> by_ph{};
  std::vector<int64_t> by_cat(g.strings.size(), 0);
  std::array<int64_t, static_cast<size_t>(EventKind::kCount)> by_kind{};
  int64_t first = INT64_MAX, last = INT64_MIN;
  int64_t derived = 0;  // importer-made events (kFlagDerived): not in the file
  for (EventId i = 0; i < e.size(); ++i) {
    if (e.flags[i] & kFlagDerived) {
      ++derived;
      continue;
    }
    ++by_ph[static_cast<unsigned char>(e.ph[i])];
    ++by_cat[e.cat[i]];
    EventKind k = e.kind[i];
    ++by_kind[static_cast<size_t>(k)];
    if (k == EventKind::kKernel) {
      ++s.kernels.count;
      s.kernels.total_ns += e.dur[i];
    } else if (k == EventKind::kMemcpy) {
      ++s.memcpy.count;
      s.memcpy.total_ns += e.dur[i];
    } else if (k == EventKind::kMemset) {
      ++s.memset.count;
      s.memset.total_ns += e.dur[i];
    }
    if (e.ph[i] != 'M' && !(e.flags[i] & kFlagInvalidTs)) {
      first = std::min(first, e.ts[i]);
      last = std::max(last, e.ts[i] + e.dur[i]);
    }
  }
  s.events -= derived;
  for (int c = 0; c < 256; ++c) {
    if (!by_ph[c]) continue;
    s.events_by_phase[c == 0 ? std::string("<none>") : std::string(1, static_cast<char>(c))] =
        by_ph[c];
  }
  for (StringId c = 0; c < by_cat.size(); ++c) {
    if (by_cat[c])
      s.events_by_category[c == 0 ? "<none>" : std::string(g.strings.Get(c))] = by_cat[c];
  }
  for (size_t k = 0; k < by_kind.size(); ++k)
    if (by_kind[k])
      s.events_by_kind[std::string(EventKindName(static_cast<EventKind>(k)))] = by_kind[k];
  if (first != INT64_MAX) {
    s.first_ts_ns = first;
    s.last_end_ns = last;
  }
  // Kineto since 2024 writes ts relative to baseTimeNanoseconds (a base floored
  // to ~91 days, so ts can exceed 1e12 us); older files write epoch us.
  if (s.base_time_ns) {
    s.timestamp_basis = "relative_to_baseTimeNanoseconds";
    if (s.first_ts_ns) s.epoch_start_ns = *s.base_time_ns + *s.first_ts_ns;
  } else if (s.first_ts_ns && *s.first_ts_ns > 1'000'000'000'000'000'000LL) {
    s.timestamp_basis = "absolute_epoch_us";
    s.epoch_start_ns = s.first_ts_ns;
  } else {
    s.timestamp_basis = "relative_unknown_origin";
  }

  for (const Track& t : g.tracks) s.gpu_streams += t.kind == TrackKind::kGpuStream;
  s.steps = static_cast<int64_t>(g.steps.size());
  for (const Step& st : g.steps) s.step_numbers.push_back(st.number);
  for (EventId i = 0; i < e.size(); ++i) {
    std::string_view n = g.strings.Get(e.name[i]);
    if (n.starts_with("ProfilerStep#") && e.kind[i] != EventKind::kMetadata)
      ++s.profiler_step_events;
  }
  s.memory_events = by_kind[static_cast<size_t>(EventKind::kMemory)];
  const MemoryArgsTable& m = g.memory_args;
  for (size_t r = 0; r < m.size(); ++r) {
    if (e.kind[m.event[r]] != EventKind::kMemory) continue;
    if (m.total_allocated[r] != kNoValue)
      s.peak_total_allocated =
          std::max(s.peak_total_allocated.value_or(INT64_MIN), m.total_allocated[r]);
    if (m.total_reserved[r] != kNoValue)
      s.peak_total_reserved =
          std::max(s.peak_total_reserved.value_or(INT64_MIN), m.total_reserved[r]);
  }
  // Import links each GPU activity to at most one launch.
  for (size_t k = 0; k < g.edges.size(); ++k) {
    if (g.edges.kind[k] == EdgeKind::kLaunch) {
      ++s.launch_edges;
      s.kernels_with_launch += e.kind[g.edges.dst[k]] == EventKind::kKernel;
    } else {
      ++s.flow_edges;
    }
  }
  s.trust = trace.trust.Entries();
  return s;
}

TraceSummary SummarizeSet(const TraceSet& set, std::vector<TraceSummary>* traces) {
  TraceSummary total;
  total.ranks = static_cast<int64_t>(set.traces.size());
  TrustTable trust;
  trust.Merge(set.trust);
  std::set<std::string> formats;
  for (const auto& trace : set.traces) {
    TraceSummary s = Summarize(*trace);
    formats.insert(s.format);
    total.events += s.events;
    for (auto& [k, v] : s.events_by_phase) total.events_by_phase[k] += v;
    for (auto& [k, v] : s.events_by_category) total.events_by_category[k] += v;
    for (auto& [k, v] : s.events_by_kind) total.events_by_kind[k] += v;
    AddTotals(total.kernels, s.kernels);
    AddTotals(total.memcpy, s.memcpy);
    AddTotals(total.memset, s.memset);
    total.gpu_streams += s.gpu_streams;
    total.steps = std::max(total.steps, s.steps);
    total.profiler_step_events += s.profiler_step_events;
    total.memory_events += s.memory_events;
    if (s.peak_total_allocated)
      total.peak_total_allocated =
          std::max(total.peak_total_allocated.value_or(INT64_MIN), *s.peak_total_allocated);
    if (s.peak_total_reserved)
      total.peak_total_reserved =
          std::max(total.peak_total_reserved.value_or(INT64_MIN), *s.peak_total_reserved);
    total.launch_edges += s.launch_edges;
    total.kernels_with_launch += s.kernels_with_launch;
    total.flow_edges += s.flow_edges;
    total.file_bytes += s.file_bytes;
    total.text_bytes += s.text_bytes;
    total.import_seconds = std::max(total.import_seconds, s.import_seconds);
    total.read_seconds += s.read_seconds;
    total.parse_seconds += s.parse_seconds;
    total.merge_seconds += s.merge_seconds;
    total.finish_seconds += s.finish_seconds;
    total.graph_bytes += s.graph_bytes;
    total.string_bytes += s.string_bytes;
    for (auto& d : s.devices) total.devices.push_back(d);
    trust.Merge(trace->trust);
    if (traces) traces->push_back(std::move(s));
  }
  if (!set.traces.empty() && set.traces.size() == 1) {
    total.step_numbers =
        traces && !traces->empty() ? traces->front().step_numbers : std::vector<int64_t>{};
  }
  total.format = formats.size() == 1 ? *formats.begin() : "mixed";
  total.trust = trust.Entries();
  return total;
}

}  // namespace th
