// A plugin whose Run throws after reporting one metric.
#include <tracehound/sdk.h>

#include <stdexcept>

class Throws final : public th::sdk::Plugin {
 public:
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("throws", "1.0.0", th::sdk::kDetector, "always fails")
        .Option("message", "boom", "what to throw");
  }
  void Run(th::sdk::Context& ctx) override {
    ctx.Metric("before_failure", 1, "count", th::sdk::kMeasured);
    throw std::runtime_error(ctx.GetString("message"));
  }
};
TH_PLUGIN(Throws)
