#include "core/import/xspace/xspace_importer.h"

#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

#include "core/import/kineto/graph_builder.h"
#include "core/import/kineto/shared_tables.h"
#include "core/import/xspace/derived_lines.h"
#include "core/import/xspace/op_costs.h"
#include "core/import/xspace/plane_tables.h"
#include "core/import/xspace/xspace_reader.h"

namespace th::xspace {

namespace {

static_assert(kEmptyString == 0, "absent labels are left as zero pages (LineEvents)");

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Nearest ns of a picosecond value; `rounded` counts values with sub-ns digits.
int64_t PsToNs(int64_t ps, int64_t* rounded) {
  if (ps >= 0) [[likely]] {  // one unsigned division: quotient and remainder
    const uint64_t q = static_cast<uint64_t>(ps) / 1000;
    const uint64_t r = static_cast<uint64_t>(ps) - q * 1000;
    *rounded += r != 0;
    return static_cast<int64_t>(q + (r >= 500));
  }
  if (ps % 1000 != 0) ++*rounded;
  return -((-ps + 500) / 1000);
}

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
  bool any = false;
  for (uint32_t r = 0; r < m.size(); ++r) any |= m.bytes[r] == kNoValue;
  if (!any) return;
  // (ts, row) of each allocator's rows: sorting these reads no event column.
  struct Timed {
    int64_t ts;
    uint32_t row;
  };
  std::map<std::pair<int8_t, int16_t>, std::vector<Timed>> by_allocator;
  for (uint32_t r = 0; r < m.size(); ++r)
    by_allocator[{m.device_type[r], m.device_id[r]}].push_back({chunk->events.ts[m.event[r]], r});
  for (auto& [key, rows] : by_allocator) {
    // Usually in time order already (one host line per allocator), else a
    // few runs in order (one per line).
    sdk::StableSortRuns(rows, [](const Timed& a, const Timed& b) { return a.ts < b.ts; });
    int64_t previous = 0;
    for (const Timed& t : rows) {
      const uint32_t r = t.row;
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

// The model -> graph conversion, fed by the reader plane by plane and line by
// line (XSpaceSink): from the streaming decoder, or replayed from a whole model.
class Converter : public XSpaceSink {
 public:
  Converter(Trace* trace, std::string path, std::vector<EmbeddedHloProto>* hlo_protos)
      : trace_(trace),
        path_(std::move(path)),
        hlo_protos_(hlo_protos),
        shared_(&trace->graph.strings),
        tables_(&shared_),
        builder_(trace),
        kernel_cat_(tables_.Intern("kernel")),
        host_cat_(tables_.Intern("host")),
        device_cat_(tables_.Intern("device")) {}

  std::vector<size_t> BeginPlane(const Plane& plane) override;
  void Preview(const Plane& plane, size_t line, std::span<const Event> events) override;
  void BeginLine(const Plane& plane, size_t line) override;
  void LineEvents(const Plane& plane, size_t line, std::span<const Event> events) override;
  void EndLine(const Plane& plane, size_t line, uint64_t events) override;
  void EndPlane(const Plane& plane) override;
  // After the last plane: derived lines, then the graph's second phase.
  void Finish();

 private:
  struct Module {
    std::string_view name;
    StringId id = kUnsetId;
  };

  Trace* trace_;
  std::string path_;
  std::vector<EmbeddedHloProto>* hlo_protos_;
  kineto::SharedTables shared_;
  kineto::ThreadTables tables_;
  kineto::ParsedChunk chunk_;
  kineto::GraphBuilder builder_;
  const StringId kernel_cat_, host_cat_, device_cat_;
  int64_t rounded_ = 0;
  int64_t profile_start_ns_ = 0, max_line_timestamp_ = 0;
  std::vector<std::pair<int64_t, std::string>> gpu_planes_;  // id, name

  // The plane being converted.
  PlaneSummary summary_;
  bool gpu_ = false, device_ = false;
  std::optional<AllocatorStatIds> allocator_ids_;
  std::optional<PlaneTables> plane_tables_;
  std::optional<OpCosts> op_costs_;
  std::vector<std::string> host_allocators_;
  // Allocator device of each allocator_name ref value seen on the plane (the
  // stat-metadata id it names -> AllocatorDevice's answer).
  struct AllocatorRef {
    uint64_t ref;
    int8_t type;
    int16_t id;
  };
  std::vector<AllocatorRef> allocator_refs_;
  // TPU: program fingerprint -> module name, from the "XLA Modules" line.
  std::unordered_map<int64_t, Module> module_by_fingerprint_;
  int64_t last_fingerprint_ = 0;  // a one-entry cache in front of the map
  Module* last_module_ = nullptr;

  // The line being converted: what holds for every event of it. Events of
  // stream and XLA Ops lines are device work (kernels, or copies by name);
  // those of other lines never are, so the category is the line's.
  uint32_t track_ = 0;
  bool device_ops_ = false, gpu_line_ = false;
  EventKind copy_kind_ = EventKind::kOther;  // kOther: none
  EventKind plain_kind_ = EventKind::kOther;
  StringId line_cat_ = kEmptyString;
  int64_t stream_id_ = 0;
  std::vector<int64_t> correlations_;  // of the batch being converted
  // Memory args rows of the batch, appended to the table column by column.
  struct MemoryRow {
    EventId event;
    int8_t device_type;
    int16_t device_id;
    int64_t addr, bytes, total_allocated, total_reserved;
  };
  std::vector<MemoryRow> memory_rows_;

  // The xla_op_costs rows of a batch of device ops whose first event is row
  // `first` (events taken in LineEvents' order, aggregated ones skipped).
  void AppendOpCosts(const Plane& plane, std::span<const Event> events, size_t first);
  // AllocatorDevice of an allocator_name stat, remembered per ref value.
  void Allocator(const Plane& plane, const Stat& st, int8_t* type, int16_t* id);
  void AppendMemoryRows();
};

void Converter::Allocator(const Plane& plane, const Stat& st, int8_t* type, int16_t* id) {
  constexpr size_t kMaxRefs = 64;  // a plane names a few allocators
  if (st.kind != StatKind::kRef)
    return AllocatorDevice(plane.StatString(st), &host_allocators_, type, id);
  for (const AllocatorRef& a : allocator_refs_) {
    if (a.ref == st.raw) {
      *type = a.type;
      *id = a.id;
      return;
    }
  }
  AllocatorDevice(plane.StatString(st), &host_allocators_, type, id);
  if (allocator_refs_.size() < kMaxRefs) allocator_refs_.push_back({st.raw, *type, *id});
}

void Converter::AppendOpCosts(const Plane& plane, std::span<const Event> events, size_t first) {
  XlaOpCostTable& out = chunk_.xla_op_costs;
  const size_t n = events.size(), before = out.size();
  EventId* event = out.event.grow_uninitialized(n);
  int64_t* flops = out.flops.grow_uninitialized(n);
  int64_t* model_flops = out.model_flops.grow_uninitialized(n);
  int64_t* bytes = out.bytes_accessed.grow_uninitialized(n);
  size_t w = 0, k = 0;
  for (const Event& ev : events) {
    if (ev.has_num_occurrences) continue;  // (not an event row)
    const OpCost c = op_costs_->Of(plane_tables_->Find(ev.metadata_id), plane.StatsOf(ev));
    if (c.any()) {
      event[k] = static_cast<EventId>(first + w);
      flops[k] = c.flops;
      model_flops[k] = c.model_flops;
      bytes[k] = c.bytes_accessed;
      ++k;
    }
    ++w;
  }
  out.event.resize(before + k);
  out.flops.resize(before + k);
  out.model_flops.resize(before + k);
  out.bytes_accessed.resize(before + k);
}

void Converter::AppendMemoryRows() {
  const size_t n = memory_rows_.size();
  if (n == 0) return;
  MemoryArgsTable& m = chunk_.memory_args;
  EventId* event = m.event.grow_uninitialized(n);
  int8_t* device_type = m.device_type.grow_uninitialized(n);
  int16_t* device_id = m.device_id.grow_uninitialized(n);
  int64_t* addr = m.addr.grow_uninitialized(n);
  int64_t* bytes = m.bytes.grow_uninitialized(n);
  int64_t* total_allocated = m.total_allocated.grow_uninitialized(n);
  int64_t* total_reserved = m.total_reserved.grow_uninitialized(n);
  for (size_t i = 0; i < n; ++i) {
    const MemoryRow& r = memory_rows_[i];
    event[i] = r.event;
    device_type[i] = r.device_type;
    device_id[i] = r.device_id;
    addr[i] = r.addr;
    bytes[i] = r.bytes;
    total_allocated[i] = r.total_allocated;
    total_reserved[i] = r.total_reserved;
  }
  memory_rows_.clear();
}

std::vector<size_t> Converter::BeginPlane(const Plane& plane) {
  Trace* trace = trace_;
  summary_ = PlaneSummary();
  summary_.name = plane.name;
  for (const StatMetadata& m : plane.stat_metadata) summary_.stat_names.push_back(m.name);
  std::sort(summary_.stat_names.begin(), summary_.stat_names.end());
  const bool gpu = gpu_ = StartsWith(plane.name, "/device:GPU:");
  device_ = StartsWith(plane.name, "/device:");
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
      if (hlo_protos_ && (s.kind == StatKind::kBytes || s.kind == StatKind::kStr)) {
        hlo_protos_->push_back({path_ + ": metadata plane " + std::string(where), s.str});
      }
    };
    for (const Stat& s : plane.stats) take(s, "stat");
    for (const EventMetadata& m : plane.event_metadata)
      for (const Stat& s : m.stats) take(s, "event '" + m.name + "'");
  }
  allocator_ids_.emplace(plane);
  plane_tables_.emplace(plane);
  op_costs_.emplace(plane);
  host_allocators_.clear();
  allocator_refs_.clear();
  module_by_fingerprint_.clear();
  last_module_ = nullptr;
  std::vector<size_t> previews;
  if (device_ && !gpu_) {
    for (size_t i = 0; i < plane.lines.size(); ++i)
      if (plane.lines[i].name == "XLA Modules") previews.push_back(i);
  }
  return previews;
}

void Converter::Preview(const Plane& plane, size_t, std::span<const Event> events) {
  for (const Event& ev : events) {
    const EventMetadata* md = plane.FindEventMetadata(ev.metadata_id);
    std::string_view module;
    int64_t fingerprint = 0;
    if (md && SplitModuleEventName(md->name, &module, &fingerprint))
      module_by_fingerprint_.emplace(fingerprint, Module{module});
  }
}

void Converter::BeginLine(const Plane& plane, size_t index) {
  const Line& line = plane.lines[index];
  const std::string& line_name = line.display_name.empty() ? line.name : line.display_name;
  const bool stream = gpu_ && (StartsWith(line.name, "Stream") || StartsWith(line_name, "Stream"));
  device_ops_ = device_ && !gpu_ && line.name == "XLA Ops";
  kineto::TrackKey key;
  key.pid = plane.id;
  key.tid = line.id;
  key.pid_str = tables_.Intern(plane.name);
  track_ = tables_.Track(key);
  chunk_.names.push_back({kineto::NameRecord::kProcessName, track_, tables_.Intern(plane.name)});
  chunk_.names.push_back({kineto::NameRecord::kThreadName, track_, tables_.Intern(line_name)});
  gpu_line_ = stream || device_ops_;
  copy_kind_ = EventKind::kOther;
  // XLA names copy streams "Stream #N(MemcpyH2D)", "(MemcpyOther)", ...
  if (stream && line_name.find("Memcpy") != std::string::npos) copy_kind_ = EventKind::kMemcpy;
  if (stream && line_name.find("Memset") != std::string::npos) copy_kind_ = EventKind::kMemset;
  plain_kind_ = device_ ? EventKind::kOther : EventKind::kCpuOp;
  line_cat_ = gpu_line_ ? kernel_cat_ : device_ ? device_cat_ : host_cat_;
  stream_id_ = line.display_id ? line.display_id : line.id;
}

void Converter::EndLine(const Plane& plane, size_t index, uint64_t events) {
  const Line& line = plane.lines[index];
  summary_.lines.emplace_back(line.display_name.empty() ? line.name : line.display_name,
                              static_cast<int64_t>(events));
  summary_.events += static_cast<int64_t>(events);
}

// Rows are written through pointers into columns grown by the batch's event
// count, then cut to the rows written; constant columns are filled in bulk.
void Converter::LineEvents(const Plane& plane, size_t index, std::span<const Event> events) {
  const Line& line = plane.lines[index];
  PlaneTables& plane_tables = *plane_tables_;
  const AllocatorStatIds& allocator_ids = *allocator_ids_;
  kineto::ThreadTables& tables = tables_;
  int64_t rounded = 0;
  const bool device = device_, device_ops = device_ops_, gpu_line = gpu_line_;
  const EventKind copy_kind = copy_kind_, plain_kind = plain_kind_;
  const size_t n = events.size();
  EventColumns& e = chunk_.events;
  const size_t first = e.size();
  const size_t m_first = chunk_.memory_args.size();
  int64_t* ts = e.ts.grow_uninitialized(n);
  int64_t* dur = e.dur.grow_uninitialized(n);
  StringId* names = e.name.grow_uninitialized(n);
  EventKind* kinds = e.kind.grow_uninitialized(n);
  uint32_t* args = e.args_row.grow_uninitialized(n);
  if (correlations_.size() < n) correlations_.resize(n);
  int64_t* correlations = correlations_.data();
  GpuArgsTable& g = chunk_.gpu_args;
  const size_t gpu_first = g.size();
  EventId* gpu_event = gpu_line ? g.event.grow_uninitialized(n) : nullptr;
  XlaLabelTable& x = chunk_.xla_labels;
  const size_t x_first = x.size();
  EventId* x_event = x.event.grow_uninitialized(n);
  // Label strings are often absent (kEmptyString): only the others are
  // written, so columns of them stay untouched zero pages.
  // (On TPU XLA Ops lines every op names itself and nearly always its
  // module: those two are written in full, onto pages filled ahead.)
  const bool dense_ops = device_ops_;
  StringId* x_hlo_op = dense_ops ? x.hlo_op.grow_uninitialized(n) : x.hlo_op.grow_zeroed(n);
  StringId* x_hlo_module =
      dense_ops ? x.hlo_module.grow_uninitialized(n) : x.hlo_module.grow_zeroed(n);
  int64_t* x_program_id = x.program_id.grow_uninitialized(n);
  StringId* x_op_name = x.op_name.grow_zeroed(n);
  StringId* x_source = x.source.grow_zeroed(n);
  int64_t* x_group_id = x.group_id.grow_uninitialized(n);
  static const EventLabels kNoLabels;
  // An event whose metadata id is unknown: no name, no labels, a kernel on
  // device lines.
  PlaneTables::EventHot no_metadata;
  no_metadata.name_id = kEmptyString;
  no_metadata.ready = true;
  EventLabels labels;
  size_t w = 0, xw = 0;
  bool any_correlation = false;
  for (const Event& ev : events) {
    if (ev.has_num_occurrences) continue;  // aggregated counts, not timed events
    const uint32_t mi = plane_tables.Find(ev.metadata_id);
    const bool known = mi != PlaneTables::kNoMetadata;
    PlaneTables::EventHot& hot = known ? plane_tables.hot(mi) : no_metadata;
    if (hot.name_id == kUnsetId) hot.name_id = tables.Intern(plane_tables.info(mi).name);
    const StringId name_id = hot.name_id;
    // The metadata's labels as they are, or a copy the event's own label
    // stats change.
    PlaneTables::EventInfo* md = nullptr;
    const EventLabels* lp = &kNoLabels;
    bool any_label = hot.labels_any;
    int64_t correlation = hot.correlation;
    if (ev.stats_count || device_ops || any_label) {  // (the labels are needed)
      md = known ? &plane_tables.info(mi) : nullptr;
      if (md) lp = &md->labels;
    }
    int64_t program_id = lp->program_id, group_id = lp->group_id;
    const uint8_t own_labels = ev.stats_count ? plane_tables.LabelKinds(plane.StatsOf(ev)) : 0;
    if (own_labels & PlaneTables::kStringLabel) {
      labels = *lp;
      lp = &labels;
      plane_tables.Take(plane.StatsOf(ev), &labels, nullptr);
      any_label = labels.any();
      correlation = labels.correlation;
      program_id = labels.program_id;
      group_id = labels.group_id;
    } else if (own_labels) {  // numbers only (GPU ops: their correlation id): no copy
      correlation = lp->correlation;
      plane_tables.TakeNumbers(plane.StatsOf(ev), &correlation, &program_id, &group_id);
      any_label = lp->AnyWith(program_id, group_id);
    }
    // On TPU XLA Ops lines the op is its own label, and its module the one
    // of its program (set here, not copied into `labels`).
    const LabelStr* hlo_op = &lp->hlo_op();
    const LabelStr* hlo_module = &lp->hlo_module();
    LabelStr own_op, own_module;
    if (device_ops) {
      if (hlo_op->v.empty() && md) {
        own_op = {md->name, &hot.name_id};
        hlo_op = &own_op;
      }
      if (hlo_module->v.empty() && program_id != kNoValue) {
        if (!last_module_ || last_fingerprint_ != program_id) {
          auto it = module_by_fingerprint_.find(program_id);
          last_module_ = it == module_by_fingerprint_.end() ? nullptr : &it->second;
          last_fingerprint_ = program_id;
        }
        if (last_module_) {
          own_module = {last_module_->name, &last_module_->id};
          hlo_module = &own_module;
        }
      }
      any_label |= !hlo_op->v.empty() || !hlo_module->v.empty();
    }
    EventKind kind = plain_kind;
    if (gpu_line) {
      kind = copy_kind != EventKind::kOther ? copy_kind : hot.device_kind;
    }
    // A host event with a correlation id is the API call that launched GPU work.
    if (!device && correlation != kNoValue) kind = EventKind::kRuntime;
    const auto row = static_cast<EventId>(first + w);
    uint32_t args_row = kNoRow;
    if (!device && hot.memory) [[unlikely]] {
      const bool allocation = hot.memory == 1;
      kind = EventKind::kMemory;
      args_row = static_cast<uint32_t>(m_first + memory_rows_.size());
      int64_t bytes = kNoValue, total = kNoValue, reserved = kNoValue, addr = 0;
      int8_t type = 0;
      int16_t id = -1;
      bool named = false;
      for (const Stat& st : plane.StatsOf(ev)) {
        if (st.metadata_id == allocator_ids.allocator) {
          Allocator(plane, st, &type, &id);
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
      // Without allocation_bytes the size is the step of the allocator's
      // running total, filled in time order once every event is read.
      const int64_t signed_bytes = bytes == kNoValue ? kNoValue : allocation ? bytes : -bytes;
      memory_rows_.push_back({row, type, id, addr, signed_bytes, total, reserved});
    } else if (gpu_line) {
      args_row = static_cast<uint32_t>(gpu_first + w);
      gpu_event[w] = row;
    }
    ts[w] = line.timestamp_ns + PsToNs(ev.offset_ps, &rounded);
    dur[w] = PsToNs(ev.duration_ps, &rounded);
    names[w] = name_id;
    kinds[w] = kind;
    args[w] = args_row;
    correlations[w] = correlation;
    any_correlation |= correlation != kNoValue;
    if (any_label) {
      x_event[xw] = row;
      if (StringId id = plane_tables.Id(*hlo_op, &tables); id || dense_ops) x_hlo_op[xw] = id;
      if (StringId id = plane_tables.Id(*hlo_module, &tables); id || dense_ops)
        x_hlo_module[xw] = id;
      x_program_id[xw] = program_id;
      if (StringId id = plane_tables.Id(lp->op_name(), &tables)) x_op_name[xw] = id;
      if (StringId id = plane_tables.Id(lp->source(), &tables)) x_source[xw] = id;
      x_group_id[xw] = group_id;
      ++xw;
    }
    ++w;
  }
  rounded_ += rounded;
  AppendMemoryRows();
  if (device_ops && op_costs_->active()) AppendOpCosts(plane, events, first);
  e.ts.resize(first + w);
  e.dur.resize(first + w);
  e.name.resize(first + w);
  e.kind.resize(first + w);
  e.args_row.resize(first + w);
  std::fill_n(e.cat.grow_uninitialized(w), w, line_cat_);
  std::fill_n(e.track.grow_uninitialized(w), w, track_);
  std::fill_n(e.parent.grow_uninitialized(w), w, kNoRow);
  e.depth.grow_zeroed(w);  // Nest writes the nested depths
  std::fill_n(e.ph.grow_uninitialized(w), w, 'X');
  if (any_correlation) {
    e.correlation.AppendValues(correlations, w);
  } else {
    e.correlation.AppendAbsent(w);
  }
  e.external_id.AppendAbsent(w);
  if (gpu_line) {
    g.event.resize(gpu_first + w);
    std::fill_n(g.device.grow_uninitialized(w), w, static_cast<int32_t>(plane.id));
    std::fill_n(g.stream.grow_uninitialized(w), w, stream_id_);
    // grid, block, registers and shared_mem: all zero, made once in Finish.
    std::fill_n(g.occupancy.grow_uninitialized(w), w, -1.0f);
    std::fill_n(g.bytes.grow_uninitialized(w), w, int64_t{-1});
  }
  x.event.resize(x_first + xw);
  if (dense_ops) {
    x.hlo_op.resize(x_first + xw);
    x.hlo_module.resize(x_first + xw);
  } else {
    x.hlo_op.shrink_zeroed(x_first + xw);
    x.hlo_module.shrink_zeroed(x_first + xw);
  }
  x.program_id.resize(x_first + xw);
  x.op_name.shrink_zeroed(x_first + xw);
  x.source.shrink_zeroed(x_first + xw);
  x.group_id.resize(x_first + xw);
}

void Converter::EndPlane(const Plane& plane) {
  // The capture's wall-clock anchor (formats.md §1.3): JAX/TF rewrite line
  // timestamps relative to the session start, which this plane records.
  if (plane.name == "Task Environment") {
    for (const Stat& st : plane.stats) {
      if (plane.StatName(st.metadata_id) == "profile_start_time" &&
          (st.kind == StatKind::kUint64 || st.kind == StatKind::kInt64) && st.raw > 0)
        profile_start_ns_ = static_cast<int64_t>(st.raw);
    }
  }
  for (const Line& line : plane.lines)
    max_line_timestamp_ = std::max(max_line_timestamp_, line.timestamp_ns);
  trace_->info.planes.push_back(std::move(summary_));
  if (gpu_) gpu_planes_.emplace_back(plane.id, plane.name);
  plane_tables_.reset();
  op_costs_.reset();
}

void Converter::Finish() {
  Trace* trace = trace_;
  // Columns that are zero for every XSpace row, made at their full length in
  // one untouched block (pages that are only read cost no memory).
  chunk_.events.flags.assign_zeros(chunk_.events.size());
  GpuArgsTable& g = chunk_.gpu_args;
  for (int i = 0; i < 3; ++i) {
    g.grid[i].assign_zeros(g.size());
    g.block[i].assign_zeros(g.size());
  }
  g.registers.assign_zeros(g.size());
  g.shared_mem.assign_zeros(g.size());
  FillAllocationSizes(&chunk_);
  // Relative line origins (all below ~1e18 ns, i.e. not epoch) take the
  // session start as their base.
  if (profile_start_ns_ > 0 && max_line_timestamp_ < 1'000'000'000'000'000'000LL)
    trace->info.base_time_ns = profile_start_ns_;
  // GPU captures hold only stream lines: derive Steps / XLA Modules / XLA Ops.
  const int64_t derived =
      AppendDerivedXlaLines(gpu_planes_, trace->graph.strings, &tables_, &chunk_);
  trace->trust.Add(TrustId::kEventDerivedFromKernelLabels, derived);
  builder_.Append(std::move(chunk_));
  trace->trust.Add(TrustId::kPicosecondTimeRounded, rounded_);
  builder_.Finish(shared_.tracks());
}

double Seconds(std::chrono::steady_clock::time_point from,
               std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

std::unique_ptr<Trace> NewTrace(const std::string& path) {
  auto trace = std::make_unique<Trace>();
  trace->info.path = path;
  trace->info.format = "xspace";
  return trace;
}

void Done(Trace* trace, uint64_t file_bytes, std::chrono::steady_clock::time_point started) {
  trace->info.file_bytes = file_bytes;
  trace->info.import_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

uint64_t FileBytes(const std::string& path) {
  std::error_code ec;
  uint64_t bytes = std::filesystem::file_size(path, ec);
  return ec ? 0 : bytes;
}

StatusOr<std::unique_ptr<Trace>> FromModel(StatusOr<XSpaceData> data, const std::string& name,
                                           uint64_t file_bytes,
                                           std::chrono::steady_clock::time_point started,
                                           std::vector<EmbeddedHloProto>* hlo_protos) {
  if (!data.ok()) return data.status();
  auto trace = NewTrace(name);
  auto read = std::chrono::steady_clock::now();
  trace->info.read_seconds = Seconds(started, read);
  {
    Converter converter(trace.get(), name, hlo_protos);
    ReplayXSpace(*data, &converter);
    auto parsed = std::chrono::steady_clock::now();
    trace->info.parse_seconds = Seconds(read, parsed);
    converter.Finish();
    trace->info.finish_seconds = Seconds(parsed, std::chrono::steady_clock::now());
  }
  Done(trace.get(), file_bytes, started);
  return trace;
}

// `stream(sink, guess, &guess_failed)` decodes the capture into the sink;
// `model()` decodes it whole (the fallback).
template <typename Stream, typename Model>
StatusOr<std::unique_ptr<Trace>> ImportStreamed(const std::string& name, uint64_t file_bytes,
                                                std::vector<EmbeddedHloProto>* hlo_protos,
                                                Stream&& stream, Model&& model) {
  auto started = std::chrono::steady_clock::now();
  const size_t hlo_before = hlo_protos ? hlo_protos->size() : 0;
  // First with guessed line ends (no skim of every event before a line's
  // events); if the guess was wrong for some line, again without.
  for (bool guess : {true, false}) {
    auto trace = NewTrace(name);
    Status streamed;
    bool guess_failed = false;
    {
      Converter converter(trace.get(), name, hlo_protos);
      streamed = stream(&converter, guess, &guess_failed);
      if (streamed.ok()) {
        auto parsed = std::chrono::steady_clock::now();
        trace->info.parse_seconds = Seconds(started, parsed);  // decode and convert, interleaved
        converter.Finish();
        trace->info.finish_seconds = Seconds(parsed, std::chrono::steady_clock::now());
      }
    }
    if (!streamed.ok()) {
      if (hlo_protos) hlo_protos->resize(hlo_before);
      if (guess_failed) continue;
      if (streamed.code() != StatusCode::kInternal) return streamed;
      return model();  // not expected: see StreamXSpaceFile
    }
    Done(trace.get(), file_bytes, started);
    return trace;
  }
  return Internal(name + ": not reached");
}

}  // namespace

StatusOr<std::unique_ptr<Trace>> ImportXSpaceFileFromModel(
    const std::string& path, std::vector<EmbeddedHloProto>* hlo_protos) {
  auto started = std::chrono::steady_clock::now();
  return FromModel(ReadXSpaceFile(path), path, FileBytes(path), started, hlo_protos);
}

StatusOr<std::unique_ptr<Trace>> ImportXSpaceFile(const std::string& path,
                                                  std::vector<EmbeddedHloProto>* hlo_protos) {
  return ImportStreamed(
      path, FileBytes(path), hlo_protos,
      [&](XSpaceSink* sink, bool guess, bool* guess_failed) {
        return StreamXSpaceFile(path, sink, guess, guess_failed);
      },
      [&] { return ImportXSpaceFileFromModel(path, hlo_protos); });
}

StatusOr<std::unique_ptr<Trace>> ImportXSpaceBytes(std::string_view bytes, const std::string& name,
                                                   uint64_t stored_bytes,
                                                   std::vector<EmbeddedHloProto>* hlo_protos) {
  return ImportStreamed(
      name, stored_bytes, hlo_protos,
      [&](XSpaceSink* sink, bool guess, bool* guess_failed) {
        return StreamXSpace(bytes, name, sink, guess, guess_failed);
      },
      [&] {
        return FromModel(ReadXSpace(bytes, name), name, stored_bytes,
                         std::chrono::steady_clock::now(), hlo_protos);
      });
}

}  // namespace th::xspace
