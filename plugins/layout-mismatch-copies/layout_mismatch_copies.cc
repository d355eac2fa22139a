// layout-mismatch-copies: HLO `copy` instructions sandwiched between a
// producer and a compute stage, with operand and result layouts compared
// leafwise, TPU lane alignment, and the copy's measured device time through
// the kernel attribution (metrics-and-detectors.md b.1).
#include <tracehound/hlo.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
namespace hlo = th::sdk::hlo;

struct Hit {
  uint32_t node = hlo::kNone;
  int hops = 0;
};

// The tables it publishes.
th::sdk::Schema LayoutMismatchCopiesTable() {
  return th::sdk::Schema("layout_mismatch_copies")
      .Int("rank")
      .Text("copy")
      .Text("module")
      .Text("from")
      .Text("to")
      .Int("layout_changes")
      .Text("producer")
      .Text("consumer")
      .Int("bytes", "bytes")
      .Int("device_time", "ns")
      .Int("kernels", "count")
      .Text("lanes")
      .Text("python_line");
}

class LayoutMismatchCopies final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("layout-mismatch-copies", "1.0.0", th::sdk::kDetector,
                       "HLO copies between a producer and a compute stage that change the "
                       "layout, ranked by measured device time")
        .Reads({"events", "gpu_args", "gpu_hlo", "hlo_modules", "hlo_instructions",
                "hlo_operand_offsets", "hlo_operands", "hlo_user_offsets", "hlo_users"})
        .Publishes(LayoutMismatchCopiesTable())
        .Option("max_hops", int64_t{5}, "BFS radius upstream and downstream of each copy")
        .Range(1, 64)
        .Option("max_states", int64_t{50000}, "BFS states per copy and direction")
        .Min(1)
        .Option("report_same_layout", false,
                "also report sandwiched copies that keep the layout (pure data movement)");
  }

  void Run(Context& ctx) override {
    max_hops_ = static_cast<int>(ctx.GetInt("max_hops"));
    max_states_ = static_cast<size_t>(ctx.GetInt("max_states"));
    const bool same_too = ctx.GetBool("report_same_layout");
    std::vector<std::string> t_copy, t_module, t_from, t_to, t_producer, t_consumer, t_line,
        t_lanes;
    std::vector<int64_t> t_rank, t_bytes, t_ns, t_events, t_mismatch;
    struct Flag {
      size_t row;
      int64_t ns, bytes;
    };
    std::vector<Flag> flags;
    int64_t copies = 0, changing = 0, same = 0, unknown = 0, sandwiched = 0;
    for (const auto& trace : ctx.traces()) {
      if (!trace.has_hlo()) continue;
      hlo::Graph g(trace);
      hlo::MeasuredTime measured(trace);
      for (uint32_t i = 0; i < g.size(); ++i) {
        if (trace.hlo_opcode(i) != "copy" || trace.hlo_operands(i).empty()) continue;
        ++copies;
        uint32_t operand = trace.hlo_operands(i)[0];
        auto from = g.ShapeOf(operand), to = g.ShapeOf(i);
        hlo::Layouts cmp = from && to ? hlo::CompareLayouts(*from, *to) : hlo::Layouts::kUnknown;
        changing += cmp == hlo::Layouts::kDifferent;
        same += cmp == hlo::Layouts::kSame;
        unknown += cmp == hlo::Layouts::kUnknown;
        Hit producer = Upstream(g, operand);
        if (producer.node == hlo::kNone) continue;
        Hit consumer = Downstream(g, i);
        if (consumer.node == hlo::kNone) continue;
        ++sandwiched;
        if (cmp != hlo::Layouts::kDifferent && !same_too) continue;
        const int64_t bytes = to ? hlo::Bytes(*to) : 0;
        flags.push_back({t_copy.size(), measured.ns[i], bytes});
        t_rank.push_back(trace.rank());
        t_copy.push_back(std::string(trace.hlo_name(i)));
        t_module.push_back(std::string(trace.hlo_module_name(trace.hlo_module(i))));
        t_from.push_back(std::string(trace.hlo_shape(operand)));
        t_to.push_back(std::string(trace.hlo_shape(i)));
        t_mismatch.push_back(cmp == hlo::Layouts::kDifferent);
        t_producer.push_back(Describe(trace, producer));
        t_consumer.push_back(Describe(trace, consumer));
        t_line.push_back(g.SourceLine(i));
        t_lanes.push_back(LaneNote(from, to));
        t_bytes.push_back(bytes);
        t_ns.push_back(measured.ns[i]);
        t_events.push_back(measured.events[i]);
      }
    }
    ctx.Metric("copies", static_cast<double>(copies), "count", th::sdk::kRead);
    ctx.Metric("copies_layout_changing", static_cast<double>(changing), "count", th::sdk::kRead);
    ctx.Metric("copies_same_layout", static_cast<double>(same), "count", th::sdk::kRead);
    ctx.Metric("copies_layout_unknown", static_cast<double>(unknown), "count", th::sdk::kRead);
    ctx.Metric("copies_sandwiched", static_cast<double>(sandwiched), "count", th::sdk::kRead);

    // Ranked by measured time, then bytes moved.
    std::stable_sort(flags.begin(), flags.end(), [](const Flag& a, const Flag& b) {
      return a.ns != b.ns ? a.ns > b.ns : a.bytes > b.bytes;
    });
    th::sdk::Table table("layout_mismatch_copies");
    auto pick = [&](const auto& column) {
      std::decay_t<decltype(column)> out;
      for (const Flag& f : flags) out.push_back(column[f.row]);
      return out;
    };
    table.Int("rank", pick(t_rank))
        .Text("copy", pick(t_copy))
        .Text("module", pick(t_module))
        .Text("from", pick(t_from))
        .Text("to", pick(t_to))
        .Int("layout_changes", pick(t_mismatch))
        .Text("producer", pick(t_producer))
        .Text("consumer", pick(t_consumer))
        .Int("bytes", pick(t_bytes), "bytes")
        .Int("device_time", pick(t_ns), "ns")
        .Int("kernels", pick(t_events), "count")
        .Text("lanes", pick(t_lanes))
        .Text("python_line", pick(t_line));
    ctx.Publish(table);
    for (const Flag& f : flags) {
      const size_t r = f.row;
      th::sdk::Scope scope;
      scope.rank = t_rank[r];
      std::string what = "copy " + t_copy[r] + " in " + t_module[r] + " turns " + t_from[r] +
                         " into " + t_to[r] + " between " + t_producer[r] + " and " +
                         t_consumer[r] + ".";
      if (!t_lanes[r].empty()) what += " " + t_lanes[r] + ".";
      if (!t_line[r].empty()) what += " Python: " + t_line[r] + ".";
      th::sdk::Finding finding(t_ns[r] > 0 ? th::sdk::P1 : th::sdk::P2,
                               (t_mismatch[r] ? "layout-changing copy " : "copy ") + t_copy[r]);
      finding.What(what)
          .Suggest(
              "Let layouts propagate instead of materialising a transposed copy: move the "
              "transpose before the jitted boundary (or into the producer), consolidate "
              "updates of the same buffers in one jitted function, or pick the consumer's "
              "layout for the producer's output.")
          .In(scope)
          .Evidence("bytes", static_cast<double>(t_bytes[r]), "bytes", th::sdk::kRead)
          .Evidence("device_time", static_cast<double>(t_ns[r]), "ns", th::sdk::kMeasured)
          // Removing the copy saves its own device time at most.
          .Evidence("saving_if_removed", static_cast<double>(t_ns[r]), "ns", th::sdk::kInferred)
          .Saving(static_cast<double>(t_ns[r]))
          .TimeLost(static_cast<double>(t_ns[r]));
      ctx.Add(finding);
    }
  }

 private:
  // The first producer on each upstream path: a compute stage, a constant or
  // an entry parameter; through get-tuple-element/tuple/bitcast/reshape and
  // body parameters into their callers' operands.
  Hit Upstream(const hlo::Graph& g, uint32_t start) const {
    const auto& t = g.trace();
    std::deque<Hit> queue{{start, 1}};
    std::unordered_set<uint32_t> seen{start};
    while (!queue.empty() && seen.size() <= max_states_) {
      Hit h = queue.front();
      queue.pop_front();
      std::string_view op = t.hlo_opcode(h.node);
      if (g.IsCompute(h.node) || op == "constant" || (op == "parameter" && t.hlo_in_entry(h.node)))
        return h;
      if (h.hops >= max_hops_) continue;
      auto push = [&](uint32_t n) {
        if (n != hlo::kNone && seen.insert(n).second) queue.push_back({n, h.hops + 1});
      };
      if (op == "parameter") {
        uint32_t caller = t.hlo_caller(h.node);
        if (caller == th::sdk::kNoRow) continue;
        auto ops = t.hlo_operands(caller);
        int32_t k = t.hlo_parameter_number(h.node);
        // A while/call passes operand k; fusion likewise.
        if (k >= 0 && static_cast<size_t>(k) < ops.size()) push(ops[static_cast<size_t>(k)]);
        continue;
      }
      for (uint32_t o : t.hlo_operands(h.node)) push(o);
    }
    return {};
  }

  // A compute stage among the users within the radius; through tuples,
  // get-tuple-element, bitcasts, and into fusion/call/while bodies.
  Hit Downstream(const hlo::Graph& g, uint32_t start) const {
    const auto& t = g.trace();
    std::deque<Hit> queue{{start, 0}};
    std::unordered_set<uint32_t> seen{start};
    while (!queue.empty() && seen.size() <= max_states_) {
      Hit h = queue.front();
      queue.pop_front();
      if (h.hops > 0 && g.IsCompute(h.node)) return h;
      if (h.hops >= max_hops_) continue;
      for (uint32_t u : t.hlo_users(h.node)) {
        if (seen.insert(u).second) queue.push_back({u, h.hops + 1});
        // Into the body: the parameter that receives this value.
        std::string_view op = t.hlo_opcode(u);
        if (op == "call" || op == "while" || op == "conditional") {
          auto ops = t.hlo_operands(u);
          for (size_t k = 0; k < ops.size(); ++k) {
            if (ops[k] != h.node) continue;
            uint32_t p = g.BodyParameter(u, static_cast<int32_t>(k));
            if (p != hlo::kNone && seen.insert(p).second) queue.push_back({p, h.hops + 1});
          }
        }
      }
    }
    return {};
  }

  static std::string Describe(const th::sdk::Trace& t, const Hit& h) {
    return std::string(t.hlo_opcode(h.node)) + " " + std::string(t.hlo_name(h.node)) + " (" +
           std::to_string(h.hops) + (h.hops == 1 ? " hop)" : " hops)");
  }

  // TPU lane alignment of the minor-most dimension of source and target.
  static std::string LaneNote(const std::optional<hlo::Shape>& from,
                              const std::optional<hlo::Shape>& to) {
    std::string out;
    auto check = [&](const std::optional<hlo::Shape>& s, const char* which) {
      if (!s || s->tuple() || s->dims.empty()) return;
      std::vector<int64_t> layout = hlo::EffectiveLayout(*s);
      if (layout.empty() || layout[0] < 0 || static_cast<size_t>(layout[0]) >= s->dims.size())
        return;
      int64_t minor = s->dims[static_cast<size_t>(layout[0])];
      int64_t lane = hlo::LaneElements(s->type);
      if (minor % lane != 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "%s minor-most dim %lld is not a multiple of the %lld-element TPU lane "
                      "(padded alignment overhead)",
                      which, static_cast<long long>(minor), static_cast<long long>(lane));
        out += (out.empty() ? "" : "; ") + std::string(buf);
      }
    };
    check(from, "source");
    check(to, "target");
    return out;
  }

  int max_hops_ = 5;
  size_t max_states_ = 50000;
};

}  // namespace

TH_PLUGIN(LayoutMismatchCopies)
