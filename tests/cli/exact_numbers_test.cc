// Numbers are exact in every machine-readable output (issue 15, item 1): a
// measured peak of 151,821,681,664 bytes was written as 1.51822e+11 in the
// JSON report. The JSON report, the HTML page's data, the annotated trace and
// `info --json` now carry its integer digits.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

constexpr char kPeak[] = "151821681664";

// One GPU whose allocator peaks at kPeak bytes, with two kernels.
std::string Trace() {
  std::string events;
  int64_t allocated[] = {1000000000, 151821681664, 151821681664 - 4096, 2000000000};
  for (int i = 0; i < 4; ++i) {
    events += R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"s":"t",)"
              R"("ts":)" +
              std::to_string(1000 + 100 * i) +
              R"(,"args":{"Device Type":1,"Device Id":0,"Addr":4096,"Bytes":4096,)"
              R"("Total Allocated":)" +
              std::to_string(allocated[i]) + R"(,"Total Reserved":160000000000}},)";
  }
  events += R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1000,"dur":123.457,)"
            R"("args":{"device":0,"stream":7}},)"
            R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1200,"dur":200,)"
            R"("args":{"device":0,"stream":7}})";
  return R"({"deviceProperties":[{"id":0,"name":"NVIDIA H200","totalGlobalMem":)"
         R"(150754820096,"computeMajor":9,"computeMinor":0,"numSms":132}],)"
         R"("traceEvents":[)" +
         events + "]}";
}

TEST(ExactNumbers, EveryMachineReadableOutputCarriesTheIntegerDigits) {
  std::string dir = testing::TempDir();
  std::string trace = testing::WriteTempFile("peak.json", Trace());
  std::string pipeline = testing::WriteTempFile("exact.yaml", R"(version: 1
plugins:
  oom-risk: {}
  kernel-stats: {}
outputs:
  - {type: json, path: )" + dir + R"(/findings.json}
  - {type: html, path: )" + dir + R"(/report.html}
  - {type: trace, path: )" + dir + R"(/annotated.json}
)");
  CommandResult r = Tracehound("run " + pipeline + " " + trace);
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* file : {"/findings.json", "/report.html", "/annotated.json"}) {
    std::string text = testing::ReadFile(dir + file);
    EXPECT_NE(text.find(kPeak), std::string::npos) << file << " lacks the exact peak";
    EXPECT_EQ(text.find("1.51822e+11"), std::string::npos) << file;
    EXPECT_EQ(text.find("e+11"), std::string::npos) << file;
  }
  // The kernel's 123,457 ns (a sum past 10^5 ns) keeps its last digits.
  std::string findings = testing::ReadFile(dir + "/findings.json");
  EXPECT_NE(findings.find("323457"), std::string::npos) << "summed kernel time, exact";

  CommandResult info = Tracehound("info --json " + trace);
  ASSERT_EQ(info.status, 0) << info.out;
  EXPECT_NE(info.out.find(std::string("\"peak_total_allocated\": ") + kPeak), std::string::npos)
      << info.out;
}

}  // namespace
}  // namespace th
