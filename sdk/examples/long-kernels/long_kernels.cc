// long-kernels: every GPU kernel that runs at least `threshold_us` becomes a
// P2 finding, scoped to its rank, device and stream, with its measured
// duration as evidence. The smallest useful detector, built out of tree.
#include <tracehound/sdk.h>

#include <cstdint>
#include <string>

namespace {

class LongKernels final : public th::sdk::Plugin {
 public:
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("long-kernels", "1.0.0", th::sdk::kDetector,
                                "GPU kernels that run at least a threshold")
        .Reads({"events", "tracks"})
        .Option("threshold_us", int64_t{1000}, "report kernels at least this long, in µs")
        .Min(0);
  }

  void Run(th::sdk::Context& ctx) override {
    const int64_t threshold_us = ctx.GetInt("threshold_us");
    const int64_t threshold_ns = threshold_us * 1000;
    for (const th::sdk::Trace& trace : ctx.traces()) {
      int64_t found = 0;
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (trace.kind(i) != TH_EVENT_KERNEL || trace.dur(i) < threshold_ns) continue;
        const th_track& track = trace.track_of(i);
        th::sdk::Scope scope;
        scope.rank = trace.rank();
        scope.device = track.device;
        scope.stream = track.stream;
        const std::string name(trace.name(i));
        ctx.Add(
            th::sdk::Finding(th::sdk::P2, "long kernel " + name)
                .What("ran " + std::to_string(trace.dur(i)) + " ns, at or above the " +
                      std::to_string(threshold_us) + " µs threshold")
                .In(scope)
                .Evidence("duration", static_cast<double>(trace.dur(i)), "ns", th::sdk::kMeasured));
        ++found;
      }
      th::sdk::Scope rank_scope;
      rank_scope.rank = trace.rank();
      ctx.Metric("long_kernels", static_cast<double>(found), "count", th::sdk::kMeasured,
                 rank_scope);
    }
  }
};

}  // namespace

TH_PLUGIN(LongKernels)
