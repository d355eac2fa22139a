#include "core/plugin/plugin_host.h"

#include <tracehound/plugin_api.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/plugin/text_column_copy.h"

namespace th {

namespace {

static_assert(static_cast<int>(EventKind::kKernel) == TH_EVENT_KERNEL);
static_assert(static_cast<int>(EventKind::kCounter) == TH_EVENT_COUNTER);
static_assert(static_cast<int>(EventKind::kTraceSpan) == TH_EVENT_TRACE_SPAN);
static_assert(static_cast<int>(EventKind::kMtiaRuntime) == TH_EVENT_MTIA_RUNTIME);
static_assert(static_cast<int>(kFlagNoDuration) == TH_EVENT_FLAG_NO_DURATION);
static_assert(static_cast<int>(kFlagEndMarker) == TH_EVENT_FLAG_END_MARKER);
static_assert(static_cast<int>(kFlagDerived) == TH_EVENT_FLAG_DERIVED);
static_assert(static_cast<int>(EdgeKind::kLaunch) == TH_EDGE_LAUNCH);
static_assert(static_cast<int>(EdgeKind::kFlow) == TH_EDGE_FLOW);
static_assert(kNoValue == INT64_MIN);  // absent memory totals, as the catalog says
static_assert(static_cast<int>(ColumnType::kI16) == TH_TYPE_I16);
static_assert(static_cast<int>(ColumnType::kStringId) == TH_TYPE_STRING_ID);
// A plugin's th_severity is the finding's severity code.
static_assert(SeverityCode(FindingSeverity::kP0) == TH_P0);
static_assert(SeverityCode(FindingSeverity::kP1) == TH_P1);
static_assert(SeverityCode(FindingSeverity::kP2) == TH_P2);
static_assert(SeverityCode(FindingSeverity::kInfo) == TH_INFO);

// Per-run state behind the host table's `ctx`.
struct RunState {
  const LoadedPlugin* plugin;
  const TraceSet* set;
  PluginResults* results;
  const PluginRunContext* context;
  // Per trace: the C tables of its catalog the plugin declared.
  std::deque<std::vector<th_table>> view_tables;
  std::vector<th_trace_view> views;
  // Tables found by find_table and the trace views' columns, as C structs.
  std::deque<th_table> c_tables;
  std::deque<std::vector<th_table_column>> c_columns;
  std::deque<std::vector<const char*>> c_strings;
  // column_buffer's columns not yet published, by address.
  std::mutex buffers_mutex;
  std::unordered_map<const void*, std::variant<std::vector<int64_t>, std::vector<double>>> buffers;
};

RunState* State(void* ctx) { return static_cast<RunState*>(ctx); }

// `count` values of `type`, or nullptr.
void* ColumnBuffer(void* ctx, uint32_t type, uint64_t count) {
  if (count == 0 || (type != TH_TYPE_I64 && type != TH_TYPE_F64)) return nullptr;
  RunState* st = State(ctx);
  try {
    std::variant<std::vector<int64_t>, std::vector<double>> column;
    void* data = nullptr;
    if (type == TH_TYPE_I64)
      data = column.emplace<std::vector<int64_t>>(count).data();
    else
      data = column.emplace<std::vector<double>>(count).data();
    std::lock_guard<std::mutex> lock(st->buffers_mutex);
    st->buffers.emplace(data, std::move(column));
    return data;
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

// The column_buffer column at `data` holding `n` values of T, taken out of
// the pending buffers; nullopt when `data` is not one.
template <typename T>
std::optional<std::vector<T>> TakeBuffer(RunState* st, const void* data, uint64_t n) {
  std::lock_guard<std::mutex> lock(st->buffers_mutex);
  auto it = st->buffers.find(data);
  if (it == st->buffers.end()) return std::nullopt;
  auto* v = std::get_if<std::vector<T>>(&it->second);
  if (!v || v->size() != n) return std::nullopt;
  std::vector<T> out = std::move(*v);
  st->buffers.erase(it);
  return out;
}

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
void Echo(const Note& note) {
  if ((note.warning ? 1 : 0) < log_min_level.load(std::memory_order_relaxed)) return;
  std::cerr << "tracehound: " << (note.warning ? "warning" : "note") << ": plugin " << note.plugin
            << ": " << note.text << "\n";
}

void Log(void* ctx, int level, const char* message) {
  RunState* st = State(ctx);
  st->results->notes.push_back({st->plugin->declaration.id, Str(message), level != 0});
  if (st->context->echo_log) Echo(st->results->notes.back());
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
  if (!f || f->struct_size < sizeof(th_finding) || !f->title) return TH_STATUS_ERROR;
  std::optional<FindingSeverity> severity = SeverityFromCode(f->severity);
  if (!severity) return TH_STATUS_ERROR;
  Finding out;
  out.plugin = State(ctx)->plugin->declaration.id;
  out.severity = *severity;
  out.title = Str(f->title);
  out.what = Str(f->what);
  out.suggestion = Str(f->suggestion);
  out.confidence = f->confidence;
  out.scope = ScopeOf(f->scope);
  for (uint32_t i = 0; i < f->evidence_count; ++i) {
    const th_evidence& e = f->evidence[i];
    out.evidence.push_back({Str(e.name), e.value, Str(e.unit), KindOf(e.kind)});
  }
  if (f->has_saving) out.saving_ns = f->saving_ns;
  if (f->has_time_lost) out.time_lost_ns = f->time_lost_ns;
  out.group = Str(f->group);
  if (f->has_range) out.range = std::make_pair(f->t0, f->t1);
  State(ctx)->results->findings.push_back(std::move(out));
  return TH_STATUS_OK;
}

// Runs a primitive on the engine chosen for `rows`; a failure is logged with
// the engine's message (the plugin sees an error status).
template <typename Call>
th_status Compute(void* ctx, const char* what, uint64_t rows, Call call) {
  kernels::Engine* engine = nullptr;
  kernels::KernelStatus s = kernels::SelectEngine(State(ctx)->context->backend, rows, &engine);
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

std::string TypeName(uint32_t type) {
  return std::string(ColumnTypeName(static_cast<ColumnType>(type)));
}

// Why `t` does not match `schema`, or "" when it does: the same columns, in
// order, of the same types and units, all `row_count` long.
std::string Mismatch(const th_table& t, const TableSchema& schema) {
  if (t.column_count != schema.columns.size()) {
    return std::to_string(t.column_count) + " columns, its schema declares " +
           std::to_string(schema.columns.size());
  }
  for (uint32_t c = 0; c < t.column_count; ++c) {
    const th_table_column& col = t.columns[c];
    const ColumnSchema& want = schema.columns[c];
    const std::string name = Str(col.name), unit = Str(col.unit);
    if (name != want.name || col.values.type != static_cast<uint32_t>(want.type) ||
        unit != want.unit) {
      return "column " + std::to_string(c + 1) + " is '" + name + "' (" +
             TypeName(col.values.type) + (unit.empty() ? "" : ", " + unit) +
             "), its schema declares '" + want.name + "' (" +
             std::string(ColumnTypeName(want.type)) + (want.unit.empty() ? "" : ", " + want.unit) +
             ")";
    }
    if (col.values.length != t.row_count) {
      return "column '" + name + "' has " + std::to_string(col.values.length) +
             " values, the table " + std::to_string(t.row_count) + " rows";
    }
  }
  return "";
}

th_status PublishTable(void* ctx, const th_table* t) {
  RunState* st = State(ctx);
  if (!t || t->struct_size < sizeof(th_table) || !t->name) return TH_STATUS_ERROR;
  const TableSchema* schema = st->plugin->declaration.Published(Str(t->name));
  if (!schema) {
    Log(ctx, 1,
        ("table '" + Str(t->name) + "' is not among the tables it declares; refused").c_str());
    return TH_STATUS_ERROR;
  }
  if (std::string why = Mismatch(*t, *schema); !why.empty()) {
    Log(ctx, 1,
        ("table '" + schema->name + "' does not match its declared schema: " + why + "; refused")
            .c_str());
    return TH_STATUS_ERROR;
  }
  DerivedTable out;
  out.name = schema->name;
  out.plugin = st->plugin->declaration.id;
  out.view = schema->view;
  out.rows = t->row_count;
  for (uint32_t c = 0; c < t->column_count; ++c) {
    const th_table_column& col = t->columns[c];
    DerivedColumn dc;
    dc.name = Str(col.name);
    dc.unit = Str(col.unit);
    const uint64_t n = col.values.length;
    switch (col.values.type) {
      case TH_TYPE_I64: {
        auto* p = static_cast<const int64_t*>(col.values.data);
        if (auto taken = TakeBuffer<int64_t>(st, p, n))
          dc.values = std::move(*taken);
        else
          dc.values = std::vector<int64_t>(p, p + n);
        break;
      }
      case TH_TYPE_F64: {
        auto* p = static_cast<const double*>(col.values.data);
        if (auto taken = TakeBuffer<double>(st, p, n))
          dc.values = std::move(*taken);
        else
          dc.values = std::vector<double>(p, p + n);
        break;
      }
      case TH_TYPE_STRING: {
        dc.values = CopyTextColumn(static_cast<const char* const*>(col.values.data), n);
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

// The table `name` of the first of `results` that has it, or nullptr.
const DerivedTable* Published(const std::vector<const PluginResults*>& results,
                              const std::string& name) {
  for (const PluginResults* r : results) {
    auto it = r->tables.find(name);
    if (it != r->tables.end()) return &it->second;
  }
  return nullptr;
}

// `t` as a C table valid during the run.
const th_table* CTable(RunState* st, const DerivedTable& t);

// A table of the plugins before this one over `group`'s traces.
th_status FindTableIn(void* ctx, const char* group, const char* name, const th_table** found) {
  RunState* st = State(ctx);
  if (!found) return TH_STATUS_ERROR;
  *found = nullptr;
  if (!st->plugin->declaration.Reads(Str(name))) {
    Log(ctx, 1,
        ("reads table '" + Str(name) + "' without declaring it among the tables it reads; refused")
            .c_str());
    return TH_STATUS_ERROR;
  }
  const std::string g = Str(group);
  const DerivedTable* published = nullptr;
  if (g == TH_GROUP_BASELINE) {
    if (st->context->baseline) published = Published(st->context->baseline_upstream, Str(name));
  } else if (g.empty() || g == TH_GROUP_INPUTS) {
    std::vector<const PluginResults*> results = {st->results};
    results.insert(results.end(), st->context->upstream.begin(), st->context->upstream.end());
    published = Published(results, Str(name));
  }
  if (published) *found = CTable(st, *published);
  return TH_STATUS_OK;
}

th_status FindTable(void* ctx, const char* name, const th_table** found) {
  return FindTableIn(ctx, "", name, found);
}

const th_table* CTable(RunState* st, const DerivedTable& t) {
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
      const TextColumn& s = std::get<TextColumn>(c.values);
      auto& ptrs = st->c_strings.emplace_back();
      ptrs.reserve(s.size());
      for (size_t k = 0; k < s.size(); ++k) ptrs.push_back(s.c_str(k));
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

// The view of one trace for the running plugin: the catalog tables it
// declared it reads (columns zero copy), in its declaration's order.
th_trace_view ViewOf(const Trace& t, const TraceTables& catalog, const char* group, RunState* st) {
  std::vector<th_table>& tables = st->view_tables.emplace_back();
  for (const std::string& read : st->plugin->declaration.reads) {
    const CatalogTable* table = catalog.Find(read);
    if (!table) continue;  // another plugin's table: find_table
    auto& cols = st->c_columns.emplace_back();
    for (size_t c = 0; c < table->columns.size(); ++c) {
      const ColumnSchema& schema = table->schema->columns[c];
      th_table_column col{};
      col.name = schema.name.c_str();
      col.unit = schema.unit.c_str();
      col.values = Column(table->columns[c], table->rows, static_cast<th_value_type>(schema.type));
      cols.push_back(col);
    }
    th_table out{};
    out.struct_size = sizeof out;
    out.name = table->schema->name.c_str();
    out.columns = cols.data();
    out.column_count = static_cast<uint32_t>(cols.size());
    out.row_count = table->rows;
    tables.push_back(out);
  }
  th_trace_view v{};
  v.struct_size = sizeof v;
  v.path = t.info.path.c_str();
  v.rank = t.info.rank;
  v.table_count = static_cast<uint32_t>(tables.size());
  v.tables = tables.data();
  v.host_trace = &t;
  v.group = group;
  return v;
}

}  // namespace

Status RunPlugin(const LoadedPlugin& plugin, const TraceSet& set,
                 const std::map<std::string, OptionValue>& options, PluginResults* results,
                 kernels::BackendChoice backend, const HostFacts* facts) {
  PluginRunContext context;
  context.backend = backend;
  context.facts = facts;
  return RunPlugin(plugin, set, options, results, context);
}

Status RunPlugin(const LoadedPlugin& plugin, const TraceSet& set,
                 const std::map<std::string, OptionValue>& options, PluginResults* results,
                 const PluginRunContext& context) {
  const HostFacts* facts = context.facts;
  std::unique_ptr<HostFacts> own;
  if (!facts) {
    own = std::make_unique<HostFacts>(set, KernelClassTable::Builtin());
    facts = own.get();
  }
  RunState st{&plugin, &set, results, &context, {}, {}, {}, {}, {}, {}, {}};
  // Baseline traces first (A before B), for a plugin that reads both groups.
  std::unique_ptr<HostFacts> own_baseline;
  if (context.baseline && plugin.declaration.input_groups) {
    const HostFacts* bf = context.baseline_facts;
    if (!bf) {
      own_baseline = std::make_unique<HostFacts>(*context.baseline, KernelClassTable::Builtin());
      bf = own_baseline.get();
    }
    for (size_t i = 0; i < context.baseline->traces.size(); ++i)
      st.views.push_back(
          ViewOf(*context.baseline->traces[i], bf->tables(i), TH_GROUP_BASELINE, &st));
  }
  const char* group = context.baseline ? TH_GROUP_INPUTS : "";
  for (size_t i = 0; i < set.traces.size(); ++i)
    st.views.push_back(ViewOf(*set.traces[i], facts->tables(i), group, &st));
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
  host.find_group_table = &FindTableIn;
  host.column_buffer = &ColumnBuffer;

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

void EchoPluginNotes(const std::vector<Note>& notes) {
  for (const Note& n : notes) Echo(n);
}

void SetPluginLogLevel(int min_level) { log_min_level.store(min_level); }

}  // namespace th
