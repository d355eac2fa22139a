// gpu-efficiency: per device, GPU utilization, est. SM efficiency, est.
// achieved occupancy and blocks per SM (the PyTorch profiler plugin's
// definitions), and the same per kernel name.
#include <tracehound/format.h>
#include <tracehound/sdk.h>
#include <tracehound/time_order.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Percent;

struct Device {
  int64_t rank = 0;
  int32_t device = -1;
  int32_t sms = 0;  // 0 = unknown
  int64_t window_begin = INT64_MAX, window_end = INT64_MIN;
  std::string window_source;
  double sm_weighted = 0, blocks_weighted = 0, occupancy_weighted = 0;
  int64_t occupancy_ns = 0, kernel_ns = 0, kernels = 0, launch_config_ns = 0;
};

struct KernelAgg {
  int64_t count = 0, total_ns = 0, config_ns = 0, occupancy_ns = 0;
  double sm_weighted = 0, blocks_weighted = 0, occupancy_weighted = 0;
};

// The tables it publishes.
th::sdk::Schema GpuEfficiencyTable() {
  return th::sdk::Schema("gpu_efficiency")
      .View("gpu-efficiency")
      .Int("rank")
      .Int("device")
      .Text("window_source")
      .Int("window", "ns")
      .Int("busy", "ns")
      .Int("kernels", "count")
      .Int("sms", "count")
      .Real("gpu_utilization", "%")
      .Real("est_sm_efficiency", "%")
      .Real("est_achieved_occupancy", "%")
      .Real("blocks_per_sm", "blocks");
}
th::sdk::Schema GpuEfficiencyKernelsTable() {
  return th::sdk::Schema("gpu_efficiency_kernels")
      .Text("name")
      .Int("count", "count")
      .Int("total", "ns")
      .Real("est_sm_efficiency", "%")
      .Real("est_achieved_occupancy", "%")
      .Real("blocks_per_sm", "blocks");
}

// Adds to busy[device row] the union of each device's kernels clipped to its
// window: each GPU stream's kernels (with a gpu_args row) in the importer's
// track order, a device's streams merged by start; no per-kernel copy. False,
// adding nothing, when that sweep would not see exactly the `clipped` kernels
// of the gpu_args pass (a kernel off the stream tracks, a stream holding two
// devices' kernels): the caller then unites them the general way.
template <typename DeviceRow>
bool SweepBusy(const th::sdk::Trace& t, const std::vector<Device>& devices, DeviceRow device_row,
               size_t clipped, std::vector<int64_t>& busy) {
  constexpr uint32_t kUnset = 0xFFFFFFFFu, kMixed = 0xFFFFFFFEu;
  std::vector<uint32_t> device_of_track(t.track_count(), kUnset);
  size_t seen = 0;
  const auto clip = [&](uint32_t i, size_t di) {
    return std::pair{std::max(t.ts(i), devices[di].window_begin),
                     std::min(t.end(i), devices[di].window_end)};
  };
  const th::sdk::TrackRows rows = th::sdk::KeepInTrackOrder(
      static_cast<uint32_t>(t.track_count()),
      [&](uint32_t k) {
        return t.track(k).kind == TH_TRACK_GPU_STREAM ? t.track_events(k)
                                                      : th::sdk::Trace::TrackEvents{};
      },
      [&](uint32_t i) {
        if (t.kind(i) != TH_EVENT_KERNEL) return false;
        const uint32_t row = t.args_row(i);
        if (row == th::sdk::kNoRow || row >= t.gpu_rows() || t.gpu_event(row) != i) return false;
        const size_t di = device_row(t.gpu_device(row));
        const auto [b, e] = clip(i, di);
        if (e <= b) return false;
        ++seen;
        uint32_t& d = device_of_track[t.track_index(i)];
        d = d == kUnset || d == di ? static_cast<uint32_t>(di) : kMixed;
        return true;
      });
  if (seen != clipped) return false;
  std::map<uint32_t, std::vector<th::sdk::StartList>> lists;  // device row -> its streams
  for (size_t k = 0; k < rows.lists(); ++k) {
    const uint32_t d = device_of_track[rows.track[k]];
    if (d == kMixed) return false;
    lists[d].push_back({rows.Of(k), d});
  }
  for (const auto& [d, of_device] : lists) {
    th::sdk::UnionCover u;
    th::sdk::MergeByStart(
        of_device, [&](uint32_t, uint32_t i) { return t.ts(i); },
        [&](uint32_t, uint32_t i) {
          const auto [b, e] = clip(i, d);
          u.Add(b, e);
        });
    busy[d] += u.total;
  }
  return true;
}

class GpuEfficiency final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("gpu-efficiency", "1.0.0", th::sdk::kAnalyzer,
                       "GPU utilization, est. SM efficiency, est. achieved occupancy and blocks "
                       "per SM, per device and per kernel")
        .Reads({"events", "profiler_steps", "gpu_args", "devices", "graph_capture", "tracks",
                "track_events", "track_order"})
        .Publishes(GpuEfficiencyTable())
        .Publishes(GpuEfficiencyKernelsTable())
        .Option("window", "steps",
                "time the ratios are taken over: steps (first ProfilerStep start to last "
                "step end, as the PyTorch plugin; the kernel span when the trace has no "
                "steps) or span (first to last kernel of the device)",
                {"steps", "span"})
        .Option("low_utilization_pct", 50.0, "report a device below this GPU utilization")
        .Range(0, 100)
        .Option("top_kernels", int64_t{20}, "rows of the per-kernel table")
        .Min(1);
  }

  void Run(Context& ctx) override {
    const bool use_steps = ctx.GetString("window") == "steps";
    std::vector<Device> devices;
    // Per kernel name over all traces; each trace maps its name ids to rows
    // once per distinct name.
    std::map<std::string, uint32_t> kernel_row;
    std::vector<KernelAgg> kernels;
    // Busy time per device: the union of its kernels clipped to its window,
    // swept per trace from the importer's track order (SweepBusy); a trace
    // whose kernels that sweep cannot see exactly gives its clipped kernels
    // to the host's interval union instead (group, begin, end).
    std::vector<int64_t> swept_busy;
    std::vector<uint32_t> group;
    std::vector<int64_t> begin, end;
    for (const auto& trace : ctx.traces()) {
      if (trace.capture().dominates) {
        ctx.Skip(trace,
                 "the trace records CUDA/HIP graph capture: most launched kernels never "
                 "ran in it, so its GPU utilization would measure start-up, not work");
        continue;
      }
      std::map<int32_t, size_t> index;  // device id -> devices row
      int32_t last_id = 0;
      size_t last_row = SIZE_MAX;
      auto device_row = [&](int32_t id) -> size_t {
        if (last_row != SIZE_MAX && id == last_id) return last_row;
        auto [it, fresh] = index.try_emplace(id, devices.size());
        if (fresh) {
          Device d;
          d.rank = trace.rank();
          d.device = id;
          for (uint64_t i = 0; i < trace.device_count(); ++i)
            if (trace.device(i).id == id) d.sms = trace.device(i).num_sms;
          devices.push_back(d);
        }
        last_id = id;
        last_row = it->second;
        return last_row;
      };
      std::vector<uint32_t> row_of_name;  // name id -> kernels row + 1, 0 unknown
      int64_t steps_begin = INT64_MAX, steps_end = INT64_MIN;
      for (uint64_t s = 0; s < trace.step_count(); ++s) {
        steps_begin = std::min(steps_begin, trace.step(s).ts);
        steps_end = std::max(steps_end, trace.step(s).ts + trace.step(s).dur);
      }
      const bool steps = use_steps && steps_begin < steps_end;
      const size_t first = devices.size();
      // Pass 1: windows per device.
      for (uint64_t r = 0; r < trace.gpu_rows(); ++r) {
        uint32_t e = trace.gpu_event(r);
        if (trace.kind(e) != TH_EVENT_KERNEL) continue;
        Device& d = devices[device_row(trace.gpu_device(r))];
        d.window_begin = std::min(d.window_begin, trace.ts(e));
        d.window_end = std::max(d.window_end, trace.end(e));
      }
      for (size_t i = first; i < devices.size(); ++i) {
        if (steps) {
          devices[i].window_begin = steps_begin;
          devices[i].window_end = steps_end;
          devices[i].window_source = "steps";
        } else {
          devices[i].window_source = "kernel span";
        }
      }
      // Pass 2: kernels clipped to the window.
      size_t clipped = 0;
      for (uint64_t r = 0; r < trace.gpu_rows(); ++r) {
        uint32_t e = trace.gpu_event(r);
        if (trace.kind(e) != TH_EVENT_KERNEL) continue;
        const size_t di = device_row(trace.gpu_device(r));
        Device& d = devices[di];
        int64_t b = std::max(trace.ts(e), d.window_begin),
                en = std::min(trace.end(e), d.window_end);
        if (en <= b) continue;
        const int64_t dur = en - b;
        ++clipped;
        d.kernel_ns += dur;
        ++d.kernels;
        const uint32_t name = trace.name_id(e);
        if (name >= row_of_name.size()) row_of_name.resize(name + 1, 0);
        if (row_of_name[name] == 0) {
          auto [it, fresh] = kernel_row.try_emplace(std::string(trace.String(name)),
                                                    static_cast<uint32_t>(kernels.size()));
          if (fresh) kernels.emplace_back();
          row_of_name[name] = it->second + 1;
        }
        KernelAgg& k = kernels[row_of_name[name] - 1];
        ++k.count;
        k.total_ns += dur;
        const int64_t blocks = trace.gpu_blocks(r);
        if (blocks > 0 && d.sms > 0) {
          double per_sm = static_cast<double>(blocks) / d.sms;
          d.sm_weighted += static_cast<double>(dur) * std::min(per_sm, 1.0);
          d.blocks_weighted += static_cast<double>(dur) * per_sm;
          d.launch_config_ns += dur;
          k.sm_weighted += static_cast<double>(dur) * std::min(per_sm, 1.0);
          k.blocks_weighted += static_cast<double>(dur) * per_sm;
          k.config_ns += dur;
        }
        const float occ = trace.gpu_occupancy(r);
        if (occ >= 0) {
          d.occupancy_weighted += static_cast<double>(dur) * occ;
          d.occupancy_ns += dur;
          k.occupancy_weighted += static_cast<double>(dur) * occ;
          k.occupancy_ns += dur;
        }
      }
      swept_busy.resize(devices.size(), 0);
      if (!SweepBusy(trace, devices, device_row, clipped, swept_busy)) {
        for (uint64_t r = 0; r < trace.gpu_rows(); ++r) {
          const uint32_t e = trace.gpu_event(r);
          if (trace.kind(e) != TH_EVENT_KERNEL) continue;
          const size_t di = device_row(trace.gpu_device(r));
          const int64_t b = std::max(trace.ts(e), devices[di].window_begin),
                        en = std::min(trace.end(e), devices[di].window_end);
          if (en <= b) continue;
          group.push_back(static_cast<uint32_t>(di));
          begin.push_back(b);
          end.push_back(en);
        }
      }
    }
    // Busy time: the union of each device's kernel intervals.
    std::vector<int64_t> busy = ctx.IntervalUnion(group, begin, end, devices.size());
    std::vector<uint32_t>().swap(group);
    std::vector<int64_t>().swap(begin);
    std::vector<int64_t>().swap(end);
    for (size_t i = 0; i < swept_busy.size(); ++i) busy[i] += swept_busy[i];

    const double low = ctx.GetDouble("low_utilization_pct");
    std::vector<int64_t> t_rank, t_device, t_window, t_busy, t_kernels, t_sms;
    std::vector<std::string> t_source;
    std::vector<double> t_util, t_sm, t_occ, t_blocks;
    for (size_t i = 0; i < devices.size(); ++i) {
      const Device& d = devices[i];
      const int64_t window = d.window_end > d.window_begin ? d.window_end - d.window_begin : 0;
      const double util = window ? 100.0 * static_cast<double>(busy[i]) / window : 0;
      // SM efficiency over the window (kernels without a launch config or
      // devices without an SM count leave it unknown: -1).
      const double sm = d.sms > 0 && d.launch_config_ns > 0 && window
                            ? 100.0 * d.sm_weighted / static_cast<double>(window)
                            : -1;
      const double occ = d.occupancy_ns ? d.occupancy_weighted / d.occupancy_ns : -1;
      const double blocks = d.launch_config_ns ? d.blocks_weighted / d.launch_config_ns : -1;
      t_rank.push_back(d.rank);
      t_device.push_back(d.device);
      t_window.push_back(window);
      t_source.push_back(d.window_source);
      t_busy.push_back(busy[i]);
      t_kernels.push_back(d.kernels);
      t_sms.push_back(d.sms);
      t_util.push_back(util);
      t_sm.push_back(sm);
      t_occ.push_back(occ);
      t_blocks.push_back(blocks);
      th::sdk::Scope scope;
      scope.rank = d.rank;
      scope.device = d.device;
      ctx.Metric("gpu_utilization", util, "%", th::sdk::kMeasured, scope);
      if (sm >= 0) ctx.Metric("est_sm_efficiency", sm, "%", th::sdk::kInferred, scope);
      if (occ >= 0) ctx.Metric("est_achieved_occupancy", occ, "%", th::sdk::kInferred, scope);
      if (window && util < low) {
        ctx.Add(
            // One title per cause (devices alike group into one finding); the
            // device and its figure are in the message.
            th::sdk::Finding(th::sdk::P1,
                             "GPU busy under " + Percent(low) + " of the " + d.window_source)
                .What("GPU " + std::to_string(d.device) + " of rank " + std::to_string(d.rank) +
                      " is busy " + Percent(util) + " of the " + d.window_source +
                      ": no kernel runs on the device for most of the window; the GPU waits on "
                      "the host, data loading or other ranks (see idle-launch, step-breakdown).")
                .Suggest("Find what the host does in the gaps (idle-launch); overlap data "
                         "loading, batch small kernels (CUDA graphs), or raise the batch size.")
                .In(scope)
                // First: what it costs (the device's idle time in the window), so
                // the reports name the idlest device the worst of the group.
                .Evidence("idle", static_cast<double>(window - busy[i]), "ns", th::sdk::kMeasured)
                .Evidence("gpu_utilization", util, "%", th::sdk::kMeasured)
                .Evidence("busy", static_cast<double>(busy[i]), "ns", th::sdk::kMeasured)
                .Evidence("window", static_cast<double>(window), "ns", th::sdk::kMeasured));
      }
    }
    ctx.Publish(th::sdk::Table("gpu_efficiency")
                    .Int("rank", t_rank)
                    .Int("device", t_device)
                    .Text("window_source", t_source)
                    .Int("window", t_window, "ns")
                    .Int("busy", t_busy, "ns")
                    .Int("kernels", t_kernels, "count")
                    .Int("sms", t_sms, "count")
                    .Real("gpu_utilization", t_util, "%")
                    .Real("est_sm_efficiency", t_sm, "%")
                    .Real("est_achieved_occupancy", t_occ, "%")
                    .Real("blocks_per_sm", t_blocks, "blocks"));

    // Per kernel name, by total time.
    std::vector<std::pair<std::string, KernelAgg>> rows;
    rows.reserve(kernels.size());
    for (const auto& [name, row] : kernel_row) rows.emplace_back(name, kernels[row]);
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return std::tie(b.second.total_ns, a.first) < std::tie(a.second.total_ns, b.first);
    });
    rows.resize(std::min<size_t>(rows.size(), static_cast<size_t>(ctx.GetInt("top_kernels"))));
    std::vector<std::string> k_name;
    std::vector<int64_t> k_count, k_total;
    std::vector<double> k_sm, k_occ, k_blocks;
    for (const auto& [name, k] : rows) {
      k_name.push_back(name);
      k_count.push_back(k.count);
      k_total.push_back(k.total_ns);
      k_sm.push_back(k.config_ns ? 100.0 * k.sm_weighted / k.config_ns : -1);
      k_blocks.push_back(k.config_ns ? k.blocks_weighted / k.config_ns : -1);
      k_occ.push_back(k.occupancy_ns ? k.occupancy_weighted / k.occupancy_ns : -1);
    }
    ctx.Publish(th::sdk::Table("gpu_efficiency_kernels")
                    .Text("name", k_name)
                    .Int("count", k_count, "count")
                    .Int("total", k_total, "ns")
                    .Real("est_sm_efficiency", k_sm, "%")
                    .Real("est_achieved_occupancy", k_occ, "%")
                    .Real("blocks_per_sm", k_blocks, "blocks"));
  }
};

}  // namespace

TH_PLUGIN(GpuEfficiency)
