// Compute primitives behind one host API, over spans of columns.
//
// One Engine per backend (cpu: oneTBB, the reference; cuda: Thrust/CUB; hip:
// rocPRIM). Every primitive returns a KernelStatus; outputs are caller-sized
// spans unless stated. Results are identical on every backend (integers
// exactly). Groups and keys are pre-interned dense ids in [0, num_groups).
//
// Interval inputs need not be sorted; an interval with end <= begin is empty
// (it covers nothing and does not extend coverage).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace th::kernels {

class [[nodiscard]] KernelStatus {
 public:
  KernelStatus() = default;
  explicit KernelStatus(std::string error) : error_(std::move(error)), ok_(false) {}
  bool ok() const { return ok_; }
  const std::string& message() const { return error_; }

 private:
  std::string error_;
  bool ok_ = true;
};

enum class Backend { kCpu, kCuda, kHip };
const char* BackendName(Backend b);

enum class ReduceOp { kSum, kMin, kMax, kCount };

inline constexpr uint32_t kNoMatch = 0xFFFFFFFFu;

// Intervals [begin, end) with the group each belongs to (all spans equal length).
struct IntervalColumns {
  std::span<const uint32_t> group;
  std::span<const int64_t> begin;
  std::span<const int64_t> end;
  size_t size() const { return begin.size(); }
};

// Idle gaps between the union's components, per group, in (group, begin) order.
struct GapList {
  std::vector<uint32_t> group;
  std::vector<int64_t> begin, end;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual Backend backend() const = 0;

  // Stable sort of (keys, values) by key, in place.
  virtual KernelStatus SortByKey(std::span<int64_t> keys, std::span<uint32_t> values) = 0;
  // out[k] = op over values with key k (sum/min/max of values, or count of
  // rows); keys with no row get 0 (count, sum) or INT64_MAX / INT64_MIN (min, max).
  virtual KernelStatus ReduceByKey(std::span<const uint32_t> keys, std::span<const int64_t> values,
                                   ReduceOp op, std::span<int64_t> out) = 0;
  // For each segment s (values[offsets[s] .. offsets[s+1])), the nearest-rank
  // percentile p of its values for each p in `percentiles` (0 < p <= 100):
  // out[s * percentiles.size() + j]. An empty segment gives 0.
  virtual KernelStatus SegmentedPercentiles(std::span<const int64_t> values,
                                            std::span<const uint64_t> offsets,
                                            std::span<const double> percentiles,
                                            std::span<int64_t> out) = 0;
  // out[g] = length of the union of group g's intervals (busy time).
  virtual KernelStatus IntervalUnion(const IntervalColumns& intervals, std::span<int64_t> out) = 0;
  // out[g] = length of union(a in g) ∩ union(b in g) (e.g. communication hidden
  // behind computation).
  virtual KernelStatus IntervalOverlap(const IntervalColumns& a, const IntervalColumns& b,
                                       std::span<int64_t> out) = 0;
  // Gaps between consecutive union components of each group (idle intervals).
  virtual KernelStatus Gaps(const IntervalColumns& intervals, uint32_t num_groups,
                            GapList* out) = 0;
  // out[bin] counts values in [lo + bin*w, lo + (bin+1)*w), w = (hi - lo) / bins;
  // values below lo count in bin 0, at or above hi in the last bin.
  virtual KernelStatus Histogram(std::span<const int64_t> values, int64_t lo, int64_t hi,
                                 std::span<uint64_t> out) = 0;
  // Indices of the k largest values, largest first; ties go to the lower index.
  virtual KernelStatus TopK(std::span<const int64_t> values, uint32_t k,
                            std::vector<uint32_t>* out) = 0;
  // out[i] = index of the first build row whose key equals probe[i], or kNoMatch.
  virtual KernelStatus Join(std::span<const int64_t> build, std::span<const int64_t> probe,
                            std::span<uint32_t> out) = 0;
};

// The oneTBB engine; always built.
std::unique_ptr<Engine> MakeCpuEngine();

}  // namespace th::kernels
