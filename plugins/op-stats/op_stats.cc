// op-stats: per framework op, over every rank: calls, host total and self
// time, device time of the GPU activity it launched, the Python call site.
//
// Phase 1 (host): framework ops are cpu_op and user_annotation events
//   (ProfilerStep#N left out: steps are not ops). An op's self time is its
//   duration minus the part covered by the events nested directly in it on its
//   thread (child ops, launch calls, Python frames).
// Phase 2 (device): each launch edge (runtime call -> kernel/memcpy/memset)
//   gives the activity's duration to the innermost op around the call
//   (device_self) and to every op enclosing that one (device_total).
// Phase 3 (XProf captures): GPU activity attributed to HLO instructions
//   (ABI 1.2) is summed per instruction (hlo_op_stats) and per framework op
//   path, the instruction's op_name (op_stats rows of kind xla_op).
#include <tracehound/sdk.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Trace;

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint32_t kUnknown = 0xFFFFFFFEu;

bool IsStep(std::string_view name) { return name.substr(0, 13) == "ProfilerStep#"; }

// Aggregation of rows (one per op event, or per kernel for XLA ops) into keys.
struct Rows {
  std::vector<uint32_t> key;
  std::vector<int64_t> host_total, host_self, device_total, device_self, kernels;
};

struct KeyInfo {
  std::string kind, name, stack;
};

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

    std::unordered_map<std::string, uint32_t> key_of;
    std::vector<KeyInfo> keys;
    // Host time per (key, call site), to name each key's main call site.
    std::map<std::pair<uint32_t, std::string>, int64_t> site_time;
    Rows rows;
    auto key = [&](const std::string& kind, std::string_view name, const std::string& stack) {
      std::string k = kind + '\n' + std::string(name) + '\n' + (by_stack ? stack : "");
      auto [it, fresh] = key_of.try_emplace(k, static_cast<uint32_t>(keys.size()));
      if (fresh) keys.push_back({kind, std::string(name), by_stack ? stack : ""});
      return it->second;
    };
    auto add = [&](uint32_t k, int64_t host_total, int64_t host_self, int64_t dev_total,
                   int64_t dev_self, int64_t kernels) {
      rows.key.push_back(k);
      rows.host_total.push_back(host_total);
      rows.host_self.push_back(host_self);
      rows.device_total.push_back(dev_total);
      rows.device_self.push_back(dev_self);
      rows.kernels.push_back(kernels);
    };

    // hlo_op_stats: per (module, instruction) over all ranks.
    struct Hlo {
      std::string module, name, opcode, op_name, shape, source;
      int64_t kernels = 0, device = 0, exact = 0, inferred = 0;
    };
    std::map<std::pair<std::string, std::string>, Hlo> hlo;

    for (const Trace& t : ctx.traces()) {
      const uint64_t n = t.size();
      // Which events are ops, and the trace's GPU activity time, in one pass.
      std::vector<uint8_t> op(n, 0);
      int64_t activity_total = 0;
      for (uint64_t i = 0; i < n; ++i) {
        const uint32_t k = t.kind(i);
        op[i] = k == TH_EVENT_CPU_OP ||
                (annotations && k == TH_EVENT_USER_ANNOTATION && !IsStep(t.name(i)));
        activity_total += t.is_gpu_activity(i) ? t.dur(i) : 0;
      }
      auto is_op = [&](uint64_t i) { return op[i] != 0; };
      // Nearest op strictly above each event, memoised along parent chains.
      std::vector<uint32_t> above(n, kUnknown);
      std::vector<uint32_t> path;
      auto op_above = [&](uint32_t i) {
        path.clear();
        uint32_t p = t.parent(i);
        while (p != kNone && !is_op(p) && above[p] == kUnknown) {
          path.push_back(p);
          p = t.parent(p);
        }
        const uint32_t found = p == kNone ? kNone : is_op(p) ? p : above[p];
        for (uint32_t q : path) above[q] = found;
        above[i] = found;
        return found;
      };

      // Phase 1: self time = duration minus what the direct children cover.
      std::vector<int64_t> covered(n, 0);
      for (uint64_t i = 0; i < n; ++i) {
        const uint32_t p = t.parent(i);
        if (p == kNone || t.dur(i) <= 0 || !is_op(p)) continue;
        covered[p] +=
            std::max<int64_t>(0, std::min(t.end(i), t.end(p)) - std::max(t.ts(i), t.ts(p)));
      }
      // Phase 2: device time through launch edges.
      std::vector<int64_t> dev_self(n, 0), dev_total(n, 0), kernels(n, 0);
      int64_t in_ops = 0, outside_ops = 0, launched_total = 0;
      for (uint64_t k = 0; k < t.edge_count(); ++k) {
        if (t.edge_kind(k) != TH_EDGE_LAUNCH) continue;
        const uint32_t src = t.edge_src(k), dst = t.edge_dst(k);
        const int64_t d = t.dur(dst);
        launched_total += d;
        uint32_t owner = is_op(src) ? src : op_above(src);
        if (owner == kNone) {
          outside_ops += d;
          continue;
        }
        in_ops += d;
        dev_self[owner] += d;
        for (uint32_t a = owner; a != kNone; a = op_above(a)) {
          dev_total[a] += d;
          kernels[a] += 1;
        }
      }
      for (uint64_t i = 0; i < n; ++i) {
        if (!is_op(i)) continue;
        // The Python call site: the innermost Python frames around the op.
        std::string stack;
        size_t frames = 0;
        for (uint32_t p = t.parent(i); p != kNone && frames < depth; p = t.parent(p)) {
          if (t.kind(p) != TH_EVENT_PYTHON_FUNCTION) continue;
          stack += (frames++ ? " <- " : "") + std::string(t.name(p));
        }
        const std::string kind = t.kind(i) == TH_EVENT_CPU_OP ? "cpu_op" : "user_annotation";
        const uint32_t k = key(kind, t.name(i), stack);
        add(k, t.dur(i), t.dur(i) - covered[i], dev_total[i], dev_self[i], kernels[i]);
        if (!stack.empty()) site_time[{k, stack}] += t.dur(i);
      }

      // Phase 3: XProf captures, GPU activity by HLO instruction.
      int64_t hlo_attributed = 0;
      if (t.attributed()) {
        for (uint64_t r = 0; r < t.gpu_rows(); ++r) {
          const uint32_t e = t.gpu_event(r), ins = t.gpu_hlo_instruction(r);
          if (ins == kNone || !t.is_gpu_activity(e)) continue;
          const int64_t d = t.dur(e);
          hlo_attributed += d;
          const std::string module(t.hlo_module_name(t.hlo_module(ins)));
          Hlo& h = hlo[{module, std::string(t.hlo_name(ins))}];
          if (h.kernels == 0) {
            h.module = module;
            h.name = t.hlo_name(ins);
            h.opcode = t.hlo_opcode(ins);
            h.op_name = t.hlo_op_name(ins);
            h.shape = t.hlo_shape(ins);
            if (!t.hlo_source_file(ins).empty())
              h.source = std::string(t.hlo_source_file(ins)) + ":" +
                         std::to_string(t.hlo_source_line(ins));
          }
          h.kernels += 1;
          h.device += d;
          (t.gpu_hlo_match(r) == TH_HLO_MATCH_EXACT ? h.exact : h.inferred) += 1;
          std::string_view op = t.hlo_op_name(ins);
          const uint32_t k =
              key("xla_op", op.empty() ? "(no op_name)" : op, h.source.empty() ? "" : h.source);
          add(k, -1, -1, d, d, 1);
          if (!h.source.empty()) site_time[{k, h.source}] += d;
        }
      }

      th::sdk::Scope scope;
      scope.rank = t.rank();
      ctx.Metric("device_time_in_ops", static_cast<double>(in_ops), "ns", th::sdk::kMeasured,
                 scope);
      ctx.Metric("device_time_outside_ops", static_cast<double>(outside_ops), "ns",
                 th::sdk::kMeasured, scope);
      ctx.Metric("device_time_not_launched", static_cast<double>(activity_total - launched_total),
                 "ns", th::sdk::kMeasured, scope);
      if (t.attributed())
        ctx.Metric("device_time_in_hlo_ops", static_cast<double>(hlo_attributed), "ns",
                   th::sdk::kMeasured, scope);
      ctx.Check("op device time reconciles (rank " + std::to_string(t.rank()) + ")",
                in_ops + outside_ops == launched_total && launched_total <= activity_total,
                "launched " + std::to_string(launched_total) + " ns = in ops " +
                    std::to_string(in_ops) + " + outside ops " + std::to_string(outside_ops) +
                    "; GPU activity " + std::to_string(activity_total) + " ns");
    }

    const size_t k = keys.size();
    using R = Context::Reduce;
    std::vector<int64_t> calls = ctx.ReduceByKey(rows.key, rows.host_total, R::kCount, k);
    std::vector<int64_t> host_total = ctx.ReduceByKey(rows.key, rows.host_total, R::kSum, k);
    std::vector<int64_t> host_self = ctx.ReduceByKey(rows.key, rows.host_self, R::kSum, k);
    std::vector<int64_t> dev_total = ctx.ReduceByKey(rows.key, rows.device_total, R::kSum, k);
    std::vector<int64_t> dev_self = ctx.ReduceByKey(rows.key, rows.device_self, R::kSum, k);
    std::vector<int64_t> kernels = ctx.ReduceByKey(rows.key, rows.kernels, R::kSum, k);

    // Each key's main call site (most host time; device time for XLA ops)
    // and how many it has.
    std::vector<std::string> site(k);
    std::vector<int64_t> sites(k, 0), best(k, -1);
    for (const auto& [ks, ns] : site_time) {
      ++sites[ks.first];
      if (ns > best[ks.first]) best[ks.first] = ns, site[ks.first] = ks.second;
    }
    std::vector<uint32_t> order(k);
    for (uint32_t i = 0; i < k; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (dev_total[a] != dev_total[b]) return dev_total[a] > dev_total[b];
      if (host_total[a] != host_total[b]) return host_total[a] > host_total[b];
      return std::tie(keys[a].name, keys[a].stack) < std::tie(keys[b].name, keys[b].stack);
    });
    std::vector<std::string> c_kind, c_name, c_site;
    std::vector<int64_t> c_calls, c_ht, c_hs, c_dt, c_ds, c_k, c_sites;
    std::vector<double> c_mean;
    for (uint32_t i : order) {
      const bool xla = keys[i].kind == "xla_op";
      c_kind.push_back(keys[i].kind);
      c_name.push_back(keys[i].name);
      c_calls.push_back(calls[i]);
      c_ht.push_back(xla ? -1 : host_total[i]);
      c_hs.push_back(xla ? -1 : host_self[i]);
      c_mean.push_back(xla || !calls[i]
                           ? -1.0
                           : static_cast<double>(host_total[i]) / static_cast<double>(calls[i]));
      c_dt.push_back(dev_total[i]);
      c_ds.push_back(dev_self[i]);
      c_k.push_back(kernels[i]);
      c_site.push_back(by_stack ? keys[i].stack : site[i]);
      c_sites.push_back(by_stack ? (keys[i].stack.empty() ? 0 : 1) : sites[i]);
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

    std::vector<Hlo> h_rows;
    for (auto& [id, h] : hlo) h_rows.push_back(std::move(h));
    std::sort(h_rows.begin(), h_rows.end(), [](const Hlo& a, const Hlo& b) {
      if (a.device != b.device) return a.device > b.device;
      return std::tie(a.module, a.name) < std::tie(b.module, b.name);
    });
    std::vector<std::string> h_module, h_name, h_opcode, h_op, h_shape, h_source;
    std::vector<int64_t> h_kernels, h_device, h_exact, h_inferred;
    for (const Hlo& h : h_rows) {
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
