// kernel-stats: per GPU kernel name (and memcpy/memset kind), over every rank:
// count, total, min, max, mean, p50, p99, share of GPU time, category (the
// host's kernel class, COMM/COMP/MEM) and the rule that gave it.
#include <tracehound/sdk.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;

// The rule's source, or what the kind says when no rule matched.
std::string ClassSource(const th::sdk::Trace& t, uint64_t i) {
  if (const th_class_rule* r = t.kernel_class_rule(i)) return r->source ? r->source : "";
  return t.kind(i) == TH_EVENT_KERNEL ? "no rule: a kernel is COMP" : "no rule: a copy is MEM";
}

// The tables it publishes.
th::sdk::Schema KernelStatsTable() {
  return th::sdk::Schema("kernel_stats")
      .View("kernel-stats")
      .Text("name")
      .Text("category")
      .Int("count", "count")
      .Int("total", "ns")
      .Int("min", "ns")
      .Int("max", "ns")
      .Real("mean", "ns")
      .Int("p50", "ns")
      .Int("p99", "ns")
      .Real("share", "%")
      .Text("category_source");
}

class KernelStats final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("kernel-stats", "1.0.0", th::sdk::kAnalyzer,
                       "Per kernel name: count, total, min, max, mean, p50, p99, share of GPU "
                       "time, category COMM/COMP/MEM (the kernel class table) and its source")
        .Reads({"events", "gpu_activity", "name_classes", "class_rules"})
        .Publishes(KernelStatsTable())
        .Option("include_memory", true, "also list memcpy and memset (category MEM)");
  }

  void Run(Context& ctx) override {
    const bool include_memory = ctx.GetBool("include_memory");
    auto listed = [&](uint32_t kind) {
      return kind == TH_EVENT_KERNEL ||
             (include_memory && (kind == TH_EVENT_MEMCPY || kind == TH_EVENT_MEMSET));
    };
    // One dense key per distinct name (with its category), over all ranks,
    // and per key its count, total, min and max, summed as the events are
    // read; per trace its name ids' keys.
    std::unordered_map<std::string, uint32_t> key_of;
    std::vector<std::string> names, categories, sources;
    std::vector<int64_t> count, total, min, max;
    std::vector<std::vector<uint32_t>> key_of_name(ctx.traces().size());
    constexpr uint32_t kUnseen = 0xFFFFFFFFu;
    size_t trace_index = 0;
    for (const auto& trace : ctx.traces()) {
      std::vector<uint32_t>& local = key_of_name[trace_index++];  // name id -> key
      int64_t rank_total = 0, rank_kernels = 0;
      for (const uint32_t i : trace.gpu_activity()) {  // the GPU events only, by row
        const uint32_t kind = trace.kind(i);
        if (!listed(kind)) continue;
        const uint32_t name_id = trace.name_id(i);
        if (name_id >= local.size()) local.resize(name_id + 1, kUnseen);
        if (local[name_id] == kUnseen) {
          std::string name(trace.name(i));
          auto [g, added] = key_of.try_emplace(name, static_cast<uint32_t>(names.size()));
          if (added) {  // the first rank's class names the row
            names.push_back(name);
            categories.push_back(th::sdk::KernelClassName(trace.kernel_class(i)));
            sources.push_back(ClassSource(trace, i));
            count.push_back(0);
            total.push_back(0);
            min.push_back(INT64_MAX);
            max.push_back(INT64_MIN);
          }
          local[name_id] = g->second;
        }
        const uint32_t key = local[name_id];
        const int64_t d = trace.dur(i);
        ++count[key];
        total[key] += d;
        min[key] = std::min(min[key], d);
        max[key] = std::max(max[key], d);
        rank_total += d;
        rank_kernels += kind == TH_EVENT_KERNEL;
      }
      th::sdk::Scope scope;
      scope.rank = trace.rank();
      ctx.Metric("gpu_time", static_cast<double>(rank_total), "ns", th::sdk::kMeasured, scope);
      ctx.Metric("kernels", static_cast<double>(rank_kernels), "count", th::sdk::kMeasured, scope);
    }
    const size_t k = names.size();
    // Percentiles: the durations grouped by key, each key's in the order read
    // (a counting sort: one 8-byte value per event, no sort), one segment per key.
    std::vector<uint64_t> offsets(k + 1, 0);
    for (size_t g = 0; g < k; ++g) offsets[g + 1] = offsets[g] + static_cast<uint64_t>(count[g]);
    std::vector<int64_t> grouped(offsets[k]);
    {
      std::vector<uint64_t> next(offsets.begin(), offsets.end() - 1);
      trace_index = 0;
      for (const auto& trace : ctx.traces()) {
        const std::vector<uint32_t>& local = key_of_name[trace_index++];
        for (const uint32_t i : trace.gpu_activity())
          if (listed(trace.kind(i))) grouped[next[local[trace.name_id(i)]]++] = trace.dur(i);
      }
    }
    std::vector<int64_t> pct = ctx.SegmentedPercentiles(grouped, offsets, {50, 99});
    grouped = {};
    int64_t gpu_total = 0;
    for (int64_t t : total) gpu_total += t;

    // Rows by total time, largest first (ties by name).
    std::vector<uint32_t> order(k);
    for (uint32_t g = 0; g < k; ++g) order[g] = g;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return total[a] != total[b] ? total[a] > total[b] : names[a] < names[b];
    });
    std::vector<std::string> t_names, t_categories, t_sources;
    std::vector<int64_t> t_count, t_total, t_min, t_max, t_p50, t_p99;
    std::vector<double> t_mean, t_share;
    for (uint32_t g : order) {
      t_names.push_back(names[g]);
      t_categories.push_back(categories[g]);
      t_sources.push_back(sources[g]);
      t_count.push_back(count[g]);
      t_total.push_back(total[g]);
      t_min.push_back(min[g]);
      t_max.push_back(max[g]);
      t_mean.push_back(static_cast<double>(total[g]) / static_cast<double>(count[g]));
      t_p50.push_back(pct[2 * g]);
      t_p99.push_back(pct[2 * g + 1]);
      t_share.push_back(
          gpu_total ? 100.0 * static_cast<double>(total[g]) / static_cast<double>(gpu_total) : 0);
    }
    ctx.Publish(th::sdk::Table("kernel_stats")
                    .Text("name", t_names)
                    .Text("category", t_categories)
                    .Int("count", t_count, "count")
                    .Int("total", t_total, "ns")
                    .Int("min", t_min, "ns")
                    .Int("max", t_max, "ns")
                    .Real("mean", t_mean, "ns")
                    .Int("p50", t_p50, "ns")
                    .Int("p99", t_p99, "ns")
                    .Real("share", t_share, "%")
                    .Text("category_source", t_sources));
    ctx.Metric("gpu_time", static_cast<double>(gpu_total), "ns", th::sdk::kMeasured);
  }
};

}  // namespace

TH_PLUGIN(KernelStats)
