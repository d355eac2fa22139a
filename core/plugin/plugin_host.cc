#include "core/plugin/plugin_host.h"

#include <tracehound/plugin_api.h>

#include <atomic>
#include <cstdio>
#include <deque>
#include <iostream>
#include <memory>
#include <vector>

namespace th {

namespace {

static_assert(static_cast<int>(EventKind::kKernel) == TH_EVENT_KERNEL);
static_assert(static_cast<int>(EventKind::kCounter) == TH_EVENT_COUNTER);
static_assert(static_cast<int>(EdgeKind::kLaunch) == TH_EDGE_LAUNCH);
static_assert(static_cast<int>(EdgeKind::kFlow) == TH_EDGE_FLOW);
static_assert(kNoValue == INT64_MIN);  // absent memory totals, as plugin_api.h says

// Per-run state behind the host table's `ctx`.
struct RunState {
  kernels::BackendChoice backend;
  const LoadedPlugin* plugin;
  const TraceSet* set;
  PluginResults* results;
  std::vector<const Trace*> by_view;  // trace of each view, same order
  std::vector<th_trace_view> views;
  // Tables found by find_table, converted to C once per run.
  std::deque<th_table> c_tables;
  std::deque<std::vector<th_table_column>> c_columns;
  std::deque<std::vector<const char*>> c_strings;
};

RunState* State(void* ctx) { return static_cast<RunState*>(ctx); }

const Trace& TraceOf(void* ctx, const th_trace_view* v) {
  return *static_cast<const Trace*>(v->host_trace);
  (void)ctx;
}

th_column Column(const void* data, uint64_t length, th_value_type type) {
  return th_column{data, length, static_cast<uint32_t>(type), 0};
}

ReportScope ScopeOf(const th_scope& s) {
  return {s.rank, s.device, s.stream, s.step_first, s.step_last};
}

NumberKind KindOf(uint32_t k) {
  return k == TH_READ       ? NumberKind::kRead
         : k == TH_INFERRED ? NumberKind::kInferred
                            : NumberKind::kMeasured;
}

std::string Str(const char* s) { return s ? s : ""; }

std::atomic<int> log_min_level{0};

// A plugin's log line is a note of the run (reports list them); it is also
// echoed on stderr at or above the log level.
void Log(void* ctx, int level, const char* message) {
  RunState* st = State(ctx);
  st->results->notes.push_back({st->plugin->declaration.id, Str(message), level != 0});
  if (level < log_min_level.load(std::memory_order_relaxed)) return;
  std::cerr << "tracehound: " << (level ? "warning" : "note") << ": plugin "
            << st->plugin->declaration.id << ": " << Str(message) << "\n";
}

const char* StringAt(void* ctx, const th_trace_view* v, uint32_t id, uint64_t* length) {
  const StringPool& pool = TraceOf(ctx, v).graph.strings;
  if (id >= pool.size()) id = kEmptyString;
  std::string_view s = pool.Get(id);
  if (length) *length = s.size();
  return s.data();
}

int64_t Correlation(void* ctx, const th_trace_view* v, uint64_t event) {
  return TraceOf(ctx, v).graph.events.correlation[event];
}
int64_t ExternalId(void* ctx, const th_trace_view* v, uint64_t event) {
  return TraceOf(ctx, v).graph.events.external_id[event];
}

th_status AddFinding(void* ctx, const th_finding* f) {
  if (!f || f->struct_size < sizeof(th_finding) || f->severity > TH_INFO || !f->title)
    return TH_STATUS_ERROR;
  Finding out;
  out.plugin = State(ctx)->plugin->declaration.id;
  out.severity = static_cast<int>(f->severity);
  out.title = Str(f->title);
  out.what = Str(f->what);
  out.suggestion = Str(f->suggestion);
  out.confidence = f->confidence;
  out.scope = ScopeOf(f->scope);
  for (uint32_t i = 0; i < f->evidence_count; ++i) {
    const th_evidence& e = f->evidence[i];
    out.evidence.push_back({Str(e.name), e.value, Str(e.unit), KindOf(e.kind)});
  }
  State(ctx)->results->findings.push_back(std::move(out));
  return TH_STATUS_OK;
}

// Runs a primitive on the engine chosen for `rows`; a failure is logged with
// the engine's message (the plugin sees an error status).
template <typename Call>
th_status Compute(void* ctx, const char* what, uint64_t rows, Call call) {
  kernels::Engine* engine = nullptr;
  kernels::KernelStatus s = kernels::SelectEngine(State(ctx)->backend, rows, &engine);
  if (s.ok()) s = call(*engine);
  if (s.ok()) return TH_STATUS_OK;
  Log(ctx, 1, (std::string(what) + ": " + s.message()).c_str());
  return TH_STATUS_ERROR;
}

th_status SortByKeyFn(void* ctx, int64_t* keys, uint32_t* values, uint64_t n) {
  return Compute(ctx, "sort_by_key", n, [&](kernels::Engine& e) {
    return e.SortByKey({keys, n}, {values, n});
  });
}

th_status ReduceByKeyFn(void* ctx, const uint32_t* keys, const int64_t* values, uint64_t n,
                        uint32_t op, int64_t* out, uint64_t num_keys) {
  if (op > 3) return TH_STATUS_ERROR;
  return Compute(ctx, "reduce_by_key", n, [&](kernels::Engine& e) {
    return e.ReduceByKey({keys, n}, {values, values ? n : 0}, static_cast<kernels::ReduceOp>(op),
                         {out, num_keys});
  });
}

th_status SegmentedPercentilesFn(void* ctx, const int64_t* values, const uint64_t* offsets,
                                 uint64_t segments, const double* pcts, uint64_t count,
                                 int64_t* out) {
  uint64_t rows = segments ? offsets[segments] : 0;
  return Compute(ctx, "segmented_percentiles", rows, [&](kernels::Engine& e) {
    return e.SegmentedPercentiles({values, rows}, {offsets, segments + 1}, {pcts, count},
                                  {out, segments * count});
  });
}

th_status IntervalUnionFn(void* ctx, const uint32_t* group, const int64_t* begin,
                          const int64_t* end, uint64_t n, int64_t* out, uint64_t num_groups) {
  return Compute(ctx, "interval_union", n, [&](kernels::Engine& e) {
    return e.IntervalUnion({{group, n}, {begin, n}, {end, n}}, {out, num_groups});
  });
}

th_status IntervalOverlapFn(void* ctx, const uint32_t* ga, const int64_t* ba, const int64_t* ea,
                            uint64_t na, const uint32_t* gb, const int64_t* bb, const int64_t* eb,
                            uint64_t nb, int64_t* out, uint64_t num_groups) {
  return Compute(ctx, "interval_overlap", na + nb, [&](kernels::Engine& e) {
    return e.IntervalOverlap({{ga, na}, {ba, na}, {ea, na}}, {{gb, nb}, {bb, nb}, {eb, nb}},
                             {out, num_groups});
  });
}

th_status SkipTrace(void* ctx, const th_trace_view* v, const char* reason) {
  if (!v || !reason) return TH_STATUS_ERROR;
  State(ctx)->results->skips.push_back(
      {State(ctx)->plugin->declaration.id, TraceOf(ctx, v).info.rank, Str(reason)});
  return TH_STATUS_OK;
}

th_status AddCheck(void* ctx, const th_check* c) {
  if (!c || c->struct_size < sizeof(th_check) || !c->name) return TH_STATUS_ERROR;
  State(ctx)->results->checks.push_back(
      {State(ctx)->plugin->declaration.id, Str(c->name), Str(c->detail), c->passed != 0});
  return TH_STATUS_OK;
}

th_status PublishMetric(void* ctx, const th_metric* m) {
  if (!m || m->struct_size < sizeof(th_metric) || !m->name) return TH_STATUS_ERROR;
  State(ctx)->results->metrics.push_back({State(ctx)->plugin->declaration.id, Str(m->name),
                                          Str(m->unit), m->value, KindOf(m->kind),
                                          ScopeOf(m->scope)});
  return TH_STATUS_OK;
}

th_status PublishTable(void* ctx, const th_table* t) {
  RunState* st = State(ctx);
  if (!t || t->struct_size < sizeof(th_table) || !t->name) return TH_STATUS_ERROR;
  const auto& declared = st->plugin->declaration.publishes;
  if (std::find(declared.begin(), declared.end(), Str(t->name)) == declared.end()) {
    Log(ctx, 1,
        ("table '" + Str(t->name) + "' is not among the tables it declares; refused").c_str());
    return TH_STATUS_ERROR;
  }
  DerivedTable out;
  out.name = Str(t->name);
  out.plugin = st->plugin->declaration.id;
  out.rows = t->row_count;
  for (uint32_t c = 0; c < t->column_count; ++c) {
    const th_table_column& col = t->columns[c];
    if (col.values.length != t->row_count) return TH_STATUS_ERROR;
    DerivedColumn dc;
    dc.name = Str(col.name);
    dc.unit = Str(col.unit);
    const uint64_t n = col.values.length;
    switch (col.values.type) {
      case TH_TYPE_I64: {
        auto* p = static_cast<const int64_t*>(col.values.data);
        dc.values = std::vector<int64_t>(p, p + n);
        break;
      }
      case TH_TYPE_F64: {
        auto* p = static_cast<const double*>(col.values.data);
        dc.values = std::vector<double>(p, p + n);
        break;
      }
      case TH_TYPE_STRING: {
        auto* p = static_cast<const char* const*>(col.values.data);
        std::vector<std::string> v;
        v.reserve(n);
        for (uint64_t i = 0; i < n; ++i) v.push_back(Str(p[i]));
        dc.values = std::move(v);
        break;
      }
      default:
        return TH_STATUS_ERROR;
    }
    out.columns.push_back(std::move(dc));
  }
  st->results->tables[out.name] = std::move(out);
  return TH_STATUS_OK;
}

const th_table* FindTable(void* ctx, const char* name) {
  RunState* st = State(ctx);
  auto it = st->results->tables.find(Str(name));
  if (it == st->results->tables.end()) return nullptr;
  const DerivedTable& t = it->second;
  auto& cols = st->c_columns.emplace_back();
  for (const DerivedColumn& c : t.columns) {
    th_table_column col{};
    col.name = c.name.c_str();
    col.unit = c.unit.c_str();
    if (auto* i = std::get_if<std::vector<int64_t>>(&c.values)) {
      col.values = Column(i->data(), i->size(), TH_TYPE_I64);
    } else if (auto* d = std::get_if<std::vector<double>>(&c.values)) {
      col.values = Column(d->data(), d->size(), TH_TYPE_F64);
    } else {
      auto& s = std::get<std::vector<std::string>>(c.values);
      auto& ptrs = st->c_strings.emplace_back();
      for (const auto& x : s) ptrs.push_back(x.c_str());
      col.values = Column(ptrs.data(), ptrs.size(), TH_TYPE_STRING);
    }
    cols.push_back(col);
  }
  th_table& out = st->c_tables.emplace_back();
  out = {};
  out.struct_size = sizeof out;
  out.name = t.name.c_str();
  out.columns = cols.data();
  out.column_count = static_cast<uint32_t>(cols.size());
  out.row_count = t.rows;
  return &out;
}

th_trace_view ViewOf(const Trace& t, const HostFacts& facts, size_t index,
                     std::vector<th_track>* tracks, std::vector<th_step>* steps,
                     std::vector<th_device>* devices) {
  const EventGraph& g = t.graph;
  const EventColumns& e = g.events;
  for (const Track& tr : g.tracks) {
    th_track c{};
    c.struct_size = sizeof c;
    c.kind = tr.kind == TrackKind::kCpu         ? TH_TRACK_CPU
             : tr.kind == TrackKind::kGpuStream ? TH_TRACK_GPU_STREAM
                                                : TH_TRACK_OTHER;
    c.pid = tr.pid;
    c.tid = tr.tid;
    c.pid_string = tr.pid_str;
    c.tid_string = tr.tid_str;
    c.process_name = tr.process_name;
    c.thread_name = tr.thread_name;
    c.device = tr.device;
    c.stream = tr.stream;
    tracks->push_back(c);
  }
  th_trace_view v{};
  v.struct_size = sizeof v;
  v.path = t.info.path.c_str();
  v.rank = t.info.rank;
  v.event_count = e.size();
  v.ts = Column(e.ts.data(), e.size(), TH_TYPE_I64);
  v.dur = Column(e.dur.data(), e.size(), TH_TYPE_I64);
  v.name = Column(e.name.data(), e.size(), TH_TYPE_U32);
  v.cat = Column(e.cat.data(), e.size(), TH_TYPE_U32);
  v.track = Column(e.track.data(), e.size(), TH_TYPE_U32);
  v.parent = Column(e.parent.data(), e.size(), TH_TYPE_U32);
  v.depth = Column(e.depth.data(), e.size(), TH_TYPE_U16);
  v.kind = Column(e.kind.data(), e.size(), TH_TYPE_U8);
  v.args_row = Column(e.args_row.data(), e.size(), TH_TYPE_U32);
  v.track_count = tracks->size();
  v.tracks = tracks->data();
  const GpuArgsTable& ga = g.gpu_args;
  v.gpu_args_count = ga.size();
  v.gpu_event = Column(ga.event.data(), ga.size(), TH_TYPE_U32);
  v.gpu_device = Column(ga.device.data(), ga.size(), TH_TYPE_I32);
  v.gpu_stream = Column(ga.stream.data(), ga.size(), TH_TYPE_I64);
  v.gpu_bytes = Column(ga.bytes.data(), ga.size(), TH_TYPE_I64);
  v.host_trace = &t;
  const EdgeTable& ed = g.edges;
  v.edge_count = ed.size();
  v.edge_src = Column(ed.src.data(), ed.size(), TH_TYPE_U32);
  v.edge_dst = Column(ed.dst.data(), ed.size(), TH_TYPE_U32);
  v.edge_kind = Column(ed.kind.data(), ed.size(), TH_TYPE_U8);
  for (const Step& st : g.steps) steps->push_back({st.number, st.event, 0, st.ts, st.dur});
  v.step_count = steps->size();
  v.steps = steps->data();
  const HloColumns& h = t.xla.columns;
  v.hlo_module_count = h.module_name.size();
  v.hlo_module_name = Column(h.module_name.data(), h.module_name.size(), TH_TYPE_U32);
  v.hlo_module_id = Column(h.module_id.data(), h.module_id.size(), TH_TYPE_I64);
  const size_t n = h.module.size();
  v.hlo_instruction_count = n;
  v.hlo_module = Column(h.module.data(), n, TH_TYPE_U32);
  v.hlo_name = Column(h.name.data(), n, TH_TYPE_U32);
  v.hlo_opcode = Column(h.opcode.data(), n, TH_TYPE_U32);
  v.hlo_shape = Column(h.shape.data(), n, TH_TYPE_U32);
  v.hlo_op_name = Column(h.op_name.data(), n, TH_TYPE_U32);
  v.hlo_source_file = Column(h.source_file.data(), n, TH_TYPE_U32);
  v.hlo_source_line = Column(h.source_line.data(), n, TH_TYPE_I32);
  v.hlo_caller = Column(h.caller.data(), n, TH_TYPE_U32);
  v.hlo_operand_offsets = Column(h.operand_offsets.data(), h.operand_offsets.size(), TH_TYPE_U32);
  v.hlo_operands = Column(h.operands.data(), h.operands.size(), TH_TYPE_U32);
  v.hlo_user_offsets = Column(h.user_offsets.data(), h.user_offsets.size(), TH_TYPE_U32);
  v.hlo_users = Column(h.users.data(), h.users.size(), TH_TYPE_U32);
  const XlaData& x = t.xla;
  v.gpu_hlo_instruction =
      Column(x.kernel_instruction.data(), x.kernel_instruction.size(), TH_TYPE_U32);
  v.gpu_hlo_match = Column(x.kernel_match.data(), x.kernel_match.size(), TH_TYPE_U8);
  for (int i = 0; i < 3; ++i) {
    v.gpu_grid[i] = Column(ga.grid[i].data(), ga.size(), TH_TYPE_I32);
    v.gpu_block[i] = Column(ga.block[i].data(), ga.size(), TH_TYPE_I32);
  }
  v.gpu_registers = Column(ga.registers.data(), ga.size(), TH_TYPE_I32);
  v.gpu_shared_mem = Column(ga.shared_mem.data(), ga.size(), TH_TYPE_I32);
  v.gpu_occupancy = Column(ga.occupancy.data(), ga.size(), TH_TYPE_F32);
  for (const DeviceInfo& d : t.info.devices) {
    th_device c{};
    c.struct_size = sizeof c;
    c.id = static_cast<int32_t>(d.id);
    c.name = d.name.c_str();
    c.total_global_mem = d.total_global_mem;
    c.compute_major = d.compute_major;
    c.compute_minor = d.compute_minor;
    c.num_sms = d.num_sms;
    devices->push_back(c);
  }
  v.device_count = devices->size();
  v.devices = devices->data();
  const CollectiveArgsTable& ca = g.collective_args;
  v.collective_count = ca.size();
  v.collective_event = Column(ca.event.data(), ca.size(), TH_TYPE_U32);
  v.collective_name = Column(ca.collective.data(), ca.size(), TH_TYPE_U32);
  v.collective_dtype = Column(ca.dtype.data(), ca.size(), TH_TYPE_U32);
  v.collective_group = Column(ca.group.data(), ca.size(), TH_TYPE_U32);
  v.collective_in_nelems = Column(ca.in_nelems.data(), ca.size(), TH_TYPE_I64);
  v.collective_out_nelems = Column(ca.out_nelems.data(), ca.size(), TH_TYPE_I64);
  v.collective_group_size = Column(ca.group_size.data(), ca.size(), TH_TYPE_I32);
  const MemoryArgsTable& ma = g.memory_args;
  v.memory_count = ma.size();
  v.memory_event = Column(ma.event.data(), ma.size(), TH_TYPE_U32);
  v.memory_device_type = Column(ma.device_type.data(), ma.size(), TH_TYPE_I8);
  v.memory_device_id = Column(ma.device_id.data(), ma.size(), TH_TYPE_I16);
  v.memory_addr = Column(ma.addr.data(), ma.size(), TH_TYPE_I64);
  v.memory_bytes = Column(ma.bytes.data(), ma.size(), TH_TYPE_I64);
  v.memory_total_allocated = Column(ma.total_allocated.data(), ma.size(), TH_TYPE_I64);
  v.memory_total_reserved = Column(ma.total_reserved.data(), ma.size(), TH_TYPE_I64);
  v.hlo_custom_call_target = Column(h.custom_call_target.data(), n, TH_TYPE_U32);
  v.hlo_fusion_kind = Column(h.fusion_kind.data(), n, TH_TYPE_U32);
  v.hlo_computation = Column(h.computation.data(), n, TH_TYPE_U32);
  v.hlo_parameter_number = Column(h.parameter_number.data(), n, TH_TYPE_I32);
  v.hlo_tuple_index = Column(h.tuple_index.data(), n, TH_TYPE_I32);
  v.hlo_in_entry = Column(h.in_entry.data(), n, TH_TYPE_U8);
  const NameClasses& names = facts.names(index);
  v.string_count = names.rule.size();
  v.name_rule = Column(names.rule.data(), names.rule.size(), TH_TYPE_U32);
  v.name_hta_rule = Column(names.hta_rule.data(), names.hta_rule.size(), TH_TYPE_U32);
  v.class_rule_count = facts.c_rules().size();
  v.class_rules = facts.c_rules().data();
  const GraphCapture& c = facts.capture(index);
  v.capture.struct_size = sizeof v.capture;
  v.capture.dominates = c.dominates() ? 1 : 0;
  v.capture.hip = c.hip ? 1 : 0;
  v.capture.begin_calls = c.begin_calls;
  v.capture.end_calls = c.end_calls;
  v.capture.instantiations = c.instantiations;
  v.capture.graph_launches = c.graph_launches;
  v.capture.captured_launches = c.captured_launches;
  v.capture.executed_launches = c.executed_launches;
  v.capture.kernels = c.kernels;
  v.capture.first_ts = c.first_ts;
  v.capture.last_end = c.last_end;
  return v;
}

}  // namespace

Status RunPlugin(const LoadedPlugin& plugin, const TraceSet& set,
                 const std::map<std::string, OptionValue>& options, PluginResults* results,
                 kernels::BackendChoice backend, const HostFacts* facts) {
  std::unique_ptr<HostFacts> own;
  if (!facts) {
    own = std::make_unique<HostFacts>(set, KernelClassTable::Builtin());
    facts = own.get();
  }
  RunState st{backend, &plugin, &set, results, {}, {}, {}, {}, {}};
  std::deque<std::vector<th_track>> tracks;
  std::deque<std::vector<th_step>> steps;
  std::deque<std::vector<th_device>> devices;
  for (size_t i = 0; i < set.traces.size(); ++i)
    st.views.push_back(ViewOf(*set.traces[i], *facts, i, &tracks.emplace_back(),
                              &steps.emplace_back(), &devices.emplace_back()));
  std::vector<const th_trace_view*> view_ptrs;
  for (const auto& v : st.views) view_ptrs.push_back(&v);

  std::vector<th_option_value> opts;
  for (const OptionDeclaration& d : plugin.declaration.options) {
    auto it = options.find(d.name);
    const OptionValue& value = it != options.end() ? it->second : d.default_value;
    th_option_value o{};
    o.name = d.name.c_str();
    if (auto* b = std::get_if<bool>(&value)) {
      o.type = TH_TYPE_BOOL;
      o.i64 = *b;
    } else if (auto* i = std::get_if<int64_t>(&value)) {
      o.type = TH_TYPE_I64;
      o.i64 = *i;
      o.f64 = static_cast<double>(*i);
    } else if (auto* f = std::get_if<double>(&value)) {
      o.type = TH_TYPE_F64;
      o.f64 = *f;
    } else {
      o.type = TH_TYPE_STRING;
      o.str = std::get<std::string>(value).c_str();
    }
    opts.push_back(o);
  }

  th_host_api host{};
  host.struct_size = sizeof host;
  host.api_major = TH_PLUGIN_API_MAJOR;
  host.api_minor = TH_PLUGIN_API_MINOR;
  host.ctx = &st;
  host.log = &Log;
  host.string_at = &StringAt;
  host.correlation = &Correlation;
  host.external_id = &ExternalId;
  host.add_finding = &AddFinding;
  host.publish_metric = &PublishMetric;
  host.publish_table = &PublishTable;
  host.find_table = &FindTable;
  host.add_check = &AddCheck;
  host.sort_by_key = &SortByKeyFn;
  host.reduce_by_key = &ReduceByKeyFn;
  host.segmented_percentiles = &SegmentedPercentilesFn;
  host.interval_union = &IntervalUnionFn;
  host.interval_overlap = &IntervalOverlapFn;
  host.skip_trace = &SkipTrace;

  th_run_input input{};
  input.struct_size = sizeof input;
  input.trace_count = static_cast<uint32_t>(view_ptrs.size());
  input.traces = view_ptrs.data();
  input.options = opts.data();
  input.option_count = static_cast<uint32_t>(opts.size());

  char error[1024] = {0};
  th_status s = plugin.descriptor->run(&host, &input, error, sizeof error);
  if (s != TH_STATUS_OK) {
    return Internal("plugin '" + plugin.declaration.id + "' (" + plugin.declaration.library +
                    ") failed: " + (error[0] ? error : "no message"));
  }
  return Ok();
}

void SetPluginLogLevel(int min_level) { log_min_level.store(min_level); }

}  // namespace th
