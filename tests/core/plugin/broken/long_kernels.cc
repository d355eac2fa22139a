// A small, working detector used by the tests: kernels longer than a threshold.
#include <tracehound/sdk.h>

class LongKernels final : public th::sdk::Plugin {
 public:
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("long-kernels", "1.0.0", th::sdk::kDetector,
                                "Kernels longer than a threshold")
        .Reads({"events"})
        .Option("threshold_us", int64_t{1000}, "report kernels at least this long")
        .Min(0);
  }
  void Run(th::sdk::Context& ctx) override {
    const int64_t threshold = ctx.GetInt("threshold_us") * 1000;
    for (const auto& trace : ctx.traces()) {
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (trace.kind(i) != TH_EVENT_KERNEL || trace.dur(i) < threshold) continue;
        th::sdk::Scope scope;
        scope.rank = trace.rank();
        scope.stream = trace.track_of(i).stream;
        ctx.Add(
            th::sdk::Finding(th::sdk::P2, "long kernel " + std::string(trace.name(i)))
                .In(scope)
                .Evidence("duration", static_cast<double>(trace.dur(i)), "ns", th::sdk::kMeasured));
      }
    }
  }
};
TH_PLUGIN(LongKernels)
