#include "core/report/info_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "core/report/json_writer.h"
#include "core/report/trace_summary.h"
#include "core/report/trust_json.h"
#include "core/report/xla_summary.h"

namespace th {

namespace {

std::string Thousands(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string Duration(int64_t ns) {
  char buf[48];
  double v = static_cast<double>(ns);
  if (ns >= 1'000'000'000)
    std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
  else if (ns >= 1'000'000)
    std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
  else if (ns >= 1'000)
    std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%" PRId64 " ns", ns);
  return buf;
}

std::string Bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, u ? "%.2f %s" : "%.0f %s", b, units[u]);
  return buf;
}

void WriteSummaryJson(JsonWriter& w, const TraceSummary& s) {
  w.Field("format", s.format);
  w.Field("events", s.events);
  w.Key("events_by_phase").BeginObject();
  for (const auto& [k, v] : s.events_by_phase) w.Field(k, v);
  w.EndObject();
  w.Key("events_by_category").BeginObject();
  for (const auto& [k, v] : s.events_by_category) w.Field(k, v);
  w.EndObject();
  w.Key("events_by_kind").BeginObject();
  for (const auto& [k, v] : s.events_by_kind) w.Field(k, v);
  w.EndObject();
  auto totals = [&](std::string_view key, const DurationTotal& d) {
    w.Key(key).BeginObject().Field("count", d.count).Field("total_ns", d.total_ns).EndObject();
  };
  totals("kernels", s.kernels);
  totals("memcpy", s.memcpy);
  totals("memset", s.memset);
  w.Field("gpu_streams", s.gpu_streams);
  w.Field("steps", s.steps);
  w.Key("step_numbers").BeginArray();
  for (int64_t n : s.step_numbers) w.Int(n);
  w.EndArray();
  w.Field("profiler_step_events", s.profiler_step_events);
  w.Field("memory_events", s.memory_events);
  w.Key("peak_total_allocated");
  s.peak_total_allocated ? w.Int(*s.peak_total_allocated) : w.Null();
  w.Key("peak_total_reserved");
  s.peak_total_reserved ? w.Int(*s.peak_total_reserved) : w.Null();
  w.Field("launch_edges", s.launch_edges);
  w.Field("kernels_with_launch", s.kernels_with_launch);
  w.Field("flow_edges", s.flow_edges);
  w.Key("span_ns");
  if (s.first_ts_ns) {
    w.BeginObject()
        .Field("first_ts", *s.first_ts_ns)
        .Field("last_end", *s.last_end_ns)
        .Field("duration", *s.last_end_ns - *s.first_ts_ns)
        .EndObject();
  } else {
    w.Null();
  }
  if (!s.timestamp_basis.empty()) w.Field("timestamp_basis", s.timestamp_basis);
  w.Key("epoch_start_ns");
  s.epoch_start_ns ? w.Int(*s.epoch_start_ns) : w.Null();
  w.Key("devices").BeginArray();
  for (const DeviceInfo& d : s.devices) {
    w.BeginObject()
        .Field("id", d.id)
        .Field("name", d.name)
        .Field("total_global_mem", d.total_global_mem)
        .Field("compute_capability",
               std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor))
        .Field("num_sms", d.num_sms)
        .EndObject();
  }
  w.EndArray();
  w.Field("file_bytes", static_cast<int64_t>(s.file_bytes));
  w.Field("json_bytes", static_cast<int64_t>(s.text_bytes));
  w.Field("import_seconds", s.import_seconds);
  w.Key("import_profile_seconds")
      .BeginObject()
      .Field("read", s.read_seconds)
      .Field("parse", s.parse_seconds)
      .Field("merge", s.merge_seconds)
      .Field("finish", s.finish_seconds)
      .EndObject();
  w.Key("memory_bytes")
      .BeginObject()
      .Field("graph", static_cast<int64_t>(s.graph_bytes))
      .Field("strings", static_cast<int64_t>(s.string_bytes))
      .Field("graph_per_event",
             s.events ? static_cast<double>(s.graph_bytes) / static_cast<double>(s.events) : 0.0)
      .EndObject();
  w.Key("trust");
  WriteTrustJson(w, s.trust);
}

void WriteSummaryText(const TraceSummary& s, std::ostream& out) {
  out << "events: " << Thousands(s.events) << "  (";
  bool first = true;
  for (const auto& [k, v] : s.events_by_kind) {
    out << (first ? "" : ", ") << k << " " << Thousands(v);
    first = false;
  }
  out << ")\n";
  if (s.first_ts_ns)
    out << "span: " << Duration(*s.last_end_ns - *s.first_ts_ns)
        << " (first event to last end, measured)\n";
  out << "GPU: " << Thousands(s.kernels.count) << " kernels, " << Duration(s.kernels.total_ns)
      << " summed · " << Thousands(s.memcpy.count) << " memcpy, " << Duration(s.memcpy.total_ns)
      << " · " << Thousands(s.memset.count) << " memset, " << Duration(s.memset.total_ns) << " · "
      << s.gpu_streams << " GPU streams\n";
  out << "launches: " << Thousands(s.kernels_with_launch) << " of " << Thousands(s.kernels.count)
      << " kernels linked to their launch · " << Thousands(s.flow_edges) << " other flow edges\n";
  out << "steps: " << s.steps;
  if (!s.step_numbers.empty())
    out << " (ProfilerStep#" << s.step_numbers.front() << " .. #" << s.step_numbers.back() << ")";
  out << "\n";
  if (s.memory_events) {
    out << "memory: " << Thousands(s.memory_events) << " allocator events";
    if (s.peak_total_allocated)
      out << ", peak allocated " << Bytes(static_cast<double>(*s.peak_total_allocated));
    if (s.peak_total_reserved)
      out << ", peak reserved " << Bytes(static_cast<double>(*s.peak_total_reserved));
    out << " (measured)\n";
  }
}

// "8 × NVIDIA H100 80GB HBM3 (79.18 GiB, sm_90, 132 SMs)" for each distinct device.
std::string DeviceList(const std::vector<DeviceInfo>& devices) {
  std::vector<std::pair<std::string, int>> groups;
  for (const DeviceInfo& d : devices) {
    std::string desc = d.name.empty() ? "unnamed device" : d.name;
    std::string details;
    if (d.total_global_mem) details += Bytes(static_cast<double>(d.total_global_mem));
    if (d.compute_major) {
      details += (details.empty() ? "" : ", ") + std::string("compute ") +
                 std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor);
    }
    if (d.num_sms) details += (details.empty() ? "" : ", ") + std::to_string(d.num_sms) + " SMs";
    if (!details.empty()) desc += " (" + details + ")";
    auto it = std::find_if(groups.begin(), groups.end(), [&](auto& g) { return g.first == desc; });
    if (it == groups.end())
      groups.emplace_back(desc, 1);
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [desc, n] : groups)
    out += (out.empty() ? "" : "; ") + std::to_string(n) + " × " + desc;
  return out;
}

void WritePlanesText(const Trace& trace, std::ostream& out) {
  out << "planes of " << trace.info.path << " (" << trace.info.hlo_protos
      << " HLO modules embedded):\n";
  for (const PlaneSummary& p : trace.info.planes) {
    out << "  " << p.name << ": " << Thousands(p.events) << " events on " << p.lines.size()
        << " lines";
    std::string names;
    for (size_t i = 0; i < p.lines.size() && i < 6; ++i)
      names += (i ? ", " : "") + p.lines[i].first + " " + Thousands(p.lines[i].second);
    if (p.lines.size() > 6) names += ", ...";
    if (!names.empty()) out << " (" << names << ")";
    out << "\n";
  }
}

std::string Share(int64_t part, int64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%5.1f%%",
                whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return buf;
}

std::string Clip(const std::string& s, size_t n) {
  return s.size() > n ? s.substr(0, n - 3) + "..." : s;
}

void WriteXlaText(const Trace& trace, const XlaSummary& xla, std::ostream& out) {
  char buf[256];
  out << "HLO modules of " << trace.info.path << ": " << trace.xla.modules.size()
      << " (device time per module, measured):\n";
  size_t shown = 0;
  for (const XlaModuleRow& m : xla.modules) {
    if (shown++ == 10) {
      out << "  ... " << xla.modules.size() - 10 << " more\n";
      break;
    }
    std::snprintf(buf, sizeof buf, "  %-32s id %-6lld %6lld instr  %6s events  %12s %s  ",
                  Clip(m.name, 32).c_str(), static_cast<long long>(m.id),
                  static_cast<long long>(m.instructions), Thousands(m.events).c_str(),
                  Duration(m.gpu_ns).c_str(), Share(m.gpu_ns, xla.gpu_ns).c_str());
    out << buf << (m.origin == "metadata plane" ? "(metadata plane)" : "(side file)") << "\n";
  }
  out << "kernel -> HLO attribution of " << Thousands(xla.gpu_events) << " device events, "
      << Duration(xla.gpu_ns) << " (measured):";
  for (int c : {1, 2, 3, 0}) {
    const XlaClassTotal& t = xla.by_class[static_cast<size_t>(c)];
    out << "  " << HloMatchName(static_cast<HloMatch>(c)) << " " << Thousands(t.events) << " ("
        << Share(t.gpu_ns, xla.gpu_ns) << " of time)";
  }
  out << "\n";
  auto table = [&](const char* title, const std::vector<XlaAttributedRow>& rows) {
    if (rows.empty()) return;
    out << title << "\n";
    for (size_t i = 0; i < rows.size() && i < 10; ++i) {
      const XlaAttributedRow& r = rows[i];
      std::snprintf(buf, sizeof buf, "  %2zu. %12s %s %8s×  ", i + 1, Duration(r.gpu_ns).c_str(),
                    Share(r.gpu_ns, xla.gpu_ns).c_str(), Thousands(r.events).c_str());
      out << buf << Clip(r.key, 100) << "\n";
    }
  };
  table("top Python lines by device time (measured):", xla.lines);
  table("top ops by device time (measured):", xla.ops);
}

void WriteXlaJson(JsonWriter& w, const XlaSummary& xla, int64_t modules) {
  w.Field("hlo_modules", modules);
  w.Key("attribution").BeginObject();
  for (int c : {1, 2, 3, 0}) {
    const XlaClassTotal& t = xla.by_class[static_cast<size_t>(c)];
    w.Key(HloMatchName(static_cast<HloMatch>(c)))
        .BeginObject()
        .Field("events", t.events)
        .Field("kernels", t.kernels)
        .Field("gpu_ns", t.gpu_ns)
        .EndObject();
  }
  w.EndObject();
}

void WriteXlaDetailJson(JsonWriter& w, const XlaSummary& xla) {
  w.Key("xla").BeginObject();
  w.Field("gpu_events", xla.gpu_events).Field("gpu_ns", xla.gpu_ns);
  w.Key("modules").BeginArray();
  for (const XlaModuleRow& m : xla.modules) {
    w.BeginObject()
        .Field("name", m.name)
        .Field("id", m.id)
        .Field("origin", m.origin)
        .Field("instructions", m.instructions)
        .Field("events", m.events)
        .Field("kernels", m.kernels)
        .Field("gpu_ns", m.gpu_ns)
        .EndObject();
  }
  w.EndArray();
  auto rows = [&](const char* key, const std::vector<XlaAttributedRow>& list) {
    w.Key(key).BeginArray();
    for (size_t i = 0; i < list.size() && i < 50; ++i) {
      w.BeginObject()
          .Field("key", list[i].key)
          .Field("events", list[i].events)
          .Field("kernels", list[i].kernels)
          .Field("gpu_ns", list[i].gpu_ns)
          .Field("instructions", list[i].instructions)
          .EndObject();
    }
    w.EndArray();
  };
  rows("top_lines", xla.lines);
  rows("top_ops", xla.ops);
  w.Field("no_line_gpu_ns", xla.unattributed_line_ns);
  w.EndObject();
}

void WritePlanesJson(JsonWriter& w, const Trace& trace) {
  w.Key("planes").BeginArray();
  for (const PlaneSummary& p : trace.info.planes) {
    w.BeginObject().Field("name", p.name).Field("events", p.events);
    w.Key("lines").BeginArray();
    for (const auto& [name, events] : p.lines)
      w.BeginObject().Field("name", name).Field("events", events).EndObject();
    w.EndArray();
    w.Key("stat_names").BeginArray();
    for (const std::string& n : p.stat_names) w.String(n);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void WriteInfoText(const TraceSet& set, const InfoExtras& extras, std::ostream& out) {
  std::vector<TraceSummary> per;
  TraceSummary total = SummarizeSet(set, &per);
  char buf[256];
  double mb = static_cast<double>(total.text_bytes) / 1e6;
  double seconds = 0;
  for (const TraceSummary& s : per) seconds += s.import_seconds;
  if (total.text_bytes) {
    std::snprintf(buf, sizeof buf, "%.1f MB of JSON, %.1f MB stored", mb,
                  static_cast<double>(total.file_bytes) / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MB stored", static_cast<double>(total.file_bytes) / 1e6);
  }
  out << "format: " << total.format << " · " << total.ranks
      << (total.ranks == 1 ? " rank" : " ranks") << " · " << buf << "\n";
  // Devices: one line when every rank reports the same set.
  std::string first_devices = per.empty() ? "" : DeviceList(per.front().devices);
  bool same_devices = std::all_of(per.begin(), per.end(), [&](const TraceSummary& s) {
    return DeviceList(s.devices) == first_devices;
  });
  if (same_devices && !first_devices.empty()) {
    out << "devices" << (total.ranks > 1 ? " (each rank)" : "") << ": " << first_devices << "\n";
  }
  if (per.size() == 1) {
    const TraceSummary& s = per.front();
    std::snprintf(buf, sizeof buf, "%.3f s", s.import_seconds);
    out << "trace: " << s.path << " · rank " << s.rank << " (from " << s.rank_source << ")"
        << " · imported in " << buf << "\n";
  } else {
    out << "  rank  events      kernels  kernel time   steps  span          file\n";
    for (const TraceSummary& s : per) {
      std::string span = s.first_ts_ns ? Duration(*s.last_end_ns - *s.first_ts_ns) : "-";
      std::snprintf(buf, sizeof buf, "  %4lld  %-10s  %-7s  %-12s  %-5lld  %-12s  ",
                    static_cast<long long>(s.rank), Thousands(s.events).c_str(),
                    Thousands(s.kernels.count).c_str(), Duration(s.kernels.total_ns).c_str(),
                    static_cast<long long>(s.steps), span.c_str());
      out << buf << s.path << "\n";
      if (!same_devices && !s.devices.empty())
        out << "        devices: " << DeviceList(s.devices) << "\n";
    }
  }
  WriteSummaryText(total, out);
  for (const auto& trace : set.traces) {
    if (trace->info.format == "xspace") WritePlanesText(*trace, out);
    XlaSummary xla = SummarizeXla(*trace);
    if (xla.present) WriteXlaText(*trace, xla, out);
  }
  if (!extras.top_kernels_note.empty()) out << "top kernels: " << extras.top_kernels_note << "\n";
  if (!extras.top_kernels.empty()) {
    out << "top kernels by total time (measured";
    if (total.ranks > 1) out << ", all ranks";
    out << "):\n";
    int rank = 1;
    for (const KernelTotal& k : extras.top_kernels) {
      double share = total.kernels.total_ns ? 100.0 * static_cast<double>(k.total_ns) /
                                                  static_cast<double>(total.kernels.total_ns)
                                            : 0;
      std::string name = k.name.size() > 90 ? k.name.substr(0, 87) + "..." : k.name;
      std::snprintf(buf, sizeof buf, "  %2d. %12s %5.1f%% %8s×  ", rank++,
                    Duration(k.total_ns).c_str(), share, Thousands(k.count).c_str());
      out << buf << name << "\n";
    }
  }
  out << "trust:";
  if (total.trust.empty()) out << " no defects found";
  out << "\n";
  for (const TrustEntry& t : total.trust) {
    std::snprintf(buf, sizeof buf, "  %-9s %10s  ", std::string(SeverityName(t.severity)).c_str(),
                  Thousands(t.count).c_str());
    out << buf << t.what;
    if (!t.example.empty()) out << "  (e.g. " << t.example << ")";
    out << "\n";
  }
}

void WriteInfoJson(const TraceSet& set, const InfoExtras& extras, std::ostream& out) {
  std::vector<TraceSummary> per;
  TraceSummary total = SummarizeSet(set, &per);
  JsonWriter w(out);
  w.BeginObject();
  w.Field("ranks", total.ranks);
  WriteSummaryJson(w, total);
  w.Key("top_kernels").BeginArray();
  for (const KernelTotal& k : extras.top_kernels) {
    w.BeginObject()
        .Field("name", k.name)
        .Field("count", k.count)
        .Field("total_ns", k.total_ns)
        .EndObject();
  }
  w.EndArray();
  if (!extras.top_kernels_note.empty()) w.Field("top_kernels_note", extras.top_kernels_note);
  // XProf captures: the XLA keys of the whole set (sums over its traces), and
  // the planes when there is one XSpace trace.
  XlaSummary all;
  int64_t modules = 0;
  for (const auto& trace : set.traces) {
    XlaSummary x = SummarizeXla(*trace);
    if (!x.present) continue;
    all.present = true;
    modules += static_cast<int64_t>(trace->xla.modules.size());
    for (size_t c = 0; c < all.by_class.size(); ++c) {
      all.by_class[c].events += x.by_class[c].events;
      all.by_class[c].kernels += x.by_class[c].kernels;
      all.by_class[c].gpu_ns += x.by_class[c].gpu_ns;
    }
  }
  if (all.present) WriteXlaJson(w, all, modules);
  if (set.traces.size() == 1 && set.traces.front()->info.format == "xspace")
    WritePlanesJson(w, *set.traces.front());
  w.Key("traces").BeginArray();
  for (const TraceSummary& s : per) {
    w.BeginObject();
    w.Field("path", s.path);
    w.Field("rank", s.rank);
    w.Field("rank_source", s.rank_source);
    WriteSummaryJson(w, s);
    const Trace& trace = *set.traces[&s - per.data()];
    if (trace.info.format == "xspace") WritePlanesJson(w, trace);
    XlaSummary xla = SummarizeXla(trace);
    if (xla.present) {
      WriteXlaJson(w, xla, static_cast<int64_t>(trace.xla.modules.size()));
      WriteXlaDetailJson(w, xla);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace th
