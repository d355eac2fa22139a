#include "core/serve/serve_event_details.h"

#include <re2/re2.h>

#include <algorithm>
#include <sstream>

#include "core/graph/hlo_index.h"
#include "core/report/json_writer.h"

namespace th::serve {
namespace {

void WriteEventRef(const ServeRun& run, EventId e, JsonWriter& w) {
  const EventColumns& ev = run.graph().events;
  w.BeginObject().Field("id", static_cast<int64_t>(e));
  w.Field("name", run.graph().strings.Get(ev.name[e]));
  w.Field("start_ns", run.Relative(ev.ts[e])).Field("dur_ns", ev.dur[e] > 0 ? ev.dur[e] : 0);
  w.Field("track", static_cast<int64_t>(ev.track[e])).EndObject();
}

void WriteGpuArgs(const GpuArgsTable& a, uint32_t r, JsonWriter& w) {
  w.Field("device", int64_t{a.device[r]}).Field("stream", a.stream[r]);
  if (a.grid[0][r] > 0) {
    w.Key("grid").BeginArray();
    for (int i = 0; i < 3; ++i) w.Int(a.grid[i][r]);
    w.EndArray().Key("block").BeginArray();
    for (int i = 0; i < 3; ++i) w.Int(a.block[i][r]);
    w.EndArray();
    w.Field("registers_per_thread", int64_t{a.registers[r]});
    w.Field("shared_memory", int64_t{a.shared_mem[r]});
  }
  if (a.occupancy[r] >= 0) w.Field("est_achieved_occupancy", static_cast<double>(a.occupancy[r]));
  if (a.bytes[r] >= 0) w.Field("bytes", a.bytes[r]);
}

void WriteArgs(const ServeRun& run, EventId e, JsonWriter& w) {
  const EventGraph& g = run.graph();
  const EventKind kind = g.events.kind[e];
  const uint32_t row = g.events.args_row[e];
  w.Key("args").BeginObject();
  if (row != kNoRow && (kind == EventKind::kMemory || kind == EventKind::kOutOfMemory)) {
    const MemoryArgsTable& m = g.memory_args;
    w.Field("device_type", int64_t{m.device_type[row]})
        .Field("device_id", int64_t{m.device_id[row]});
    w.Field("addr", m.addr[row]).Field("bytes", m.bytes[row]);
    w.Field("total_allocated", m.total_allocated[row]);
    w.Field("total_reserved", m.total_reserved[row]);
  } else if (row != kNoRow && row < g.gpu_args.size() && g.gpu_args.event[row] == e) {
    WriteGpuArgs(g.gpu_args, row, w);
  }
  const CollectiveArgsTable& c = g.collective_args;
  for (size_t k = 0; k < c.size(); ++k) {
    if (c.event[k] != e) continue;
    w.Field("collective", g.strings.Get(c.collective[k])).Field("dtype", g.strings.Get(c.dtype[k]));
    w.Field("process_group", g.strings.Get(c.group[k])).Field("in_nelems", c.in_nelems[k]);
    w.Field("out_nelems", c.out_nelems[k]).Field("group_size", int64_t{c.group_size[k]});
    break;
  }
  const CounterTable& ct = g.counters;
  if (kind == EventKind::kCounter) {
    auto it = std::lower_bound(ct.event.begin(), ct.event.end(), e);
    for (size_t k = static_cast<size_t>(it - ct.event.begin()); k < ct.size() && ct.event[k] == e;
         ++k)
      w.Field(g.strings.Get(ct.series[k]), ct.value[k]);
  }
  const bool string_id = g.events.flags[e] & kFlagStringId;
  const int64_t corr = g.events.correlation[e];
  if (corr != kNoValue) {
    if (string_id)
      w.Field("correlation", g.strings.Get(static_cast<StringId>(corr)));
    else
      w.Field("correlation", corr);
  }
  if (g.events.external_id[e] != kNoValue) w.Field("external_id", g.events.external_id[e]);
  w.EndObject();
}

void WriteLaunch(const ServeRun& run, EventId e, JsonWriter& w) {
  const EventId call = run.LaunchOf(e);
  w.Key("launch");
  if (call == kNoRow)
    w.Null();
  else
    WriteEventRef(run, call, w);
  const std::vector<EventId> kernels = run.LaunchedBy(e);
  w.Key("kernels").BeginArray();
  for (size_t k = 0; k < kernels.size() && k < kMaxListedKernels; ++k)
    WriteEventRef(run, kernels[k], w);
  w.EndArray().Field("kernels_total", static_cast<int64_t>(kernels.size()));
}

void WriteStack(const ServeRun& run, EventId e, JsonWriter& w) {
  static const RE2 kSource(R"(((?:[A-Za-z]:)?[\w.~\-/\\]*\.py)(?::|\(|, line )(\d+))");
  const EventColumns& ev = run.graph().events;
  EventId at = IsGpuActivity(ev.kind[e]) ? run.LaunchOf(e) : e;
  w.Key("stack").BeginArray();
  for (int depth = 0; at != kNoRow && at < ev.size() && depth < 1024; ++depth, at = ev.parent[at]) {
    if (ev.kind[at] != EventKind::kPythonFunction) continue;
    const std::string_view frame = run.graph().strings.Get(ev.name[at]);
    std::string file;
    int64_t line = 0;
    w.BeginObject().Field("frame", frame).Field("id", static_cast<int64_t>(at));
    if (RE2::PartialMatch(frame, kSource, &file, &line)) {
      w.Field("file", file).Field("line", line).Field("link", VscodeLink(file, line));
    } else {
      w.Field("file", "").Field("line", int64_t{0}).Field("link", "");
    }
    w.EndObject();
  }
  w.EndArray();
}

void WriteHlo(const ServeRun& run, EventId e, JsonWriter& w) {
  const EventGraph& g = run.graph();
  const XlaData& xla = run.trace().xla;
  const uint32_t label = g.xla_labels.Find(e);
  const uint32_t args = g.events.args_row[e];
  uint32_t instruction = hlo::kNoInstruction;
  if (xla.attributed && IsGpuActivity(g.events.kind[e]) && args != kNoRow &&
      args < xla.kernel_instruction.size())
    instruction = xla.kernel_instruction[args];
  w.Key("hlo");
  if (label == kNoRow && instruction == hlo::kNoInstruction) {
    w.Null();
    return;
  }
  auto str = [&](StringId s) { return g.strings.Get(s); };
  w.BeginObject();
  if (label != kNoRow) {
    const XlaLabelTable& l = g.xla_labels;
    w.Field("hlo_op", str(l.hlo_op[label])).Field("hlo_module", str(l.hlo_module[label]));
    if (l.program_id[label] != kNoValue) w.Field("program_id", l.program_id[label]);
    w.Field("op_name", str(l.op_name[label])).Field("source", str(l.source[label]));
  }
  if (instruction != hlo::kNoInstruction && instruction < xla.columns.name.size()) {
    const HloColumns& c = xla.columns;
    w.Key("instruction").BeginObject().Field("name", str(c.name[instruction]));
    w.Field("opcode", str(c.opcode[instruction])).Field("shape", str(c.shape[instruction]));
    w.Field("op_name", str(c.op_name[instruction]));
    w.Field("source_file", str(c.source_file[instruction]));
    w.Field("source_line", int64_t{c.source_line[instruction]});
    w.Field("module", str(c.module_name[c.module[instruction]]));
    w.Field("match", HloMatchName(xla.kernel_match[args])).EndObject();
  }
  w.EndObject();
}

}  // namespace

std::string VscodeLink(std::string_view file, int64_t line) {
  std::string path(file);
  std::replace(path.begin(), path.end(), '\\', '/');
  if (path.empty() || path[0] != '/') path.insert(path.begin(), '/');
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = "vscode://file";
  for (unsigned char c : path) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      std::string_view("-_.!~*'();/?:@&=+$,#").find(static_cast<char>(c)) !=
                          std::string_view::npos;
    if (keep) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out + ":" + std::to_string(line);
}

std::string EventDetailsJson(const ServeRun& run, EventId id) {
  const EventGraph& g = run.graph();
  const EventColumns& ev = g.events;
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Field("id", static_cast<int64_t>(id)).Field("name", g.strings.Get(ev.name[id]));
    w.Field("start_ns", run.Relative(ev.ts[id])).Field("dur_ns", ev.dur[id] > 0 ? ev.dur[id] : 0);
    w.Field("track", static_cast<int64_t>(ev.track[id]));
    // Metadata, flow events and E markers are in no row (EventGraph::TrackEvents).
    const EventKind kind = ev.kind[id];
    const bool drawn = kind != EventKind::kMetadata && kind != EventKind::kFlow &&
                       !(ev.flags[id] & kFlagEndMarker);
    const auto row = drawn ? run.RowOf(ev.track[id], ev.depth[id]) : std::nullopt;
    w.Key("row");
    if (row)
      w.Int(*row);
    else
      w.Null();
    w.Field("depth", int64_t{ev.depth[id]}).Field("category", g.strings.Get(ev.cat[id]));
    w.Field("kind", EventKindName(ev.kind[id]));
    WriteArgs(run, id, w);
    WriteLaunch(run, id, w);
    WriteStack(run, id, w);
    WriteHlo(run, id, w);
    w.EndObject();
  }
  return out.str();
}

}  // namespace th::serve
