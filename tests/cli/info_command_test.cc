// The tracehound command as a user runs it: exit codes, one-line errors that
// name the file and offset, the JSON contract of `info --json`, atomic -o.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

std::string GeneratedDir() {
  static const std::string dir = [] {
    std::string d = testing::TempDir() + "/generated";
    CommandResult r = Tracehound("generate --out " + d + " --ranks 3 --steps 3 --gzip");
    EXPECT_EQ(r.status, 0) << r.out;
    return d;
  }();
  return dir;
}

TEST(InfoCommand, JsonHasTheContractKeysPerRank) {
  CommandResult r = Tracehound("info --json " + GeneratedDir());
  ASSERT_EQ(r.status, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  for (const char* key :
       {"format", "events", "events_by_phase", "events_by_category", "kernels", "memcpy", "memset",
        "gpu_streams", "steps", "memory_events", "peak_total_allocated", "trust", "traces"}) {
    EXPECT_FALSE(doc[key].error()) << key;
  }
  EXPECT_EQ(doc["format"].get_string().value(), "kineto_json");
  simdjson::dom::array traces = doc["traces"].get_array().value();
  ASSERT_EQ(traces.size(), 3u);
  int64_t kernels = 0, rank = 0;
  for (simdjson::dom::element t : traces) {
    EXPECT_EQ(t["rank"].get_int64().value(), rank++);
    EXPECT_FALSE(t["path"].error());
    EXPECT_EQ(t["steps"].get_int64().value(), 3);
    kernels += t["kernels"]["count"].get_int64().value();
  }
  EXPECT_EQ(doc["kernels"]["count"].get_int64().value(), kernels);
  EXPECT_GT(kernels, 0);
}

TEST(InfoCommand, TextSummaryAndAtomicOutputFile) {
  std::string out = testing::TempDir() + "/info.txt";
  CommandResult r = Tracehound("info -o " + out + " " + GeneratedDir());
  ASSERT_EQ(r.status, 0) << r.out;
  std::string text = testing::ReadFile(out);
  EXPECT_NE(text.find("3 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("top kernels by total time"), std::string::npos);
  EXPECT_NE(text.find("trust:"), std::string::npos);
  for (const auto& e : std::filesystem::directory_iterator(testing::TempDir()))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(InfoCommand, BadInputsAreOneLineErrorsWithExitStatus2) {
  std::string dir = GeneratedDir();
  std::string gz = testing::ReadFile(dir + "/rank0.pt.trace.json.gz");
  std::string cut_gz = testing::WriteTempFile("cut.json.gz", gz.substr(0, gz.size() / 2));
  std::string json =
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": "X", "na)";
  std::string cut_json = testing::WriteTempFile("cut.json", json);
  std::string not_trace = testing::WriteTempFile("notes.json", R"({"hello": "world"})");
  std::string garbage = testing::WriteTempFile("garbage.json", "this is not JSON");
  struct Case {
    std::string path, expect;
  } cases[] = {
      {testing::TempDir() + "/missing.json", "missing.json: no such file or directory"},
      {cut_gz, "cut.json.gz: truncated gzip stream: input ends at compressed offset"},
      {cut_json, "cut.json: input ends inside the traceEvents array"},
      {not_trace, "notes.json: not a Chrome/Kineto trace"},
      {garbage, "garbage.json: not a JSON trace"},
  };
  for (const Case& c : cases) {
    CommandResult r = Tracehound("info " + c.path);
    EXPECT_EQ(r.status, 2) << c.path << ": " << r.out;
    EXPECT_EQ(r.out.find("tracehound: error: "), 0u) << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;
  }
  // The cut JSON names the offset where the text ended.
  CommandResult r = Tracehound("info " + cut_json);
  EXPECT_NE(r.out.find("offset " + std::to_string(json.size())), std::string::npos) << r.out;
  // With --keep-truncated the complete events are read and the cut is an error in the trust table.
  CommandResult kept = Tracehound("info --keep-truncated --json " + cut_gz);
  EXPECT_EQ(kept.status, 0) << kept.out;
  EXPECT_NE(kept.out.find("input truncated"), std::string::npos);
  EXPECT_NE(kept.out.find("\"severity\": \"error\""), std::string::npos);
}

TEST(InfoCommand, BackendsSaysWhatWasBuiltAndFound) {
  CommandResult r = Tracehound("info --backends");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("cpu: usable (oneTBB)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cuda: "), std::string::npos);
  EXPECT_NE(r.out.find("hip: "), std::string::npos);
  EXPECT_NE(r.out.find("auto uses a GPU from"), std::string::npos);
}

TEST(InfoCommand, XprofCaptureShowsPlanesModulesAndAttribution) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-capture test skipped";
  std::string capture = data + "/tracelens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb";
  CommandResult r = Tracehound("info --json " + capture);
  ASSERT_EQ(r.status, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  // Against the oracle: embedded modules and planes.
  simdjson::dom::parser oracle_parser;
  simdjson::dom::element oracle = oracle_parser
                                      .load(data +
                                            "/expected/tracelens/tests/traces/mi300/"
                                            "jax_conv_minimal_08/tw003.xplane.pb.oracle.json")
                                      .value();
  EXPECT_EQ(doc["hlo_modules"].get_int64().value(),
            oracle["metadata_plane"]["hlo_proto_stats"].get_int64().value());
  EXPECT_EQ(doc["planes"].get_array().size(), oracle["planes"].get_array().size());
  simdjson::dom::element plane0 = doc["planes"].at(0);
  for (const char* key : {"name", "events", "lines", "stat_names"})
    EXPECT_FALSE(plane0[key].error());
  // Every GPU event in exactly one class; the classes add up to the GPU time.
  // `events` counts kernels, memcpy and memset; `kernels` only kernels (issue
  // 15 item 6: one name counted both).
  int64_t events = 0, kernels = 0, ns = 0;
  for (const char* cls : {"exact", "name", "order", "none"}) {
    events += doc["attribution"][cls]["events"].get_int64().value();
    kernels += doc["attribution"][cls]["kernels"].get_int64().value();
    ns += doc["attribution"][cls]["gpu_ns"].get_int64().value();
  }
  EXPECT_EQ(events, doc["kernels"]["count"].get_int64().value() +
                        doc["memcpy"]["count"].get_int64().value() +
                        doc["memset"]["count"].get_int64().value());
  EXPECT_EQ(kernels, doc["kernels"]["count"].get_int64().value());
  EXPECT_EQ(ns, doc["kernels"]["total_ns"].get_int64().value() +
                    doc["memcpy"]["total_ns"].get_int64().value() +
                    doc["memset"]["total_ns"].get_int64().value());
  simdjson::dom::element xla = doc["traces"].at(0)["xla"];
  EXPECT_EQ(xla["modules"].get_array().size(), 8u);
  EXPECT_EQ(xla["top_lines"].at(0)["key"].get_string().value(),
            "/workspace/traces/generate_conv_trace.py:23");

  CommandResult text = Tracehound("info " + capture);
  ASSERT_EQ(text.status, 0) << text.out;
  for (const char* section : {"HLO modules of", "kernel -> HLO attribution of",
                              "top Python lines by device time", "top ops by device time"})
    EXPECT_NE(text.out.find(section), std::string::npos) << section << "\n" << text.out;
}

// A capture with memcpy events: `events` and `kernels` of the attribution
// differ by exactly the copies (issue 15 item 6: one name counted both).
TEST(InfoCommand, AttributionCountsEventsAndKernelsApart) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent";
  CommandResult r = Tracehound("info --json " + data +
                               "/tracelens/tests/traces/mi300/jax_conv_minimal_legacy/"
                               "chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb");
  ASSERT_EQ(r.status, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out).value();
  int64_t events = 0, kernels = 0;
  for (const char* cls : {"exact", "name", "order", "none"}) {
    events += doc["attribution"][cls]["events"].get_int64().value();
    kernels += doc["attribution"][cls]["kernels"].get_int64().value();
  }
  const int64_t copies = doc["memcpy"]["count"].get_int64().value();
  ASSERT_GT(copies, 0);
  EXPECT_EQ(kernels, doc["kernels"]["count"].get_int64().value());
  EXPECT_EQ(events, kernels + copies + doc["memset"]["count"].get_int64().value());
}

TEST(InfoCommand, UsageErrorsExitWith2) {
  EXPECT_EQ(Tracehound("").status, 2);
  EXPECT_EQ(Tracehound("info").status, 2);
  EXPECT_EQ(Tracehound("frobnicate").status, 2);
  EXPECT_EQ(Tracehound("--version").status, 0);
}

}  // namespace
}  // namespace th
