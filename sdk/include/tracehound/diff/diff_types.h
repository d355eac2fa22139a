// The vocabulary of a diff of two runs (A, B) that both the `tracehound diff`
// command and the `trace-diff` plugin use: options, event classes, aggregate
// rows, structural rows of aligned step pairs and the attribution of the
// step-time change. Header-only, std only;
// all times are integer nanoseconds.
#ifndef TRACEHOUND_DIFF_DIFF_TYPES_H_
#define TRACEHOUND_DIFF_DIFF_TYPES_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace th::diff {

struct DiffOptions {
  int64_t threshold_ns = 1000;  // |Δ time per step| must exceed this to be "changed"
  bool all_steps = false;       // warm-up steps too (default: steady state only)
  bool all_classes = false;     // every event class, not only cpu_op / gpu_kernel / hlo_op
  int64_t max_structural = 50;  // structural rows kept per step pair (largest |Δ| first)
  int64_t max_step_pairs = 8;   // step pairs aligned structurally
  // Holistic Trace Analysis' compare_traces definitions (docs/diff.md): the
  // first step of each rank only, warm-up or not, its ProfilerStep marker as
  // the window; every event class; full names (not normalised); GPU work
  // without a launch event left out.
  bool hta = false;
};

// Event classes an aggregate row is keyed by.
enum class EventClass : uint8_t {
  kCpuOp,
  kGpuKernel,   // kernels, memcpy, memset
  kHloOp,       // the HLO instruction an XProf device event is labelled with
  kRuntime,     // all_classes only: runtime and driver calls
  kAnnotation,  // all_classes only: user annotations (ProfilerStep#N included)
  kPython,      // all_classes only: python_function
  kOther,       // all_classes only: anything else with a duration
  kCount
};

inline const char* EventClassName(EventClass c) {
  switch (c) {
    case EventClass::kCpuOp:
      return "cpu_op";
    case EventClass::kGpuKernel:
      return "gpu_kernel";
    case EventClass::kHloOp:
      return "hlo_op";
    case EventClass::kRuntime:
      return "runtime";
    case EventClass::kAnnotation:
      return "annotation";
    case EventClass::kPython:
      return "python_function";
    case EventClass::kOther:
    case EventClass::kCount:
      break;
  }
  return "other";
}

enum class RowStatus : uint8_t { kUnchanged, kChanged, kAdded, kRemoved, kUnknown };

inline const char* RowStatusName(RowStatus s) {
  switch (s) {
    case RowStatus::kUnchanged:
      return "unchanged";
    case RowStatus::kChanged:
      return "changed";
    case RowStatus::kAdded:
      return "added";
    case RowStatus::kRemoved:
      return "removed";
    case RowStatus::kUnknown:
      return "unknown";
  }
  return "unknown";
}

// One side's figures of one aggregate row over its `steps` steps.
struct SideFigures {
  int64_t count = 0;             // events over all steps
  int64_t time_ns = 0;           // summed duration over all steps
  int64_t time_per_step_ns = 0;  // time_ns / steps, rounded to nearest
  int64_t spread_ns = 0;         // max - min of the per-step time
};

struct AggregateRow {
  EventClass cls = EventClass::kCpuOp;
  std::string name;  // normalised
  SideFigures a, b;
  int64_t delta_ns = 0;  // b.time_per_step_ns - a.time_per_step_ns
  double delta_pct = 0;  // 100 Δ / a.time_per_step_ns, to 0.01; absent when a is 0
  bool has_pct = false;
  int64_t noise_ns = 0;  // max(a.spread_ns, b.spread_ns)
  RowStatus status = RowStatus::kUnchanged;
};

// Per class, both sides' totals over their kept steps (not per step).
struct ClassTotal {
  EventClass cls = EventClass::kCpuOp;
  int64_t a_count = 0, a_time_ns = 0, b_count = 0, b_time_ns = 0;
};

// A structural difference under an aligned parent.
struct StructuralRow {
  std::string kind;               // "added", "removed", "kernels_replaced", "time_changed"
  std::vector<std::string> path;  // aligned ancestors' normalised names, outermost first
  std::string level;              // "module", "op", "kernel"
  std::string a_name, b_name;     // normalised; "" on the side without it
  int64_t a_device_ns = 0, b_device_ns = 0;  // GPU time of the subtree(s) on each side
};

struct StepPair {
  int64_t a_rank = 0, a_step = 0, b_rank = 0, b_step = 0;
  int64_t matched = 0, a_unmatched = 0, b_unmatched = 0;  // tree nodes
  std::vector<StructuralRow> rows;                        // largest |Δ device| first
  int64_t rows_left_out = 0;
};

// The step-breakdown categories (the step-breakdown plugin's priority parts).
inline constexpr size_t kCategoryCount = 8;
inline constexpr std::array<const char*, kCategoryCount> kCategoryNames = {
    "kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"};

struct Contributor {
  std::string category;
  int64_t a_ns = 0, b_ns = 0, delta_ns = 0;  // per step
};

struct Attribution {
  int64_t a_step_ns = 0, b_step_ns = 0, delta_ns = 0;  // mean step time, per step
  std::vector<Contributor> contributors;               // |Δ| descending; Σ Δ = delta_ns
  bool available = false;                              // both sides have step_breakdown rows
};

}  // namespace th::diff

#endif  // TRACEHOUND_DIFF_DIFF_TYPES_H_
