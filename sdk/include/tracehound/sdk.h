// The header-only C++ layer over <tracehound/plugin_api.h>: a plugin is one
// class with a static Declare() and a Run(Context&), plus TH_PLUGIN(Class).
//
//   class LongKernels final : public th::sdk::Plugin {
//    public:
//     static th::sdk::Declaration Declare() {
//       return th::sdk::Declaration("long-kernels", "1.0.0", th::sdk::kDetector,
//                                   "Kernels longer than a threshold")
//           .Reads({"events"})
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

namespace th::sdk {

inline constexpr th_plugin_kind kAnalyzer = TH_KIND_ANALYZER;
inline constexpr th_plugin_kind kDetector = TH_KIND_DETECTOR;
inline constexpr th_number_kind kMeasured = TH_MEASURED;
inline constexpr th_number_kind kRead = TH_READ;
inline constexpr th_number_kind kInferred = TH_INFERRED;
inline constexpr th_severity P0 = TH_P0;
inline constexpr th_severity P1 = TH_P1;
inline constexpr th_severity P2 = TH_P2;
inline constexpr th_severity kInfo = TH_INFO;  // what the trace is, not a problem (ABI 1.3)
inline constexpr uint32_t kNoRow = 0xFFFFFFFFu;
inline constexpr int64_t kNoValue = INT64_MIN;  // an absent number in a column

// The class of a GPU activity (ABI 1.3, docs/kernel-classes.md).
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

// One trace, read-only. Index events 0..size()-1.
class Trace {
 public:
  Trace(const th_host_api* host, const th_trace_view* view) : host_(host), v_(view) {}

  int64_t rank() const { return v_->rank; }
  std::string_view path() const { return v_->path ? v_->path : ""; }
  uint64_t size() const { return v_->event_count; }
  int64_t ts(uint64_t i) const { return At<int64_t>(v_->ts, i); }
  int64_t dur(uint64_t i) const { return At<int64_t>(v_->dur, i); }
  int64_t end(uint64_t i) const { return ts(i) + dur(i); }
  uint32_t kind(uint64_t i) const { return At<uint8_t>(v_->kind, i); }
  uint32_t track_index(uint64_t i) const { return At<uint32_t>(v_->track, i); }
  uint32_t parent(uint64_t i) const { return At<uint32_t>(v_->parent, i); }
  uint32_t depth(uint64_t i) const { return At<uint16_t>(v_->depth, i); }
  uint32_t name_id(uint64_t i) const { return At<uint32_t>(v_->name, i); }
  std::string_view name(uint64_t i) const { return String(name_id(i)); }
  std::string_view category(uint64_t i) const { return String(At<uint32_t>(v_->cat, i)); }
  std::string_view String(uint32_t id) const {
    uint64_t n = 0;
    const char* s = host_->string_at(host_->ctx, v_, id, &n);
    return {s, static_cast<size_t>(n)};
  }
  int64_t correlation(uint64_t i) const { return host_->correlation(host_->ctx, v_, i); }
  int64_t external_id(uint64_t i) const { return host_->external_id(host_->ctx, v_, i); }
  bool is_gpu_activity(uint64_t i) const {
    uint32_t k = kind(i);
    return k == TH_EVENT_KERNEL || k == TH_EVENT_MEMCPY || k == TH_EVENT_MEMSET;
  }

  uint64_t track_count() const { return v_->track_count; }
  const th_track& track(uint32_t t) const { return v_->tracks[t]; }
  const th_track& track_of(uint64_t i) const { return track(track_index(i)); }

  uint64_t edge_count() const { return v_->edge_count; }
  uint32_t edge_src(uint64_t k) const { return At<uint32_t>(v_->edge_src, k); }
  uint32_t edge_dst(uint64_t k) const { return At<uint32_t>(v_->edge_dst, k); }
  uint32_t edge_kind(uint64_t k) const { return At<uint8_t>(v_->edge_kind, k); }
  uint64_t step_count() const { return v_->step_count; }
  const th_step& step(uint64_t s) const { return v_->steps[s]; }

  // HLO (XProf captures; ABI 1.2). Instructions of all modules, numbered flat.
  // A host older than 1.2 hands a shorter view: everything reads as empty.
  bool has_hlo() const { return HasHlo() && v_->hlo_instruction_count > 0; }
  uint64_t hlo_module_count() const { return HasHlo() ? v_->hlo_module_count : 0; }
  std::string_view hlo_module_name(uint32_t m) const {
    return String(At<uint32_t>(v_->hlo_module_name, m));
  }
  int64_t hlo_module_id(uint32_t m) const { return At<int64_t>(v_->hlo_module_id, m); }
  uint64_t hlo_instruction_count() const { return HasHlo() ? v_->hlo_instruction_count : 0; }
  uint32_t hlo_module(uint32_t i) const { return At<uint32_t>(v_->hlo_module, i); }
  std::string_view hlo_name(uint32_t i) const { return String(At<uint32_t>(v_->hlo_name, i)); }
  std::string_view hlo_opcode(uint32_t i) const { return String(At<uint32_t>(v_->hlo_opcode, i)); }
  std::string_view hlo_shape(uint32_t i) const { return String(At<uint32_t>(v_->hlo_shape, i)); }
  std::string_view hlo_op_name(uint32_t i) const {
    return String(At<uint32_t>(v_->hlo_op_name, i));
  }
  std::string_view hlo_source_file(uint32_t i) const {
    return String(At<uint32_t>(v_->hlo_source_file, i));
  }
  int32_t hlo_source_line(uint32_t i) const { return At<int32_t>(v_->hlo_source_line, i); }
  uint32_t hlo_caller(uint32_t i) const { return At<uint32_t>(v_->hlo_caller, i); }
  std::span<const uint32_t> hlo_operands(uint32_t i) const {
    return Csr(v_->hlo_operand_offsets, v_->hlo_operands, i);
  }
  std::span<const uint32_t> hlo_users(uint32_t i) const {
    return Csr(v_->hlo_user_offsets, v_->hlo_users, i);
  }
  std::string_view hlo_custom_call_target(uint32_t i) const {
    return HasHloDetail() ? String(At<uint32_t>(v_->hlo_custom_call_target, i)) : "";
  }
  std::string_view hlo_fusion_kind(uint32_t i) const {
    return HasHloDetail() ? String(At<uint32_t>(v_->hlo_fusion_kind, i)) : "";
  }
  std::string_view hlo_computation(uint32_t i) const {
    return HasHloDetail() ? String(At<uint32_t>(v_->hlo_computation, i)) : "";
  }
  int32_t hlo_parameter_number(uint32_t i) const {
    return HasHloDetail() ? At<int32_t>(v_->hlo_parameter_number, i) : -1;
  }
  int32_t hlo_tuple_index(uint32_t i) const {
    return HasHloDetail() ? At<int32_t>(v_->hlo_tuple_index, i) : -1;
  }
  bool hlo_in_entry(uint32_t i) const {
    return HasHloDetail() && At<uint8_t>(v_->hlo_in_entry, i) != 0;
  }
  // Per GPU activity row (gpu_args): its instruction (kNoRow) and TH_HLO_MATCH_*.
  bool attributed() const { return HasHlo() && v_->gpu_hlo_match.length > 0; }
  uint32_t gpu_hlo_instruction(uint64_t row) const {
    return attributed() ? At<uint32_t>(v_->gpu_hlo_instruction, row) : kNoRow;
  }
  uint32_t gpu_hlo_match(uint64_t row) const {
    return attributed() ? At<uint8_t>(v_->gpu_hlo_match, row) : uint32_t{TH_HLO_MATCH_NONE};
  }

  // Launch configuration per GPU activity row (ABI 1.2; 0 / -1 when absent).
  bool has_launch_config() const {
    return v_->struct_size >= offsetof(th_trace_view, devices) + sizeof(void*);
  }
  uint64_t gpu_rows() const { return v_->gpu_args_count; }
  uint32_t gpu_event(uint64_t row) const { return At<uint32_t>(v_->gpu_event, row); }
  int32_t gpu_device(uint64_t row) const { return At<int32_t>(v_->gpu_device, row); }
  int64_t gpu_blocks(uint64_t row) const {
    if (!has_launch_config()) return 0;
    return int64_t{At<int32_t>(v_->gpu_grid[0], row)} * At<int32_t>(v_->gpu_grid[1], row) *
           At<int32_t>(v_->gpu_grid[2], row);
  }
  int64_t gpu_threads_per_block(uint64_t row) const {
    if (!has_launch_config()) return 0;
    return int64_t{At<int32_t>(v_->gpu_block[0], row)} * At<int32_t>(v_->gpu_block[1], row) *
           At<int32_t>(v_->gpu_block[2], row);
  }
  int32_t gpu_registers(uint64_t row) const {
    return has_launch_config() ? At<int32_t>(v_->gpu_registers, row) : 0;
  }
  int32_t gpu_shared_mem(uint64_t row) const {
    return has_launch_config() ? At<int32_t>(v_->gpu_shared_mem, row) : 0;
  }
  float gpu_occupancy(uint64_t row) const {
    return has_launch_config() ? At<float>(v_->gpu_occupancy, row) : -1.0f;
  }
  uint64_t device_count() const { return has_launch_config() ? v_->device_count : 0; }
  const th_device& device(uint64_t i) const { return v_->devices[i]; }

  // Collective metadata of NCCL/RCCL kernels (ABI 1.2; none from an older host).
  // Rows are in event order; names are Kineto's ("allreduce", "Float", "0").
  uint64_t collective_count() const { return HasCollectives() ? v_->collective_count : 0; }
  uint32_t collective_event(uint64_t row) const { return At<uint32_t>(v_->collective_event, row); }
  std::string_view collective_name(uint64_t row) const {
    return String(At<uint32_t>(v_->collective_name, row));
  }
  std::string_view collective_dtype(uint64_t row) const {
    return String(At<uint32_t>(v_->collective_dtype, row));
  }
  std::string_view collective_group(uint64_t row) const {
    return String(At<uint32_t>(v_->collective_group, row));
  }
  int64_t collective_in_nelems(uint64_t row) const {
    return At<int64_t>(v_->collective_in_nelems, row);
  }
  int64_t collective_out_nelems(uint64_t row) const {
    return At<int64_t>(v_->collective_out_nelems, row);
  }
  int32_t collective_group_size(uint64_t row) const {
    return At<int32_t>(v_->collective_group_size, row);
  }

  // Allocator events, [memory] and [OutOfMemory] (ABI 1.2; none from an older
  // host). Rows in event order; absent values: device -1, addr 0, totals kNoValue.
  uint64_t memory_count() const { return HasMemory() ? v_->memory_count : 0; }
  uint32_t memory_event(uint64_t row) const { return At<uint32_t>(v_->memory_event, row); }
  int32_t memory_device_type(uint64_t row) const {  // c10 DeviceType: 0 CPU, 1 CUDA, 6 HIP
    return At<int8_t>(v_->memory_device_type, row);
  }
  int32_t memory_device_id(uint64_t row) const { return At<int16_t>(v_->memory_device_id, row); }
  int64_t memory_addr(uint64_t row) const { return At<int64_t>(v_->memory_addr, row); }
  int64_t memory_bytes(uint64_t row) const {  // negative = free
    return At<int64_t>(v_->memory_bytes, row);
  }
  int64_t memory_total_allocated(uint64_t row) const {
    return At<int64_t>(v_->memory_total_allocated, row);
  }
  int64_t memory_total_reserved(uint64_t row) const {
    return At<int64_t>(v_->memory_total_reserved, row);
  }

  // Kernel classes (ABI 1.3): the class of event `i` under the pipeline's
  // kernel class table (built-in rules plus its `kernel_classes:`), kNone for
  // an event that is no GPU activity. The host matched each distinct name
  // once; here it is a lookup. hta_kernel_class: HTA 0.6.1's kernel types,
  // for figures that reproduce HTA's.
  KernelClass kernel_class(uint64_t i) const { return ClassOf(i, false); }
  KernelClass hta_kernel_class(uint64_t i) const { return ClassOf(i, true); }
  // The rule that decided kernel_class(i) (its source says where it comes
  // from); nullptr when no rule matched and the kind decided.
  const th_class_rule* kernel_class_rule(uint64_t i) const {
    const uint32_t r = RuleOf(i, false);
    return r == TH_NO_RULE ? nullptr : &v_->class_rules[r];
  }
  uint64_t class_rule_count() const { return HasClasses() ? v_->class_rule_count : 0; }
  const th_class_rule& class_rule(uint64_t r) const { return v_->class_rules[r]; }

  // CUDA/HIP graph capture in this trace (ABI 1.3; all zero from an older
  // host). capture().dominates: the trace records capture, not execution;
  // analyses that need executed kernels skip it (Context::Skip).
  const th_graph_capture& capture() const {
    static const th_graph_capture kNone{};
    return HasCapture() ? v_->capture : kNone;
  }

  const th_trace_view& raw() const { return *v_; }

 private:
  bool HasClasses() const {
    return v_->struct_size >= offsetof(th_trace_view, class_rules) + sizeof(void*);
  }
  bool HasCapture() const {
    return v_->struct_size >= offsetof(th_trace_view, capture) + sizeof(th_graph_capture);
  }
  uint32_t RuleOf(uint64_t i, bool hta) const {
    if (!HasClasses()) return TH_NO_RULE;
    const uint32_t name = name_id(i);
    if (name >= v_->string_count) return TH_NO_RULE;
    return At<uint32_t>(hta ? v_->name_hta_rule : v_->name_rule, name);
  }
  KernelClass ClassOf(uint64_t i, bool hta) const {
    const uint32_t k = kind(i);
    const bool activity = k == TH_EVENT_KERNEL || k == TH_EVENT_MEMCPY || k == TH_EVENT_MEMSET;
    if (!activity && k != TH_EVENT_GPU_SYNC && k != TH_EVENT_GPU_EVENT) return KernelClass::kNone;
    const uint32_t r = RuleOf(i, hta);
    if (r != TH_NO_RULE) return static_cast<KernelClass>(v_->class_rules[r].klass);
    // No rule matched: the kind decides.
    if (hta || k == TH_EVENT_KERNEL) return KernelClass::kComp;
    return activity ? KernelClass::kMem : KernelClass::kOther;
  }
  bool HasMemory() const {
    return v_->struct_size >= offsetof(th_trace_view, memory_total_reserved) + sizeof(th_column);
  }
  bool HasCollectives() const {
    return v_->struct_size >= offsetof(th_trace_view, collective_group_size) + sizeof(th_column);
  }
  bool HasHlo() const {
    return v_->struct_size >= offsetof(th_trace_view, gpu_hlo_match) + sizeof(th_column);
  }
  bool HasHloDetail() const {
    return v_->struct_size >= offsetof(th_trace_view, hlo_in_entry) + sizeof(th_column);
  }
  static std::span<const uint32_t> Csr(const th_column& offsets, const th_column& rows,
                                       uint32_t i) {
    const auto* o = static_cast<const uint32_t*>(offsets.data);
    return {static_cast<const uint32_t*>(rows.data) + o[i], o[i + 1] - o[i]};
  }
  template <typename T>
  static T At(const th_column& c, uint64_t i) {
    return static_cast<const T*>(c.data)[i];
  }
  const th_host_api* host_;
  const th_trace_view* v_;
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
};

// A derived table, built column by column (equal lengths), then published.
class Table {
 public:
  explicit Table(std::string name) : name_(std::move(name)) {}
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
  Table& Text(std::string column, std::vector<std::string> values) {
    texts_.push_back(std::move(values));
    cols_.push_back({std::move(column), TH_TYPE_STRING, texts_.size() - 1, ""});
    return *this;
  }

 private:
  friend class Context;
  struct Col {
    std::string name;
    th_value_type type;
    size_t index;
    std::string unit;
  };
  std::string name_;
  std::vector<Col> cols_;
  std::deque<std::vector<int64_t>> ints_;
  std::deque<std::vector<double>> reals_;
  std::deque<std::vector<std::string>> texts_;
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
    uint64_t rows = 0;
    for (const auto& c : t.cols_) {
      th_table_column col{};
      col.name = c.name.c_str();
      col.unit = c.unit.empty() ? nullptr : c.unit.c_str();
      col.values.type = c.type;
      if (c.type == TH_TYPE_I64) {
        col.values.data = t.ints_[c.index].data();
        col.values.length = t.ints_[c.index].size();
      } else if (c.type == TH_TYPE_F64) {
        col.values.data = t.reals_[c.index].data();
        col.values.length = t.reals_[c.index].size();
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
  const th_table* FindTable(const char* name) const { return host_->find_table(host_->ctx, name); }

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
  // listed in every report with the plugin's outcome). ABI 1.3.
  void Skip(const Trace& trace, const std::string& reason) {
    if (host_->struct_size < offsetof(th_host_api, skip_trace) + sizeof(void*)) {
      Warn("skipped rank " + std::to_string(trace.rank()) + ": " + reason);
      return;
    }
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

  Declaration& Reads(std::initializer_list<const char*> tables) {
    reads_.insert(reads_.end(), tables.begin(), tables.end());
    return *this;
  }
  Declaration& Publishes(std::initializer_list<const char*> tables) {
    publishes_.insert(publishes_.end(), tables.begin(), tables.end());
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
    for (const auto& p : publishes_) c_publishes_.push_back(p.c_str());
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
  std::string summary_;
  std::vector<std::string> reads_, publishes_;
  std::vector<Spec> options_;
  // Built by Describe().
  std::vector<const char*> c_reads_, c_publishes_;
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
