#include "core/import/common/byte_source.h"

#include <gtest/gtest.h>

#include <random>

#include "core/import/common/archive_reader.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

std::string RandomText(size_t n) {
  std::mt19937 rng(1);
  std::string s(n, ' ');
  for (auto& c : s) c = "abcdefgh{}[]\",: \n0123456789"[rng() % 28];
  return s;
}

StatusOr<std::string> Decode(const std::string& stored) {
  auto src = OpenDecoded(MakeMemorySource("mem.gz", stored));
  if (!src.ok()) return src.status();
  return ReadAll(**src);
}

TEST(OpenDecoded, PlainPassesThrough) {
  Compression c;
  auto src = OpenDecoded(MakeMemorySource("plain", "{\"x\": 1}"), &c);
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(c, Compression::kNone);
  EXPECT_EQ(ReadAll(**src).value(), "{\"x\": 1}");
}

TEST(OpenDecoded, GunzipsLargeAndMultiMemberStreams) {
  std::string a = RandomText(5 << 20), b = RandomText(1000);
  auto out = Decode(testing::Gzip(a) + testing::Gzip(b));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out.value(), a + b);
}

TEST(OpenDecoded, TruncatedGzipIsAnErrorNamingTheOffset) {
  std::string gz = testing::Gzip(RandomText(200000));
  std::string cut = gz.substr(0, gz.size() / 2);
  auto out = Decode(cut);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("mem.gz: truncated gzip stream"), std::string::npos)
      << out.status().message();
  EXPECT_NE(out.status().message().find("compressed offset " + std::to_string(cut.size())),
            std::string::npos)
      << out.status().message();
  // Cut inside the 8-byte trailer: still truncated.
  EXPECT_FALSE(Decode(gz.substr(0, gz.size() - 3)).ok());
}

TEST(OpenDecoded, TruncatedGzipCanBeKeptUpToTheCut) {
  std::string text = RandomText(200000);
  std::string gz = testing::Gzip(text);
  auto src = OpenDecoded(MakeMemorySource("mem.gz", gz.substr(0, gz.size() / 2)), nullptr, true);
  ASSERT_TRUE(src.ok());
  auto out = ReadAll(**src);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_GT(out->size(), 0u);
  EXPECT_LT(out->size(), text.size());
  EXPECT_EQ(*out, text.substr(0, out->size()));
  EXPECT_NE((*src)->truncation().find("truncated gzip stream"), std::string::npos);
}

TEST(OpenDecoded, CorruptGzipIsAnError) {
  std::string gz = testing::Gzip(RandomText(100000));
  for (size_t i = 20; i < 60; ++i) gz[i] = static_cast<char>(~gz[i]);
  auto out = Decode(gz);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("mem.gz"), std::string::npos);
}

// A small gzip stream is decoded whole on the first MutableMapping call and
// mapped (the JSON reader then parses in place); reads after it are at the end.
TEST(OpenDecoded, SmallGzipIsMappedWhole) {
  const std::string a = RandomText(300000), b = RandomText(1000);
  auto src = OpenDecoded(MakeMemorySource("mem.gz", testing::Gzip(a) + testing::Gzip(b)));
  ASSERT_TRUE(src.ok());
  size_t size = 0;
  const char* mapped = (*src)->MutableMapping(&size);
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(std::string(mapped, size), a + b);
  EXPECT_EQ(ReadAll(**src).value(), "");
  EXPECT_EQ((*src)->MutableMapping(&size), mapped);
}

// Over 64 MiB decoded: no mapping, and the reads give everything (what the
// mapping attempt decoded first, then the rest of the stream).
TEST(OpenDecoded, LargeGzipStaysAStream) {
  std::string text((65 << 20) + 12345, 'a');
  for (size_t i = 0; i < text.size(); i += 4093) text[i] = static_cast<char>('b' + i % 7);
  auto src = OpenDecoded(MakeMemorySource("mem.gz", testing::Gzip(text)));
  ASSERT_TRUE(src.ok());
  size_t size = 0;
  EXPECT_EQ((*src)->MutableMapping(&size), nullptr);
  auto out = ReadAll(**src);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(*out == text);
}

TEST(OpenDecoded, CorruptGzipIsNotMappedAndReadsFail) {
  std::string gz = testing::Gzip(RandomText(100000));
  for (size_t i = 20; i < 60; ++i) gz[i] = static_cast<char>(~gz[i]);
  auto src = OpenDecoded(MakeMemorySource("mem.gz", gz));
  ASSERT_TRUE(src.ok());
  size_t size = 0;
  EXPECT_EQ((*src)->MutableMapping(&size), nullptr);
  auto out = ReadAll(**src);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("mem.gz: corrupt gzip data"), std::string::npos)
      << out.status().message();
}

TEST(OpenDecoded, TruncatedGzipKeptIsMappedUpToTheCut) {
  const std::string text = RandomText(200000);
  const std::string gz = testing::Gzip(text);
  auto src = OpenDecoded(MakeMemorySource("mem.gz", gz.substr(0, gz.size() / 2)), nullptr, true);
  ASSERT_TRUE(src.ok());
  size_t size = 0;
  const char* mapped = (*src)->MutableMapping(&size);
  ASSERT_NE(mapped, nullptr);
  EXPECT_GT(size, 0u);
  EXPECT_LT(size, text.size());
  EXPECT_EQ(std::string(mapped, size), text.substr(0, size));
  EXPECT_NE((*src)->truncation().find("truncated gzip stream"), std::string::npos);
}

TEST(OpenFileSource, MissingFile) {
  auto src = OpenFileSource("/nonexistent/trace.json");
  ASSERT_FALSE(src.ok());
  EXPECT_NE(src.status().message().find("/nonexistent/trace.json"), std::string::npos);
}

TEST(Archive, NotAnArchive) {
  std::string p = testing::WriteTempFile("plain.json", "{\"traceEvents\": []}");
  EXPECT_FALSE(IsArchive(p));
}

}  // namespace
}  // namespace th
