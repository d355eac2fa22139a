// layout-kernels: the PyTorch side of the compiler detectors (no HLO there):
// copy / transpose / contiguous / dtype-cast kernels that run next to a GEMM or
// convolution kernel on the same stream, with their share of GPU time, the
// aten:: op that launched them and the Python frame above it.
#include <tracehound/sdk.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool Contains(const std::string& s, std::initializer_list<const char*> parts) {
  for (const char* p : parts)
    if (s.find(p) != std::string::npos) return true;
  return false;
}

// GEMM / convolution kernels of cuBLAS(Lt), CUTLASS, cuDNN, rocBLAS/hipBLASLt
// (Cijk_), MIOpen, Triton matmuls.
bool IsGemmOrConv(const std::string& lower) {
  return Contains(
      lower, {"gemm", "cutlass", "cublas", "xmma", "cijk_", "conv", "winograd", "implicit_convolve",
              "miopen", "cudnn", "matmul", "_mm_", "wgrad", "dgrad", "fprop"});
}

// What makes an op a layout/dtype change (by the aten op that launched it).
std::string OpClass(const std::string& op) {
  if (op == "aten::contiguous" || op == "aten::clone") return "contiguous";
  if (op == "aten::to" || op == "aten::_to_copy" || op == "aten::type_as" || op == "aten::float" ||
      op == "aten::half" || op == "aten::bfloat16")
    return "dtype-cast";
  if (op == "aten::transpose" || op == "aten::permute" || op == "aten::t" ||
      op == "aten::transpose_")
    return "transpose";
  if (op == "aten::copy_") return "copy";
  return {};
}

// By kernel name when no aten op says it (e.g. traces without cpu_op events).
std::string KernelClass(const std::string& lower) {
  if (Contains(lower, {"transpose"})) return "transpose";
  if (Contains(lower, {"direct_copy_kernel", "copy_kernel", "copy_device_to_device", "copybuffer"}))
    return "copy";
  return {};
}

// The tables it publishes.
th::sdk::Schema LayoutKernelsTable() {
  return th::sdk::Schema("layout_kernels")
      .Int("rank")
      .Text("aten_op")
      .Text("kernel")
      .Text("kind")
      .Int("count", "count")
      .Int("gpu_time", "ns")
      .Real("share", "%")
      .Text("python");
}

class LayoutKernels final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("layout-kernels", "1.0.0", th::sdk::kDetector,
                       "Copy/transpose/contiguous/dtype-cast kernels next to GEMM or convolution "
                       "kernels (PyTorch traces), with the aten op and Python frame")
        .Reads({"events", "edges"})
        .Publishes(LayoutKernelsTable())
        .Option("min_share_pct", 1.0, "report a group at least this share of GPU time")
        .Min(0);
  }

  void Run(Context& ctx) override {
    const double min_share = ctx.GetDouble("min_share_pct");
    struct Group {
      int64_t count = 0, ns = 0;
      std::string kind, python;
    };
    std::map<std::tuple<int64_t, std::string, std::string>, Group> groups;  // rank, op, kernel
    std::map<int64_t, int64_t> gpu_ns;                                      // per rank
    for (const auto& trace : ctx.traces()) {
      std::unordered_map<uint32_t, uint32_t> launch_of;
      for (uint64_t k = 0; k < trace.edge_count(); ++k)
        if (trace.edge_kind(k) == TH_EDGE_LAUNCH) launch_of[trace.edge_dst(k)] = trace.edge_src(k);
      // Kernels per stream track, in time order.
      std::map<uint32_t, std::vector<uint32_t>> streams;
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (!trace.is_gpu_activity(i)) continue;
        gpu_ns[trace.rank()] += trace.dur(i);
        if (trace.kind(i) == TH_EVENT_KERNEL)
          streams[trace.track_index(i)].push_back(static_cast<uint32_t>(i));
      }
      for (auto& [track, rows] : streams) {
        std::stable_sort(rows.begin(), rows.end(),
                         [&](uint32_t a, uint32_t b) { return trace.ts(a) < trace.ts(b); });
        std::vector<bool> gemm(rows.size());
        for (size_t k = 0; k < rows.size(); ++k) gemm[k] = IsGemmOrConv(Lower(trace.name(rows[k])));
        for (size_t k = 0; k < rows.size(); ++k) {
          bool adjacent = (k > 0 && gemm[k - 1]) || (k + 1 < rows.size() && gemm[k + 1]);
          if (!adjacent || gemm[k]) continue;
          uint32_t e = rows[k];
          std::string op, python, launcher;
          auto it = launch_of.find(e);
          if (it != launch_of.end()) {
            // The outermost of the chain of layout/dtype aten ops above the
            // launch (aten::to over _to_copy over copy_), and the nearest
            // Python frame above it.
            bool chain_done = false;
            std::string innermost;  // the first cpu_op above the launch
            for (uint32_t p = trace.parent(it->second); p != th::sdk::kNoRow; p = trace.parent(p)) {
              std::string name(trace.name(p));
              if (trace.kind(p) == TH_EVENT_PYTHON_FUNCTION) {
                // The first frame of a .py file (user code), else the nearest one.
                if (python.empty()) python = name;
                if (name.find(".py(") != std::string::npos) {
                  python = name;
                  break;
                }
                continue;
              }
              if (innermost.empty() && trace.kind(p) == TH_EVENT_CPU_OP) innermost = name;
              if (chain_done) continue;
              if (!OpClass(name).empty()) {
                op = name;
              } else if (!op.empty() && trace.kind(p) == TH_EVENT_CPU_OP) {
                chain_done = true;
              }
            }
            launcher = innermost;
          }
          std::string kernel(trace.name(e));
          // Inductor/Triton kernels are already fused, whatever their name says.
          if (kernel.rfind("triton_", 0) == 0) continue;
          std::string kind = op.empty() ? KernelClass(Lower(kernel)) : OpClass(op);
          if (kind.empty()) continue;
          // Without a layout/dtype aten op, name the op that launched it (e.g.
          // a library convolution's internal transposes).
          std::string by = !op.empty()         ? op
                           : !launcher.empty() ? launcher + " (internal)"
                                               : "(no aten op recorded)";
          Group& g = groups[{trace.rank(), by, kernel}];
          ++g.count;
          g.ns += trace.dur(e);
          g.kind = kind;
          if (g.python.empty()) g.python = python;
        }
      }
    }
    std::vector<std::pair<std::tuple<int64_t, std::string, std::string>, Group>> rows(
        groups.begin(), groups.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    std::vector<int64_t> t_rank, t_count, t_ns;
    std::vector<double> t_share;
    std::vector<std::string> t_op, t_kernel, t_kind, t_python;
    int64_t total_ns = 0;
    for (const auto& [key, g] : rows) {
      const auto& [rank, op, kernel] = key;
      double share = gpu_ns[rank] ? 100.0 * static_cast<double>(g.ns) / gpu_ns[rank] : 0;
      total_ns += g.ns;
      t_rank.push_back(rank);
      t_op.push_back(op);
      t_kernel.push_back(kernel);
      t_kind.push_back(g.kind);
      t_count.push_back(g.count);
      t_ns.push_back(g.ns);
      t_share.push_back(share);
      t_python.push_back(g.python);
      if (share < min_share) continue;
      th::sdk::Scope scope;
      scope.rank = rank;
      ctx.Add(
          th::sdk::Finding(share >= 5 ? th::sdk::P1 : th::sdk::P2,
                           g.kind + " kernels next to GEMM/convolution: " + op)
              .What(std::to_string(g.count) + " " + g.kind + " kernels (" + kernel +
                    ") launched by " + op +
                    " run right before or after a GEMM or "
                    "convolution kernel on the same stream" +
                    (g.python.empty() ? std::string(".") : ", from " + g.python + "."))
              .Suggest(g.kind == "dtype-cast"
                           ? "Keep tensors in the GEMM's dtype (autocast around the whole "
                             "block, cast weights once), instead of casting per call."
                           : "Produce the layout the GEMM wants (channels_last / contiguous "
                             "once, outside the loop), or let torch.compile fuse the "
                             "transpose into the matmul.")
              .In(scope)
              .Evidence("gpu_time", static_cast<double>(g.ns), "ns", th::sdk::kMeasured)
              .Evidence("share_of_gpu_time", share, "%", th::sdk::kMeasured)
              .Evidence("saving_if_removed", static_cast<double>(g.ns), "ns", th::sdk::kInferred)
              .Saving(static_cast<double>(g.ns))
              .TimeLost(static_cast<double>(g.ns)));
    }
    ctx.Metric("layout_kernel_time", static_cast<double>(total_ns), "ns", th::sdk::kMeasured);
    ctx.Publish(th::sdk::Table("layout_kernels")
                    .Int("rank", t_rank)
                    .Text("aten_op", t_op)
                    .Text("kernel", t_kernel)
                    .Text("kind", t_kind)
                    .Int("count", t_count, "count")
                    .Int("gpu_time", t_ns, "ns")
                    .Real("share", t_share, "%")
                    .Text("python", t_python));
  }
};

}  // namespace

TH_PLUGIN(LayoutKernels)
