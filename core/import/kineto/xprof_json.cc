#include "core/import/kineto/xprof_json.h"

#include <simdjson.h>

#include <algorithm>
#include <unordered_map>

namespace th::kineto {

namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The XSpace importer's rule for device events by name.
EventKind DeviceKind(std::string_view name) {
  if (StartsWith(name, "Memcpy")) return EventKind::kMemcpy;
  if (StartsWith(name, "Memset")) return EventKind::kMemset;
  return EventKind::kKernel;
}

// What a device-plane thread holds.
enum class Role : uint8_t { kNone, kGpuStream, kDeviceOps, kModules };

struct ModuleSpan {
  int64_t ts = 0, end = 0;
  EventId event = kNoRow;
};

}  // namespace

bool IsXprofTopLevel(const std::map<std::string, std::string>& values) {
  auto unit = values.find("displayTimeUnit");
  auto meta = values.find("metadata");
  if (values.size() != 2 || unit == values.end() || meta == values.end()) return false;
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  std::string_view s;
  if (parser.parse(unit->second).get(e) || e.get_string().get(s) || s != "ns") return false;
  bool ticks = false;
  return !parser.parse(meta->second).get(e) && !e["highres-ticks"].get_bool().get(ticks) && ticks;
}

bool HasXprofProcessNames(std::string_view text) {
  text = text.substr(0, size_t{1} << 20);
  constexpr std::string_view kKey = "\"process_name\"";
  size_t pos = 0;
  // TSL writes every plane's process_name first, devices then /host:CPU.
  for (int seen = 0; seen < 4; ++seen) {
    pos = text.find(kKey, pos);
    if (pos == std::string_view::npos) return false;
    pos += kKey.size();
    std::string_view event = text.substr(pos, text.find('}', pos) - pos);
    if (event.find("\"/device:") != std::string_view::npos ||
        event.find("\"/host:") != std::string_view::npos)
      return true;
  }
  return false;
}

bool SplitXlaModuleName(std::string_view s, std::string_view* module, int64_t* program_id) {
  if (s.empty() || s.back() != ')') return false;
  size_t open = s.rfind('(');
  if (open == std::string_view::npos || open == 0 || open + 1 >= s.size() - 1) return false;
  uint64_t v = 0;
  for (size_t i = open + 1; i + 1 < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  *module = s.substr(0, open);
  *program_id = static_cast<int64_t>(v);
  return true;
}

void MapXprofDeviceEvents(const std::vector<NameRecord>& names, EventGraph* graph) {
  EventGraph& g = *graph;
  EventColumns& e = g.events;
  const size_t tracks = g.tracks.size();

  // Plane (process) names by pid, line (thread) names by track.
  std::unordered_map<int64_t, StringId> plane_of_pid;
  std::vector<StringId> line_of(tracks, kEmptyString);
  for (const NameRecord& r : names) {
    if (r.kind == NameRecord::kThreadName) {
      line_of[r.track] = r.value;
    } else if (r.kind == NameRecord::kProcessName && g.tracks[r.track].pid_str == kEmptyString) {
      plane_of_pid[g.tracks[r.track].pid] = r.value;
    }
  }
  std::vector<Role> role(tracks, Role::kNone);
  std::vector<EventKind> copy_kind(tracks, EventKind::kOther);  // from "(MemcpyH2D)" etc.
  bool any_device_ops = false;
  for (size_t t = 0; t < tracks; ++t) {
    const Track& track = g.tracks[t];
    if (track.pid_str != kEmptyString || track.pid < 1 || track.pid > kXprofMaxDevicePid) continue;
    auto plane_it = plane_of_pid.find(track.pid);
    if (plane_it == plane_of_pid.end()) continue;
    std::string_view plane = g.strings.Get(plane_it->second);
    if (!StartsWith(plane, "/device:")) continue;
    std::string_view line = g.strings.Get(line_of[t]);
    if (StartsWith(plane, "/device:GPU:")) {
      if (!StartsWith(line, "Stream")) continue;
      role[t] = Role::kGpuStream;
      if (line.find("Memcpy") != std::string_view::npos) copy_kind[t] = EventKind::kMemcpy;
      if (line.find("Memset") != std::string_view::npos) copy_kind[t] = EventKind::kMemset;
    } else if (line == "XLA Ops") {
      role[t] = Role::kDeviceOps;
      any_device_ops = true;
    } else if (line == "XLA Modules") {
      role[t] = Role::kModules;
    }
  }

  const StringId kernel_cat = g.strings.Intern("kernel");
  GpuArgsTable& ga = g.gpu_args;
  for (EventId i = 0; i < e.size(); ++i) {
    const TrackId t = e.track[i];
    if ((role[t] != Role::kGpuStream && role[t] != Role::kDeviceOps) ||
        e.kind[i] != EventKind::kOther)
      continue;
    EventKind kind = DeviceKind(g.strings.Get(e.name[i]));
    if (copy_kind[t] != EventKind::kOther) kind = copy_kind[t];
    e.kind[i] = kind;
    e.cat[i] = kernel_cat;
    e.args_row[i] = static_cast<uint32_t>(ga.size());
    ga.event.push_back(i);
    ga.device.push_back(static_cast<int32_t>(g.tracks[t].pid - 1));
    ga.stream.push_back(g.tracks[t].tid);
    for (int d = 0; d < 3; ++d) {
      ga.grid[d].push_back(0);
      ga.block[d].push_back(0);
    }
    ga.registers.push_back(0);
    ga.shared_mem.push_back(0);
    ga.occupancy.push_back(-1);
    ga.bytes.push_back(-1);
  }
  if (!any_device_ops) return;

  // TPU: each device op is its own hlo_op, inside an "XLA Modules" event
  // named "<module>(<program id>)" on the same device.
  std::unordered_map<int64_t, std::vector<ModuleSpan>> modules_of_pid;
  for (EventId i = 0; i < e.size(); ++i) {
    if (role[e.track[i]] == Role::kModules && e.kind[i] != EventKind::kMetadata)
      modules_of_pid[g.tracks[e.track[i]].pid].push_back({e.ts[i], e.ts[i] + e.dur[i], i});
  }
  for (auto& [pid, spans] : modules_of_pid)
    std::sort(spans.begin(), spans.end(),
              [](const ModuleSpan& a, const ModuleSpan& b) { return a.ts < b.ts; });
  auto enclosing_module = [&](EventId op) -> EventId {
    auto it = modules_of_pid.find(g.tracks[e.track[op]].pid);
    if (it == modules_of_pid.end()) return kNoRow;
    const std::vector<ModuleSpan>& spans = it->second;
    const int64_t ts = e.ts[op];
    auto next = std::upper_bound(spans.begin(), spans.end(), ts,
                                 [](int64_t v, const ModuleSpan& m) { return v < m.ts; });
    if (next == spans.begin()) return kNoRow;
    const ModuleSpan& m = *(next - 1);
    return ts < m.end || ts == m.ts ? m.event : kNoRow;
  };

  const XlaLabelTable& in = g.xla_labels;
  XlaLabelTable out;
  size_t r = 0;
  for (EventId i = 0; i < e.size(); ++i) {
    const bool has = r < in.size() && in.event[r] == i;
    const bool op = role[e.track[i]] == Role::kDeviceOps && IsGpuActivity(e.kind[i]);
    if (!has && !op) continue;
    StringId hlo_op = has ? in.hlo_op[r] : kEmptyString;
    StringId hlo_module = has ? in.hlo_module[r] : kEmptyString;
    int64_t program_id = has ? in.program_id[r] : kNoValue;
    StringId op_name = has ? in.op_name[r] : kEmptyString;
    StringId source = has ? in.source[r] : kEmptyString;
    int64_t group_id = has ? in.group_id[r] : kNoValue;
    if (has) ++r;
    if (op) {
      if (hlo_op == kEmptyString) hlo_op = e.name[i];
      EventId m =
          hlo_module == kEmptyString || program_id == kNoValue ? enclosing_module(i) : kNoRow;
      std::string_view module;
      int64_t id = kNoValue;
      if (m != kNoRow && SplitXlaModuleName(g.strings.Get(e.name[m]), &module, &id) &&
          (program_id == kNoValue || program_id == id)) {
        if (hlo_module == kEmptyString) hlo_module = g.strings.Intern(module);
        program_id = id;
      }
    }
    if (hlo_op == kEmptyString && hlo_module == kEmptyString && program_id == kNoValue &&
        op_name == kEmptyString && source == kEmptyString && group_id == kNoValue)
      continue;
    out.event.push_back(i);
    out.hlo_op.push_back(hlo_op);
    out.hlo_module.push_back(hlo_module);
    out.program_id.push_back(program_id);
    out.op_name.push_back(op_name);
    out.source.push_back(source);
    out.group_id.push_back(group_id);
  }
  g.xla_labels = std::move(out);
}

}  // namespace th::kineto
