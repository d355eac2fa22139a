// The XSpace importer as it was before its event loop was rewritten for speed
// (core/import/xspace/xspace_importer.cc at 3510d0e, kept verbatim apart from
// its name): the straightforward model -> EventGraph conversion. The
// equivalence test imports every capture both ways and compares the graphs
// column by column, so a divergence of the fast importer cannot go unnoticed.
#include "tests/core/import/xspace/reference_xspace_importer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <span>
#include <string_view>
#include <unordered_map>

#include "core/import/kineto/graph_builder.h"
#include "core/import/kineto/shared_tables.h"
#include "core/import/xspace/xspace_reader.h"
#include "tests/core/import/xspace/reference_derived_lines.h"

namespace th::xspace::reference {

namespace {

// The runtime's costs of a TPU op (metadata stats, then the event's): an
// xla_op_costs row when any of flops, model_flops, bytes_accessed is a count.
void AppendOpCost(const Plane& plane, const EventMetadata* md, const Event& ev, EventId row,
                  XlaOpCostTable* out) {
  int64_t cost[3] = {-1, -1, -1};
  auto take = [&](std::span<const Stat> stats) {
    for (const Stat& s : stats) {
      const std::string& n = plane.StatName(s.metadata_id);
      const int k = n == "flops" ? 0 : n == "model_flops" ? 1 : n == "bytes_accessed" ? 2 : -1;
      if (k < 0) continue;
      int64_t v = -1;
      if (s.kind == StatKind::kInt64) v = s.int64_value();
      if (s.kind == StatKind::kUint64 && s.uint64_value() <= uint64_t{INT64_MAX})
        v = static_cast<int64_t>(s.uint64_value());
      if (s.kind == StatKind::kDouble && s.double_value() >= 0 && s.double_value() < 9.2e18 &&
          s.double_value() == static_cast<double>(static_cast<int64_t>(s.double_value())))
        v = static_cast<int64_t>(s.double_value());
      if (v >= 0) cost[k] = v;
    }
  };
  if (md) take(md->stats);
  take(plane.StatsOf(ev));
  if (cost[0] < 0 && cost[1] < 0 && cost[2] < 0) return;
  out->event.push_back(row);
  out->flops.push_back(cost[0]);
  out->model_flops.push_back(cost[1]);
  out->bytes_accessed.push_back(cost[2]);
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Nearest ns of a picosecond value; `rounded` counts values with sub-ns digits.
int64_t PsToNs(int64_t ps, int64_t* rounded) {
  if (ps % 1000 != 0) ++*rounded;
  return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

// Metadata ids of the stats that carry XLA labels on one plane (INT64_MIN when
// the plane has no such stat).
struct LabelStatIds {
  int64_t correlation = INT64_MIN, hlo_op = INT64_MIN, hlo_module = INT64_MIN,
          program_id = INT64_MIN, tf_op = INT64_MIN, name = INT64_MIN, source = INT64_MIN,
          group_id = INT64_MIN;

  explicit LabelStatIds(const Plane& plane) {
    for (const StatMetadata& m : plane.stat_metadata) {
      const std::string& n = m.name;
      int64_t* slot = n == "correlation_id" ? &correlation
                      : n == "hlo_op"       ? &hlo_op
                      : n == "hlo_module"   ? &hlo_module
                      : n == "program_id"   ? &program_id
                      : n == "tf_op"        ? &tf_op
                      : n == "name"         ? &name
                      : n == "source"       ? &source
                      : n == "group_id"     ? &group_id
                                            : nullptr;
      if (slot) *slot = m.id;
    }
  }
};

// The labels one event carries (event-metadata stats first, then the event's
// own, which win).
struct Labels {
  std::string_view hlo_op, hlo_module, tf_op, name, source;
  int64_t program_id = kNoValue, group_id = kNoValue, correlation = kNoValue;

  void Take(const Plane& plane, const LabelStatIds& ids, std::span<const Stat> stats) {
    for (const Stat& s : stats) {
      const int64_t id = s.metadata_id;
      if (id == ids.correlation) {
        correlation = s.int64_value();
      } else if (id == ids.program_id) {
        program_id = s.int64_value();
      } else if (id == ids.group_id) {
        group_id = s.int64_value();
      } else {
        std::string_view* dst = id == ids.hlo_op       ? &hlo_op
                                : id == ids.hlo_module ? &hlo_module
                                : id == ids.tf_op      ? &tf_op
                                : id == ids.name       ? &name
                                : id == ids.source     ? &source
                                                       : nullptr;
        if (dst) *dst = plane.StatString(s);
      }
    }
  }
  bool any() const {
    return !hlo_op.empty() || !hlo_module.empty() || program_id != kNoValue || !name.empty() ||
           !source.empty() || group_id != kNoValue || (!tf_op.empty() && tf_op != "XlaModule:");
  }
  // The framework op path: `name` (JAX puts op_name there), else tf_op unless
  // it is only the module marker.
  std::string_view op_name() const {
    if (!name.empty()) return name;
    return tf_op == "XlaModule:" ? std::string_view() : tf_op;
  }
};

// Allocator events on host planes (MemoryAllocation / MemoryDeallocation,
// formats.md §1.7): the stats that fill EventGraph::memory_args.
struct AllocatorStatIds {
  int64_t allocator = INT64_MIN, allocated = INT64_MIN, reserved = INT64_MIN,
          allocation_bytes = INT64_MIN, addr = INT64_MIN, index_on_host = INT64_MIN;
  explicit AllocatorStatIds(const Plane& plane) {
    for (const StatMetadata& m : plane.stat_metadata) {
      if (m.name == "allocator_name") allocator = m.id;
      if (m.name == "bytes_allocated") allocated = m.id;
      if (m.name == "bytes_reserved") reserved = m.id;
      if (m.name == "allocation_bytes") allocation_bytes = m.id;
      if (m.name == "addr") addr = m.id;
      if (m.name == "index_on_host") index_on_host = m.id;
    }
  }
};

// "GPU_3_bfc" -> device 3 (c10 device type 1, CUDA/HIP). Other allocators are
// host ones: CPU (type 0) with ids -1, -2, ... in order of first sight, one
// per allocator so each keeps its own running total.
void AllocatorDevice(std::string_view allocator, std::vector<std::string>* host_allocators,
                     int8_t* type, int16_t* id) {
  *type = 0;
  auto host = [&] {
    auto it = std::find(host_allocators->begin(), host_allocators->end(), allocator);
    if (it == host_allocators->end()) it = host_allocators->insert(it, std::string(allocator));
    *id = static_cast<int16_t>(-1 - (it - host_allocators->begin()));
  };
  if (allocator.substr(0, 4) != "GPU_") return host();
  int v = 0;
  size_t i = 4;
  for (; i < allocator.size() && allocator[i] >= '0' && allocator[i] <= '9'; ++i)
    v = v * 10 + (allocator[i] - '0');
  if (i == 4) return host();
  *type = 1;
  *id = static_cast<int16_t>(v);
}

// Allocator events without allocation_bytes (TPU): the size is the step of
// their allocator's running total (bytes_allocated), in time order.
void FillAllocationSizes(kineto::ParsedChunk* chunk) {
  MemoryArgsTable& m = chunk->memory_args;
  std::map<std::pair<int8_t, int16_t>, std::vector<uint32_t>> by_allocator;
  bool any = false;
  for (uint32_t r = 0; r < m.size(); ++r) any |= m.bytes[r] == kNoValue;
  if (!any) return;
  for (uint32_t r = 0; r < m.size(); ++r)
    by_allocator[{m.device_type[r], m.device_id[r]}].push_back(r);
  for (auto& [key, rows] : by_allocator) {
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
      return chunk->events.ts[m.event[a]] < chunk->events.ts[m.event[b]];
    });
    int64_t previous = 0;
    for (uint32_t r : rows) {
      int64_t total = m.total_allocated[r];
      if (m.bytes[r] == kNoValue) m.bytes[r] = total == kNoValue ? 0 : total - previous;
      if (total != kNoValue) previous = total;
    }
  }
}

// "jit_f(12190760917235803885)" -> {"jit_f", 12190760917235803885 as int64}.
bool SplitModuleEventName(std::string_view s, std::string_view* module, int64_t* fingerprint) {
  if (s.empty() || s.back() != ')') return false;
  size_t open = s.rfind('(');
  if (open == std::string_view::npos || open == 0) return false;
  uint64_t v = 0;
  for (size_t i = open + 1; i + 1 < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  *module = s.substr(0, open);
  *fingerprint = static_cast<int64_t>(v);
  return true;
}

EventKind DeviceKind(std::string_view name) {
  if (StartsWith(name, "Memcpy") || StartsWith(name, "MemcpyH") || StartsWith(name, "MemcpyD"))
    return EventKind::kMemcpy;
  if (StartsWith(name, "Memset")) return EventKind::kMemset;
  return EventKind::kKernel;
}

}  // namespace

StatusOr<std::unique_ptr<Trace>> ImportXSpaceFileReference(
    const std::string& path, std::vector<EmbeddedHloProto>* hlo_protos) {
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
  int64_t profile_start_ns = 0, max_line_timestamp = 0;
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
      // Device capabilities are plane stats (formats.md §1.7).
      for (const Stat& st : plane.stats) {
        const std::string& n = plane.StatName(st.metadata_id);
        auto number = [&]() -> int64_t {
          return st.kind == StatKind::kDouble ? static_cast<int64_t>(st.double_value())
                                              : st.int64_value();
        };
        if (n == "memory_size") d.total_global_mem = number();
        if (n == "core_count") d.num_sms = static_cast<int>(number());
        if (n == "compute_cap_major") d.compute_major = static_cast<int>(number());
        if (n == "compute_cap_minor") d.compute_minor = static_cast<int>(number());
        // Named by model or vendor, like deviceProperties names: identical
        // devices then group in reports ("8 × AMD GPU ...").
        if (n == "device_type_string" && st.kind == StatKind::kStr) d.name = plane.StatString(st);
        if (n == "device_vendor" && st.kind == StatKind::kStr && d.name == plane.name)
          d.name = plane.StatString(st) + (gpu ? " GPU" : "");
      }
      trace->info.devices.push_back(std::move(d));
    }
    if (plane.name == "/host:metadata") {  // one "Hlo Proto" stat per compiled module
      auto take = [&](const Stat& s, std::string_view where) {
        if (plane.StatName(s.metadata_id) != "Hlo Proto") return;
        ++trace->info.hlo_protos;
        if (hlo_protos && (s.kind == StatKind::kBytes || s.kind == StatKind::kStr)) {
          hlo_protos->push_back({path + ": metadata plane " + std::string(where), s.str});
        }
      };
      for (const Stat& s : plane.stats) take(s, "stat");
      for (const EventMetadata& m : plane.event_metadata)
        for (const Stat& s : m.stats) take(s, "event '" + m.name + "'");
    }
    const LabelStatIds label_ids(plane);
    const AllocatorStatIds allocator_ids(plane);
    std::vector<std::string> host_allocators;
    // TPU: program fingerprint -> module name, from the "XLA Modules" line.
    std::unordered_map<int64_t, std::string_view> module_by_fingerprint;
    if (device && !gpu) {
      for (const Line& line : plane.lines) {
        if (line.name != "XLA Modules") continue;
        for (const Event& ev : line.events) {
          const EventMetadata* md = plane.FindEventMetadata(ev.metadata_id);
          std::string_view module;
          int64_t fingerprint = 0;
          if (md && SplitModuleEventName(md->name, &module, &fingerprint))
            module_by_fingerprint.emplace(fingerprint, module);
        }
      }
    }

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
        Labels labels;
        if (md) labels.Take(plane, label_ids, md->stats);
        labels.Take(plane, label_ids, plane.StatsOf(ev));
        const int64_t correlation = labels.correlation;
        if (device_ops) {  // TPU: the op is its own label
          if (labels.hlo_op.empty() && md)
            labels.hlo_op = md->display_name.empty() ? md->name : md->display_name;
          if (labels.hlo_module.empty() && labels.program_id != kNoValue) {
            auto it = module_by_fingerprint.find(labels.program_id);
            if (it != module_by_fingerprint.end()) labels.hlo_module = it->second;
          }
        }
        // A host event with a correlation id is the API call that launched GPU work.
        if (!device && correlation != kNoValue) kind = EventKind::kRuntime;
        auto row = static_cast<EventId>(chunk.events.size());
        uint32_t args_row = kNoRow;
        const bool allocation = name == "MemoryAllocation", free = name == "MemoryDeallocation";
        if (!device && (allocation || free)) {
          kind = EventKind::kMemory;
          MemoryArgsTable& m = chunk.memory_args;
          args_row = static_cast<uint32_t>(m.size());
          int64_t bytes = kNoValue, total = kNoValue, reserved = kNoValue, addr = 0;
          int8_t type = 0;
          int16_t id = -1;
          bool named = false;
          for (const Stat& st : plane.StatsOf(ev)) {
            if (st.metadata_id == allocator_ids.allocator) {
              AllocatorDevice(plane.StatString(st), &host_allocators, &type, &id);
              named = true;
            } else if (st.metadata_id == allocator_ids.index_on_host && !named) {
              type = 9;  // c10 XLA: a TPU's allocator, by its index on the host
              id = static_cast<int16_t>(st.int64_value());
            } else if (st.metadata_id == allocator_ids.allocated) {
              total = st.int64_value();
            } else if (st.metadata_id == allocator_ids.reserved) {
              reserved = st.int64_value();
            } else if (st.metadata_id == allocator_ids.allocation_bytes) {
              bytes = st.int64_value();
            } else if (st.metadata_id == allocator_ids.addr) {
              addr = st.int64_value();
            }
          }
          m.event.push_back(row);
          m.device_type.push_back(type);
          m.device_id.push_back(id);
          m.addr.push_back(addr);
          // Without allocation_bytes the size is the step of the allocator's
          // running total, filled in time order once every event is read.
          m.bytes.push_back(bytes == kNoValue ? kNoValue : allocation ? bytes : -bytes);
          m.total_allocated.push_back(total);
          m.total_reserved.push_back(reserved);
        } else if (IsGpuActivity(kind)) {
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
        if (device_ops) AppendOpCost(plane, md, ev, row, &chunk.xla_op_costs);
        if (labels.any()) {
          XlaLabelTable& x = chunk.xla_labels;
          x.event.push_back(row);
          x.hlo_op.push_back(labels.hlo_op.empty() ? kEmptyString : tables.Intern(labels.hlo_op));
          x.hlo_module.push_back(labels.hlo_module.empty() ? kEmptyString
                                                           : tables.Intern(labels.hlo_module));
          x.program_id.push_back(labels.program_id);
          std::string_view op_name = labels.op_name();
          x.op_name.push_back(op_name.empty() ? kEmptyString : tables.Intern(op_name));
          x.source.push_back(labels.source.empty() ? kEmptyString : tables.Intern(labels.source));
          x.group_id.push_back(labels.group_id);
        }
      }
    }
    // The capture's wall-clock anchor (formats.md §1.3): JAX/TF rewrite line
    // timestamps relative to the session start, which this plane records.
    if (plane.name == "Task Environment") {
      for (const Stat& st : plane.stats) {
        if (plane.StatName(st.metadata_id) == "profile_start_time" &&
            (st.kind == StatKind::kUint64 || st.kind == StatKind::kInt64) && st.raw > 0)
          profile_start_ns = static_cast<int64_t>(st.raw);
      }
    }
    for (const Line& line : plane.lines)
      max_line_timestamp = std::max(max_line_timestamp, line.timestamp_ns);
    trace->info.planes.push_back(std::move(summary));
  }
  FillAllocationSizes(&chunk);
  // Relative line origins (all below ~1e18 ns, i.e. not epoch) take the
  // session start as their base.
  if (profile_start_ns > 0 && max_line_timestamp < 1'000'000'000'000'000'000LL)
    trace->info.base_time_ns = profile_start_ns;
  // GPU captures hold only stream lines: derive Steps / XLA Modules / XLA Ops.
  int64_t derived = 0;
  for (const Plane& plane : data->planes) {
    if (StartsWith(plane.name, "/device:GPU:"))
      derived +=
          AppendDerivedXlaLinesReference(plane.id, plane.name, static_cast<int32_t>(plane.id),
                                         trace->graph.strings, &tables, &chunk);
  }
  trace->trust.Add(TrustId::kEventDerivedFromKernelLabels, derived);
  builder.Append(std::move(chunk));
  trace->trust.Add(TrustId::kPicosecondTimeRounded, rounded);
  builder.Finish(shared.tracks());
  std::error_code ec;
  trace->info.file_bytes = std::filesystem::file_size(path, ec);
  trace->info.import_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return trace;
}

}  // namespace th::xspace::reference
