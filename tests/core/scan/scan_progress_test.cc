#include "core/scan/scan_progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace th::scan {
namespace {

TEST(ScanProgressTest, PlainLinesOnePerRunThenASummary) {
  std::ostringstream out;
  ScanProgress p(out, false);
  p.Start(3, 3'000'000);
  p.RunDone("jobs/a/rank*", 1'000'000, ScanProgress::Outcome::kScanned, 0.5);
  p.RunDone("jobs/b/rank*", 1'000'000, ScanProgress::Outcome::kSkipped, 0);
  p.RunDone("jobs/c.json", 1'000'000, ScanProgress::Outcome::kFailed, 0.1,
            "jobs/c.json: truncated gzip");
  p.Finish();
  std::string text = out.str();
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_NE(text.find("[1/3] ok 1.0 MB 0.50 s  jobs/a/rank*\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[2/3] skipped (already scanned)  jobs/b/rank*\n"), std::string::npos);
  EXPECT_NE(text.find("[3/3] FAILED jobs/c.json: truncated gzip\n"), std::string::npos);
  EXPECT_NE(text.find("scan: 3 runs, 1 scanned, 1 skipped, 1 failed"), std::string::npos) << text;
}

TEST(ScanProgressTest, OnATerminalOneRedrawnLineWithRateEtaAndFailures) {
  std::ostringstream out;
  ScanProgress p(out, true);
  p.Start(4, 4'000'000);
  p.RunDone("a", 1'000'000, ScanProgress::Outcome::kScanned, 0.1);
  p.RunDone("b", 1'000'000, ScanProgress::Outcome::kFailed, 0.1, "b: corrupt");
  p.Finish();
  std::string text = out.str();
  // Every redraw starts at the line's beginning and clears it.
  EXPECT_NE(text.find("\r\033[K[......"), std::string::npos) << text;
  EXPECT_NE(text.find("\r\033[K[############............] 2/4 runs"), std::string::npos) << text;
  EXPECT_NE(text.find("GB/s  ETA "), std::string::npos);
  EXPECT_NE(text.find("1 failed"), std::string::npos);
  // A failure is printed above the bar, on its own line.
  EXPECT_NE(text.find("\r\033[KFAILED b: corrupt\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("[1/4]"), std::string::npos);
  EXPECT_NE(text.find("\nscan: 2 runs, 1 scanned, 0 skipped, 1 failed"), std::string::npos);
}

}  // namespace
}  // namespace th::scan
