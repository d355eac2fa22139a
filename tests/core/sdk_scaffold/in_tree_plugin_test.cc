#include "core/sdk_scaffold/in_tree_plugin.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;

constexpr const char* kIndex =
    "# plugins/\n\n| id | kind | what |\n| --- | --- | --- |\n"
    "| [`alpha`](alpha/README.md) | analyzer | a |\n"
    "| [`kernel-stats`](kernel-stats/README.md) | analyzer | k |\n"
    "| [`zeta`](zeta/README.md) | detector | z |\n\nMore text.\n";

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(InTreePlugin, TheIndexRowGoesInSortedOrderOnce) {
  auto index = InsertIndexRow(kIndex, "long-kernels", InTreePluginKind::kDetector, "long ones");
  ASSERT_TRUE(index.ok()) << index.status().message();
  EXPECT_EQ(*index,
            "# plugins/\n\n| id | kind | what |\n| --- | --- | --- |\n"
            "| [`alpha`](alpha/README.md) | analyzer | a |\n"
            "| [`kernel-stats`](kernel-stats/README.md) | analyzer | k |\n"
            "| [`long-kernels`](long-kernels/README.md) | detector | long ones |\n"
            "| [`zeta`](zeta/README.md) | detector | z |\n\nMore text.\n");
  auto last = InsertIndexRow(kIndex, "zz", InTreePluginKind::kAnalyzer, "last");
  ASSERT_TRUE(last.ok());
  EXPECT_NE(last->find("| [`zeta`](zeta/README.md) | detector | z |\n| [`zz`](zz/README.md) | "
                       "analyzer | last |\n\nMore text."),
            std::string::npos)
      << *last;
  EXPECT_FALSE(InsertIndexRow(kIndex, "zeta", InTreePluginKind::kAnalyzer, "again").ok());
  EXPECT_FALSE(InsertIndexRow("no table here\n", "x", InTreePluginKind::kAnalyzer, "x").ok());
}

TEST(InTreePlugin, WritesThePluginItsTestAndItsIndexRow) {
  const std::string root = testing::TempDir() + "/in_tree";
  fs::create_directories(root + "/plugins");
  std::ofstream(root + "/plugins/README.md") << kIndex;
  auto written = WriteInTreePlugin("long-kernels", InTreePluginKind::kDetector, root);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->size(), 6u);
  const std::string source = Read(root + "/plugins/long-kernels/long_kernels.cc");
  EXPECT_NE(source.find("class LongKernels final : public th::sdk::Plugin"), std::string::npos);
  EXPECT_NE(source.find("th::sdk::kDetector"), std::string::npos);
  EXPECT_NE(source.find(".TimeLost("), std::string::npos);
  EXPECT_EQ(source.find('@'), std::string::npos) << "a placeholder left: " << source;
  EXPECT_EQ(Read(root + "/plugins/long-kernels/CMakeLists.txt"),
            "th_add_plugin(th_long_kernels long_kernels.cc)\n");
  const std::string test = Read(root + "/tests/plugins/long-kernels/long_kernels_test.cc");
  EXPECT_NE(test.find("TEST(LongKernels, ReportsWhatTheTraceHolds)"), std::string::npos);
  EXPECT_NE(test.find("\"long kernel big\""), std::string::npos);
  EXPECT_EQ(test.find('@'), std::string::npos);
  EXPECT_NE(Read(root + "/tests/plugins/long-kernels/CMakeLists.txt").find("th_long_kernels"),
            std::string::npos);
  EXPECT_NE(Read(root + "/plugins/long-kernels/README.md").find("**Kind:** detector"),
            std::string::npos);
  EXPECT_NE(Read(root + "/plugins/README.md").find("| [`long-kernels`](long-kernels/README.md)"),
            std::string::npos);

  // Once there, it is not written again; a bad id writes nothing.
  EXPECT_FALSE(WriteInTreePlugin("long-kernels", InTreePluginKind::kDetector, root).ok());
  EXPECT_FALSE(WriteInTreePlugin("Bad_Id", InTreePluginKind::kAnalyzer, root).ok());
  EXPECT_FALSE(fs::exists(root + "/plugins/Bad_Id"));
  auto analyzer = WriteInTreePlugin("kernel-time", InTreePluginKind::kAnalyzer, root);
  ASSERT_TRUE(analyzer.ok()) << analyzer.status().message();
  EXPECT_NE(
      Read(root + "/plugins/kernel-time/kernel_time.cc").find(".Publishes(KernelTimeTable())"),
      std::string::npos);
  EXPECT_FALSE(
      WriteInTreePlugin("x", InTreePluginKind::kAnalyzer, testing::TempDir() + "/none").ok());
}

}  // namespace
}  // namespace th
