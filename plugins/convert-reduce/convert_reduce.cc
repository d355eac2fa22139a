// convert-reduce: a bf16/f16 -> f32 convert whose only purpose is an f32 sum
// of provably non-negative terms in an inference module, whose f32 result is
// cast back down before any f32 consumer (metrics-and-detectors.md b.3).
#include <tracehound/hlo.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
namespace hlo = th::sdk::hlo;

// Ops that neither lose nor need precision on the way (shape and elementwise).
bool IsNeutral(std::string_view op) {
  static const std::string_view kOps[] = {"reshape",   "broadcast", "transpose",
                                          "copy",      "bitcast",   "slice",
                                          "convert",   "tuple",     "get-tuple-element",
                                          "add",       "subtract",  "multiply",
                                          "divide",    "abs",       "exp",
                                          "negate",    "maximum",   "minimum",
                                          "sqrt",      "rsqrt",     "tanh",
                                          "log",       "power",     "select",
                                          "parameter", "fusion"};
  for (std::string_view k : kOps)
    if (op == k) return true;
  return false;
}

bool IsShapeOp(std::string_view op) {
  return op == "reshape" || op == "broadcast" || op == "transpose" || op == "copy" ||
         op == "bitcast" || op == "slice" || op == "convert";
}

bool IsLowPrecision(std::string_view t) { return t == "bf16" || t == "f16"; }

// The tables it publishes.
th::sdk::Schema ConvertReduceTable() {
  return th::sdk::Schema("convert_reduce")
      .Int("rank")
      .Text("convert")
      .Text("reduce")
      .Text("fusion")
      .Text("module")
      .Int("reduction_size", "elements")
      .Int("device_time", "ns")
      .Text("python_line");
}

class ConvertReduce final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("convert-reduce", "1.0.0", th::sdk::kDetector,
                       "bf16/f16 -> f32 converts that only feed an f32 sum of non-negative "
                       "terms in inference, cast back down afterwards")
        .Reads({"events", "gpu_args", "gpu_hlo", "hlo_modules", "hlo_instructions",
                "hlo_operand_offsets", "hlo_operands", "hlo_user_offsets", "hlo_users"})
        .Publishes(ConvertReduceTable())
        .Option("inference_only", true,
                "skip modules that look like training (a computation named grad, backward, "
                "loss, optimizer, adam, sgd or update keeps f32 accumulation on purpose)")
        .Option("require_non_negative", true,
                "only sums of provably non-negative terms (x*x, abs, exp, products of those)")
        .Option("require_downcast", true,
                "the f32 result must be cast to bf16/f16 before any f32 consumer or output")
        .Option("max_nodes", int64_t{10000}, "graph nodes visited per candidate")
        .Min(1);
  }

  void Run(Context& ctx) override {
    const bool inference_only = ctx.GetBool("inference_only");
    const bool non_negative = ctx.GetBool("require_non_negative");
    const bool downcast = ctx.GetBool("require_downcast");
    max_nodes_ = static_cast<size_t>(ctx.GetInt("max_nodes"));
    std::vector<int64_t> t_rank, t_n, t_ns;
    std::vector<std::string> t_convert, t_reduce, t_fusion, t_module, t_line;
    int64_t f32_reduces = 0, skipped_training = 0;
    for (const auto& trace : ctx.traces()) {
      if (!trace.has_hlo()) continue;
      hlo::Graph g(trace);
      hlo::MeasuredTime measured(trace);
      std::vector<bool> training(trace.hlo_module_count(), false);
      for (uint32_t i = 0; i < g.size(); ++i) {
        std::string name(trace.hlo_computation(i));
        std::transform(name.begin(), name.end(), name.begin(), ::tolower);
        for (const char* w : {"grad", "backward", "loss", "optimizer", "adam", "sgd", "update"})
          if (name.find(w) != std::string::npos) training[trace.hlo_module(i)] = true;
      }
      for (uint32_t r = 0; r < g.size(); ++r) {
        std::string_view op = trace.hlo_opcode(r);
        if (op != "reduce" && op != "all-reduce" && op != "reduce-scatter") continue;
        auto out = g.ShapeOf(r);
        if (!out || out->tuple() || out->type != "f32" || trace.hlo_operands(r).empty()) continue;
        ++f32_reduces;
        if (inference_only && training[trace.hlo_module(r)]) {
          ++skipped_training;
          continue;
        }
        if (ReducerClass(g, r) != "add") continue;
        uint32_t summand = trace.hlo_operands(r)[0];
        if (non_negative && !NonNegative(g, summand, 0)) continue;
        uint32_t upcast = FindUpcast(g, summand);
        if (upcast == hlo::kNone) continue;
        if (!FeedsOnly(g, upcast, r)) continue;
        if (downcast && ReachesF32Sink(g, r)) continue;
        auto in = g.ShapeOf(summand);
        int64_t n = 1;
        if (in && !in->tuple()) {
          int64_t in_elems = 1, out_elems = 1;
          for (int64_t d : in->dims) in_elems *= d;
          for (int64_t d : out->dims) out_elems *= d;
          n = out_elems ? in_elems / out_elems : in_elems;
        }
        // Device time: the reduce's own kernels, or its fusion's.
        uint32_t timed = r;
        uint32_t caller = trace.hlo_caller(r);
        std::string fusion;
        if (caller != th::sdk::kNoRow && trace.hlo_opcode(caller) == "fusion") {
          timed = caller;
          fusion = std::string(trace.hlo_name(caller));
        }
        t_rank.push_back(trace.rank());
        t_convert.push_back(std::string(trace.hlo_name(upcast)));
        t_reduce.push_back(std::string(trace.hlo_name(r)));
        t_fusion.push_back(fusion);
        t_module.push_back(std::string(trace.hlo_module_name(trace.hlo_module(r))));
        t_n.push_back(n);
        t_ns.push_back(measured.ns[timed]);
        std::string line = g.SourceLine(r);
        if (line.empty()) line = g.SourceLine(upcast);
        t_line.push_back(line);
      }
    }
    ctx.Metric("f32_reductions", static_cast<double>(f32_reduces), "count", th::sdk::kRead);
    ctx.Metric("skipped_training", static_cast<double>(skipped_training), "count", th::sdk::kRead);
    ctx.Metric("convert_reduce", static_cast<double>(t_convert.size()), "count", th::sdk::kRead);
    for (size_t k = 0; k < t_convert.size(); ++k) {
      th::sdk::Scope scope;
      scope.rank = t_rank[k];
      std::string where = t_fusion[k].empty() ? "" : " (in " + t_fusion[k] + ")";
      ctx.Add(
          th::sdk::Finding(th::sdk::P2,
                           "upcast " + t_convert[k] + " only feeds the f32 sum " + t_reduce[k])
              .What("In inference module " + t_module[k] + ", " + t_convert[k] +
                    " widens bf16/f16 to f32 for the sum " + t_reduce[k] + where +
                    " of non-negative terms over " + std::to_string(t_n[k]) +
                    " elements, and the result is cast back down: the f32 copy doubles the "
                    "bytes read." +
                    (t_line[k].empty() ? "" : " Python: " + t_line[k] + "."))
              .Suggest("Reduce in the input precision, e.g. jnp.mean(x, dtype=x.dtype) or "
                       "jnp.sum(x, dtype=x.dtype); validate numerically for large N (" +
                       std::to_string(t_n[k]) + " terms).")
              .Confidence(0.7)
              .In(scope)
              .Evidence("reduction_size", static_cast<double>(t_n[k]), "elements", th::sdk::kRead)
              .Evidence("device_time", static_cast<double>(t_ns[k]), "ns", th::sdk::kMeasured)
              // Half the bytes of the summand: at most half the reduction's time.
              .Evidence("saving_estimate", static_cast<double>(t_ns[k]) / 2, "ns",
                        th::sdk::kInferred)
              .Saving(static_cast<double>(t_ns[k]) / 2)
              .TimeLost(static_cast<double>(t_ns[k])));
    }
    ctx.Publish(th::sdk::Table("convert_reduce")
                    .Int("rank", t_rank)
                    .Text("convert", t_convert)
                    .Text("reduce", t_reduce)
                    .Text("fusion", t_fusion)
                    .Text("module", t_module)
                    .Int("reduction_size", t_n, "elements")
                    .Int("device_time", t_ns, "ns")
                    .Text("python_line", t_line));
  }

 private:
  // The reducer's root opcode: the instruction of the reduce's to_apply body
  // that no other body instruction uses ("" when unknown).
  static std::string ReducerClass(const hlo::Graph& g, uint32_t r) {
    const auto& t = g.trace();
    for (uint32_t b : g.body(r)) {
      if (t.hlo_opcode(b) == "parameter") continue;
      bool used = false;
      for (uint32_t u : t.hlo_users(b)) used |= t.hlo_caller(u) == r;
      if (!used) return std::string(t.hlo_opcode(b));
    }
    return {};
  }

  // Provably >= 0: x*x, abs, exp, products of non-negatives, through shape ops;
  // a fusion parameter continues at the fusion's operand.
  bool NonNegative(const hlo::Graph& g, uint32_t i, int depth) const {
    if (depth > 8) return false;
    const auto& t = g.trace();
    std::string_view op = t.hlo_opcode(i);
    auto ops = t.hlo_operands(i);
    if (op == "abs" || op == "exp") return true;
    if (op == "multiply" && ops.size() == 2)
      return ops[0] == ops[1] ||
             (NonNegative(g, ops[0], depth + 1) && NonNegative(g, ops[1], depth + 1));
    if (IsShapeOp(op) && !ops.empty()) return NonNegative(g, ops[0], depth + 1);
    if (op == "parameter") {
      uint32_t caller = t.hlo_caller(i);
      int32_t k = t.hlo_parameter_number(i);
      if (caller == th::sdk::kNoRow || t.hlo_opcode(caller) != "fusion" || k < 0) return false;
      auto cops = t.hlo_operands(caller);
      return static_cast<size_t>(k) < cops.size() &&
             NonNegative(g, cops[static_cast<size_t>(k)], depth + 1);
    }
    if (op == "fusion") {  // its root: the body instruction no body instruction uses
      for (uint32_t b : g.body(i)) {
        bool used = false;
        for (uint32_t u : t.hlo_users(b)) used |= t.hlo_caller(u) == i;
        if (!used && t.hlo_opcode(b) != "parameter") return NonNegative(g, b, depth + 1);
      }
    }
    return false;
  }

  // Upstream through neutral ops to a convert bf16/f16 -> f32.
  uint32_t FindUpcast(const hlo::Graph& g, uint32_t start) const {
    const auto& t = g.trace();
    std::deque<uint32_t> queue{start};
    std::unordered_set<uint32_t> seen{start};
    while (!queue.empty() && seen.size() <= max_nodes_) {
      uint32_t i = queue.front();
      queue.pop_front();
      std::string_view op = t.hlo_opcode(i);
      if (op == "convert" && !t.hlo_operands(i).empty()) {
        auto out = g.ShapeOf(i), in = g.ShapeOf(t.hlo_operands(i)[0]);
        if (out && in && out->type == "f32" && IsLowPrecision(in->type)) return i;
      }
      if (!IsNeutral(op)) continue;
      auto push = [&](uint32_t n) {
        if (n != hlo::kNone && seen.insert(n).second) queue.push_back(n);
      };
      if (op == "parameter") {
        uint32_t caller = t.hlo_caller(i);
        int32_t k = t.hlo_parameter_number(i);
        if (caller != th::sdk::kNoRow && k >= 0 &&
            static_cast<size_t>(k) < t.hlo_operands(caller).size())
          push(t.hlo_operands(caller)[static_cast<size_t>(k)]);
        continue;
      }
      for (uint32_t o : t.hlo_operands(i)) push(o);
    }
    return hlo::kNone;
  }

  // Every path from the upcast's value through neutral ops ends at `reduce`.
  bool FeedsOnly(const hlo::Graph& g, uint32_t upcast, uint32_t reduce) const {
    const auto& t = g.trace();
    std::deque<uint32_t> queue{upcast};
    std::unordered_set<uint32_t> seen{upcast};
    while (!queue.empty()) {
      if (seen.size() > max_nodes_) return false;  // overflow: conservatively no
      uint32_t i = queue.front();
      queue.pop_front();
      auto users = t.hlo_users(i);
      if (users.empty() && i != reduce) return false;  // an output
      for (uint32_t u : users) {
        if (u == reduce) continue;
        std::string_view op = t.hlo_opcode(u);
        if (op == "fusion") {  // into the body: the parameters receiving it
          auto ops = t.hlo_operands(u);
          bool entered = false;
          for (size_t k = 0; k < ops.size(); ++k) {
            if (ops[k] != i) continue;
            uint32_t p = g.BodyParameter(u, static_cast<int32_t>(k));
            if (p != hlo::kNone && seen.insert(p).second) queue.push_back(p);
            entered = p != hlo::kNone;
          }
          if (!entered) return false;
          continue;
        }
        if (!IsNeutral(op) || op == "convert") return false;
        if (seen.insert(u).second) queue.push_back(u);
      }
    }
    return true;
  }

  // Does the f32 result reach an f32 consumer or the module output before a
  // convert to bf16/f16?
  bool ReachesF32Sink(const hlo::Graph& g, uint32_t reduce) const {
    const auto& t = g.trace();
    std::deque<uint32_t> queue{reduce};
    std::unordered_set<uint32_t> seen{reduce};
    while (!queue.empty()) {
      if (seen.size() > max_nodes_) return true;  // overflow: conservatively yes
      uint32_t i = queue.front();
      queue.pop_front();
      auto users = t.hlo_users(i);
      if (users.empty()) {
        // The root of a fusion body continues at the fusion's users; of the
        // entry, it is the module's output.
        uint32_t caller = t.hlo_caller(i);
        if (caller == th::sdk::kNoRow || t.hlo_opcode(caller) != "fusion") return true;
        if (seen.insert(caller).second) queue.push_back(caller);
        continue;
      }
      for (uint32_t u : users) {
        std::string_view op = t.hlo_opcode(u);
        if (op == "convert") {
          auto s = g.ShapeOf(u);
          if (s && IsLowPrecision(s->type)) continue;  // cast down: this path is fine
          return true;
        }
        if (!IsNeutral(op) || op == "fusion") return true;
        if (seen.insert(u).second) queue.push_back(u);
      }
    }
    return false;
  }

  size_t max_nodes_ = 10000;
};

}  // namespace

TH_PLUGIN(ConvertReduce)
