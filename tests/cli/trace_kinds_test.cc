// What a user sees of the kernel class table and of graph capture:
// `tracehound kernel-classes` (built-ins, a pipeline's rules first, errors at
// FILE:LINE:COLUMN), a pipeline's kernel_classes: moving overlap figures on a
// MoE training step, and `tracehound run` on a trace of CUDA graph capture: an
// info finding saying what the trace is, the analyses that need executed
// kernels skipped with their reason, no P1 on a GPU whose work never ran.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/synthetic_traces.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

std::string Dir(const std::string& name) {
  std::string d = testing::TempDir() + "/" + name;
  std::filesystem::create_directories(d);
  return d;
}

TEST(KernelClassesCommand, ListsTheBuiltinsAndAPipelinesRulesFirst) {
  CommandResult all = Tracehound("kernel-classes");
  ASSERT_EQ(all.status, 0) << all.out;
  EXPECT_NE(all.out.find("\ntracehound  COMM   exact  *ep::internode::*      DeepEP "
                         "(deepseek-ai/DeepEP): internode (RDMA) notify_dispatch, dispatch, "
                         "combine\n"),
            std::string::npos)
      << all.out;

  std::string dir = Dir("kernel-classes");
  std::string yaml = testing::WriteTempFile(
      "kernel-classes/moe.yaml",
      "version: 1\nkernel_classes:\n  - {match: \"*moe_a2a*\", class: COMM}\n");
  CommandResult mine = Tracehound("kernel-classes --pipeline " + yaml);
  ASSERT_EQ(mine.status, 0) << mine.out;
  EXPECT_NE(mine.out.find("match                  source\ntracehound  COMM   exact  *moe_a2a*  "
                          "            pipeline " +
                          yaml + ":3:5\ntracehound  COMM   any    *nccl*"),
            std::string::npos)
      << mine.out;

  CommandResult json = Tracehound("kernel-classes --json --pipeline " + yaml);
  ASSERT_EQ(json.status, 0) << json.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS) << json.out;
  EXPECT_EQ(std::string_view(doc["rules"].at(0)["match"]), "*moe_a2a*");

  std::string bad =
      testing::WriteTempFile("kernel-classes/bad.yaml",
                             "version: 1\nkernel_classes:\n  - {match: \"*a*\", class: COMMS}\n");
  CommandResult error = Tracehound("kernel-classes --pipeline " + bad);
  EXPECT_EQ(error.status, 2);
  EXPECT_EQ(error.out, "tracehound: error: " + bad +
                           ":3:27: kernel_classes 'class' must be one of COMM, COMP, MEM, got "
                           "'COMMS'; did you mean 'COMM'?\n");
}

// The MoE step of synthetic_traces.h: with the built-in rules 560 µs of
// communication, 270 µs of it under computation; a rule that makes
// notify_dispatch computation moves 30 µs from one to the other.
TEST(KernelClassesCommand, APipelinesRulesChangeTheFigures) {
  std::string dir = Dir("moe-run");
  std::string trace = testing::WriteTempFile("moe-run/moe.json", testing::kMoeTrainingTrace);
  auto run = [&](const std::string& name, const std::string& rules) {
    std::string json = dir + "/" + name + ".json";
    std::string yaml = testing::WriteTempFile(
        "moe-run/" + name + ".yaml", "version: 1\nplugins:\n  overlap: {}\n" + rules +
                                         "outputs:\n  - {type: json, path: \"" + json + "\"}\n");
    CommandResult r = Tracehound("run " + yaml + " " + trace);
    EXPECT_EQ(r.status, 0) << r.out;
    return json;
  };
  simdjson::dom::parser parser;
  auto metric = [&](const std::string& json, std::string_view name) {
    simdjson::dom::element doc = parser.load(json).value();
    for (simdjson::dom::element m : doc["metrics"]["overlap"].get_array())
      if (std::string_view(m["name"]) == name) return double(m["value"]);
    ADD_FAILURE() << "no metric " << name;
    return -1.0;
  };
  std::string builtin = run("builtin", "");
  EXPECT_EQ(metric(builtin, "comm_time"), 560000);
  EXPECT_EQ(metric(builtin, "exposed_comm"), 290000);
  std::string mine =
      run("mine", "kernel_classes:\n  - {match: \"*internode::notify_dispatch*\", class: COMP}\n");
  EXPECT_EQ(metric(mine, "comm_time"), 530000);
  EXPECT_EQ(metric(mine, "exposed_comm"), 260000);
}

TEST(GraphCaptureRun, SaysWhatTheTraceIsAndSkipsWhatNeedsExecutedKernels) {
  std::string dir = Dir("capture-run");
  std::string trace =
      testing::WriteTempFile("capture-run/capture.json", testing::kGraphCaptureTrace);
  std::string json = dir + "/report.json";
  std::string yaml = testing::WriteTempFile(
      "capture-run/p.yaml",
      "version: 1\nplugins:\n  gpu-efficiency: {}\n  idle-launch: {}\n  overlap: {}\n"
      "  kernel-stats: {}\noutputs:\n  - {type: terminal}\n  - {type: json, path: \"" +
          json + "\"}\n  - {type: markdown, path: \"" + dir + "/report.md\"}\nfail_on: P2\n");
  CommandResult r = Tracehound("run " + yaml + " " + trace);
  // No finding at P2 or worse: the info finding does not reach fail_on.
  EXPECT_EQ(r.status, 0) << r.out;
  // The measured seconds line differs run to run; the rest is exact.
  std::string out = r.out;
  const size_t time_line = out.find("\ntime: import ");
  ASSERT_NE(time_line, std::string::npos) << out;
  out.erase(time_line + 1, out.find('\n', time_line + 1) - time_line);
  EXPECT_EQ(
      out,
      "verdict: OPTIMAL\n"
      " info host  rank 0 records CUDA graph capture, not steady-state execution: 6 launch calls "
      "from 200.000 us to 795.000 us into the trace (1 capture begun by cudaStreamBeginCapture, 1 "
      "ended) were captured into CUDA graphs and never ran in it; 1 graph instantiated, 0 graph "
      "launches; 2 launch calls ran work, 2 kernels in all. Most launches never ran, so this trace "
      "shows start-up (an inference server capturing its graphs), not steady-state execution: GPU "
      "utilization, idle time and overlap would describe work that is not in it. Skipped this "
      "trace: gpu-efficiency, idle-launch, overlap.\n"
      " plugin gpu-efficiency skipped rank 0: the trace records CUDA/HIP graph capture: most "
      "launched kernels never ran in it, so its GPU utilization would measure start-up, not work\n"
      " plugin idle-launch skipped rank 0: the trace records CUDA/HIP graph capture: most launched "
      "kernels never ran in it, so its streams' idle time and launch delays describe start-up\n"
      " plugin overlap skipped rank 0: the trace records CUDA/HIP graph capture: most launched "
      "kernels never ran in it, so there is no executed communication to overlap\n"
      "checks: 1 of 1 passed\n"
      "trust: no defects found\n"
      "needs a new capture: 2 questions (see the report)\n");
  const std::string md = testing::ReadFile(dir + "/report.md");
  EXPECT_NE(md.find("**Verdict: OPTIMAL**"), std::string::npos) << md;
  EXPECT_NE(md.find("### info · host · rank 0 records CUDA graph capture, not steady-state "
                    "execution\n\n6 launch calls from 200.000 us to 795.000 us into the trace"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| captured_launches | 6 | measured |\n| executed_launches | 2 | measured "
                    "|\n| capture_begin_calls | 1 | measured |\n| graphs_instantiated | 1 | "
                    "measured |\n| graph_launches | 0 | measured |\n| kernels | 2 | measured "
                    "|\n| capture_start | 200.000 us | measured |\n| capture_window | 595.000 us | "
                    "measured |\n\n**Try:** Profile after warm-up and graph capture (vLLM and "
                    "SGLang capture at start-up: start the profiler afterwards, e.g. vLLM's "
                    "/start_profile); replays then show as cudaGraphLaunch calls with the kernels "
                    "they ran.\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| gpu-efficiency | 1.0.0 | ok; skipped rank 0: the trace records CUDA/HIP "
                    "graph capture: most launched kernels never ran in it, so its GPU "
                    "utilization would measure start-up, not work |"),
            std::string::npos)
      << md;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(json).value();
  EXPECT_EQ(std::string_view(doc["verdict"]), "OPTIMAL");
  simdjson::dom::element f = doc["findings"].at(0);
  EXPECT_EQ(std::string_view(f["plugin"]), "host");
  EXPECT_EQ(std::string_view(f["severity"]), "info");
  EXPECT_EQ(int64_t(f["scope"]["rank"]), 0);
  simdjson::dom::element captured = f["evidence"].at(0);
  EXPECT_EQ(std::string_view(captured["name"]), "captured_launches");
  EXPECT_EQ(double(captured["value"]), 6);
  EXPECT_EQ(std::string_view(captured["unit"]), "count");
  EXPECT_EQ(simdjson::dom::array(doc["plugins"]["gpu-efficiency"]["skipped"]).size(), 1u);
  EXPECT_EQ(simdjson::dom::array(doc["plugins"]["kernel-stats"]["skipped"]).size(), 0u);
  // kernel-stats still lists what ran: the two warm-up kernels.
  EXPECT_EQ(int64_t(doc["tables"]["kernel_stats"]["rows"]), 2);
}

// A plugin's `severity:` override moves its problems, not what it says a
// trace is: oom-risk's preallocated pool stays info (80 % of a 1000-byte
// device held from before the window; 100 of the 200 bytes it leaves free).
TEST(GraphCaptureRun, SeverityOverrideLeavesInfoFindingsInfo) {
  std::string dir = Dir("pool-run");
  std::string trace = testing::WriteTempFile("pool-run/pool.json", R"json({
  "deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 1000}],
  "traceEvents": [
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 10, "args": {"Addr": 4096, "Bytes": 100, "Total Allocated": 900, "Total Reserved": 900, "Device Id": 0, "Device Type": 1}},
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 20, "args": {"Addr": 4096, "Bytes": -100, "Total Allocated": 800, "Total Reserved": 900, "Device Id": 0, "Device Type": 1}}
]})json");
  std::string json = dir + "/report.json";
  std::string yaml = testing::WriteTempFile(
      "pool-run/p.yaml",
      "version: 1\nplugins:\n  oom-risk: {severity: P0}\noutputs:\n  - {type: "
      "json, path: \"" +
          json + "\"}\nfail_on: P2\n");
  CommandResult r = Tracehound("run " + yaml + " " + trace);
  EXPECT_EQ(r.status, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(json).value();
  EXPECT_EQ(std::string_view(doc["verdict"]), "OPTIMAL");
  ASSERT_EQ(simdjson::dom::array(doc["findings"]).size(), 1u);
  EXPECT_EQ(std::string_view(doc["findings"].at(0)["severity"]), "info");
  EXPECT_EQ(std::string_view(doc["findings"].at(0)["title"]),
            "preallocated pool (KV cache?) held throughout the window");
  EXPECT_EQ(std::string_view(doc["findings"].at(0)["what"]).substr(0, 33),
            "On CUDA 0 of rank 0, 800 B (80.0%");
}

}  // namespace
}  // namespace th
