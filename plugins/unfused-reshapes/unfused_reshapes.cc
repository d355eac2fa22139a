// unfused-reshapes: data-formatting HLO instructions left outside any fusion
// that move at least `min_mib` and feed a compute consumer: each one is an
// extra HBM round trip (metrics-and-detectors.md b.2).
#include <tracehound/hlo.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
namespace hlo = th::sdk::hlo;

bool IsFormatting(std::string_view op) {
  static const std::string_view kOps[] = {"reshape", "transpose", "copy",   "broadcast",
                                          "slice",   "pad",       "convert"};
  for (std::string_view k : kOps)
    if (op == k) return true;
  return false;
}

// Consumers that would absorb the formatting if fused (XProf's list).
bool IsComputeConsumer(std::string_view op) {
  static const std::string_view kOps[] = {"dot",    "custom-call",      "fusion", "convolution",
                                          "reduce", "reduce-window",    "fft",    "cholesky",
                                          "sort",   "triangular-solve", "topk"};
  for (std::string_view k : kOps)
    if (op == k) return true;
  return op.rfind("batch-norm", 0) == 0;
}

// The tables it publishes.
th::sdk::Schema UnfusedReshapesTable() {
  return th::sdk::Schema("unfused_reshapes")
      .Int("rank")
      .Text("instruction")
      .Text("opcode")
      .Text("module")
      .Text("shape")
      .Text("consumer")
      .Int("bytes_moved", "bytes")
      .Int("device_time", "ns")
      .Int("kernels", "count")
      .Text("python_line");
}

class UnfusedReshapes final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("unfused-reshapes", "1.0.0", th::sdk::kDetector,
                       "Reshape/transpose/copy/broadcast/slice/pad/convert outside any fusion, "
                       "moving a lot of data into a compute consumer")
        .Reads({"events", "gpu_args", "gpu_hlo", "hlo_modules", "hlo_instructions",
                "hlo_operand_offsets", "hlo_operands", "hlo_user_offsets", "hlo_users"})
        .Publishes(UnfusedReshapesTable())
        .Option("min_mib", 10.0, "bytes moved (operand + result) at least this many MiB")
        .Min(0);
  }

  void Run(Context& ctx) override {
    const double min_bytes = ctx.GetDouble("min_mib") * 1024 * 1024;
    struct Row {
      int64_t rank;
      std::string name, opcode, module, shape, consumer, line;
      int64_t bytes, ns, kernels;
    };
    std::vector<Row> rows;
    int64_t candidates = 0;
    for (const auto& trace : ctx.traces()) {
      if (!trace.has_hlo()) continue;
      hlo::Graph g(trace);
      hlo::MeasuredTime measured(trace);
      for (uint32_t i = 0; i < g.size(); ++i) {
        std::string_view op = trace.hlo_opcode(i);
        if (!IsFormatting(op)) continue;
        // Standalone: not inside a fusion body.
        uint32_t caller = trace.hlo_caller(i);
        if (caller != th::sdk::kNoRow && trace.hlo_opcode(caller) == "fusion") continue;
        auto shape = g.ShapeOf(i);
        int64_t bytes = shape ? hlo::Bytes(*shape) : 0;
        for (uint32_t o : trace.hlo_operands(i)) {
          auto s = g.ShapeOf(o);
          if (s) bytes += hlo::Bytes(*s);
        }
        if (static_cast<double>(bytes) < min_bytes) continue;
        ++candidates;
        uint32_t consumer = hlo::kNone;
        for (uint32_t u : trace.hlo_users(i)) {
          if (IsComputeConsumer(trace.hlo_opcode(u))) {
            consumer = u;
            break;
          }
        }
        if (consumer == hlo::kNone) continue;
        rows.push_back(
            {trace.rank(), std::string(trace.hlo_name(i)), std::string(op),
             std::string(trace.hlo_module_name(trace.hlo_module(i))),
             std::string(trace.hlo_shape(i)),
             std::string(trace.hlo_opcode(consumer)) + " " + std::string(trace.hlo_name(consumer)),
             g.SourceLine(i), bytes, measured.ns[i], measured.events[i]});
      }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return a.ns != b.ns ? a.ns > b.ns : a.bytes > b.bytes;
    });
    ctx.Metric("large_standalone_formatting_ops", static_cast<double>(candidates), "count",
               th::sdk::kRead);
    ctx.Metric("unfused_reshapes", static_cast<double>(rows.size()), "count", th::sdk::kRead);
    std::vector<int64_t> t_rank, t_bytes, t_ns, t_kernels;
    std::vector<std::string> t_name, t_op, t_module, t_shape, t_consumer, t_line;
    for (const Row& r : rows) {
      t_rank.push_back(r.rank);
      t_name.push_back(r.name);
      t_op.push_back(r.opcode);
      t_module.push_back(r.module);
      t_shape.push_back(r.shape);
      t_consumer.push_back(r.consumer);
      t_line.push_back(r.line);
      t_bytes.push_back(r.bytes);
      t_ns.push_back(r.ns);
      t_kernels.push_back(r.kernels);
      th::sdk::Scope scope;
      scope.rank = r.rank;
      std::string what = r.opcode + " " + r.name + " in " + r.module + " writes " + r.shape +
                         " to memory on its own before " + r.consumer +
                         " reads it back (HBM materialization overhead).";
      if (!r.line.empty()) what += " Python: " + r.line + ".";
      ctx.Add(th::sdk::Finding(r.ns > 0 ? th::sdk::P1 : th::sdk::P2,
                               "unfused " + r.opcode + " " + r.name)
                  .What(what)
                  .Suggest("Fold it into the consumer: express the reshape/transpose in the "
                           "contraction (jnp.einsum with the target axes), apply the cast "
                           "inside the jitted function next to its use, or change the producer's "
                           "output layout so no standalone copy is needed.")
                  .In(scope)
                  .Evidence("bytes_moved", static_cast<double>(r.bytes), "bytes", th::sdk::kRead)
                  .Evidence("device_time", static_cast<double>(r.ns), "ns", th::sdk::kMeasured)
                  .Evidence("saving_if_fused", static_cast<double>(r.ns), "ns", th::sdk::kInferred)
                  .Saving(static_cast<double>(r.ns))
                  .TimeLost(static_cast<double>(r.ns)));
    }
    ctx.Publish(th::sdk::Table("unfused_reshapes")
                    .Int("rank", t_rank)
                    .Text("instruction", t_name)
                    .Text("opcode", t_op)
                    .Text("module", t_module)
                    .Text("shape", t_shape)
                    .Text("consumer", t_consumer)
                    .Int("bytes_moved", t_bytes, "bytes")
                    .Int("device_time", t_ns, "ns")
                    .Int("kernels", t_kernels, "count")
                    .Text("python_line", t_line));
  }
};

}  // namespace

TH_PLUGIN(UnfusedReshapes)
