// layout-kernels: the PyTorch side of the compiler detectors (no HLO there):
// copy / transpose / contiguous / dtype-cast kernels that run next to a GEMM or
// convolution kernel on the same stream, with their share of GPU time, the
// aten:: op that launched them and the Python frame above it.
//
// Cost: names are classified once per distinct string id (the trace's pool
// interns each string once); kernels are bucketed per stream track in flat
// arrays (sorted by start only where the file is out of order); launch edges
// are resolved only for the kernels that are candidates.
#include <tracehound/sdk.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
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

// What makes an op a layout/dtype change (by the aten op that launched it);
// empty for any other op.
std::string_view OpClass(std::string_view op) {
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
std::string_view KernelClass(const std::string& lower) {
  if (Contains(lower, {"transpose"})) return "transpose";
  if (Contains(lower, {"direct_copy_kernel", "copy_kernel", "copy_device_to_device", "copybuffer"}))
    return "copy";
  return {};
}

// Kernel names classified once per string id: GEMM/convolution or not, and
// the layout class the name alone gives.
class KernelNames {
 public:
  explicit KernelNames(const th::sdk::Trace& trace) : trace_(trace) {}
  bool IsGemm(uint32_t name) { return (Get(name) & kGemm) != 0; }
  std::string_view Class(uint32_t name) {
    switch (Get(name) & kClassMask) {
      case kTranspose:
        return "transpose";
      case kCopy:
        return "copy";
      default:
        return {};
    }
  }

 private:
  enum : uint8_t { kKnown = 1, kGemm = 2, kTranspose = 4, kCopy = 8, kClassMask = 12 };
  uint8_t Get(uint32_t name) {
    if (name >= bits_.size()) bits_.resize(std::max<size_t>(name + 1, bits_.size() * 2), 0);
    uint8_t& b = bits_[name];
    if (b == 0) {
      const std::string lower = Lower(trace_.String(name));
      const std::string_view k = KernelClass(lower);
      b = kKnown | (IsGemmOrConv(lower) ? kGemm : 0) |
          (k == "transpose" ? kTranspose
           : k == "copy"    ? kCopy
                            : 0);
    }
    return b;
  }
  const th::sdk::Trace& trace_;
  std::vector<uint8_t> bits_;  // by string id; 0 until classified
};

// The kernels of one trace per stream track, flat: track t's rows are
// rows[first[t] .. first[t + 1]), by start (file order among equal starts).
struct StreamKernels {
  std::vector<uint32_t> first, rows;
  int64_t gpu_ns = 0;  // kernels, memcpy and memset
};

StreamKernels CollectStreamKernels(const th::sdk::Trace& trace) {
  StreamKernels s;
  // The GPU events only (gpu_activity, by row); the columns as spans, no
  // per-read checks.
  const std::span<const uint32_t> gpu = trace.gpu_activity();
  const th::sdk::TableView events = trace.Table("events");
  const std::span<const uint8_t> kind = events.Values<uint8_t>("kind", TH_TYPE_U8);
  const std::span<const uint32_t> track = events.Values<uint32_t>("track", TH_TYPE_U32);
  const std::span<const int64_t> dur = events.Ints("dur");
  std::vector<uint32_t>& first = s.first;
  first.assign(1, 0);
  for (const uint32_t i : gpu) {
    const uint8_t k = kind[i];
    s.gpu_ns += dur[i];
    if (k != TH_EVENT_KERNEL) continue;
    const uint32_t t = track[i];
    if (t + 2 > first.size()) first.resize(t + 2, 0);
    ++first[t + 1];
  }
  for (size_t t = 1; t < first.size(); ++t) first[t] += first[t - 1];
  s.rows.resize(first.back());
  std::vector<uint32_t> next(first.begin(), first.end() - 1);
  for (const uint32_t i : gpu)
    if (kind[i] == TH_EVENT_KERNEL) s.rows[next[track[i]]++] = i;
  const auto by_start = [&](uint32_t a, uint32_t b) { return trace.ts(a) < trace.ts(b); };
  for (size_t t = 0; t + 1 < first.size(); ++t) {
    const auto begin = s.rows.begin() + first[t], end = s.rows.begin() + first[t + 1];
    if (!std::is_sorted(begin, end, by_start)) std::stable_sort(begin, end, by_start);
  }
  return s;
}

// Non-GEMM kernels right before or after a GEMM/convolution on their stream
// (Inductor `triton_*` kernels left out: already fused), in track then time
// order.
std::vector<uint32_t> KernelsNextToGemm(const th::sdk::Trace& trace, const StreamKernels& s,
                                        KernelNames& names) {
  std::vector<uint32_t> out;
  for (size_t t = 0; t + 1 < s.first.size(); ++t) {
    const uint32_t* rows = s.rows.data() + s.first[t];
    const size_t m = s.first[t + 1] - s.first[t];
    bool prev = false, cur = m > 0 && names.IsGemm(trace.name_id(rows[0]));
    for (size_t k = 0; k < m; ++k) {
      const bool next = k + 1 < m && names.IsGemm(trace.name_id(rows[k + 1]));
      if (!cur && (prev || next) && !trace.name(rows[k]).starts_with("triton_"))
        out.push_back(rows[k]);
      prev = cur;
      cur = next;
    }
  }
  return out;
}

// The runtime call that launched each kernel of `kernels` (kNoRow if none; the
// last launch edge when several name it).
std::vector<uint32_t> LaunchSources(const th::sdk::Trace& trace,
                                    const std::vector<uint32_t>& kernels) {
  std::vector<uint32_t> sorted(kernels);
  std::sort(sorted.begin(), sorted.end());
  std::vector<bool> wanted(trace.size(), false);
  for (uint32_t e : sorted) wanted[e] = true;
  std::vector<uint32_t> source_of_sorted(sorted.size(), th::sdk::kNoRow);
  for (uint64_t k = 0; k < trace.edge_count(); ++k) {
    if (trace.edge_kind(k) != TH_EDGE_LAUNCH) continue;
    const uint32_t dst = trace.edge_dst(k);
    if (dst >= wanted.size() || !wanted[dst]) continue;
    source_of_sorted[std::lower_bound(sorted.begin(), sorted.end(), dst) - sorted.begin()] =
        trace.edge_src(k);
  }
  std::vector<uint32_t> out(kernels.size());
  for (size_t c = 0; c < kernels.size(); ++c)
    out[c] = source_of_sorted[std::lower_bound(sorted.begin(), sorted.end(), kernels[c]) -
                              sorted.begin()];
  return out;
}

// What the CPU events above a launch say (rows, kNoRow when absent): the
// outermost of the chain of layout/dtype aten ops above it (aten::to over
// _to_copy over copy_), the first cpu_op above it, and the Python frame (the
// first of a .py file, user code, else the nearest one).
struct LaunchContext {
  uint32_t op = th::sdk::kNoRow, launcher = th::sdk::kNoRow, python = th::sdk::kNoRow;
};

LaunchContext ContextOf(const th::sdk::Trace& trace, uint32_t launch) {
  LaunchContext c;
  const auto empty = [&](uint32_t row) {
    return row == th::sdk::kNoRow || trace.name(row).empty();
  };
  bool chain_done = false;
  for (uint32_t p = trace.parent(launch); p != th::sdk::kNoRow; p = trace.parent(p)) {
    const std::string_view name = trace.name(p);
    if (trace.kind(p) == TH_EVENT_PYTHON_FUNCTION) {
      if (empty(c.python)) c.python = p;
      if (name.find(".py(") != std::string_view::npos) {
        c.python = p;
        break;
      }
      continue;
    }
    if (empty(c.launcher) && trace.kind(p) == TH_EVENT_CPU_OP) c.launcher = p;
    if (chain_done) continue;
    if (!OpClass(name).empty()) {
      c.op = p;
    } else if (c.op != th::sdk::kNoRow && trace.kind(p) == TH_EVENT_CPU_OP) {
      chain_done = true;
    }
  }
  return c;
}

// A (rank, op, kernel) group.
struct Group {
  int64_t count = 0, ns = 0;
  std::string kind, python;
};

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
        .Reads({"events", "edges", "gpu_activity"})
        .Publishes(LayoutKernelsTable())
        .Option("min_share_pct", 1.0, "report a group at least this share of GPU time")
        .Min(0);
  }

  void Run(Context& ctx) override {
    const double min_share = ctx.GetDouble("min_share_pct");
    Groups groups;
    std::map<int64_t, int64_t> gpu_ns;  // per rank
    for (const auto& trace : ctx.traces()) AddTrace(trace, groups, gpu_ns);
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

 private:
  using Groups =
      std::map<std::tuple<int64_t, std::string, std::string>, Group>;  // rank, op, kernel

  // One trace's groups, keyed by string ids first (by: 0 the layout op, 1 the
  // launcher, 2 none; its name; the kernel's name), then added by text.
  static void AddTrace(const th::sdk::Trace& trace, Groups& groups,
                       std::map<int64_t, int64_t>& gpu_ns) {
    KernelNames names(trace);
    std::vector<uint32_t> kernels;
    {
      const StreamKernels streams = CollectStreamKernels(trace);
      gpu_ns[trace.rank()] += streams.gpu_ns;
      kernels = KernelsNextToGemm(trace, streams, names);
    }
    const std::vector<uint32_t> launches = LaunchSources(trace, kernels);
    struct Local {
      int64_t count = 0, ns = 0;
      std::string_view kind, python;
    };
    std::map<std::tuple<int, uint32_t, uint32_t>, Local> local;
    for (size_t c = 0; c < kernels.size(); ++c) {
      const uint32_t e = kernels[c];
      const LaunchContext at =
          launches[c] == th::sdk::kNoRow ? LaunchContext{} : ContextOf(trace, launches[c]);
      const std::string_view kind =
          at.op == th::sdk::kNoRow ? names.Class(trace.name_id(e)) : OpClass(trace.name(at.op));
      if (kind.empty()) continue;
      // Without a layout/dtype aten op, name the op that launched it (e.g. a
      // library convolution's internal transposes).
      const bool by_launcher = at.launcher != th::sdk::kNoRow && !trace.name(at.launcher).empty();
      const auto key =
          at.op != th::sdk::kNoRow ? std::make_tuple(0, trace.name_id(at.op), trace.name_id(e))
          : by_launcher ? std::make_tuple(1, trace.name_id(at.launcher), trace.name_id(e))
                        : std::make_tuple(2, 0u, trace.name_id(e));
      Local& g = local[key];
      ++g.count;
      g.ns += trace.dur(e);
      g.kind = kind;
      if (g.python.empty() && at.python != th::sdk::kNoRow) g.python = trace.name(at.python);
    }
    for (const auto& [key, l] : local) {
      const auto& [by_kind, by_name, kernel] = key;
      const std::string by = by_kind == 0   ? std::string(trace.String(by_name))
                             : by_kind == 1 ? std::string(trace.String(by_name)) + " (internal)"
                                            : std::string("(no aten op recorded)");
      Group& g = groups[{trace.rank(), by, std::string(trace.String(kernel))}];
      g.count += l.count;
      g.ns += l.ns;
      g.kind = l.kind;
      if (g.python.empty()) g.python = l.python;
    }
  }
};

}  // namespace

TH_PLUGIN(LayoutKernels)
