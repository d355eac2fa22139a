// The phases of the step-breakdown analyzer, each a function of plain inputs
// (no plugin context, no trace), so that each is tested on hand-built inputs:
//
//   CpuCategory         the step category of a host op by its name
//   StepUnions          one rank's events, by start, united per step they overlap
//   SplitStep           a step's parts from the cumulative unions
//   SummarizePart       mean / min / max of one part over a phase's steps
//   KernelTypeRegions   time where exactly each set of HTA kernel types runs
#pragma once

#include <tracehound/time_order.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace th::step_breakdown {

// The PyTorch profiler plugin's step categories, in priority order; what is
// left of the step is "other".
enum Category : uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kCommunication,
  kRuntime,
  kDataLoader,
  kCpuExec,
  kCategories,
  kNoCategory = 0xff
};
inline constexpr std::array<const char*, kCategories + 1> kCategoryNames = {
    "kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"};
// The parts of a step in table step_breakdown: the categories, then idle,
// compute and non-compute.
inline constexpr size_t kParts = kCategories + 1 + 3;
inline constexpr std::array<const char*, kParts> kPartNames = {
    "kernel",   "memcpy", "memset", "communication", "runtime",    "dataloader",
    "cpu_exec", "other",  "idle",   "compute",       "non_compute"};

// cpu_op and Python events: none for ProfilerStep#N, communication for
// nccl:/gloo:, dataloader for the DataLoader / DataPipe iterators, else CPU exec.
Category CpuCategory(std::string_view name);

struct StepRow {
  int64_t rank, number, ts, dur;
  bool warmup, inferred;
};

// An event of a rank as the per-step breakdown sees it: [b, e), its category
// (kNoCategory when none), whether it is one of HTA's GPU rows, and whether
// that row is a COMPUTATION kernel.
struct StepEvent {
  int64_t b, e;
  Category category;
  bool gpu_row, compute;
};

// One rank's steps and, fed its events by start, per step the unions of the
// events clipped to it: of the categories up to each category (cumulative, in
// priority order), of the GPU rows and of the compute rows.
class StepUnions {
 public:
  // `rows`: indices into `steps` (one rank's), by start.
  StepUnions(const std::vector<StepRow>& steps, std::vector<uint32_t> rows);
  // Whether [b, e) overlaps the span of the steps (first start to last end).
  bool Overlaps(int64_t b, int64_t e) const { return b < span_end_ && e > span_begin_; }
  // Events must come in order of begin (ties in any order).
  void Add(const StepEvent& ev);
  // The k-th step of `rows`: the step row, its unions.
  uint32_t row(size_t k) const { return rows_[k]; }
  size_t size() const { return rows_.size(); }
  std::array<int64_t, kCategories> Cumulative(size_t k) const;
  int64_t Busy(size_t k) const { return unions_[k].gpu.total; }
  int64_t Computing(size_t k) const { return unions_[k].comp.total; }

 private:
  struct Unions {
    std::array<th::sdk::UnionCover, kCategories> cumulative;
    th::sdk::UnionCover gpu, comp;
  };
  const std::vector<StepRow>& steps_;
  std::vector<uint32_t> rows_;
  std::vector<Unions> unions_;
  int64_t longest_ = 0, span_begin_ = 0, span_end_ = 0;
  size_t first_open_ = 0;  // steps before it end before every later event
};

// The step's parts (kPartNames): category j = cumulative[j] - cumulative[j-1]
// (the unions of the categories up to j), other = dur - the last union; idle =
// dur - busy, compute, non-compute = busy - compute.
std::array<int64_t, kParts> SplitStep(int64_t dur,
                                      const std::array<int64_t, kCategories>& cumulative,
                                      int64_t busy, int64_t computing);

// The categories and other are all >= 0 and add up to the step time.
bool AddsUp(const std::array<int64_t, kParts>& parts, int64_t dur);

struct PartSummary {
  int64_t steps, mean, min, max;  // mean: integer division
  double mean_pct, min_pct, max_pct;
};

// Over the rows `idx`: ns[k] and pct[k] (100 % each when pct is null).
PartSummary SummarizePart(const std::vector<int64_t>& ns, const std::vector<double>* pct,
                          const std::vector<size_t>& idx);

// From the unions of computation (a), communication (b), memory (c) kernels
// and of each pair and all three: the time where exactly {a}, {b}, {c}, {a,b},
// {a,c}, {b,c}, {a,b,c} run (HTA's kernel type names, in that order).
std::array<int64_t, 7> KernelTypeRegions(int64_t a, int64_t b, int64_t c, int64_t ab, int64_t ac,
                                         int64_t bc, int64_t abc);

}  // namespace th::step_breakdown
