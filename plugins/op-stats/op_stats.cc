// op-stats: per framework op, over every rank: calls, host total and self
// time, device time of the GPU activity it launched, the Python call site.
// Run() is the sequence of the phases in op_stats_phases.h:
//
// Keys (KeyOps, OpRows): framework ops are cpu_op and user_annotation events
//   (ProfilerStep#N left out: steps are not ops), keyed by kind, name and call
//   site; each distinct call site and key is spelled out once per trace.
// Host (AddHostTime): an op's self time is its duration minus the part covered
//   by the events nested directly in it on its thread (child ops, launch calls,
//   Python frames).
// Device (AddDeviceTime): each launch edge (runtime call -> kernel/memcpy/
//   memset) gives the activity's duration to the innermost op around the call
//   (device_self) and to every op enclosing that one (device_total).
// XProf captures: GPU activity attributed to HLO instructions (ABI 1.2) is
//   summed per instruction (hlo_op_stats, SortHloStats) and per framework op
//   path, the instruction's op_name (op_stats rows of kind xla_op).
// Everything is summed per key as it is read (KeyTotals; a few bytes per
// event of scratch) and ordered with the main call site (SummarizeOps).
#include <tracehound/sdk.h>

#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "op_stats_phases.h"

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Trace;
using namespace th::op_stats;

bool IsStep(std::string_view name) { return name.substr(0, 13) == "ProfilerStep#"; }

// The tables it publishes.
th::sdk::Schema OpStatsTable() {
  return th::sdk::Schema("op_stats")
      .View("op-stats")
      .Text("kind")
      .Text("name")
      .Int("calls", "count")
      .Int("host_total", "ns")
      .Int("host_self", "ns")
      .Real("host_mean", "ns")
      .Int("device_total", "ns")
      .Int("device_self", "ns")
      .Int("launched", "count")
      .Text("call_site")
      .Int("call_sites", "count");
}
th::sdk::Schema HloOpStatsTable() {
  return th::sdk::Schema("hlo_op_stats")
      .View("hlo-op-stats")
      .Text("module")
      .Text("hlo_op")
      .Text("opcode")
      .Text("op_name")
      .Text("shape")
      .Text("source")
      .Int("kernels", "count")
      .Int("device_total", "ns")
      .Int("kernels_exact", "count")
      .Int("kernels_inferred", "count");
}

class OpStats final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("op-stats", "1.0.0", th::sdk::kAnalyzer,
                       "Per framework op (cpu_op, user annotation, XLA op): calls, host total "
                       "and self time, device time of the kernels it launched, Python call site")
        .Reads({"events", "edges", "gpu_args", "gpu_hlo", "hlo_modules", "hlo_instructions"})
        .Publishes(OpStatsTable())
        .Publishes(HloOpStatsTable())
        .Option("by_stack", false, "one row per (op, Python call site) instead of one per op name")
        .Option("stack_depth", int64_t{3}, "Python frames in a call site (innermost first)")
        .Range(1, 64)
        .Option("include_annotations", true,
                "also list user annotations (record_function ranges), besides cpu_op");
  }

  void Run(Context& ctx) override {
    const bool by_stack = ctx.GetBool("by_stack");
    const auto depth = static_cast<size_t>(ctx.GetInt("stack_depth"));
    const bool annotations = ctx.GetBool("include_annotations");
    OpRows rows(by_stack);
    KeyTotals totals;
    std::map<std::pair<std::string, std::string>, HloStat> hlo;  // by (module, instruction)
    for (const Trace& t : ctx.traces()) {
      DeviceTime device;
      {
        const OpKeys keys = KeyOps(t, annotations, depth, rows);
        totals.Resize(rows.keys.size());
        const th::sdk::TableView events = t.Table("events");
        const EventTree tree{
            events.Values<uint32_t>("parent", TH_TYPE_U32), events.Ints("ts"), events.Ints("dur"),
            keys.per_event,
            KeyByName{events.Values<uint32_t>("name", TH_TYPE_STRING_ID),
                      events.Values<uint8_t>("kind", TH_TYPE_U8), keys.by_name, TH_EVENT_CPU_OP,
                      annotations ? uint8_t{TH_EVENT_USER_ANNOTATION} : uint8_t{TH_EVENT_CPU_OP}}};
        AddHostTime(tree, totals);
        device = AddDeviceTime(tree, ReadLaunches(t), totals);
      }
      const int64_t hlo_attributed = AddHloActivity(t, rows, totals, hlo);
      CheckDeviceTime(ctx, t, device, hlo_attributed);
    }
    PublishOps(ctx, rows, totals, by_stack);
    PublishHlo(ctx, SortHloStats(std::move(hlo)));
  }

 private:
  // The keys of the ops: per (name id, kind) when ops are keyed by kind and
  // name (by_name, see KeyByName), per event when also by call site.
  struct OpKeys {
    std::vector<uint32_t> per_event, by_name;
  };

  // The key of each op (cpu_op or user annotation): its kind, name and call
  // site, the innermost Python frames around it (up to `depth`). Each op's
  // duration goes to its call site's time. Call sites and keys are looked up
  // by string ids and spelled out once each.
  static OpKeys KeyOps(const Trace& t, bool annotations, size_t depth, OpRows& rows) {
    const uint64_t n = t.size();
    OpKeys out;
    if (rows.by_stack()) out.per_event.assign(n, kNone);
    std::unordered_map<std::string, uint32_t> site_of;  // frame name ids as bytes -> site
    std::vector<std::string> sites{""};                 // site 0: no Python frame
    std::vector<uint32_t>& key_by_name = out.by_name;   // (name id, kind) -> key, one site
    std::unordered_map<uint64_t, uint32_t> key_of;      // (name id, site, kind) -> key
    std::unordered_map<uint64_t, int64_t> site_time;    // (key, site) -> time
    const th::sdk::TableView events = t.Table("events");
    // The columns read for every event, as spans (no per-read check).
    const std::span<const uint8_t> kinds = events.Values<uint8_t>("kind", TH_TYPE_U8);
    const std::span<const uint32_t> parents = events.Values<uint32_t>("parent", TH_TYPE_U32);
    const std::span<const uint32_t> names = events.Values<uint32_t>("name", TH_TYPE_STRING_ID);
    KindAtOrAbove python(parents, kinds, TH_EVENT_PYTHON_FUNCTION);
    // Without Python frames every op's call site is 0: no walk up its parents.
    const size_t frames_wanted = python.any() ? depth : 0;
    std::string frames;
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t k = kinds[i];
      const bool cpu_op = k == TH_EVENT_CPU_OP;
      if (!cpu_op && !(annotations && k == TH_EVENT_USER_ANNOTATION && !IsStep(t.name(i))))
        continue;
      frames.clear();
      size_t count = 0;
      for (uint32_t p = frames_wanted ? parents[i] : kNone; p != kNone && count < frames_wanted;
           p = parents[p]) {
        p = python(p);
        if (p == kNone) break;
        const uint32_t id = names[p];
        frames.append(reinterpret_cast<const char*>(&id), sizeof id);
        ++count;
      }
      uint32_t site = 0;
      if (count > 0) {
        auto [found, fresh] = site_of.try_emplace(frames, static_cast<uint32_t>(sites.size()));
        if (fresh) {
          std::string stack;
          for (size_t f = 0; f < count; ++f) {
            uint32_t id;
            std::memcpy(&id, frames.data() + f * sizeof id, sizeof id);
            stack += (f ? " <- " : "") + std::string(t.String(id));
          }
          sites.push_back(std::move(stack));
        }
        site = found->second;
      }
      uint32_t* slot;
      if (!rows.by_stack() || site == 0) {  // the key does not depend on the site
        const size_t at = size_t{names[i]} * 2 + cpu_op;
        if (at >= key_by_name.size()) key_by_name.resize(at + 1, kNone);
        slot = &key_by_name[at];
      } else {
        const uint64_t packed = uint64_t{names[i]} << 32 | uint64_t{site} << 1 | cpu_op;
        slot = &key_of.try_emplace(packed, kNone).first->second;
      }
      if (*slot == kNone)
        *slot = rows.Key(cpu_op ? "cpu_op" : "user_annotation", t.name(i), sites[site]);
      if (rows.by_stack()) out.per_event[i] = *slot;
      if (!sites[site].empty()) site_time[uint64_t{*slot} << 32 | site] += t.dur(i);
    }
    for (const auto& [key_site, ns] : site_time)
      rows.site_time[{static_cast<uint32_t>(key_site >> 32), sites[key_site & 0xFFFFFFFFu]}] += ns;
    return out;
  }

  static std::vector<Launch> ReadLaunches(const Trace& t) {
    std::vector<Launch> launches;
    launches.reserve(t.edge_count());  // a bound: pages are faulted in as written, no growth copies
    for (uint64_t k = 0; k < t.edge_count(); ++k)
      if (t.edge_kind(k) == TH_EDGE_LAUNCH)
        launches.push_back({t.edge_src(k), t.dur(t.edge_dst(k))});
    return launches;
  }

  // XProf captures: GPU activity by HLO instruction, and one xla_op row per
  // activity keyed by the instruction's op_name. Returns the time attributed.
  // Each instruction's statistic, key and call-site time are found once.
  static int64_t AddHloActivity(const Trace& t, OpRows& rows, KeyTotals& totals,
                                std::map<std::pair<std::string, std::string>, HloStat>& hlo) {
    int64_t attributed = 0;
    if (!t.attributed()) return attributed;
    struct Instruction {
      HloStat* stat = nullptr;
      uint32_t key = kNone;
      int64_t site_time = 0;
    };
    std::vector<Instruction> by_ins(t.hlo_instruction_count());
    for (uint64_t r = 0; r < t.gpu_rows(); ++r) {
      const uint32_t e = t.gpu_event(r), ins = t.gpu_hlo_instruction(r);
      if (ins == kNone || !t.is_gpu_activity(e)) continue;
      const int64_t d = t.dur(e);
      attributed += d;
      Instruction& x = by_ins[ins];
      if (!x.stat) {
        const std::string module(t.hlo_module_name(t.hlo_module(ins)));
        HloStat& h = hlo[{module, std::string(t.hlo_name(ins))}];
        if (h.kernels == 0) {
          h.module = module;
          h.name = t.hlo_name(ins);
          h.opcode = t.hlo_opcode(ins);
          h.op_name = t.hlo_op_name(ins);
          h.shape = t.hlo_shape(ins);
          if (!t.hlo_source_file(ins).empty())
            h.source =
                std::string(t.hlo_source_file(ins)) + ":" + std::to_string(t.hlo_source_line(ins));
        }
        std::string_view op = t.hlo_op_name(ins);
        x.stat = &h;
        x.key = rows.Key("xla_op", op.empty() ? "(no op_name)" : op, h.source);
        totals.Resize(rows.keys.size());
      }
      HloStat& h = *x.stat;
      h.kernels += 1;
      h.device += d;
      (t.gpu_hlo_match(r) == TH_HLO_MATCH_EXACT ? h.exact : h.inferred) += 1;
      totals.Add(x.key, -1, -1, d, d, 1);
      if (!h.source.empty()) x.site_time += d;
    }
    for (const Instruction& x : by_ins)
      if (x.stat && !x.stat->source.empty()) rows.site_time[{x.key, x.stat->source}] += x.site_time;
    return attributed;
  }

  static void CheckDeviceTime(Context& ctx, const Trace& t, const DeviceTime& device,
                              int64_t hlo_attributed) {
    int64_t activity_total = 0;
    for (uint64_t r = 0; r < t.gpu_rows(); ++r) {  // every GPU activity has a gpu_args row
      const uint32_t i = t.gpu_event(r);
      activity_total += t.is_gpu_activity(i) ? t.dur(i) : 0;
    }
    th::sdk::Scope scope;
    scope.rank = t.rank();
    ctx.Metric("device_time_in_ops", static_cast<double>(device.in_ops), "ns", th::sdk::kMeasured,
               scope);
    ctx.Metric("device_time_outside_ops", static_cast<double>(device.outside_ops), "ns",
               th::sdk::kMeasured, scope);
    ctx.Metric("device_time_not_launched",
               static_cast<double>(activity_total - device.launched_total), "ns",
               th::sdk::kMeasured, scope);
    if (t.attributed())
      ctx.Metric("device_time_in_hlo_ops", static_cast<double>(hlo_attributed), "ns",
                 th::sdk::kMeasured, scope);
    ctx.Check("op device time reconciles (rank " + std::to_string(t.rank()) + ")",
              device.in_ops + device.outside_ops == device.launched_total &&
                  device.launched_total <= activity_total,
              "launched " + std::to_string(device.launched_total) + " ns = in ops " +
                  std::to_string(device.in_ops) + " + outside ops " +
                  std::to_string(device.outside_ops) + "; GPU activity " +
                  std::to_string(activity_total) + " ns");
  }

  static void PublishOps(Context& ctx, const OpRows& rows, const KeyTotals& totals, bool by_stack) {
    std::vector<std::string> c_kind, c_name, c_site;
    std::vector<int64_t> c_calls, c_ht, c_hs, c_dt, c_ds, c_k, c_sites;
    std::vector<double> c_mean;
    for (const OpStatRow& r : SummarizeOps(rows, totals, by_stack)) {
      c_kind.push_back(r.kind);
      c_name.push_back(r.name);
      c_calls.push_back(r.calls);
      c_ht.push_back(r.host_total);
      c_hs.push_back(r.host_self);
      c_mean.push_back(r.host_mean);
      c_dt.push_back(r.device_total);
      c_ds.push_back(r.device_self);
      c_k.push_back(r.launched);
      c_site.push_back(r.call_site);
      c_sites.push_back(r.call_sites);
    }
    ctx.Publish(th::sdk::Table("op_stats")
                    .Text("kind", c_kind)
                    .Text("name", c_name)
                    .Int("calls", c_calls, "count")
                    .Int("host_total", c_ht, "ns")
                    .Int("host_self", c_hs, "ns")
                    .Real("host_mean", c_mean, "ns")
                    .Int("device_total", c_dt, "ns")
                    .Int("device_self", c_ds, "ns")
                    .Int("launched", c_k, "count")
                    .Text("call_site", c_site)
                    .Int("call_sites", c_sites, "count"));
  }

  static void PublishHlo(Context& ctx, const std::vector<HloStat>& hlo) {
    std::vector<std::string> h_module, h_name, h_opcode, h_op, h_shape, h_source;
    std::vector<int64_t> h_kernels, h_device, h_exact, h_inferred;
    for (const HloStat& h : hlo) {
      h_module.push_back(h.module);
      h_name.push_back(h.name);
      h_opcode.push_back(h.opcode);
      h_op.push_back(h.op_name);
      h_shape.push_back(h.shape);
      h_source.push_back(h.source);
      h_kernels.push_back(h.kernels);
      h_device.push_back(h.device);
      h_exact.push_back(h.exact);
      h_inferred.push_back(h.inferred);
    }
    ctx.Publish(th::sdk::Table("hlo_op_stats")
                    .Text("module", h_module)
                    .Text("hlo_op", h_name)
                    .Text("opcode", h_opcode)
                    .Text("op_name", h_op)
                    .Text("shape", h_shape)
                    .Text("source", h_source)
                    .Int("kernels", h_kernels, "count")
                    .Int("device_total", h_device, "ns")
                    .Int("kernels_exact", h_exact, "count")
                    .Int("kernels_inferred", h_inferred, "count"));
  }
};

}  // namespace

TH_PLUGIN(OpStats)
