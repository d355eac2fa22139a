// The header-only C++ layer over <tracehound/plugin_api.h>: a plugin is one
// class with a static Declare() and a Run(Context&), plus TH_PLUGIN(Class).
//
//   class LongKernels final : public th::sdk::Plugin {
//    public:
//     static th::sdk::Declaration Declare() {
//       return th::sdk::Declaration("long-kernels", "1.0.0", th::sdk::kDetector,
//                                   "Kernels longer than a threshold")
//           .Reads({"events"})
//           .Publishes(th::sdk::Schema("long_kernels").Text("name").Int("dur", "ns"))
//           .Option("threshold_us", int64_t{1000}, "report kernels at least this long");
//     }
//     void Run(th::sdk::Context& ctx) override { ... ctx.Add(finding); }
//   };
//   TH_PLUGIN(LongKernels)
//
// Exceptions thrown by Run become an error status carrying their message; they
// never cross into the host.
#ifndef TRACEHOUND_SDK_H_
#define TRACEHOUND_SDK_H_

#include <tracehound/plugin_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Rows of the small catalog tables, assembled once per trace by Trace.
struct th_track {
  uint32_t kind; /* TH_TRACK_* */
  int64_t pid, tid;
  uint32_t pid_string, tid_string;    /* string ids, 0 when numeric */
  uint32_t process_name, thread_name; /* string ids */
  int32_t device;                     /* accelerator of a GPU stream track, -1 otherwise */
  int64_t stream;                     /* stream of a GPU stream track, -1 otherwise */
};
struct th_step {
  int64_t number;  /* N of ProfilerStep#N */
  uint32_t event;  /* the step's event row */
  int64_t ts, dur; /* ns */
};
struct th_device {
  int32_t id;
  const char* name;
  int64_t total_global_mem; /* bytes, 0 when unknown */
  int32_t compute_major, compute_minor;
  int32_t num_sms;
};
struct th_class_rule {
  uint32_t rule_set; /* TH_RULES_* */
  uint32_t klass;    /* TH_CLASS_* */
  uint32_t ignore_case;
  const char* match;
  const char* source; /* where the rule comes from: "NCCL ...", a pipeline's FILE:LINE */
};
struct th_graph_capture {
  uint32_t dominates; /* 1: the trace records capture, not steady-state execution */
  uint32_t hip;       /* 1: HIP graphs */
  int64_t begin_calls, end_calls, instantiations, graph_launches;
  int64_t captured_launches;  /* launch calls inside a capture region whose work never ran */
  int64_t executed_launches;  /* launch calls whose work ran (graph launches included) */
  int64_t kernels;            /* kernels that ran */
  int64_t first_ts, last_end; /* the capture regions: first start, last end (ns) */
};

namespace th::sdk {

inline constexpr th_plugin_kind kAnalyzer = TH_KIND_ANALYZER;
inline constexpr th_plugin_kind kDetector = TH_KIND_DETECTOR;
inline constexpr th_number_kind kMeasured = TH_MEASURED;
inline constexpr th_number_kind kRead = TH_READ;
inline constexpr th_number_kind kInferred = TH_INFERRED;
inline constexpr th_severity P0 = TH_P0;
inline constexpr th_severity P1 = TH_P1;
inline constexpr th_severity P2 = TH_P2;
inline constexpr th_severity kInfo = TH_INFO;  // what the trace is, not a problem
inline constexpr uint32_t kNoRow = 0xFFFFFFFFu;
inline constexpr int64_t kNoValue = INT64_MIN;  // an absent number in a column

// The class of a GPU activity (docs/kernel-classes.md).
enum class KernelClass : uint8_t {
  kNone = TH_CLASS_NONE,  // not a GPU activity
  kComm = TH_CLASS_COMM,
  kComp = TH_CLASS_COMP,
  kMem = TH_CLASS_MEM,
  kOther = TH_CLASS_OTHER
};

inline const char* KernelClassName(KernelClass c) {
  switch (c) {
    case KernelClass::kComm:
      return "COMM";
    case KernelClass::kComp:
      return "COMP";
    case KernelClass::kMem:
      return "MEM";
    case KernelClass::kOther:
      return "OTHER";
    case KernelClass::kNone:
      break;
  }
  return "";
}

struct Scope {
  int64_t rank = -1, device = -1, stream = -1, step_first = -1, step_last = -1;
  th_scope raw() const { return {rank, device, stream, step_first, step_last}; }
};

// A read-only table handed over by the host: columns by name, typed.
class TableView {
 public:
  explicit TableView(const th_table* t) : t_(t) {}
  std::string_view name() const { return t_->name; }
  uint64_t rows() const { return t_->row_count; }
  bool Has(std::string_view column) const { return Find(column) != nullptr; }
  // The values of `column`; throws when it is absent or of another type.
  std::span<const int64_t> Ints(std::string_view column) const {
    return Values<int64_t>(column, TH_TYPE_I64);
  }
  std::span<const double> Reals(std::string_view column) const {
    return Values<double>(column, TH_TYPE_F64);
  }
  std::span<const char* const> Texts(std::string_view column) const {
    return Values<const char*>(column, TH_TYPE_STRING);
  }
  template <typename T>
  std::span<const T> Values(std::string_view column, uint32_t type) const {
    const th_table_column* c = Find(column);
    if (!c || c->values.type != type)
      throw std::invalid_argument("table " + std::string(name()) + " has no column " +
                                  std::string(column) + " of the expected type");
    return {static_cast<const T*>(c->values.data), static_cast<size_t>(c->values.length)};
  }
  const th_table& raw() const { return *t_; }

 private:
  const th_table_column* Find(std::string_view column) const {
    for (uint32_t c = 0; c < t_->column_count; ++c)
      if (column == t_->columns[c].name) return &t_->columns[c];
    return nullptr;
  }
  const th_table* t_;
};

// One trace, read-only, through the catalog tables the plugin declared in
// Reads(). Columns are resolved once, here; each access reads the host's
// memory in place. Reading a table the plugin did not declare throws, naming
// the table to add to Reads().
class Trace {
 public:
  Trace(const th_host_api* host, const th_trace_view* view) : host_(host), v_(view) {
    for (uint32_t i = 0; i < view->table_count; ++i) Bind(view->tables[i]);
    Assemble();
  }

  int64_t rank() const { return v_->rank; }
  std::string_view path() const { return v_->path ? v_->path : ""; }
  // The input group (TH_GROUP_BASELINE, TH_GROUP_INPUTS), "" when the
  // pipeline has one input set or the host predates API 2.1.
  std::string_view group() const {
    if (v_->struct_size < offsetof(th_trace_view, group) + sizeof(v_->group) || !v_->group)
      return "";
    return v_->group;
  }

  // events
  uint64_t size() const { return Rows(events_); }
  int64_t ts(uint64_t i) const { return At<int64_t>(ts_, i); }
  int64_t dur(uint64_t i) const { return At<int64_t>(dur_, i); }
  int64_t end(uint64_t i) const { return ts(i) + dur(i); }
  uint32_t kind(uint64_t i) const { return At<uint8_t>(kind_, i); }
  uint32_t track_index(uint64_t i) const { return At<uint32_t>(track_, i); }
  uint32_t parent(uint64_t i) const { return At<uint32_t>(parent_, i); }
  uint32_t depth(uint64_t i) const { return At<uint16_t>(depth_, i); }
  uint32_t name_id(uint64_t i) const { return At<uint32_t>(name_, i); }
  // Row of the event in gpu_args (GPU activity and syncs), memory_args
  // (allocator events) or op_inputs (other kinds), kNoRow if none.
  uint32_t args_row(uint64_t i) const { return At<uint32_t>(args_row_, i); }
  std::string_view name(uint64_t i) const { return String(name_id(i)); }
  std::string_view category(uint64_t i) const { return String(At<uint32_t>(cat_, i)); }
  std::string_view String(uint32_t id) const {
    uint64_t n = 0;
    const char* s = host_->string_at(host_->ctx, v_, id, &n);
    return {s, static_cast<size_t>(n)};
  }
  // The trace's strings are the ids [0, string_count()): name_classes holds a
  // row per string id (declare it). A plugin can look for a name among them
  // before, or instead of, reading every event's.
  uint64_t string_count() const { return Rows(name_classes_); }
  int64_t correlation(uint64_t i) const { return host_->correlation(host_->ctx, v_, i); }
  int64_t external_id(uint64_t i) const { return host_->external_id(host_->ctx, v_, i); }
  bool is_gpu_activity(uint64_t i) const {
    uint32_t k = kind(i);
    return k == TH_EVENT_KERNEL || k == TH_EVENT_MEMCPY || k == TH_EVENT_MEMSET;
  }

  // tracks
  uint64_t track_count() const { return Rows(tracks_); }
  const th_track& track(uint32_t t) const { return Row(track_rows_, tracks_, t); }
  const th_track& track_of(uint64_t i) const { return track(track_index(i)); }

  // track_events + track_order: the events of track t by start (ts
  // ascending, the longer first, then the lower row), as the importer ordered
  // them; metadata, flows and E end markers aside. k = 0 .. size() - 1.
  struct TrackEvents {
    const uint32_t* order = nullptr;  // nullptr: the rows first, first + 1, ...
    uint32_t first = 0, count = 0;
    uint32_t operator[](uint32_t k) const { return order ? order[k] : first + k; }
    uint32_t size() const { return count; }
  };
  TrackEvents track_events(uint32_t t) const {
    if (t >= Rows(track_events_)) {
      throw std::out_of_range("track " + std::to_string(t) + " of track_events, which has " +
                              std::to_string(Rows(track_events_)) + " rows");
    }
    const uint32_t first = At<uint32_t>(track_first_, t), count = At<uint32_t>(track_count_, t);
    const uint32_t row = At<uint32_t>(track_first_row_, t);
    if (row != kNoRow) return {nullptr, row, count};
    if (uint64_t{first} + count > Rows(track_order_tab_)) OutOfRange(track_order_, first + count);
    return {static_cast<const uint32_t*>(track_order_.data) + first, 0, count};
  }

  // edges
  uint64_t edge_count() const { return Rows(edges_); }
  uint32_t edge_src(uint64_t k) const { return At<uint32_t>(edge_src_, k); }
  uint32_t edge_dst(uint64_t k) const { return At<uint32_t>(edge_dst_, k); }
  uint32_t edge_kind(uint64_t k) const { return At<uint8_t>(edge_kind_, k); }
  // event_launches: the host call that launched event i (its launch edge's
  // source, the last when several), kNoRow if none. Built once by the host;
  // a binary search over the launched events.
  uint32_t launch_of(uint64_t i) const {
    if (!launched_.declared) Undeclared(launched_.table);
    if (launched_.rows == 0) return kNoRow;
    const auto* first = static_cast<const uint32_t*>(launched_.data);
    const uint32_t* last = first + launched_.rows;
    const uint32_t* at = std::lower_bound(first, last, i);
    return at != last && *at == i ? At<uint32_t>(launch_, static_cast<uint64_t>(at - first))
                                  : kNoRow;
  }
  // The same for events visited in increasing order: `cursor` (0 before the
  // first call, then kept by the caller) walks the launched events forward,
  // amortised constant time per call; an event before the previous one
  // restarts it by a binary search, so any order gives the same answers.
  uint32_t launch_of(uint64_t i, uint64_t& cursor) const {
    if (!launched_.declared) Undeclared(launched_.table);
    const auto* first = static_cast<const uint32_t*>(launched_.data);
    const uint64_t n = launched_.rows;
    if (cursor > n || (cursor > 0 && first[cursor - 1] >= i)) {
      if (cursor <= n && cursor > 0 && first[cursor - 1] == i)
        --cursor;  // the same event again
      else
        cursor = static_cast<uint64_t>(std::lower_bound(first, first + n, i) - first);
    }
    while (cursor < n && first[cursor] < i) ++cursor;
    return cursor < n && first[cursor] == i ? At<uint32_t>(launch_, cursor) : kNoRow;
  }

  // gpu_activity: the rows of the kernels, memcpy and memset, ascending
  // (built once by the host): a capture's GPU events without a scan of its
  // host events, which outnumber them tenfold in XProf captures.
  std::span<const uint32_t> gpu_activity() const {
    if (!gpu_activity_.declared) Undeclared(gpu_activity_.table);
    return {static_cast<const uint32_t*>(gpu_activity_.data), gpu_activity_.rows};
  }

  // profiler_steps: ProfilerStep#N windows (the `steps` plugin's table adds
  // steps inferred where the trace has none).
  uint64_t step_count() const { return Rows(profiler_steps_); }
  const th_step& step(uint64_t s) const { return Row(step_rows_, profiler_steps_, s); }

  // hlo_modules, hlo_instructions, hlo_operand(s)/hlo_user(s) (XProf
  // captures; empty otherwise). Instructions of all modules, numbered flat.
  bool has_hlo() const { return hlo_instruction_count() > 0; }
  uint64_t hlo_module_count() const { return Rows(hlo_modules_); }
  std::string_view hlo_module_name(uint32_t m) const {
    return String(At<uint32_t>(hlo_module_name_, m));
  }
  int64_t hlo_module_id(uint32_t m) const { return At<int64_t>(hlo_module_id_, m); }
  uint64_t hlo_instruction_count() const { return Rows(hlo_instructions_); }
  uint32_t hlo_module(uint32_t i) const { return At<uint32_t>(hlo_module_, i); }
  std::string_view hlo_name(uint32_t i) const { return String(At<uint32_t>(hlo_name_, i)); }
  std::string_view hlo_opcode(uint32_t i) const { return String(At<uint32_t>(hlo_opcode_, i)); }
  std::string_view hlo_shape(uint32_t i) const { return String(At<uint32_t>(hlo_shape_, i)); }
  std::string_view hlo_op_name(uint32_t i) const { return String(At<uint32_t>(hlo_op_name_, i)); }
  std::string_view hlo_source_file(uint32_t i) const {
    return String(At<uint32_t>(hlo_source_file_, i));
  }
  int32_t hlo_source_line(uint32_t i) const { return At<int32_t>(hlo_source_line_, i); }
  uint32_t hlo_caller(uint32_t i) const { return At<uint32_t>(hlo_caller_, i); }
  std::span<const uint32_t> hlo_operands(uint32_t i) const {
    return Csr(hlo_operand_offsets_, hlo_operands_, i);
  }
  std::span<const uint32_t> hlo_users(uint32_t i) const {
    return Csr(hlo_user_offsets_, hlo_users_, i);
  }
  std::string_view hlo_custom_call_target(uint32_t i) const {
    return String(At<uint32_t>(hlo_custom_call_target_, i));
  }
  std::string_view hlo_fusion_kind(uint32_t i) const {
    return String(At<uint32_t>(hlo_fusion_kind_, i));
  }
  std::string_view hlo_computation(uint32_t i) const {
    return String(At<uint32_t>(hlo_computation_, i));
  }
  int32_t hlo_parameter_number(uint32_t i) const { return At<int32_t>(hlo_parameter_number_, i); }
  int32_t hlo_tuple_index(uint32_t i) const { return At<int32_t>(hlo_tuple_index_, i); }
  bool hlo_in_entry(uint32_t i) const { return At<uint8_t>(hlo_in_entry_, i) != 0; }
  // hlo_compute_dims (a host without the table: "" and 1). HLO text of a
  // dot's dimension numbers, a window, a convolution's dim_labels.
  bool has_hlo_compute_dims() const {
    return hlo_compute_dims_.table != nullptr && hlo_dot_dims_.data != nullptr;
  }
  std::string_view hlo_dot_dims(uint32_t i) const {
    return has_hlo_compute_dims() ? String(At<uint32_t>(hlo_dot_dims_, i)) : std::string_view();
  }
  std::string_view hlo_window(uint32_t i) const {
    return has_hlo_compute_dims() ? String(At<uint32_t>(hlo_window_, i)) : std::string_view();
  }
  std::string_view hlo_dim_labels(uint32_t i) const {
    return has_hlo_compute_dims() ? String(At<uint32_t>(hlo_dim_labels_, i)) : std::string_view();
  }
  int64_t hlo_feature_group_count(uint32_t i) const {
    return has_hlo_compute_dims() ? At<int64_t>(hlo_feature_group_count_, i) : 1;
  }
  int64_t hlo_batch_group_count(uint32_t i) const {
    return has_hlo_compute_dims() ? At<int64_t>(hlo_batch_group_count_, i) : 1;
  }
  // The backend_config of a custom-call whose cost a model reads from it
  // (TransformerEngine's te_fused_attn_*); "" otherwise, and on a host
  // without the column.
  std::string_view hlo_custom_call_config(uint32_t i) const {
    return has_hlo_compute_dims() && hlo_custom_call_config_.data != nullptr
               ? String(At<uint32_t>(hlo_custom_call_config_, i))
               : std::string_view();
  }
  // gpu_hlo: per GPU activity row, its instruction (kNoRow) and TH_HLO_MATCH_*.
  bool attributed() const { return Rows(gpu_hlo_) > 0; }
  uint32_t gpu_hlo_instruction(uint64_t row) const {
    return attributed() ? At<uint32_t>(gpu_hlo_instruction_, row) : kNoRow;
  }
  uint32_t gpu_hlo_match(uint64_t row) const {
    return attributed() ? At<uint8_t>(gpu_hlo_match_, row) : uint32_t{TH_HLO_MATCH_NONE};
  }

  // gpu_args: one row per kernel, memcpy, memset and sync (0 / -1 when absent).
  uint64_t gpu_rows() const { return Rows(gpu_args_); }
  uint32_t gpu_event(uint64_t row) const { return At<uint32_t>(gpu_event_, row); }
  int32_t gpu_device(uint64_t row) const { return At<int32_t>(gpu_device_, row); }
  int64_t gpu_stream(uint64_t row) const { return At<int64_t>(gpu_stream_, row); }
  int64_t gpu_bytes(uint64_t row) const { return At<int64_t>(gpu_bytes_, row); }
  int64_t gpu_blocks(uint64_t row) const {
    return int64_t{At<int32_t>(gpu_grid_[0], row)} * At<int32_t>(gpu_grid_[1], row) *
           At<int32_t>(gpu_grid_[2], row);
  }
  int64_t gpu_threads_per_block(uint64_t row) const {
    return int64_t{At<int32_t>(gpu_block_[0], row)} * At<int32_t>(gpu_block_[1], row) *
           At<int32_t>(gpu_block_[2], row);
  }
  int32_t gpu_registers(uint64_t row) const { return At<int32_t>(gpu_registers_, row); }
  int32_t gpu_shared_mem(uint64_t row) const { return At<int32_t>(gpu_shared_mem_, row); }
  float gpu_occupancy(uint64_t row) const { return At<float>(gpu_occupancy_, row); }

  // devices
  uint64_t device_count() const { return Rows(devices_); }
  const th_device& device(uint64_t i) const { return Row(device_rows_, devices_, i); }

  // collective_args: NCCL/RCCL metadata, rows in event order; names are
  // Kineto's ("allreduce", "Float", "0").
  uint64_t collective_count() const { return Rows(collective_args_); }
  uint32_t collective_event(uint64_t row) const { return At<uint32_t>(collective_event_, row); }
  std::string_view collective_name(uint64_t row) const {
    return String(At<uint32_t>(collective_name_, row));
  }
  std::string_view collective_dtype(uint64_t row) const {
    return String(At<uint32_t>(collective_dtype_, row));
  }
  std::string_view collective_group(uint64_t row) const {
    return String(At<uint32_t>(collective_group_, row));
  }
  int64_t collective_in_nelems(uint64_t row) const {
    return At<int64_t>(collective_in_nelems_, row);
  }
  int64_t collective_out_nelems(uint64_t row) const {
    return At<int64_t>(collective_out_nelems_, row);
  }
  int32_t collective_group_size(uint64_t row) const {
    return At<int32_t>(collective_group_size_, row);
  }

  // op_inputs: Kineto record_shapes, one row per event with "Input Dims"
  // and/or "Input type", rows in event order. Each is the arg's JSON text
  // without whitespace ("[[4096,4096],[4096,4096]]", "[\"float\",\"Scalar\"]"),
  // empty when absent; parse them with op_shapes.h.
  uint64_t op_inputs_count() const { return Rows(op_inputs_); }
  uint32_t op_inputs_event(uint64_t row) const { return At<uint32_t>(op_inputs_event_, row); }
  std::string_view op_input_dims(uint64_t row) const {
    return String(At<uint32_t>(op_input_dims_, row));
  }
  std::string_view op_input_types(uint64_t row) const {
    return String(At<uint32_t>(op_input_types_, row));
  }
  // "Concrete Inputs": one JSON string per input, the value of a scalar
  // argument as text ("[14, 14]", "1", "False"), "" for a tensor; parse
  // with op_shapes.h ParseConcreteInputs.
  std::string_view op_concrete_inputs(uint64_t row) const {
    return String(At<uint32_t>(op_concrete_inputs_, row));
  }

  // xla_op_costs: the costs the runtime wrote on device ops (TPU: XLA's cost
  // analysis, per execution), one row per event carrying any, rows in event
  // order; -1 where a stat is absent. A host without the table: no rows.
  uint64_t op_costs_count() const {
    return xla_op_costs_.table && op_cost_event_.data ? Rows(xla_op_costs_) : 0;
  }
  uint32_t op_cost_event(uint64_t row) const { return At<uint32_t>(op_cost_event_, row); }
  int64_t op_cost_flops(uint64_t row) const { return At<int64_t>(op_cost_flops_, row); }
  int64_t op_cost_model_flops(uint64_t row) const { return At<int64_t>(op_cost_model_flops_, row); }
  int64_t op_cost_bytes_accessed(uint64_t row) const {
    return At<int64_t>(op_cost_bytes_accessed_, row);
  }

  // memory_args: [memory] and [OutOfMemory] events, rows in event order;
  // absent values: device -1, addr 0, totals kNoValue.
  uint64_t memory_count() const { return Rows(memory_args_); }
  uint32_t memory_event(uint64_t row) const { return At<uint32_t>(memory_event_, row); }
  int32_t memory_device_type(uint64_t row) const {  // c10 DeviceType: 0 CPU, 1 CUDA, 6 HIP
    return At<int8_t>(memory_device_type_, row);
  }
  int32_t memory_device_id(uint64_t row) const { return At<int16_t>(memory_device_id_, row); }
  int64_t memory_addr(uint64_t row) const { return At<int64_t>(memory_addr_, row); }
  int64_t memory_bytes(uint64_t row) const {  // negative = free
    return At<int64_t>(memory_bytes_, row);
  }
  int64_t memory_total_allocated(uint64_t row) const {
    return At<int64_t>(memory_total_allocated_, row);
  }
  int64_t memory_total_reserved(uint64_t row) const {
    return At<int64_t>(memory_total_reserved_, row);
  }

  // Kernel classes (tables name_classes and class_rules): the class of event
  // `i` under the pipeline's kernel class table (built-in rules plus its
  // `kernel_classes:`), kNone for an event that is no GPU activity. The host
  // matched each distinct name once; here it is a lookup. hta_kernel_class:
  // HTA 0.6.1's kernel types, for figures that reproduce HTA's.
  KernelClass kernel_class(uint64_t i) const { return ClassOf(i, false); }
  KernelClass hta_kernel_class(uint64_t i) const { return ClassOf(i, true); }
  // The rule that decided kernel_class(i) (its source says where it comes
  // from); nullptr when no rule matched and the kind decided.
  const th_class_rule* kernel_class_rule(uint64_t i) const {
    const uint32_t r = RuleOf(i, false);
    return r == TH_NO_RULE ? nullptr : &class_rule(r);
  }
  uint64_t class_rule_count() const { return Rows(class_rules_); }
  const th_class_rule& class_rule(uint64_t r) const { return Row(rule_rows_, class_rules_, r); }

  // graph_capture: CUDA/HIP graph capture in this trace. capture().dominates:
  // the trace records capture, not execution; analyses that need executed
  // kernels skip it (Context::Skip).
  const th_graph_capture& capture() const {
    Rows(graph_capture_);
    return capture_;
  }

  // Any declared catalog table by name (tables this SDK has no accessor for
  // included); throws when the plugin did not declare it.
  TableView Table(std::string_view name) const {
    for (uint32_t i = 0; i < v_->table_count; ++i)
      if (name == v_->tables[i].name) return TableView(&v_->tables[i]);
    Undeclared(std::string(name).c_str());
  }

  const th_trace_view& raw() const { return *v_; }

 private:
  struct Tab {
    const char* name;
    const th_table* table = nullptr;  // null: not declared in Reads()
  };
  struct Col {
    const char* table;  // the table's name
    const char* column;
    const void* data = nullptr;
    uint64_t rows = 0;
    bool declared = false;
  };

  [[noreturn]] static void Undeclared(const char* table) {
    throw std::logic_error(std::string("reads catalog table '") + table +
                           "' without declaring it: add \"" + table +
                           "\" to the plugin's Declare().Reads({...})");
  }
  [[noreturn]] static void OutOfRange(const Col& c, uint64_t i) {
    if (!c.declared) Undeclared(c.table);
    throw std::out_of_range(std::string("row ") + std::to_string(i) + " of " + c.table + "." +
                            c.column + ", which has " + std::to_string(c.rows) + " rows");
  }
  static uint64_t Rows(const Tab& t) {
    if (!t.table) Undeclared(t.name);
    return t.table->row_count;
  }
  template <typename R>
  static const R& Row(const std::vector<R>& rows, const Tab& t, uint64_t i) {
    if (i >= rows.size()) {
      if (!t.table) Undeclared(t.name);
      throw std::out_of_range(std::string("row ") + std::to_string(i) + " of " + t.name +
                              ", which has " + std::to_string(rows.size()) + " rows");
    }
    return rows[i];
  }
  // A read in place. The only check is the one a read of an undeclared table
  // (no column: data is null) needs, on a pointer already loaded; rows are
  // not bounds-checked, as in any array.
  template <typename T>
  static T At(const Col& c, uint64_t i) {
    if (c.data == nullptr) [[unlikely]]
      OutOfRange(c, i);
    return static_cast<const T*>(c.data)[i];
  }
  static std::span<const uint32_t> Csr(const Col& offsets, const Col& rows, uint32_t i) {
    const uint32_t first = At<uint32_t>(offsets, i), last = At<uint32_t>(offsets, i + 1);
    if (first > last || last > rows.rows) OutOfRange(rows, last);
    return {static_cast<const uint32_t*>(rows.data) + first, last - first};
  }

  void Bind(const th_table& t) {
    for (Tab* tab : AllTables()) {
      if (std::strcmp(tab->name, t.name) != 0) continue;
      tab->table = &t;
      for (Col* c : AllColumns()) {
        if (std::strcmp(c->table, tab->name) != 0) continue;
        c->declared = true;
        for (uint32_t k = 0; k < t.column_count; ++k) {
          if (std::strcmp(c->column, t.columns[k].name) != 0) continue;
          c->data = t.columns[k].values.data;
          c->rows = t.columns[k].values.length;
        }
      }
    }
  }
  // The small tables as rows, once per trace.
  void Assemble() {
    if (tracks_.table) {
      const TableView t(tracks_.table);
      for (uint64_t r = 0; r < t.rows(); ++r)
        track_rows_.push_back({t.Values<uint32_t>("kind", TH_TYPE_U32)[r],
                               t.Values<int64_t>("pid", TH_TYPE_I64)[r],
                               t.Values<int64_t>("tid", TH_TYPE_I64)[r],
                               t.Values<uint32_t>("pid_string", TH_TYPE_STRING_ID)[r],
                               t.Values<uint32_t>("tid_string", TH_TYPE_STRING_ID)[r],
                               t.Values<uint32_t>("process_name", TH_TYPE_STRING_ID)[r],
                               t.Values<uint32_t>("thread_name", TH_TYPE_STRING_ID)[r],
                               t.Values<int32_t>("device", TH_TYPE_I32)[r],
                               t.Values<int64_t>("stream", TH_TYPE_I64)[r]});
    }
    if (profiler_steps_.table) {
      const TableView t(profiler_steps_.table);
      for (uint64_t r = 0; r < t.rows(); ++r)
        step_rows_.push_back({t.Ints("number")[r], t.Values<uint32_t>("event", TH_TYPE_U32)[r],
                              t.Ints("ts")[r], t.Ints("dur")[r]});
    }
    if (devices_.table) {
      const TableView t(devices_.table);
      for (uint64_t r = 0; r < t.rows(); ++r)
        device_rows_.push_back({t.Values<int32_t>("id", TH_TYPE_I32)[r], t.Texts("name")[r],
                                t.Ints("total_global_mem")[r],
                                t.Values<int32_t>("compute_major", TH_TYPE_I32)[r],
                                t.Values<int32_t>("compute_minor", TH_TYPE_I32)[r],
                                t.Values<int32_t>("num_sms", TH_TYPE_I32)[r]});
    }
    if (class_rules_.table) {
      const TableView t(class_rules_.table);
      for (uint64_t r = 0; r < t.rows(); ++r)
        rule_rows_.push_back({t.Values<uint32_t>("rule_set", TH_TYPE_U32)[r],
                              t.Values<uint32_t>("class", TH_TYPE_U32)[r],
                              t.Values<uint32_t>("ignore_case", TH_TYPE_U32)[r],
                              t.Texts("match")[r], t.Texts("source")[r]});
    }
    if (graph_capture_.table && graph_capture_.table->row_count == 1) {
      const TableView t(graph_capture_.table);
      capture_ = {t.Values<uint8_t>("dominates", TH_TYPE_U8)[0],
                  t.Values<uint8_t>("hip", TH_TYPE_U8)[0],
                  t.Ints("begin_calls")[0],
                  t.Ints("end_calls")[0],
                  t.Ints("instantiations")[0],
                  t.Ints("graph_launches")[0],
                  t.Ints("captured_launches")[0],
                  t.Ints("executed_launches")[0],
                  t.Ints("kernels")[0],
                  t.Ints("first_ts")[0],
                  t.Ints("last_end")[0]};
    }
  }

  uint32_t RuleOf(uint64_t i, bool hta) const {
    const uint32_t name = name_id(i);
    const Col& rule = hta ? name_hta_rule_ : name_rule_;
    if (name >= Rows(name_classes_)) return TH_NO_RULE;
    return At<uint32_t>(rule, name);
  }
  KernelClass ClassOf(uint64_t i, bool hta) const {
    const uint32_t k = kind(i);
    const bool activity = k == TH_EVENT_KERNEL || k == TH_EVENT_MEMCPY || k == TH_EVENT_MEMSET;
    if (!activity && k != TH_EVENT_GPU_SYNC && k != TH_EVENT_GPU_EVENT) return KernelClass::kNone;
    const uint32_t r = RuleOf(i, hta);
    if (r != TH_NO_RULE) return static_cast<KernelClass>(class_rule(r).klass);
    // No rule matched: the kind decides.
    if (hta || k == TH_EVENT_KERNEL) return KernelClass::kComp;
    return activity ? KernelClass::kMem : KernelClass::kOther;
  }

  std::vector<Tab*> AllTables() {
    return {&events_,
            &tracks_,
            &edges_,
            &profiler_steps_,
            &gpu_args_,
            &gpu_hlo_,
            &collective_args_,
            &memory_args_,
            &devices_,
            &hlo_modules_,
            &hlo_instructions_,
            &hlo_operand_offsets_tab_,
            &hlo_operands_tab_,
            &hlo_user_offsets_tab_,
            &hlo_users_tab_,
            &hlo_compute_dims_,
            &name_classes_,
            &class_rules_,
            &graph_capture_,
            &event_launches_,
            &gpu_activity_tab_,
            &track_events_,
            &track_order_tab_,
            &op_inputs_,
            &xla_op_costs_};
  }
  std::vector<Col*> AllColumns() {
    return {&ts_,
            &dur_,
            &name_,
            &cat_,
            &track_,
            &parent_,
            &depth_,
            &kind_,
            &args_row_,
            &edge_src_,
            &edge_dst_,
            &edge_kind_,
            &gpu_event_,
            &gpu_device_,
            &gpu_stream_,
            &gpu_bytes_,
            &gpu_grid_[0],
            &gpu_grid_[1],
            &gpu_grid_[2],
            &gpu_block_[0],
            &gpu_block_[1],
            &gpu_block_[2],
            &gpu_registers_,
            &gpu_shared_mem_,
            &gpu_occupancy_,
            &gpu_hlo_instruction_,
            &gpu_hlo_match_,
            &collective_event_,
            &collective_name_,
            &collective_dtype_,
            &collective_group_,
            &collective_in_nelems_,
            &collective_out_nelems_,
            &collective_group_size_,
            &memory_event_,
            &memory_device_type_,
            &memory_device_id_,
            &memory_addr_,
            &memory_bytes_,
            &memory_total_allocated_,
            &memory_total_reserved_,
            &hlo_module_name_,
            &hlo_module_id_,
            &hlo_module_,
            &hlo_name_,
            &hlo_opcode_,
            &hlo_shape_,
            &hlo_op_name_,
            &hlo_source_file_,
            &hlo_source_line_,
            &hlo_caller_,
            &hlo_custom_call_target_,
            &hlo_fusion_kind_,
            &hlo_computation_,
            &hlo_parameter_number_,
            &hlo_tuple_index_,
            &hlo_in_entry_,
            &hlo_operand_offsets_,
            &hlo_operands_,
            &hlo_user_offsets_,
            &hlo_users_,
            &hlo_dot_dims_,
            &hlo_window_,
            &hlo_dim_labels_,
            &hlo_feature_group_count_,
            &hlo_batch_group_count_,
            &hlo_custom_call_config_,
            &name_rule_,
            &name_hta_rule_,
            &launched_,
            &launch_,
            &gpu_activity_,
            &track_first_,
            &track_count_,
            &track_first_row_,
            &track_order_,
            &op_inputs_event_,
            &op_input_dims_,
            &op_input_types_,
            &op_concrete_inputs_,
            &op_cost_event_,
            &op_cost_flops_,
            &op_cost_model_flops_,
            &op_cost_bytes_accessed_};
  }

  const th_host_api* host_;
  const th_trace_view* v_;

  Tab events_{"events"}, tracks_{"tracks"}, edges_{"edges"}, profiler_steps_{"profiler_steps"},
      gpu_args_{"gpu_args"}, gpu_hlo_{"gpu_hlo"}, collective_args_{"collective_args"},
      memory_args_{"memory_args"}, devices_{"devices"}, hlo_modules_{"hlo_modules"},
      hlo_instructions_{"hlo_instructions"}, hlo_operand_offsets_tab_{"hlo_operand_offsets"},
      hlo_operands_tab_{"hlo_operands"}, hlo_user_offsets_tab_{"hlo_user_offsets"},
      hlo_users_tab_{"hlo_users"}, name_classes_{"name_classes"}, class_rules_{"class_rules"},
      graph_capture_{"graph_capture"}, event_launches_{"event_launches"}, op_inputs_{"op_inputs"},
      hlo_compute_dims_{"hlo_compute_dims"}, xla_op_costs_{"xla_op_costs"},
      track_events_{"track_events"}, track_order_tab_{"track_order"},
      gpu_activity_tab_{"gpu_activity"};

  Col ts_{"events", "ts"}, dur_{"events", "dur"}, name_{"events", "name"}, cat_{"events", "cat"},
      track_{"events", "track"}, parent_{"events", "parent"}, depth_{"events", "depth"},
      kind_{"events", "kind"}, args_row_{"events", "args_row"};
  Col edge_src_{"edges", "src"}, edge_dst_{"edges", "dst"}, edge_kind_{"edges", "kind"};
  Col gpu_event_{"gpu_args", "event"}, gpu_device_{"gpu_args", "device"},
      gpu_stream_{"gpu_args", "stream"}, gpu_bytes_{"gpu_args", "bytes"},
      gpu_grid_[3] = {{"gpu_args", "grid_x"}, {"gpu_args", "grid_y"}, {"gpu_args", "grid_z"}},
      gpu_block_[3] = {{"gpu_args", "block_x"}, {"gpu_args", "block_y"}, {"gpu_args", "block_z"}},
      gpu_registers_{"gpu_args", "registers"}, gpu_shared_mem_{"gpu_args", "shared_mem"},
      gpu_occupancy_{"gpu_args", "occupancy"};
  Col gpu_hlo_instruction_{"gpu_hlo", "instruction"}, gpu_hlo_match_{"gpu_hlo", "match"};
  Col collective_event_{"collective_args", "event"}, collective_name_{"collective_args", "name"},
      collective_dtype_{"collective_args", "dtype"}, collective_group_{"collective_args", "group"},
      collective_in_nelems_{"collective_args", "in_nelems"},
      collective_out_nelems_{"collective_args", "out_nelems"},
      collective_group_size_{"collective_args", "group_size"};
  Col memory_event_{"memory_args", "event"}, memory_device_type_{"memory_args", "device_type"},
      memory_device_id_{"memory_args", "device_id"}, memory_addr_{"memory_args", "addr"},
      memory_bytes_{"memory_args", "bytes"},
      memory_total_allocated_{"memory_args", "total_allocated"},
      memory_total_reserved_{"memory_args", "total_reserved"};
  Col op_inputs_event_{"op_inputs", "event"}, op_input_dims_{"op_inputs", "input_dims"},
      op_input_types_{"op_inputs", "input_types"},
      op_concrete_inputs_{"op_inputs", "concrete_inputs"};
  Col op_cost_event_{"xla_op_costs", "event"}, op_cost_flops_{"xla_op_costs", "flops"},
      op_cost_model_flops_{"xla_op_costs", "model_flops"},
      op_cost_bytes_accessed_{"xla_op_costs", "bytes_accessed"};
  Col hlo_module_name_{"hlo_modules", "name"}, hlo_module_id_{"hlo_modules", "id"};
  Col hlo_module_{"hlo_instructions", "module"}, hlo_name_{"hlo_instructions", "name"},
      hlo_opcode_{"hlo_instructions", "opcode"}, hlo_shape_{"hlo_instructions", "shape"},
      hlo_op_name_{"hlo_instructions", "op_name"},
      hlo_source_file_{"hlo_instructions", "source_file"},
      hlo_source_line_{"hlo_instructions", "source_line"},
      hlo_caller_{"hlo_instructions", "caller"},
      hlo_custom_call_target_{"hlo_instructions", "custom_call_target"},
      hlo_fusion_kind_{"hlo_instructions", "fusion_kind"},
      hlo_computation_{"hlo_instructions", "computation"},
      hlo_parameter_number_{"hlo_instructions", "parameter_number"},
      hlo_tuple_index_{"hlo_instructions", "tuple_index"},
      hlo_in_entry_{"hlo_instructions", "in_entry"};
  Col hlo_operand_offsets_{"hlo_operand_offsets", "first"},
      hlo_operands_{"hlo_operands", "instruction"}, hlo_user_offsets_{"hlo_user_offsets", "first"},
      hlo_users_{"hlo_users", "instruction"};
  Col hlo_dot_dims_{"hlo_compute_dims", "dot_dims"}, hlo_window_{"hlo_compute_dims", "window"},
      hlo_dim_labels_{"hlo_compute_dims", "dim_labels"},
      hlo_feature_group_count_{"hlo_compute_dims", "feature_group_count"},
      hlo_batch_group_count_{"hlo_compute_dims", "batch_group_count"},
      hlo_custom_call_config_{"hlo_compute_dims", "custom_call_config"};
  Col name_rule_{"name_classes", "rule"}, name_hta_rule_{"name_classes", "hta_rule"};
  Col launched_{"event_launches", "event"}, launch_{"event_launches", "launch"};
  Col gpu_activity_{"gpu_activity", "event"};
  Col track_first_{"track_events", "first"}, track_count_{"track_events", "count"},
      track_first_row_{"track_events", "first_row"}, track_order_{"track_order", "event"};

  std::vector<th_track> track_rows_;
  std::vector<th_step> step_rows_;
  std::vector<th_device> device_rows_;
  std::vector<th_class_rule> rule_rows_;
  th_graph_capture capture_{};
};

// A finding, built fluently, then given to Context::Add.
class Finding {
 public:
  Finding(th_severity severity, std::string title)
      : severity_(severity), title_(std::move(title)) {}
  Finding& What(std::string s) {
    what_ = std::move(s);
    return *this;
  }
  Finding& Suggest(std::string s) {
    suggestion_ = std::move(s);
    return *this;
  }
  Finding& Confidence(double c) {
    confidence_ = c;
    return *this;
  }
  Finding& In(Scope s) {
    scope_ = s;
    return *this;
  }
  Finding& Evidence(std::string name, double value, std::string unit, th_number_kind kind) {
    evidence_.push_back({std::move(name), value, std::move(unit), kind});
    return *this;
  }
  // What the suggested change would save over the capture (inferred, ns):
  // reports rank their "changes" by it.
  Finding& Saving(double ns) {
    saving_ns_ = ns;
    has_saving_ = true;
    return *this;
  }
  // What the cause costs over the capture (ns): reports rank a group's
  // findings, fleet scans their top causes, by it.
  Finding& TimeLost(double ns) {
    time_lost_ns_ = ns;
    has_time_lost_ = true;
    return *this;
  }
  // The key that makes this plugin's findings one cause in reports (default:
  // the title).
  Finding& Group(std::string key) {
    group_ = std::move(key);
    return *this;
  }
  // The time range it points at (ns, on the scope rank's clock): where the
  // HTML report's swimlane jumps.
  Finding& At(int64_t t0, int64_t t1) {
    t0_ = t0;
    t1_ = t1;
    has_range_ = true;
    return *this;
  }

 private:
  friend class Context;
  struct Item {
    std::string name;
    double value;
    std::string unit;
    th_number_kind kind;
  };
  th_severity severity_;
  std::string title_, what_, suggestion_;
  double confidence_ = 1.0;
  Scope scope_;
  std::vector<Item> evidence_;
  bool has_saving_ = false, has_time_lost_ = false, has_range_ = false;
  double saving_ns_ = 0, time_lost_ns_ = 0;
  std::string group_;
  int64_t t0_ = 0, t1_ = 0;
};

// The schema of a table a plugin publishes: its columns in order, each with
// its type and unit; `View` names the report panel that draws it
// (docs/report-panels.md). The host refuses a publish that does not match.
class Schema {
 public:
  explicit Schema(std::string name, std::string doc = "")
      : name_(std::move(name)), doc_(std::move(doc)) {}
  Schema& View(std::string panel) {
    view_ = std::move(panel);
    return *this;
  }
  Schema& Int(std::string column, std::string unit = "", std::string doc = "") {
    return Add(std::move(column), TH_TYPE_I64, std::move(unit), std::move(doc));
  }
  Schema& Real(std::string column, std::string unit = "", std::string doc = "") {
    return Add(std::move(column), TH_TYPE_F64, std::move(unit), std::move(doc));
  }
  Schema& Text(std::string column, std::string doc = "") {
    return Add(std::move(column), TH_TYPE_STRING, "", std::move(doc));
  }
  const std::string& name() const { return name_; }

 private:
  friend class Declaration;
  friend class Table;
  struct Column {
    std::string name, unit, doc;
    th_value_type type;
  };
  Schema& Add(std::string column, th_value_type type, std::string unit, std::string doc) {
    columns_.push_back({std::move(column), std::move(unit), std::move(doc), type});
    return *this;
  }
  std::string name_, doc_, view_;
  std::vector<Column> columns_;
};

// A column of `size()` values, zeroed, to fill and then publish
// (Table::IntColumn, Table::RealColumn): from Context::NewInts / NewReals, in the host's memory
// when the host offers it (API 2.2), and then published without a copy; else in a vector of its
// own. Move-only: its address is what the host recognises.
template <typename T>
class Column {
 public:
  Column() = default;
  Column(Column&&) noexcept = default;
  Column& operator=(Column&&) noexcept = default;
  Column(const Column&) = delete;
  Column& operator=(const Column&) = delete;
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  // Whether the host holds it (published without a copy).
  bool in_host_memory() const { return data_ != nullptr && own_.empty(); }

 private:
  friend class Context;
  T* data_ = nullptr;
  size_t size_ = 0;
  std::vector<T> own_;  // used when the host gives no memory
};

// A table a plugin publishes, built column by column (equal lengths), then
// given to Context::Publish; it must match the schema declared under its name.
class Table {
 public:
  explicit Table(std::string name) : name_(std::move(name)) {}
  // A table of no rows with every column of `schema`.
  explicit Table(const Schema& schema) : name_(schema.name_) {
    for (const Schema::Column& c : schema.columns_) {
      if (c.type == TH_TYPE_I64)
        Int(c.name, {}, c.unit);
      else if (c.type == TH_TYPE_F64)
        Real(c.name, {}, c.unit);
      else
        Text(c.name, {});
    }
  }
  Table& Int(std::string column, std::vector<int64_t> values, std::string unit = "") {
    ints_.push_back(std::move(values));
    cols_.push_back({std::move(column), TH_TYPE_I64, ints_.size() - 1, std::move(unit)});
    return *this;
  }
  Table& Real(std::string column, std::vector<double> values, std::string unit = "") {
    reals_.push_back(std::move(values));
    cols_.push_back({std::move(column), TH_TYPE_F64, reals_.size() - 1, std::move(unit)});
    return *this;
  }
  // A column from Context::NewInts / NewReals (published without a copy
  // when it is in the host's memory).
  Table& IntColumn(std::string column, Column<int64_t> values, std::string unit = "") {
    int_columns_.push_back(std::move(values));
    cols_.push_back({std::move(column), TH_TYPE_I64, int_columns_.size() - 1, std::move(unit),
                     Source::kColumn});
    return *this;
  }
  Table& RealColumn(std::string column, Column<double> values, std::string unit = "") {
    real_columns_.push_back(std::move(values));
    cols_.push_back({std::move(column), TH_TYPE_F64, real_columns_.size() - 1, std::move(unit),
                     Source::kColumn});
    return *this;
  }
  Table& Text(std::string column, std::vector<std::string> values) {
    texts_.push_back(std::move(values));
    cols_.push_back({std::move(column), TH_TYPE_STRING, texts_.size() - 1, ""});
    return *this;
  }
  // A text column of views, not copies (a trace's names, static strings):
  // each view must stay valid until the table is published. Publish copies
  // them into one buffer, so a row costs no string of its own.
  Table& TextViews(std::string column, std::vector<std::string_view> values) {
    views_.push_back(std::move(values));
    cols_.push_back({std::move(column), TH_TYPE_STRING, views_.size() - 1, "", Source::kViews});
    return *this;
  }
  // NUL-terminated texts by pointer, NULL read as "" (a trace's strings:
  // Trace::name, Trace::String, NUL-terminated by API 2.2; string literals;
  // whole std::strings' c_str()), handed to the host as they are: 8 bytes a
  // row, and rows pointing at one text cost the host one value.
  Table& CStrings(std::string column, std::vector<const char*> values) {
    c_strings_.push_back(std::move(values));
    cols_.push_back(
        {std::move(column), TH_TYPE_STRING, c_strings_.size() - 1, "", Source::kCStrings});
    return *this;
  }

 private:
  friend class Context;
  // Where a column's `index` points: ints_ / reals_ / texts_; views_
  // (TextViews); c_strings_ (CStrings); int_columns_ / real_columns_.
  enum class Source : uint8_t { kOwned, kViews, kCStrings, kColumn };
  struct Col {
    std::string name;
    th_value_type type;
    size_t index;
    std::string unit;
    Source source = Source::kOwned;
  };
  std::string name_;
  std::vector<Col> cols_;
  std::deque<std::vector<int64_t>> ints_;
  std::deque<std::vector<double>> reals_;
  std::deque<Column<int64_t>> int_columns_;
  std::deque<Column<double>> real_columns_;
  std::deque<std::vector<std::string>> texts_;
  std::deque<std::vector<std::string_view>> views_;
  std::deque<std::vector<const char*>> c_strings_;
};

// What Run sees: the traces, its options, and the ways to report.
class Context {
 public:
  Context(const th_host_api* host, const th_run_input* input) : host_(host), in_(input) {
    for (uint32_t i = 0; i < input->trace_count; ++i) traces_.emplace_back(host, input->traces[i]);
  }
  const std::vector<Trace>& traces() const { return traces_; }

  int64_t GetInt(std::string_view name) const { return Find(name, TH_TYPE_I64).i64; }
  double GetDouble(std::string_view name) const { return Find(name, TH_TYPE_F64).f64; }
  bool GetBool(std::string_view name) const { return Find(name, TH_TYPE_BOOL).i64 != 0; }
  std::string GetString(std::string_view name) const { return Find(name, TH_TYPE_STRING).str; }

  void Add(const Finding& f) {
    std::vector<th_evidence> ev;
    for (const auto& e : f.evidence_)
      ev.push_back({e.name.c_str(), e.value, e.unit.c_str(), static_cast<uint32_t>(e.kind), 0});
    th_finding raw{};
    raw.struct_size = sizeof raw;
    raw.severity = f.severity_;
    raw.title = f.title_.c_str();
    raw.what = f.what_.c_str();
    raw.suggestion = f.suggestion_.empty() ? nullptr : f.suggestion_.c_str();
    raw.confidence = f.confidence_;
    raw.scope = f.scope_.raw();
    raw.evidence = ev.data();
    raw.evidence_count = static_cast<uint32_t>(ev.size());
    raw.has_saving = f.has_saving_;
    raw.saving_ns = f.saving_ns_;
    raw.has_time_lost = f.has_time_lost_;
    raw.time_lost_ns = f.time_lost_ns_;
    raw.group = f.group_.empty() ? nullptr : f.group_.c_str();
    raw.has_range = f.has_range_;
    raw.t0 = f.t0_;
    raw.t1 = f.t1_;
    Check(host_->add_finding(host_->ctx, &raw), "add_finding");
  }
  void Metric(std::string name, double value, std::string unit, th_number_kind kind,
              Scope scope = {}) {
    th_metric m{};
    m.struct_size = sizeof m;
    m.kind = kind;
    m.name = name.c_str();
    m.value = value;
    m.unit = unit.c_str();
    m.scope = scope.raw();
    Check(host_->publish_metric(host_->ctx, &m), "publish_metric");
  }
  void Publish(const Table& t) {
    std::vector<th_table_column> cols;
    std::deque<std::vector<const char*>> strings;
    std::deque<std::vector<char>> packed;  // TextViews columns, each view NUL-terminated
    uint64_t rows = 0;
    for (const auto& c : t.cols_) {
      th_table_column col{};
      col.name = c.name.c_str();
      col.unit = c.unit.empty() ? nullptr : c.unit.c_str();
      col.values.type = c.type;
      if (c.type == TH_TYPE_I64 && c.source == Table::Source::kColumn) {
        col.values.data = t.int_columns_[c.index].data();
        col.values.length = t.int_columns_[c.index].size();
      } else if (c.type == TH_TYPE_F64 && c.source == Table::Source::kColumn) {
        col.values.data = t.real_columns_[c.index].data();
        col.values.length = t.real_columns_[c.index].size();
      } else if (c.type == TH_TYPE_I64) {
        col.values.data = t.ints_[c.index].data();
        col.values.length = t.ints_[c.index].size();
      } else if (c.type == TH_TYPE_F64) {
        col.values.data = t.reals_[c.index].data();
        col.values.length = t.reals_[c.index].size();
      } else if (c.source == Table::Source::kCStrings) {
        col.values.data = t.c_strings_[c.index].data();
        col.values.length = t.c_strings_[c.index].size();
      } else if (c.source == Table::Source::kViews) {
        const auto& views = t.views_[c.index];
        size_t bytes = 0;
        for (std::string_view v : views) bytes += v.size() + 1;
        auto& buffer = packed.emplace_back(bytes);
        auto& ptrs = strings.emplace_back();
        ptrs.reserve(views.size());
        char* at = buffer.data();
        for (std::string_view v : views) {
          ptrs.push_back(at);
          if (!v.empty()) std::memcpy(at, v.data(), v.size());
          at += v.size();
          *at++ = '\0';
        }
        col.values.data = ptrs.data();
        col.values.length = ptrs.size();
      } else {
        auto& ptrs = strings.emplace_back();
        for (const auto& s : t.texts_[c.index]) ptrs.push_back(s.c_str());
        col.values.data = ptrs.data();
        col.values.length = ptrs.size();
      }
      if (!cols.empty() && col.values.length != rows)
        throw std::invalid_argument("table " + t.name_ + ": columns of different lengths");
      rows = col.values.length;
      cols.push_back(col);
    }
    th_table raw{};
    raw.struct_size = sizeof raw;
    raw.name = t.name_.c_str();
    raw.columns = cols.data();
    raw.column_count = static_cast<uint32_t>(cols.size());
    raw.row_count = rows;
    Check(host_->publish_table(host_->ctx, &raw), "publish_table");
  }
  // A column of n zeroed values for a table to publish: in the host's memory
  // (published without a copy) when the host offers it (API 2.2), else in
  // memory of its own. Any thread of the run may call it (API 2.2); zeroing
  // is its cost, paid on the calling thread.
  Column<int64_t> NewInts(size_t n) const { return NewColumn<int64_t>(TH_TYPE_I64, n); }
  Column<double> NewReals(size_t n) const { return NewColumn<double>(TH_TYPE_F64, n); }

  // A table another plugin published earlier in the pipeline; nullptr when it
  // published none. Throws when `name` is not among the tables Reads() declares.
  const th_table* FindTable(const char* name) const {
    const th_table* t = nullptr;
    if (host_->find_table(host_->ctx, name, &t) != TH_STATUS_OK)
      throw std::logic_error(std::string("reads table '") + name +
                             "' without declaring it: add it to Declare().Reads({...})");
    return t;
  }

  // FindTable within one input group (TH_GROUP_BASELINE, TH_GROUP_INPUTS;
  // "" the pipeline's only set); nullptr when that group has none, or when
  // the host predates API 2.1 and `group` is not "".
  const th_table* FindGroupTable(const char* group, const char* name) const {
    if (host_->api_minor < 1 ||
        host_->struct_size < offsetof(th_host_api, find_group_table) + sizeof(void*) ||
        !host_->find_group_table)
      return *group ? nullptr : FindTable(name);
    const th_table* t = nullptr;
    if (host_->find_group_table(host_->ctx, group, name, &t) != TH_STATUS_OK)
      throw std::logic_error(std::string("reads table '") + name +
                             "' without declaring it: add it to Declare().Reads({...})");
    return t;
  }

  // Compute primitives on the pipeline's backend (see plugin_api.h).
  enum class Reduce : uint32_t { kSum = 0, kMin = 1, kMax = 2, kCount = 3 };
  void SortByKey(std::vector<int64_t>& keys, std::vector<uint32_t>& values) {
    Need(keys.size() == values.size(), "SortByKey: keys and values differ in length");
    Check(host_->sort_by_key(host_->ctx, keys.data(), values.data(), keys.size()), "sort_by_key");
  }
  std::vector<int64_t> ReduceByKey(const std::vector<uint32_t>& keys,
                                   const std::vector<int64_t>& values, Reduce op, size_t num_keys) {
    std::vector<int64_t> out(num_keys);
    Check(host_->reduce_by_key(host_->ctx, keys.data(), values.data(), keys.size(),
                               static_cast<uint32_t>(op), out.data(), num_keys),
          "reduce_by_key");
    return out;
  }
  // offsets: segments + 1 entries; result is segments x percentiles.size().
  std::vector<int64_t> SegmentedPercentiles(const std::vector<int64_t>& values,
                                            const std::vector<uint64_t>& offsets,
                                            const std::vector<double>& percentiles) {
    Need(!offsets.empty(), "SegmentedPercentiles: offsets need at least one entry");
    std::vector<int64_t> out((offsets.size() - 1) * percentiles.size());
    Check(
        host_->segmented_percentiles(host_->ctx, values.data(), offsets.data(), offsets.size() - 1,
                                     percentiles.data(), percentiles.size(), out.data()),
        "segmented_percentiles");
    return out;
  }
  std::vector<int64_t> IntervalUnion(const std::vector<uint32_t>& group,
                                     const std::vector<int64_t>& begin,
                                     const std::vector<int64_t>& end, size_t num_groups) {
    std::vector<int64_t> out(num_groups);
    Check(host_->interval_union(host_->ctx, group.data(), begin.data(), end.data(), begin.size(),
                                out.data(), num_groups),
          "interval_union");
    return out;
  }
  // A reconciliation check (listed in every report).
  void Check(const std::string& name, bool passed, const std::string& detail) {
    th_check c{};
    c.struct_size = sizeof c;
    c.passed = passed ? 1 : 0;
    c.name = name.c_str();
    c.detail = detail.c_str();
    Check(host_->add_check(host_->ctx, &c), "add_check");
  }
  // Leaves `trace` out of this plugin's results, saying why (one sentence,
  // listed in every report with the plugin's outcome).
  void Skip(const Trace& trace, const std::string& reason) {
    Check(host_->skip_trace(host_->ctx, &trace.raw(), reason.c_str()), "skip_trace");
  }
  void Log(const std::string& message) const { host_->log(host_->ctx, 0, message.c_str()); }
  void Warn(const std::string& message) const { host_->log(host_->ctx, 1, message.c_str()); }

 private:
  const th_option_value& Find(std::string_view name, uint32_t type) const {
    for (uint32_t i = 0; i < in_->option_count; ++i) {
      const th_option_value& o = in_->options[i];
      if (name == o.name) {
        if (o.type != type)
          throw std::invalid_argument("option " + std::string(name) + " has another type");
        return o;
      }
    }
    throw std::invalid_argument("no option named " + std::string(name));
  }
  static void Need(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(what);
  }
  static void Check(th_status s, const char* what) {
    if (s != TH_STATUS_OK) throw std::runtime_error(std::string("host refused ") + what);
  }
  template <typename T>
  Column<T> NewColumn(uint32_t type, size_t n) const {
    Column<T> c;
    c.size_ = n;
    if (n > 0 && host_->api_minor >= 2 &&
        host_->struct_size >= offsetof(th_host_api, column_buffer) + sizeof(void*) &&
        host_->column_buffer)
      c.data_ = static_cast<T*>(host_->column_buffer(host_->ctx, type, n));
    if (c.data_ == nullptr) {
      c.own_.assign(n, T{});
      c.data_ = c.own_.data();
    }
    return c;
  }
  const th_host_api* host_;
  const th_run_input* in_;
  std::vector<Trace> traces_;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual void Run(Context& ctx) = 0;
};

// What a plugin declares about itself. It holds plain values (it is copied
// out of Declare()); Describe() builds the C descriptor's arrays, which point
// into this object and stay valid while it lives and is not modified.
class Declaration {
 public:
  Declaration(std::string id, std::string version, th_plugin_kind kind, std::string summary)
      : id_(std::move(id)),
        version_(std::move(version)),
        kind_(kind),
        summary_(std::move(summary)) {}

  // The tables Run reads: catalog tables ("events", "gpu_args", ...;
  // docs/architecture.md lists them) and tables other plugins publish. The
  // host hands over only these.
  Declaration& Reads(std::initializer_list<const char*> tables) {
    reads_.insert(reads_.end(), tables.begin(), tables.end());
    return *this;
  }
  // The plugin runs once over every input group of the pipeline (a
  // `baseline:` set beside `inputs:`), Trace::group() telling them apart.
  Declaration& InputGroups() {
    flags_ |= TH_PLUGIN_INPUT_GROUPS;
    return *this;
  }
  Declaration& Publishes(Schema table) {
    publishes_.push_back(std::move(table));
    return *this;
  }
  Declaration& Option(std::string name, int64_t def, std::string doc) {
    return Add(std::move(name), TH_TYPE_I64, std::move(doc)).SetInt(def);
  }
  Declaration& Option(std::string name, double def, std::string doc) {
    Add(std::move(name), TH_TYPE_F64, std::move(doc));
    options_.back().f64 = def;
    return *this;
  }
  Declaration& Option(std::string name, bool def, std::string doc) {
    return Add(std::move(name), TH_TYPE_BOOL, std::move(doc)).SetInt(def);
  }
  Declaration& Option(std::string name, const char* def, std::string doc,
                      std::initializer_list<const char*> choices = {}) {
    Add(std::move(name), TH_TYPE_STRING, std::move(doc));
    options_.back().str = def;
    options_.back().choices.assign(choices.begin(), choices.end());
    return *this;
  }
  // Bounds for the last numeric option added (inclusive).
  Declaration& Range(double min, double max) {
    Min(min);
    options_.back().has_max = true;
    options_.back().max = max;
    return *this;
  }
  Declaration& Min(double min) {
    options_.back().has_min = true;
    options_.back().min = min;
    return *this;
  }

  // Fills `d` with pointers into this declaration.
  void Describe(th_plugin_descriptor* d,
                th_status (*run)(const th_host_api*, const th_run_input*, char*, uint64_t)) {
    c_reads_.clear();
    for (const auto& r : reads_) c_reads_.push_back(r.c_str());
    c_publishes_.clear();
    c_columns_.clear();
    for (const Schema& p : publishes_) {
      auto& cols = c_columns_.emplace_back();
      for (const Schema::Column& c : p.columns_)
        cols.push_back(
            {c.name.c_str(), static_cast<uint32_t>(c.type), 0, c.unit.c_str(), c.doc.c_str()});
      th_table_schema t{};
      t.struct_size = sizeof t;
      t.name = p.name_.c_str();
      t.doc = p.doc_.c_str();
      t.columns = cols.data();
      t.column_count = static_cast<uint32_t>(cols.size());
      t.view = p.view_.empty() ? nullptr : p.view_.c_str();
      c_publishes_.push_back(t);
    }
    c_options_.clear();
    c_choices_.clear();
    for (const Spec& o : options_) {
      auto& choices = c_choices_.emplace_back();
      for (const auto& c : o.choices) choices.push_back(c.c_str());
      th_option_decl c{};
      c.name = o.name.c_str();
      c.type = o.type;
      c.doc = o.doc.c_str();
      c.has_min = o.has_min;
      c.has_max = o.has_max;
      c.min = o.min;
      c.max = o.max;
      c.choices = choices.empty() ? nullptr : choices.data();
      c.choice_count = static_cast<uint32_t>(choices.size());
      c.default_value.name = c.name;
      c.default_value.type = o.type;
      c.default_value.i64 = o.i64;
      c.default_value.f64 = o.f64;
      c.default_value.str = o.str.c_str();
      c_options_.push_back(c);
    }
    *d = {};
    d->struct_size = sizeof *d;
    d->api_major = TH_PLUGIN_API_MAJOR;
    d->api_minor = TH_PLUGIN_API_MINOR;
    d->kind = kind_;
    d->id = id_.c_str();
    d->version = version_.c_str();
    d->summary = summary_.c_str();
    d->options = c_options_.data();
    d->option_count = static_cast<uint32_t>(c_options_.size());
    d->reads = c_reads_.data();
    d->read_count = static_cast<uint32_t>(c_reads_.size());
    d->publishes = c_publishes_.data();
    d->publish_count = static_cast<uint32_t>(c_publishes_.size());
    d->flags = flags_;
    d->run = run;
  }

 private:
  struct Spec {
    std::string name, doc, str;
    uint32_t type = TH_TYPE_I64;
    int64_t i64 = 0;
    double f64 = 0;
    bool has_min = false, has_max = false;
    double min = 0, max = 0;
    std::vector<std::string> choices;
  };
  Declaration& Add(std::string name, th_value_type type, std::string doc) {
    Spec s;
    s.name = std::move(name);
    s.type = type;
    s.doc = std::move(doc);
    options_.push_back(std::move(s));
    return *this;
  }
  Declaration& SetInt(int64_t v) {
    options_.back().i64 = v;
    options_.back().f64 = static_cast<double>(v);
    return *this;
  }

  std::string id_, version_;
  th_plugin_kind kind_;
  uint32_t flags_ = 0;
  std::string summary_;
  std::vector<std::string> reads_;
  std::vector<Schema> publishes_;
  std::vector<Spec> options_;
  // Built by Describe().
  std::vector<const char*> c_reads_;
  std::vector<th_table_schema> c_publishes_;
  std::deque<std::vector<th_column_schema>> c_columns_;
  std::vector<th_option_decl> c_options_;
  std::deque<std::vector<const char*>> c_choices_;
};

namespace internal {

inline void CopyError(const char* message, char* error, uint64_t capacity) {
  if (!error || capacity == 0) return;
  size_t n = std::strlen(message);
  if (n >= capacity) n = static_cast<size_t>(capacity - 1);
  std::memcpy(error, message, n);
  error[n] = '\0';
}

template <typename P>
th_status Run(const th_host_api* host, const th_run_input* input, char* error,
              uint64_t capacity) noexcept {
  try {
    P plugin;
    Context ctx(host, input);
    plugin.Run(ctx);
    return TH_STATUS_OK;
  } catch (const std::exception& e) {
    CopyError(e.what(), error, capacity);
  } catch (...) {
    CopyError("unknown exception", error, capacity);
  }
  return TH_STATUS_ERROR;
}

template <typename P>
const th_plugin_descriptor* Describe() noexcept {
  static Declaration declaration = P::Declare();
  static th_plugin_descriptor descriptor = [] {
    th_plugin_descriptor d;
    declaration.Describe(&d, &Run<P>);
    return d;
  }();
  return &descriptor;
}

}  // namespace internal
}  // namespace th::sdk

// Exports the entry symbol of a plugin library built around class `Class`.
#define TH_PLUGIN(Class)                                                                     \
  extern "C" TH_PLUGIN_EXPORT const th_plugin_descriptor* tracehound_plugin_entry_v1(void) { \
    return ::th::sdk::internal::Describe<Class>();                                           \
  }

#endif  // TRACEHOUND_SDK_H_
