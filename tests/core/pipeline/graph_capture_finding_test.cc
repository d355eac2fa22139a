// The host's info finding about a trace that captures graphs: what it says
// when the capture dominates the trace and when it is a short window of a
// running one (HIP here), byte for byte.
#include "core/pipeline/graph_capture_finding.h"

#include <gtest/gtest.h>

namespace th {
namespace {

TEST(GraphCaptureFinding, DominantCaptureSaysTheTraceIsStartUp) {
  Trace t;
  t.info.rank = 3;
  GraphCapture c;
  c.begin_calls = 67;
  c.end_calls = 67;
  c.instantiations = 67;
  c.captured_launches = 40000;
  c.executed_launches = 1200;
  c.kernels = 1500;
  c.trace_start = 1'000'000'000;
  c.first_ts = 3'500'000'000;
  c.last_end = 15'250'000'000;
  Finding f = GraphCaptureFinding(t, c, {"gpu-efficiency", "overlap"});
  EXPECT_EQ(f.plugin, "host");
  EXPECT_EQ(f.severity, FindingSeverity::kInfo);
  EXPECT_EQ(f.scope.rank, 3);
  EXPECT_EQ(f.title, "rank 3 records CUDA graph capture, not steady-state execution");
  EXPECT_EQ(f.what,
            "40000 launch calls from 2.500 s to 14.250 s into the trace (67 captures begun by "
            "cudaStreamBeginCapture, 67 ended) were captured into CUDA graphs and never ran in it; "
            "67 graphs instantiated, 0 graph launches; 1200 launch calls ran work, 1500 kernels in "
            "all. Most launches never ran, so this trace shows start-up (an inference server "
            "capturing its graphs), not steady-state execution: GPU utilization, idle time and "
            "overlap would describe work that is not in it. Skipped this trace: gpu-efficiency, "
            "overlap.");
  ASSERT_EQ(f.evidence.size(), 8u);
  EXPECT_EQ(f.evidence[0].name, "captured_launches");
  EXPECT_EQ(f.evidence[0].value, 40000);
  EXPECT_EQ(f.evidence[7].name, "capture_window");
  EXPECT_EQ(f.evidence[7].value, 11'750'000'000.0);
  EXPECT_EQ(f.evidence[7].unit, "ns");
}

TEST(GraphCaptureFinding, ShortHipCaptureInARunningTrace) {
  Trace t;
  GraphCapture c;
  c.hip = true;
  c.begin_calls = 1;
  c.end_calls = 1;
  c.instantiations = 1;
  c.graph_launches = 30;
  c.captured_launches = 12;
  c.executed_launches = 900;
  c.kernels = 4000;
  c.first_ts = 2'000'000;
  c.last_end = 14'500'000;
  Finding f = GraphCaptureFinding(t, c, {});
  EXPECT_EQ(f.title, "rank 0 captures HIP graphs during 12.500 ms of the trace");
  EXPECT_EQ(f.what,
            "12 launch calls from 2.000 ms to 14.500 ms into the trace (1 capture begun by "
            "hipStreamBeginCapture, 1 ended) were captured into HIP graphs and never ran in it; 1 "
            "graph instantiated, 30 graph launches; 900 launch calls ran work, 4000 kernels in "
            "all. Figures over the whole trace include the capture window.");
  EXPECT_NE(f.suggestion.find("hipGraphLaunch"), std::string::npos) << f.suggestion;
}

}  // namespace
}  // namespace th
