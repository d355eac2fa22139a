// Where the findings lane places a finding (FindingsJson): its own range,
// else the span of its steps, else the span of its device's (or stream's)
// events, else the whole run; times relative to the run.
#include "core/serve/serve_findings.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/support/test_files.h"

namespace th::serve {
namespace {

std::unique_ptr<ServeRun> LoadPlaces() {
  const std::string path = th::testing::WriteTempFile("serve_findings.json", R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":200},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":300,"dur":250},
{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":150,"dur":30,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":400,"dur":60,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"c","pid":0,"tid":8,"ts":120,"dur":10,"args":{"device":0,"stream":8}},
{"ph":"X","cat":"kernel","name":"d","pid":0,"tid":9,"ts":500,"dur":90,"args":{"device":1,"stream":9}}]})");
  auto run = std::make_unique<ServeRun>(path, "places");
  std::string note;
  Status s = LoadServeRun(run.get(), {}, &note);
  EXPECT_TRUE(s.ok()) << s.message();
  return run;
}

TEST(ServeFindingsTest, EachFindingGetsThePlaceItsScopeGives) {
  auto run = LoadPlaces();
  const int64_t o = run->origin_ns();  // 100 µs
  std::vector<Finding> f(6);
  f[0].range = std::pair{o + 5000, o + 7000};
  f[1].scope.step_first = 2;
  f[2].scope.step_first = 1;
  f[2].scope.step_last = 2;
  f[3].scope.device = 0;
  f[3].scope.stream = 7;
  f[4].scope.device = 0;
  f[5].title = "whole";
  for (size_t k = 0; k < f.size(); ++k) f[k].severity = FindingSeverity::kP1;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const std::string json = FindingsJson(*run, f);
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  struct Want {
    int64_t t0, t1;
    std::string_view place;
  };
  const std::vector<Want> want = {
      {5000, 7000, "range"},    {200000, 450000, "steps"}, {0, 450000, "steps"},
      {50000, 360000, "scope"}, {20000, 360000, "scope"},  {0, run->end_rel_ns(), "run"},
  };
  size_t k = 0;
  for (simdjson::dom::element x : doc["findings"].get_array()) {
    EXPECT_EQ(int64_t(x["start_ns"]), want[k].t0) << k;
    EXPECT_EQ(int64_t(x["end_ns"]), want[k].t1) << k;
    EXPECT_EQ(std::string_view(x["place"]), want[k].place) << k;
    EXPECT_EQ(std::string_view(x["severity"]), "P1");
    ++k;
  }
  EXPECT_EQ(k, f.size());
  EXPECT_EQ(run->end_rel_ns(), 490000);
}

}  // namespace
}  // namespace th::serve
