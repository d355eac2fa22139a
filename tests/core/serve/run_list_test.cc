// The run browser's list (GET /api/v1/runs): the server's sort, filter and
// paging, checked on the bytes of the answer; bad parameters are 400 naming
// them; path tags and the lower median.
#include "core/serve/run_list.h"

#include <gtest/gtest.h>

#include "core/serve/serve_runs_api.h"

namespace th::serve {
namespace {

std::vector<RunSummary> ThreeRuns() {
  std::vector<RunSummary> s(3);
  s[0].name = "a";
  s[0].location = "root/exp1/job1/rank*";
  s[0].host = "h1";
  s[0].time_ns = 300;
  s[0].ranks = 4;
  s[0].verdict = "NEEDS_ATTENTION";
  s[0].findings = 2;
  s[0].top = TopFinding{0, "stragglers", "rank 3 arrives last"};
  s[0].steps = 10;
  s[0].step_p50_ns = 500;
  s[0].step_min_ns = 400;
  s[0].step_max_ns = 900;
  s[1].name = "b";
  s[1].location = "root/exp1/job2/rank*";
  s[1].host = "h2";
  s[1].family = "f8";
  s[1].time_ns = 100;
  s[1].ranks = 8;
  s[1].verdict = "OPTIMAL";
  s[1].findings = 0;
  s[1].steps = 3;
  s[1].step_p50_ns = 300;
  s[1].step_min_ns = 300;
  s[1].step_max_ns = 310;
  s[2].name = "c";
  s[2].location = "root/exp2/*.xplane.pb";
  auto tags = PathTags({s[0].location, s[1].location, s[2].location});
  for (size_t k = 0; k < 3; ++k) {
    s[k].tags = tags[k];
    s[k].source = "database";
  }
  return s;
}

struct Fixture {
  Runs runs;
  std::vector<RunSummary> summaries = ThreeRuns();
  Fixture() {
    for (const RunSummary& s : summaries) runs.push_back(std::make_unique<ServeRun>("x", s.name));
  }
  ApiResponse Ask(QueryParams params) const { return RunsResponse(runs, summaries, params); }
  // The run numbers of the answer, in its order, and its total.
  std::string Order(QueryParams params) const {
    ApiResponse r = Ask(std::move(params));
    if (r.status != 200) return "status " + std::to_string(r.status) + ": " + r.body;
    std::string order;
    for (size_t at = 0; (at = r.body.find("{\"run\":", at)) != std::string::npos; ++at)
      order += r.body.substr(at + 7, r.body.find(',', at) - at - 7) + " ";
    return order + "total " + r.body.substr(r.body.find("\"total\":") + 8);
  }
};

TEST(RunListTest, AnswersEveryRunWithItsSummaryByDefault) {
  Fixture f;
  ApiResponse r = f.Ask({{"sort", "-ranks"}, {"limit", "1"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body,
            R"({"runs":[{"run":1,"name":"b","events":0,"origin_ns":"0","end_ns":0,)"
            R"("content_key":"","ready":false,"overview_ready":false,"error":null,)"
            R"("location":"root/exp1/job2/rank*","host":"h2","family":"f8","time_ns":"100",)"
            R"("time_kind":null,)"
            R"("ranks":8,"verdict":"OPTIMAL","findings":0,"top_finding":null,"steps":3,)"
            R"("step_p50_ns":300,"step_min_ns":300,"step_max_ns":310,"tags":["exp1","job2"],)"
            R"("source":"database"}],"total":3,"offset":0})");
  ApiResponse top = f.Ask({{"q", "stragglers"}});
  EXPECT_NE(top.body.find(R"("top_finding":{"severity":"P0","plugin":"stragglers",)"
                          R"("title":"rank 3 arrives last"})"),
            std::string::npos)
      << top.body;
}

TEST(RunListTest, SortsWithMissingValuesLastEitherWay) {
  Fixture f;
  EXPECT_EQ(f.Order({}), "0 1 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "-run"}}), "2 1 0 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "time"}}), "1 0 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "-time"}}), "0 1 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "step_p50"}}), "1 0 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "-step_range"}}), "0 1 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "step_range"}}), "1 0 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "verdict"}}), "0 1 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "-name"}}), "2 1 0 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "-host"}}), "1 0 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "-findings"}}), "0 1 2 total 3,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "severity"}}), "0 1 2 total 3,\"offset\":0}");
}

TEST(RunListTest, FiltersAndPages) {
  Fixture f;
  EXPECT_EQ(f.Order({{"q", "STRAG"}}), "0 total 1,\"offset\":0}");
  EXPECT_EQ(f.Order({{"q", "xplane"}}), "2 total 1,\"offset\":0}");
  EXPECT_EQ(f.Order({{"tag", "exp1"}}), "0 1 total 2,\"offset\":0}");
  EXPECT_EQ(f.Order({{"tag", "exp1"}, {"tag", "job2"}}), "1 total 1,\"offset\":0}");
  EXPECT_EQ(f.Order({{"verdict", "OPTIMAL"}}), "1 total 1,\"offset\":0}");
  EXPECT_EQ(f.Order({{"host", "h1"}}), "0 total 1,\"offset\":0}");
  EXPECT_EQ(f.Order({{"family", "f8"}}), "1 total 1,\"offset\":0}");
  EXPECT_EQ(f.Order({{"q", "nothing like it"}}), "total 0,\"offset\":0}");
  EXPECT_EQ(f.Order({{"sort", "-ranks"}, {"offset", "1"}, {"limit", "1"}}),
            "0 total 3,\"offset\":1}");
  EXPECT_EQ(f.Order({{"offset", "7"}}), "total 3,\"offset\":3}");
  EXPECT_EQ(f.Order({{"limit", "0"}}), "total 3,\"offset\":0}");
}

TEST(RunListTest, RefusesBadParametersNamingThem) {
  Fixture f;
  struct Bad {
    QueryParams params;
    std::string starts;
  };
  const std::vector<Bad> bad = {
      {{{"sort", "speed"}}, R"({"error":"sort: one of run, name)"},
      {{{"sort", "time"}, {"sort", "name"}}, R"({"error":"sort: given more than once)"},
      {{{"limit", "-1"}}, R"({"error":"limit)"},
      {{{"offset", "x"}}, R"({"error":"offset)"},
      {{{"q", std::string(300, 'a')}}, R"({"error":"q: longer than 256 bytes)"},
      {{{"tag", "\xff"}}, R"({"error":"tag: not valid UTF-8)"},
  };
  for (const Bad& b : bad) {
    ApiResponse r = f.Ask(b.params);
    EXPECT_EQ(r.status, 400) << b.starts;
    EXPECT_EQ(r.body.rfind(b.starts, 0), 0u) << r.body;
  }
}

TEST(RunListTest, TagsAreTheFoldersUnderTheSharedRoot) {
  using V = std::vector<std::vector<std::string>>;
  EXPECT_EQ(PathTags({"/data/a/x/rank*", "/data/b/y.json", "/data/b/z.json"}),
            (V{{"a", "x"}, {"b"}, {"b"}}));
  EXPECT_EQ(PathTags({"/data/job7/rank*"}), (V{{"job7"}}));
  EXPECT_EQ(PathTags({"t.json", "u.json"}), (V{{}, {}}));
}

TEST(RunListTest, LowerMedian) {
  EXPECT_EQ(LowerMedian({}), 0);
  EXPECT_EQ(LowerMedian({5}), 5);
  EXPECT_EQ(LowerMedian({9, 1}), 1);
  EXPECT_EQ(LowerMedian({4, 3, 1, 2}), 2);
  EXPECT_EQ(LowerMedian({5, 1, 3}), 3);
}

}  // namespace
}  // namespace th::serve
