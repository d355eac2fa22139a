// kernel-stats: per GPU kernel name (and memcpy/memset kind), over every rank:
// count, total, min, max, mean, p50, p99, share of GPU time, category.
#include <tracehound/sdk.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;

// COMM: NCCL/RCCL collectives (name contains nccl or rccl, any case);
// MEM: memcpy / memset; COMP: every other kernel.
std::string Category(uint32_t kind, std::string_view name) {
  if (kind == TH_EVENT_MEMCPY || kind == TH_EVENT_MEMSET) return "MEM";
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower.find("nccl") != std::string::npos || lower.find("rccl") != std::string::npos)
    return "COMM";
  return "COMP";
}

// Nearest-rank percentile of sorted values.
int64_t Percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

class KernelStats final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("kernel-stats", "1.0.0", th::sdk::kAnalyzer,
                       "Per kernel name: count, total, min, max, mean, p50, p99, share of GPU "
                       "time, category COMM/COMP/MEM")
        .Reads({"events"})
        .Publishes({"kernel_stats"})
        .Option("include_memory", true, "also list memcpy and memset (category MEM)");
  }

  void Run(Context& ctx) override {
    const bool include_memory = ctx.GetBool("include_memory");
    struct Acc {
      std::string category;
      std::vector<int64_t> durations;
      int64_t total = 0;
    };
    std::map<std::string, Acc> by_name;
    int64_t gpu_total = 0;
    for (const auto& trace : ctx.traces()) {
      int64_t rank_total = 0, rank_kernels = 0;
      for (uint64_t i = 0; i < trace.size(); ++i) {
        uint32_t kind = trace.kind(i);
        bool memory = kind == TH_EVENT_MEMCPY || kind == TH_EVENT_MEMSET;
        if (kind != TH_EVENT_KERNEL && !(include_memory && memory)) continue;
        std::string_view name = trace.name(i);
        Acc& a = by_name[std::string(name)];
        if (a.category.empty()) a.category = Category(kind, name);
        a.durations.push_back(trace.dur(i));
        a.total += trace.dur(i);
        rank_total += trace.dur(i);
        rank_kernels += kind == TH_EVENT_KERNEL;
      }
      gpu_total += rank_total;
      th::sdk::Scope scope;
      scope.rank = trace.rank();
      ctx.Metric("gpu_time", static_cast<double>(rank_total), "ns", th::sdk::kMeasured, scope);
      ctx.Metric("kernels", static_cast<double>(rank_kernels), "count", th::sdk::kMeasured, scope);
    }
    // Rows by total time, largest first (ties by name).
    std::vector<std::pair<std::string, Acc*>> rows;
    for (auto& [name, acc] : by_name) rows.emplace_back(name, &acc);
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.second->total != b.second->total ? a.second->total > b.second->total
                                                : a.first < b.first;
    });
    std::vector<std::string> names, categories;
    std::vector<int64_t> count, total, min, max, p50, p99;
    std::vector<double> mean, share;
    for (auto& [name, acc] : rows) {
      std::sort(acc->durations.begin(), acc->durations.end());
      names.push_back(name);
      categories.push_back(acc->category);
      count.push_back(static_cast<int64_t>(acc->durations.size()));
      total.push_back(acc->total);
      min.push_back(acc->durations.front());
      max.push_back(acc->durations.back());
      mean.push_back(static_cast<double>(acc->total) / static_cast<double>(acc->durations.size()));
      p50.push_back(Percentile(acc->durations, 50));
      p99.push_back(Percentile(acc->durations, 99));
      share.push_back(
          gpu_total ? 100.0 * static_cast<double>(acc->total) / static_cast<double>(gpu_total) : 0);
    }
    ctx.Publish(th::sdk::Table("kernel_stats")
                    .Text("name", names)
                    .Text("category", categories)
                    .Int("count", count, "count")
                    .Int("total", total, "ns")
                    .Int("min", min, "ns")
                    .Int("max", max, "ns")
                    .Real("mean", mean, "ns")
                    .Int("p50", p50, "ns")
                    .Int("p99", p99, "ns")
                    .Real("share", share, "%"));
    ctx.Metric("gpu_time", static_cast<double>(gpu_total), "ns", th::sdk::kMeasured);
  }
};

}  // namespace

TH_PLUGIN(KernelStats)
