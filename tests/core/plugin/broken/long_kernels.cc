// A small, working detector used by the tests: kernels longer than a threshold.
#include <tracehound/sdk.h>

#include <string>

class LongKernels final : public th::sdk::Plugin {
 public:
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("long-kernels", "1.0.0", th::sdk::kDetector,
                                "Kernels longer than a threshold")
        .Reads({"events", "tracks", "edges", "profiler_steps", "gpu_args", "gpu_hlo", "hlo_modules",
                "hlo_instructions", "hlo_user_offsets", "hlo_users"})
        .Option("threshold_us", int64_t{1000}, "report kernels at least this long")
        .Min(0);
  }
  void Run(th::sdk::Context& ctx) override {
    const int64_t threshold = ctx.GetInt("threshold_us") * 1000;
    for (const auto& trace : ctx.traces()) {
      // What the view carries beyond events, for the host tests.
      ctx.Metric("edges", static_cast<double>(trace.edge_count()), "count", th::sdk::kMeasured);
      if (trace.edge_count())
        ctx.Metric("first_edge_dst", trace.edge_dst(0), "event", th::sdk::kMeasured);
      ctx.Metric("steps", static_cast<double>(trace.step_count()), "count", th::sdk::kMeasured);
      if (trace.step_count())
        ctx.Metric("first_step", static_cast<double>(trace.step(0).number), "", th::sdk::kMeasured);
      // HLO tables: counts, and per instruction of a small module
      // its shape, users and caller as metric names.
      ctx.Metric("hlo_modules", static_cast<double>(trace.hlo_module_count()), "count",
                 th::sdk::kMeasured);
      ctx.Metric("hlo_instructions", static_cast<double>(trace.hlo_instruction_count()), "count",
                 th::sdk::kMeasured);
      if (trace.hlo_instruction_count() < 50) {
        for (uint32_t h = 0; h < trace.hlo_instruction_count(); ++h) {
          std::string n(trace.hlo_name(h));
          ctx.Metric("shape:" + n + "=" + std::string(trace.hlo_shape(h)), 1, "", th::sdk::kRead);
          ctx.Metric("users:" + n, static_cast<double>(trace.hlo_users(h).size()), "count",
                     th::sdk::kRead);
          uint32_t caller = trace.hlo_caller(h);
          if (caller != th::sdk::kNoRow)
            ctx.Metric("caller:" + n + "=" + std::string(trace.hlo_name(caller)), 1, "",
                       th::sdk::kRead);
        }
      }
      double by_match[4] = {0, 0, 0, 0};
      for (uint64_t row = 0; trace.attributed() && row < trace.gpu_rows(); ++row)
        by_match[trace.gpu_hlo_match(row)] += 1;
      ctx.Metric("hlo_exact", by_match[TH_HLO_MATCH_EXACT], "count", th::sdk::kMeasured);
      ctx.Metric("hlo_order", by_match[TH_HLO_MATCH_ORDER], "count", th::sdk::kMeasured);
      ctx.Metric("hlo_none", by_match[TH_HLO_MATCH_NONE], "count", th::sdk::kMeasured);
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (trace.kind(i) != TH_EVENT_KERNEL || trace.dur(i) < threshold) continue;
        th::sdk::Scope scope;
        scope.rank = trace.rank();
        scope.stream = trace.track_of(i).stream;
        ctx.Add(
            th::sdk::Finding(th::sdk::P2, "long kernel " + std::string(trace.name(i)))
                .In(scope)
                .Evidence("duration", static_cast<double>(trace.dur(i)), "ns", th::sdk::kMeasured)
                .TimeLost(static_cast<double>(trace.dur(i)))
                .Group("long kernels")
                .At(trace.ts(i), trace.end(i)));
      }
    }
  }
};
TH_PLUGIN(LongKernels)
