#include "core/report/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(WriteOutput, NewPathAndRegularFileAreReplacedWhole) {
  std::string path = testing::TempDir() + "/report.md";
  ASSERT_TRUE(WriteOutput(path, "first").ok());
  EXPECT_EQ(Slurp(path), "first");
  ASSERT_TRUE(WriteOutput(path, "second, longer").ok());
  EXPECT_EQ(Slurp(path), "second, longer");
  for (const auto& e : fs::directory_iterator(testing::TempDir()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(WriteOutput, ALinkToAFileStaysALink) {
  std::string target = testing::TempDir() + "/real.json";
  std::string link = testing::TempDir() + "/link.json";
  ASSERT_TRUE(WriteOutput(target, "old").ok());
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  ASSERT_TRUE(WriteOutput(link, "new").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Slurp(target), "new");
}

// Issue 15 item 7: -o /dev/null as root renamed a regular file over the node.
TEST(WriteOutput, ADeviceNodeIsWrittenInPlaceNotReplaced) {
  std::string node = testing::TempDir() + "/null";
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here (not root?)";
  ASSERT_TRUE(WriteOutput(node, "discarded").ok());
  struct stat st {};
  ASSERT_EQ(::stat(node.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the node was replaced by a regular file";
  EXPECT_EQ(major(st.st_rdev), 1u);
  EXPECT_EQ(minor(st.st_rdev), 3u);
}

TEST(WriteOutput, AFifoIsWrittenInPlace) {
  std::string fifo = testing::TempDir() + "/report.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = Slurp(fifo); });
  Status s = WriteOutput(fifo, "through the pipe");
  reader.join();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(got, "through the pipe");
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(WriteOutput, ADirectoryIsAnError) {
  Status s = WriteOutput(testing::TempDir(), "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace th
