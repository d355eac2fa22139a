#include "core/report/annotated_trace.h"

#include <libdeflate.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "core/graph/json_number.h"
#include "core/graph/text_escape.h"
#include "core/report/finding_json.h"
#include "core/report/output_file.h"

namespace th {
namespace {

class Out {
 public:
  std::string text;

  void Raw(std::string_view s) { text.append(s); }
  void Str(std::string_view s) { AppendJsonString(&text, s); }
  void Int(int64_t v) { text.append(std::to_string(v)); }
  void Num(double v) { text.append(JsonNumber(v)); }
  // Nanoseconds as microseconds with the exact ns digits: 1234567 -> 1234.567.
  void Micros(int64_t ns) {
    uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", mag / 1000,
                  mag % 1000);
    text.append(buf);
  }
  void Key(std::string_view k) {
    Str(k);
    text.push_back(':');
  }
};

// Added events go on their own thread of the track's process: on the
// original threads they would become slices that flow ends bind to.
constexpr std::string_view kFindingThread = "tracehound findings";
constexpr std::string_view kCounterThread = "tracehound counters";

void WritePid(Out& o, const EventGraph& g, const Track& t) {
  o.Raw(",\"pid\":");
  if (t.pid_str != kEmptyString)
    o.Str(g.strings.Get(t.pid_str));
  else
    o.Int(t.pid);
}

void WritePidTid(Out& o, const EventGraph& g, const Track& t) {
  WritePid(o, g, t);
  o.Raw(",\"tid\":");
  if (t.tid_str != kEmptyString)
    o.Str(g.strings.Get(t.tid_str));
  else
    o.Int(t.tid);
}

// Comma-separated `args` members; `first` tracks whether one was written.
struct ArgList {
  Out& o;
  bool first = true;
  void Key(std::string_view k) {
    o.Raw(first ? ",\"args\":{" : ",");
    first = false;
    o.Key(k);
  }
  void End() {
    if (!first) o.Raw("}");
  }
};

void WriteDim3(Out& o, const PodColumn<int32_t> (&d)[3], uint32_t row) {
  o.Raw("[");
  for (int i = 0; i < 3; ++i) {
    if (i) o.Raw(",");
    o.Int(d[i][row]);
  }
  o.Raw("]");
}

void WriteOriginalArgs(Out& o, const EventGraph& g, EventId i,
                       const std::vector<uint32_t>& collective_row,
                       const std::vector<std::pair<uint32_t, uint32_t>>& counter_rows) {
  const EventColumns& e = g.events;
  ArgList a{o};
  EventKind k = e.kind[i];
  if (k == EventKind::kMetadata) {
    std::string_view name = g.strings.Get(e.name[i]);
    const Track& t = g.tracks[e.track[i]];
    if (name == "process_name") {
      a.Key("name");
      o.Str(g.strings.Get(t.process_name));
    } else if (name == "thread_name") {
      a.Key("name");
      o.Str(g.strings.Get(t.thread_name));
    }
    a.End();
    return;
  }
  if (k != EventKind::kFlow && e.correlation[i] != kNoValue) {
    a.Key("correlation");
    o.Int(e.correlation[i]);
  }
  if (e.external_id[i] != kNoValue) {
    a.Key("External id");
    o.Int(e.external_id[i]);
  }
  uint32_t row = e.args_row[i];
  if (row != kNoRow &&
      (IsGpuActivity(k) || k == EventKind::kGpuSync || k == EventKind::kGpuEvent)) {
    const GpuArgsTable& ga = g.gpu_args;
    if (ga.device[row] >= 0) {
      a.Key("device");
      o.Int(ga.device[row]);
    }
    if (ga.stream[row] >= 0) {
      a.Key("stream");
      o.Int(ga.stream[row]);
    }
    if (k == EventKind::kKernel) {
      bool any_dim = false;
      for (int d = 0; d < 3; ++d) any_dim |= ga.grid[d][row] != 0 || ga.block[d][row] != 0;
      if (any_dim) {
        a.Key("grid");
        WriteDim3(o, ga.grid, row);
        a.Key("block");
        WriteDim3(o, ga.block, row);
      }
      if (ga.registers[row] != 0) {
        a.Key("registers per thread");
        o.Int(ga.registers[row]);
      }
      if (ga.shared_mem[row] != 0) {
        a.Key("shared memory");
        o.Int(ga.shared_mem[row]);
      }
      if (ga.occupancy[row] >= 0) {
        a.Key("est. achieved occupancy %");
        o.Num(static_cast<double>(ga.occupancy[row]));
      }
    }
    if (ga.bytes[row] >= 0) {
      a.Key("bytes");
      o.Int(ga.bytes[row]);
    }
  }
  if (collective_row[i] != kNoRow) {
    const CollectiveArgsTable& c = g.collective_args;
    uint32_t r = collective_row[i];
    a.Key("Collective name");
    o.Str(g.strings.Get(c.collective[r]));
    a.Key("dtype");
    o.Str(g.strings.Get(c.dtype[r]));
    a.Key("Process Group Name");
    o.Str(g.strings.Get(c.group[r]));
    a.Key("In msg nelems");
    o.Int(c.in_nelems[r]);
    a.Key("Out msg nelems");
    o.Int(c.out_nelems[r]);
    a.Key("Group size");
    o.Int(c.group_size[r]);
  }
  if (row != kNoRow && (k == EventKind::kMemory || k == EventKind::kOutOfMemory)) {
    const MemoryArgsTable& m = g.memory_args;
    a.Key("Device Type");
    o.Int(m.device_type[row]);
    a.Key("Device Id");
    o.Int(m.device_id[row]);
    a.Key("Addr");
    o.Int(m.addr[row]);
    a.Key("Bytes");
    o.Int(m.bytes[row]);
    if (m.total_allocated[row] != kNoValue) {
      a.Key("Total Allocated");
      o.Int(m.total_allocated[row]);
    }
    if (m.total_reserved[row] != kNoValue) {
      a.Key("Total Reserved");
      o.Int(m.total_reserved[row]);
    }
  }
  if (k == EventKind::kCounter && counter_rows[i].first != counter_rows[i].second) {
    for (uint32_t r = counter_rows[i].first; r < counter_rows[i].second; ++r) {
      a.Key(g.strings.Get(g.counters.series[r]));
      o.Num(g.counters.value[r]);
    }
  }
  a.End();
}

void WriteOriginalEvent(Out& o, const EventGraph& g, EventId i,
                        const std::vector<uint32_t>& collective_row,
                        const std::vector<std::pair<uint32_t, uint32_t>>& counter_rows) {
  const EventColumns& e = g.events;
  const Track& t = g.tracks[e.track[i]];
  char ph = e.ph[i];
  o.Raw("{\"ph\":");
  o.Str(ph ? std::string_view(&ph, 1) : std::string_view("X"));
  o.Raw(",\"name\":");
  o.Str(g.strings.Get(e.name[i]));
  if (e.cat[i] != kEmptyString) {
    o.Raw(",\"cat\":");
    o.Str(g.strings.Get(e.cat[i]));
  }
  WritePidTid(o, g, t);
  o.Raw(",\"ts\":");
  o.Micros(e.ts[i]);
  if (ph == 'X' && !(e.flags[i] & kFlagNoDuration)) {
    o.Raw(",\"dur\":");
    o.Micros(e.dur[i]);
  }
  if (e.kind[i] == EventKind::kFlow) {
    o.Raw(",\"id\":");
    if (e.flags[i] & kFlagStringId)
      o.Str(g.strings.Get(static_cast<StringId>(e.correlation[i])));
    else
      o.Int(e.correlation[i]);
    if (e.flags[i] & kFlagFlowBindEnclosing) o.Raw(",\"bp\":\"e\"");
  }
  if (ph == 'i' || ph == 'I') o.Raw(",\"s\":\"t\"");
  WriteOriginalArgs(o, g, i, collective_row, counter_rows);
  o.Raw("}");
}

int64_t FirstTs(const EventGraph& g) {
  int64_t first = INT64_MAX;
  for (EventId i = 0; i < g.events.size(); ++i)
    if (g.events.kind[i] != EventKind::kMetadata && !(g.events.flags[i] & kFlagInvalidTs))
      first = std::min(first, g.events.ts[i]);
  return first == INT64_MAX ? 0 : first;
}

void WriteFinding(Out& o, const Trace& trace, const Finding& f, int64_t first_ts) {
  const EventGraph& g = trace.graph;
  const Track* on = nullptr;
  if (f.scope.device >= 0 || f.scope.stream >= 0) {
    for (const Track& t : g.tracks) {
      if (t.kind != TrackKind::kGpuStream) continue;
      if (f.scope.device >= 0 && t.device != f.scope.device) continue;
      if (f.scope.stream >= 0 && t.stream != f.scope.stream) continue;
      on = &t;
      break;
    }
  }
  int64_t ts = first_ts;
  if (f.scope.step_first >= 0) {
    for (const Step& s : g.steps)
      if (s.number == f.scope.step_first) ts = s.ts;
  }
  o.Raw("{\"ph\":\"i\",\"name\":");
  o.Str(f.title);
  o.Raw(",\"cat\":\"tracehound.finding\"");
  if (on) {
    WritePid(o, g, *on);
    o.Raw(",\"tid\":");
    o.Str(kFindingThread);
    o.Raw(",\"s\":\"p\"");
  } else {
    o.Raw(",\"pid\":");
    o.Str(kFindingThread);
    o.Raw(",\"tid\":");
    o.Str(kFindingThread);
    o.Raw(",\"s\":\"g\"");
  }
  o.Raw(",\"ts\":");
  o.Micros(ts);
  o.Raw(",\"args\":");
  std::ostringstream args;
  {
    JsonWriter w(args, JsonStyle::kCompact);
    WriteFindingJson(w, f, {.layout = kTraceFindingJson});
  }
  o.Raw(args.str());
  o.Raw("}");
}

void WriteCounter(Out& o, const EventGraph& g, const Track& t, std::string_view name,
                  std::string_view series, int64_t ts, double value) {
  o.Raw("{\"ph\":\"C\",\"name\":");
  o.Str(name);
  o.Raw(",\"cat\":\"tracehound.derived\"");
  WritePid(o, g, t);
  o.Raw(",\"tid\":");
  o.Str(kCounterThread);
  o.Raw(",\"ts\":");
  o.Micros(ts);
  o.Raw(",\"args\":{");
  o.Str(series);
  o.Raw(":");
  o.Num(value);
  o.Raw("}}");
}

// Launches outstanding per GPU stream track: +1 at the launch's start, -1 at
// the end of the GPU activity it launched. Returns the events written.
int64_t WriteQueueCounters(Out& o, const EventGraph& g, bool* first) {
  const EventColumns& e = g.events;
  std::map<TrackId, std::vector<std::pair<int64_t, int>>> deltas;
  for (size_t x = 0; x < g.edges.size(); ++x) {
    if (g.edges.kind[x] != EdgeKind::kLaunch) continue;
    EventId src = g.edges.src[x], dst = g.edges.dst[x];
    if (!IsGpuActivity(e.kind[dst])) continue;
    auto& d = deltas[e.track[dst]];
    int64_t end = e.ts[dst] + e.dur[dst];
    // A launch dated after its kernel's end (clock skew) would go negative.
    d.emplace_back(std::min(e.ts[src], end), +1);
    d.emplace_back(end, -1);
  }
  int64_t written = 0;
  for (auto& [track, d] : deltas) {
    std::sort(d.begin(), d.end());
    const Track& t = g.tracks[track];
    std::string name = "queue length";
    if (t.device >= 0) name += " device " + std::to_string(t.device);
    if (t.stream >= 0) name += " stream " + std::to_string(t.stream);
    int64_t level = 0;
    for (size_t j = 0; j < d.size();) {
      int64_t ts = d[j].first;
      for (; j < d.size() && d[j].first == ts; ++j) level += d[j].second;
      if (!*first) o.Raw(",\n");
      *first = false;
      WriteCounter(o, g, t, name, "launches outstanding", ts, static_cast<double>(level));
      ++written;
    }
  }
  return written;
}

// GPU memory allocated per device from the allocator events.
int64_t WriteMemoryCounters(Out& o, const EventGraph& g, bool* first) {
  const MemoryArgsTable& m = g.memory_args;
  std::vector<uint32_t> rows;
  for (uint32_t r = 0; r < m.size(); ++r)
    if (m.device_type[r] != 0 && m.total_allocated[r] != kNoValue &&
        g.events.kind[m.event[r]] == EventKind::kMemory)
      rows.push_back(r);
  std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    return g.events.ts[m.event[a]] < g.events.ts[m.event[b]];
  });
  int64_t written = 0;
  for (uint32_t r : rows) {
    if (!*first) o.Raw(",\n");
    *first = false;
    EventId ev = m.event[r];
    WriteCounter(o, g, g.tracks[g.events.track[ev]],
                 "GPU memory allocated device " + std::to_string(m.device_id[r]), "bytes",
                 g.events.ts[ev], static_cast<double>(m.total_allocated[r]));
    ++written;
  }
  return written;
}

void WriteTopLevel(Out& o, const Trace& trace) {
  o.Raw("\"displayTimeUnit\":\"ns\"");
  if (trace.info.base_time_ns) {
    o.Raw(",\"baseTimeNanoseconds\":");
    o.Int(*trace.info.base_time_ns);
  }
  o.Raw(",\"distributedInfo\":{\"rank\":");
  o.Int(trace.info.distributed && trace.info.distributed->rank ? *trace.info.distributed->rank
                                                               : trace.info.rank);
  if (trace.info.distributed && trace.info.distributed->world_size) {
    o.Raw(",\"world_size\":");
    o.Int(*trace.info.distributed->world_size);
  }
  if (trace.info.distributed && !trace.info.distributed->backend.empty()) {
    o.Raw(",\"backend\":");
    o.Str(trace.info.distributed->backend);
  }
  o.Raw("},\"tracehound\":{\"source\":");
  o.Str(trace.info.path);
  o.Raw("},\n");
}

Status Gzip(std::string_view text, std::string* out) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  if (!c) return Internal("gzip: cannot allocate a compressor");
  out->resize(libdeflate_gzip_compress_bound(c, text.size()));
  size_t n = libdeflate_gzip_compress(c, text.data(), text.size(), out->data(), out->size());
  libdeflate_free_compressor(c);
  if (n == 0) return Internal("gzip: compression failed");
  out->resize(n);
  return Ok();
}

}  // namespace

std::string AnnotatedTraceJson(const Trace& trace, const std::vector<Finding>& findings,
                               AnnotatedTraceStats* stats) {
  const EventGraph& g = trace.graph;
  const EventColumns& e = g.events;
  AnnotatedTraceStats local;
  AnnotatedTraceStats& st = stats ? *stats : local;
  std::vector<uint32_t> collective_row(e.size(), kNoRow);
  for (uint32_t r = 0; r < g.collective_args.size(); ++r)
    collective_row[g.collective_args.event[r]] = r;
  std::vector<std::pair<uint32_t, uint32_t>> counter_rows(e.size(), {0, 0});
  for (uint32_t r = 0; r < g.counters.size(); ++r) {
    auto& span = counter_rows[g.counters.event[r]];
    if (span.first == span.second) span.first = r;
    span.second = r + 1;
  }
  Out o;
  o.text.reserve(e.size() * 160 + 4096);
  o.Raw("{");
  WriteTopLevel(o, trace);
  o.Raw("\"traceEvents\":[\n");
  bool first = true;
  std::set<int64_t> named_pids;
  std::set<TrackId> named_tracks;
  for (EventId i = 0; i < e.size(); ++i) {
    if (e.flags[i] & kFlagDerived) {
      ++st.skipped;
      continue;
    }
    if (e.kind[i] == EventKind::kMetadata) {
      std::string_view name = g.strings.Get(e.name[i]);
      if (name == "process_name") named_pids.insert(g.tracks[e.track[i]].pid);
      if (name == "thread_name") named_tracks.insert(e.track[i]);
    }
    if (!first) o.Raw(",\n");
    first = false;
    WriteOriginalEvent(o, g, i, collective_row, counter_rows);
    ++st.events;
  }
  // Names the tracks carry without a metadata event in the graph (XSpace).
  for (TrackId t = 0; t < g.tracks.size(); ++t) {
    const Track& tr = g.tracks[t];
    if (tr.process_name != kEmptyString && named_pids.insert(tr.pid).second) {
      if (!first) o.Raw(",\n");
      first = false;
      o.Raw("{\"ph\":\"M\",\"name\":\"process_name\"");
      WritePidTid(o, g, tr);
      o.Raw(",\"args\":{\"name\":");
      o.Str(g.strings.Get(tr.process_name));
      o.Raw("}}");
      ++st.metadata;
    }
    if (tr.thread_name != kEmptyString && named_tracks.insert(t).second) {
      if (!first) o.Raw(",\n");
      first = false;
      o.Raw("{\"ph\":\"M\",\"name\":\"thread_name\"");
      WritePidTid(o, g, tr);
      o.Raw(",\"args\":{\"name\":");
      o.Str(g.strings.Get(tr.thread_name));
      o.Raw("}}");
      ++st.metadata;
    }
  }
  int64_t first_ts = FirstTs(g);
  for (const Finding& f : findings) {
    if (f.scope.rank >= 0 && f.scope.rank != trace.info.rank) continue;
    if (!first) o.Raw(",\n");
    first = false;
    WriteFinding(o, trace, f, first_ts);
    ++st.findings;
  }
  st.counters += WriteQueueCounters(o, g, &first);
  st.counters += WriteMemoryCounters(o, g, &first);
  o.Raw("\n]}\n");
  return std::move(o.text);
}

std::string RankedPath(const std::string& path, int64_t rank) {
  std::string tag = ".rank" + std::to_string(rank);
  size_t slash = path.find_last_of('/');
  size_t base = slash == std::string::npos ? 0 : slash + 1;
  size_t at = path.find(".json", base);
  if (at == std::string::npos) {
    at = path.find_last_of('.');
    if (at == std::string::npos || at < base) at = path.size();
  }
  return path.substr(0, at) + tag + path.substr(at);
}

Status WriteAnnotatedTraces(const TraceSet& traces, const std::vector<Finding>& findings,
                            const std::string& path, std::vector<AnnotatedTraceStats>* stats) {
  if (path.empty() || path == "-")
    return InvalidInput("the annotated trace needs a file path, not stdout");
  bool gz = path.ends_with(".gz");
  bool several = traces.traces.size() > 1;
  for (const auto& trace : traces.traces) {
    AnnotatedTraceStats st;
    st.path = several ? RankedPath(path, trace->info.rank) : path;
    std::string text = AnnotatedTraceJson(*trace, findings, &st);
    if (gz) {
      std::string packed;
      TH_RETURN_IF_ERROR(Gzip(text, &packed));
      text = std::move(packed);
    }
    TH_RETURN_IF_ERROR(WriteOutput(st.path, text));
    if (stats) stats->push_back(std::move(st));
  }
  return Ok();
}

}  // namespace th
