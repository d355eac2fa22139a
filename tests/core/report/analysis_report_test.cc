// Info findings and skipped traces in the terminal, Markdown and JSON reports,
// byte for byte where a user reads them: an info finding never makes the
// verdict NEEDS_ATTENTION nor names the cause, and comes after the problems.
#include "core/report/analysis_report.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sstream>

namespace th {
namespace {

AnalysisReport Report(bool with_problem) {
  AnalysisReport r;
  r.pipeline = "capture.yaml";
  Finding info;
  info.plugin = "host";
  info.severity = FindingSeverity::kInfo;
  info.title = "rank 0 records CUDA graph capture, not steady-state execution";
  info.what = "6 launch calls were captured into CUDA graphs and never ran in it.";
  info.scope.rank = 0;
  info.evidence.push_back({"captured_launches", 6, "count", NumberKind::kMeasured});
  r.results.findings.push_back(info);
  if (with_problem) {
    Finding p2;
    p2.plugin = "cuda-sync";
    p2.severity = FindingSeverity::kP2;
    p2.title = "synchronous copies";
    r.results.findings.push_back(p2);
  }
  r.results.skips.push_back({"gpu-efficiency", 0, "the trace records CUDA/HIP graph capture"});
  r.plugins.push_back({"gpu-efficiency", "1.0.0", true, "", 0.001});
  r.plugins.push_back({"cuda-sync", "1.0.0", true, "", 0.002});
  return r;
}

// An info finding says what a trace is, and the one detector skipped it: no
// problem, but nothing was assessed either (issue 15 item 5), never OPTIMAL.
TEST(AnalysisReport, InfoOnlyIsNotAssessedAndListsTheSkip) {
  AnalysisReport r = Report(false);
  EXPECT_EQ(Verdict(r), "NOT_ASSESSED");
  std::ostringstream terminal;
  WriteReportTerminal(r, terminal);
  EXPECT_EQ(terminal.str(),
            "verdict: NOT_ASSESSED\n"
            " info host  rank 0 records CUDA graph capture, not steady-state execution: 6 launch "
            "calls were captured into CUDA graphs and never ran in it.\n"
            " plugin gpu-efficiency skipped rank 0: the trace records CUDA/HIP graph capture\n"
            "time: import 0.000 s · kernel classes and catalogs 0.000 s · plugins (2, 0.003 s "
            "summed) 0.000 s\n"
            "trust: no defects found\n");

  std::ostringstream md;
  WriteReportMarkdown(r, md);
  const std::string m = md.str();
  EXPECT_EQ(m.find("**Cause:**"), std::string::npos) << m;  // info is no cause
  EXPECT_NE(m.find("### info · host · rank 0 records CUDA graph capture, not steady-state "
                   "execution\n\n6 launch calls were captured into CUDA graphs and never ran in "
                   "it.\n\nScope: rank 0.\n\n| evidence | value | kind |\n| --- | --- | --- |\n| "
                   "captured_launches | 6 | measured |\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("| gpu-efficiency | 1.0.0 | ok; skipped rank 0: the trace records CUDA/HIP "
                   "graph capture | 0.001 s |\n"),
            std::string::npos)
      << m;

  std::ostringstream json;
  WriteReportJson(r, json);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.str()).get(doc), simdjson::SUCCESS) << json.str();
  EXPECT_EQ(std::string_view(doc["verdict"]), "NOT_ASSESSED");
  EXPECT_EQ(std::string_view(doc["findings"].at(0)["severity"]), "info");
  simdjson::dom::array skipped = doc["plugins"]["gpu-efficiency"]["skipped"];
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(int64_t(skipped.at(0)["rank"]), 0);
  EXPECT_EQ(std::string_view(skipped.at(0)["reason"]), "the trace records CUDA/HIP graph capture");
  EXPECT_EQ(simdjson::dom::array(doc["plugins"]["cuda-sync"]["skipped"]).size(), 0u);
}

TEST(AnalysisReport, ProblemsComeFirstAndNameTheCause) {
  AnalysisReport r = Report(true);
  EXPECT_EQ(Verdict(r), "NEEDS_ATTENTION");
  std::ostringstream terminal;
  WriteReportTerminal(r, terminal);
  EXPECT_EQ(terminal.str(),
            "verdict: NEEDS_ATTENTION\n"
            " P2 cuda-sync  synchronous copies\n"
            " info host  rank 0 records CUDA graph capture, not steady-state execution: 6 launch "
            "calls were captured into CUDA graphs and never ran in it.\n"
            " plugin gpu-efficiency skipped rank 0: the trace records CUDA/HIP graph capture\n"
            "time: import 0.000 s · kernel classes and catalogs 0.000 s · plugins (2, 0.003 s "
            "summed) 0.000 s\n"
            "trust: no defects found\n");
  std::ostringstream md;
  WriteReportMarkdown(r, md);
  EXPECT_NE(md.str().find("**Cause:** P2 · cuda-sync · synchronous copies"), std::string::npos);
}

TEST(AnalysisReport, SeverityLabels) {
  EXPECT_EQ(SeverityLabel(FindingSeverity::kP0), "P0");
  EXPECT_EQ(SeverityLabel(FindingSeverity::kP2), "P2");
  EXPECT_EQ(SeverityLabel(FindingSeverity::kInfo), "info");
  EXPECT_TRUE(IsProblem(FindingSeverity::kP2));
  EXPECT_FALSE(IsProblem(FindingSeverity::kInfo));
}

}  // namespace
}  // namespace th
