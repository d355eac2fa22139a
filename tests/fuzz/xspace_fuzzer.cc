// XProf XSpace capture import through the loader, as `tracehound info` reads
// a `.xplane.pb`: the streaming wire decoder (guessed line ends and the
// fallback), plane tables, derived XLA lines, embedded HLO modules and the
// kernel -> HLO attribution.
#include <string>

#include "core/import/trace_loader.h"
#include "core/report/trace_summary.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  th::fuzz::SingleThreaded();
  std::string path = th::fuzz::WriteScratch(
      "host.xplane.pb", std::string_view(reinterpret_cast<const char*>(data), size));
  auto set = th::LoadTraceSet({path}, th::LoadOptions{});
  if (!set.ok()) {
    const std::string& m = set.status().message();
    th::fuzz::Require(m.find("host.xplane.pb") != std::string::npos,
                      "error does not name the input: " + m);
    return 0;
  }
  std::vector<th::TraceSummary> per_trace;
  th::SummarizeSet(*set, &per_trace);
  return 0;
}
