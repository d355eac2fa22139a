#include "core/import/xspace/xspace_importer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "core/import/kineto/graph_builder.h"
#include "core/import/kineto/shared_tables.h"
#include "core/import/xspace/xspace_reader.h"

namespace th::xspace {

namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Nearest ns of a picosecond value; `rounded` counts values with sub-ns digits.
int64_t PsToNs(int64_t ps, int64_t* rounded) {
  if (ps % 1000 != 0) ++*rounded;
  return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

EventKind DeviceKind(std::string_view name) {
  if (StartsWith(name, "Memcpy") || StartsWith(name, "MemcpyH") || StartsWith(name, "MemcpyD"))
    return EventKind::kMemcpy;
  if (StartsWith(name, "Memset")) return EventKind::kMemset;
  return EventKind::kKernel;
}

}  // namespace

StatusOr<std::unique_ptr<Trace>> ImportXSpaceFile(const std::string& path) {
  auto started = std::chrono::steady_clock::now();
  auto data = ReadXSpaceFile(path);
  if (!data.ok()) return data.status();
  auto trace = std::make_unique<Trace>();
  trace->info.path = path;
  trace->info.format = "xspace";

  kineto::SharedTables shared(&trace->graph.strings);
  kineto::ThreadTables tables(&shared);
  kineto::ParsedChunk chunk;
  kineto::GraphBuilder builder(trace.get());
  int64_t rounded = 0;
  const StringId kernel_cat = tables.Intern("kernel"), host_cat = tables.Intern("host"),
                 device_cat = tables.Intern("device");

  for (const Plane& plane : data->planes) {
    PlaneSummary summary;
    summary.name = plane.name;
    for (const StatMetadata& m : plane.stat_metadata) summary.stat_names.push_back(m.name);
    std::sort(summary.stat_names.begin(), summary.stat_names.end());
    const bool gpu = StartsWith(plane.name, "/device:GPU:");
    const bool device = StartsWith(plane.name, "/device:");
    if (gpu || StartsWith(plane.name, "/device:TPU:")) {
      DeviceInfo d;
      d.name = plane.name;
      d.id = plane.id;
      trace->info.devices.push_back(std::move(d));
    }
    if (plane.name == "/host:metadata") {  // one "Hlo Proto" stat per compiled module
      for (const Stat& s : plane.stats)
        if (plane.StatName(s.metadata_id) == "Hlo Proto") ++trace->info.hlo_protos;
      for (const EventMetadata& m : plane.event_metadata)
        for (const Stat& s : m.stats)
          if (plane.StatName(s.metadata_id) == "Hlo Proto") ++trace->info.hlo_protos;
    }
    // The correlation_id stat's metadata id on this plane, if any.
    int64_t correlation_stat = INT64_MIN;
    for (const StatMetadata& m : plane.stat_metadata)
      if (m.name == "correlation_id") correlation_stat = m.id;

    for (const Line& line : plane.lines) {
      summary.lines.emplace_back(line.display_name.empty() ? line.name : line.display_name,
                                 static_cast<int64_t>(line.events.size()));
      summary.events += static_cast<int64_t>(line.events.size());
      const std::string& line_name = line.display_name.empty() ? line.name : line.display_name;
      const bool stream =
          gpu && (StartsWith(line.name, "Stream") || StartsWith(line_name, "Stream"));
      const bool device_ops = device && !gpu && line.name == "XLA Ops";
      kineto::TrackKey key;
      key.pid = plane.id;
      key.tid = line.id;
      key.pid_str = tables.Intern(plane.name);
      uint32_t track = tables.Track(key);
      chunk.names.push_back({kineto::NameRecord::kProcessName, track, tables.Intern(plane.name)});
      chunk.names.push_back({kineto::NameRecord::kThreadName, track, tables.Intern(line_name)});
      for (const Event& ev : line.events) {
        if (ev.has_num_occurrences) continue;  // aggregated counts, not timed events
        const EventMetadata* md = plane.FindEventMetadata(ev.metadata_id);
        std::string_view name;  // (a ?: mixing std::string and "" would make a temporary)
        if (md) name = md->display_name.empty() ? md->name : md->display_name;
        EventKind kind = stream || device_ops ? DeviceKind(name)
                         : device             ? EventKind::kOther
                                              : EventKind::kCpuOp;
        // XLA names copy streams "Stream #N(MemcpyH2D)", "(MemcpyOther)", ...
        if (stream && line_name.find("Memcpy") != std::string::npos) kind = EventKind::kMemcpy;
        if (stream && line_name.find("Memset") != std::string::npos) kind = EventKind::kMemset;
        int64_t correlation = kNoValue;
        if (correlation_stat != INT64_MIN) {
          for (const Stat& s : plane.StatsOf(ev))
            if (s.metadata_id == correlation_stat) correlation = s.int64_value();
        }
        // A host event with a correlation id is the API call that launched GPU work.
        if (!device && correlation != kNoValue) kind = EventKind::kRuntime;
        auto row = static_cast<EventId>(chunk.events.size());
        uint32_t args_row = kNoRow;
        if (IsGpuActivity(kind)) {
          GpuArgsTable& g = chunk.gpu_args;
          args_row = static_cast<uint32_t>(g.size());
          g.event.push_back(row);
          g.device.push_back(static_cast<int32_t>(plane.id));
          g.stream.push_back(line.display_id ? line.display_id : line.id);
          for (int i = 0; i < 3; ++i) {
            g.grid[i].push_back(0);
            g.block[i].push_back(0);
          }
          g.registers.push_back(0);
          g.shared_mem.push_back(0);
          g.occupancy.push_back(-1);
          g.bytes.push_back(-1);
        }
        EventColumns& e = chunk.events;
        e.ts.push_back(line.timestamp_ns + PsToNs(ev.offset_ps, &rounded));
        e.dur.push_back(PsToNs(ev.duration_ps, &rounded));
        e.name.push_back(tables.Intern(name));
        e.cat.push_back(IsGpuActivity(kind) ? kernel_cat : device ? device_cat : host_cat);
        e.track.push_back(track);
        e.parent.push_back(kNoRow);
        e.depth.push_back(0);
        e.ph.push_back('X');
        e.kind.push_back(kind);
        e.flags.push_back(0);
        e.correlation.push_back(correlation);
        e.external_id.push_back(kNoValue);
        e.args_row.push_back(args_row);
      }
    }
    trace->info.planes.push_back(std::move(summary));
  }
  builder.Append(std::move(chunk));
  trace->trust.Add("time value with picosecond digits (rounded to the nearest ns)", Severity::kInfo,
                   rounded);
  builder.Finish(shared.tracks());
  std::error_code ec;
  trace->info.file_bytes = std::filesystem::file_size(path, ec);
  trace->info.import_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return trace;
}

}  // namespace th::xspace
