#include "core/graph/file_hash.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/graph/xxh128_hex.h"

namespace th {
namespace {

std::string TempPath(const char* name) {
  return (std::filesystem::temp_directory_path() /
          (std::string(name) + "." + std::to_string(::getpid())))
      .string();
}

// Bytes spanning several 1 MiB read blocks, with a ragged tail.
std::string Pattern(size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 131 + i / 7) & 0xFF);
  return bytes;
}

TEST(UpdateHashWithFile, EqualsTheOneShotHashOfTheBytesAcrossBlocks) {
  const std::string path = TempPath("file_hash_blocks");
  const std::string bytes = Pattern((3 << 20) + 12345);
  std::ofstream(path, std::ios::binary) << bytes;
  Xxh3State state = NewXxh3State();
  uint64_t size = 0;
  ASSERT_TRUE(UpdateHashWithFile(path, state.get(), &size).ok());
  EXPECT_EQ(size, bytes.size());
  EXPECT_EQ(Xxh128Hex(XXH3_128bits_digest(state.get())),
            Xxh128Hex(XXH3_128bits(bytes.data(), bytes.size())));
  std::remove(path.c_str());
}

TEST(UpdateHashWithFile, AnEmptyFileAddsNothing) {
  const std::string path = TempPath("file_hash_empty");
  std::ofstream(path, std::ios::binary).flush();
  Xxh3State state = NewXxh3State();
  uint64_t size = 99;
  ASSERT_TRUE(UpdateHashWithFile(path, state.get(), &size).ok());
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(Xxh128Hex(XXH3_128bits_digest(state.get())), Xxh128Hex(XXH3_128bits("", 0)));
  std::remove(path.c_str());
}

TEST(UpdateHashWithFile, AMissingFileIsAnErrorNamingIt) {
  Xxh3State state = NewXxh3State();
  const Status s = UpdateHashWithFile("/nonexistent/trace.json", state.get(), nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/trace.json: cannot open"), std::string::npos);
}

}  // namespace
}  // namespace th
