#include "core/scan/content_hash.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/support/test_files.h"

namespace th::scan {
namespace {

// The reference: xxhsum -H2 (XXH128) from Debian's xxhash, when installed.
std::string Xxhsum128(const std::string& path) {
  std::string cmd = "xxhsum -H2 '" + path + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  char buf[256] = {};
  std::string out = fgets(buf, sizeof buf, p) ? buf : "";
  pclose(p);
  return out.substr(0, out.find(' '));
}

TEST(ContentHashTest, FileHashIsXxh3Of128BitsOverTheBytes) {
  std::string bytes(3 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 % 251);
  std::string path = th::testing::WriteTempFile("hash/blob.bin", bytes);
  auto h = HashFile(path);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->size(), 32u);
  EXPECT_EQ(*h, HashBytes(bytes));  // streamed in blocks = one shot
  bytes[bytes.size() - 1] ^= 1;
  EXPECT_NE(*h, HashBytes(bytes));
  std::string reference = Xxhsum128(path);
  if (reference.empty()) GTEST_SKIP() << "xxhsum not installed (Debian package xxhash)";
  EXPECT_EQ(*h, reference);
}

TEST(ContentHashTest, UnreadableFileIsNamed) {
  auto h = HashFile(th::testing::TempDir() + "/no-such-file");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("no-such-file"), std::string::npos);
}

TEST(ContentHashTest, RunHashCoversNamesAndOrder) {
  std::string a = HashBytes("a"), b = HashBytes("b");
  auto h = CombineFileHashes({{"rank0.json", a}, {"rank1.json", b}});
  EXPECT_EQ(h, CombineFileHashes({{"rank0.json", a}, {"rank1.json", b}}));
  EXPECT_NE(h, CombineFileHashes({{"rank0.json", b}, {"rank1.json", a}}));
  EXPECT_NE(h, CombineFileHashes({{"rank0.json", a}, {"rank2.json", b}}));
  EXPECT_NE(h, CombineFileHashes({{"rank0.json", a}}));
}

}  // namespace
}  // namespace th::scan
