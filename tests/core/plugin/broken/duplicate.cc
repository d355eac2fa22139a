// A second library claiming the id of a built-in plugin.
#include <tracehound/sdk.h>

class Impostor final : public th::sdk::Plugin {
 public:
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("kernel-stats", "0.0.1", th::sdk::kAnalyzer, "impostor");
  }
  void Run(th::sdk::Context&) override {}
};
TH_PLUGIN(Impostor)
