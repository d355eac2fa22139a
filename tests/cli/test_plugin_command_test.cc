// `tracehound test-plugin LIB.so --trace FILE [--golden G.json] [--update]`:
// a plugin library run through the real host on a trace file, its results
// compared with a golden file as canonical JSON bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Tracehound;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class TestPluginCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir() + "/test-plugin-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // gemm runs 2 ms, above long-kernels' default threshold (1000 µs); relu does not.
    trace_ = dir_ + "/trace.json";
    std::ofstream(trace_) << R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 2000},
      {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 2100, "dur": 5}]})";
    golden_ = dir_ + "/long_kernels.golden.json";
  }
  std::string Args(const std::string& extra) const {
    return "test-plugin " + kLibrary + " --trace " + trace_ + " " + extra;
  }

  const std::string kLibrary = TEST_PLUGIN_DIR "/long_kernels/long_kernels.so";
  std::string dir_, trace_, golden_;
};

TEST_F(TestPluginCommand, UpdateWritesTheGoldenFileAndTheNextRunMatchesIt) {
  CommandResult update = Tracehound(Args("--golden " + golden_ + " --update"));
  ASSERT_EQ(update.status, 0) << update.out;
  EXPECT_TRUE(Contains(update.out, "wrote " + golden_ + ": 1 finding(s), ")) << update.out;
  const std::string golden = testing::ReadFile(golden_);
  EXPECT_EQ(golden.rfind("{\n  \"findings\": [\n    {\n      \"plugin\": \"long-kernels\",\n"
                         "      \"severity\": \"P2\",\n      \"title\": \"long kernel gemm\",\n",
                         0),
            0u)
      << golden;
  EXPECT_TRUE(Contains(golden, "\"time_lost_ns\": 2000000,")) << golden;
  EXPECT_FALSE(Contains(golden, "long kernel relu")) << golden;

  CommandResult again = Tracehound(Args("--golden " + golden_));
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(Contains(again.out, "match: " + golden_ + ": 1 finding(s), ")) << again.out;
  EXPECT_EQ(testing::ReadFile(golden_), golden) << "a match leaves the golden file alone";

  // Without --golden the canonical JSON goes to stdout, the same bytes.
  CommandResult printed =
      testing::Shell("(" + std::string(TRACEHOUND_BINARY) + " " + Args("") + " 2>/dev/null)");
  EXPECT_EQ(printed.status, 0);
  EXPECT_EQ(printed.out, golden);
}

TEST_F(TestPluginCommand, AMismatchExitsOneWithADiffSummary) {
  ASSERT_EQ(Tracehound(Args("--golden " + golden_ + " --update")).status, 0);
  std::string golden = testing::ReadFile(golden_);
  const std::string title = "\"title\": \"long kernel gemm\"";
  ASSERT_TRUE(Contains(golden, title));
  golden.replace(golden.find(title), title.size(), "\"title\": \"long kernel gemv\"");
  std::ofstream(golden_, std::ios::binary | std::ios::trunc) << golden;

  CommandResult r = Tracehound(Args("--golden " + golden_));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(Contains(r.out, "mismatch: long-kernels on " + trace_ + " differs from " + golden_))
      << r.out;
  EXPECT_TRUE(Contains(r.out,
                       "first difference at line 6:\n"
                       "  expected:       \"title\": \"long kernel gemv\",\n"
                       "  actual:         \"title\": \"long kernel gemm\",\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "1 line(s) only expected, 1 only actual\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "-       \"title\": \"long kernel gemv\",\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "+       \"title\": \"long kernel gemm\",\n")) << r.out;
  EXPECT_EQ(testing::ReadFile(golden_), golden) << "a mismatch leaves the golden file alone";
}

TEST_F(TestPluginCommand, BadInputExitsTwo) {
  CommandResult no_golden = Tracehound(Args("--golden " + dir_ + "/absent.json"));
  EXPECT_EQ(no_golden.status, 2) << no_golden.out;
  EXPECT_TRUE(Contains(no_golden.out, "cannot read the golden file (write it with --update)"))
      << no_golden.out;

  CommandResult no_library =
      Tracehound("test-plugin " + dir_ + "/absent.so --trace " + trace_ + " --golden " + golden_);
  EXPECT_EQ(no_library.status, 2) << no_library.out;

  CommandResult no_trace =
      Tracehound("test-plugin " + kLibrary + " --trace " + dir_ + "/absent.json");
  EXPECT_EQ(no_trace.status, 2) << no_trace.out;

  CommandResult update_alone = Tracehound(Args("--update"));
  EXPECT_EQ(update_alone.status, 2) << update_alone.out;
  EXPECT_TRUE(Contains(update_alone.out, "--update needs --golden FILE")) << update_alone.out;
  EXPECT_FALSE(fs::exists(golden_));
}

}  // namespace
}  // namespace th
