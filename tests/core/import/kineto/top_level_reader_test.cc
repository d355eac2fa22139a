#include "core/import/kineto/top_level_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/import/kineto/kineto_importer.h"

namespace th::kineto {
namespace {

// A streamed input (no mapping) of `head`, then `spaces` bytes of whitespace
// made on the fly, then `tail`: gigabytes of it cost no memory here.
class SpacedSource final : public ByteSource {
 public:
  SpacedSource(std::string head, uint64_t spaces, std::string tail)
      : head_(std::move(head)), spaces_(spaces), tail_(std::move(tail)) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    size_t done = 0;
    while (done < n) {
      uint64_t total = head_.size() + spaces_ + tail_.size();
      if (pos_ >= total) break;
      size_t take;
      if (pos_ < head_.size()) {
        take = std::min<uint64_t>(n - done, head_.size() - pos_);
        std::memcpy(buf + done, head_.data() + pos_, take);
      } else if (pos_ < head_.size() + spaces_) {
        take = std::min<uint64_t>(n - done, head_.size() + spaces_ - pos_);
        std::memset(buf + done, pos_ % 4096 == 0 ? '\n' : ' ', take);
      } else {
        uint64_t at = pos_ - head_.size() - spaces_;
        take = std::min<uint64_t>(n - done, tail_.size() - at);
        std::memcpy(buf + done, tail_.data() + at, take);
      }
      done += take;
      pos_ += take;
    }
    return done;
  }
  const std::string& name() const override { return name_; }
  uint64_t stored_bytes_read() const override { return pos_; }
  uint64_t stored_size() const override { return head_.size() + spaces_ + tail_.size(); }

 private:
  std::string name_ = "spaced.json";
  std::string head_;
  uint64_t spaces_;
  std::string tail_;
  uint64_t pos_ = 0;
};

const char kEvent[] = R"({"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":2})";

// Hardening issue, Part A item 9: 1 GiB of whitespace inside traceEvents (a
// 1 MB .gz) was held whole in the text window (3.2 GB of memory). The window
// now drops whitespace between elements; without that, 300 MiB of it exceed
// the 256 MiB a single value may take and the import fails.
TEST(TopLevelReader, WhitespaceBetweenEventsIsNotHeld) {
  for (const char* separator : {",", ""}) {
    std::string head = std::string(R"({"traceEvents":[)") + kEvent + separator;
    std::string tail = std::string(*separator ? "" : ",") + kEvent + "]}";
    SpacedSource src(head, uint64_t{300} << 20, tail);
    ImportOptions options;
    auto t = ImportKinetoJson(src, options);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ((*t)->graph.events.size(), 2u);
    EXPECT_TRUE((*t)->trust.empty());
  }
}

TEST(TopLevelReader, AHugeSingleValueIsRefusedWithItsOffset) {
  // 300 MiB of whitespace inside one event is one value larger than 256 MiB.
  std::string head = R"({"traceEvents":[{"ph":"X",)";
  SpacedSource src(head, uint64_t{300} << 20, R"("name":"k"}]})");
  ImportOptions options;
  auto t = ImportKinetoJson(src, options);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("spaced.json: a single JSON value larger than 256 MiB"),
            std::string::npos)
      << t.status().message();
}

// The window starts at two chunks and is not zero-filled; a value longer than
// it makes it grow (copying what it holds) until the value fits, byte for
// byte: a top-level value before traceEvents and an event, each 3 MiB.
TEST(TopLevelReader, ValuesLargerThanTheWindowAreReadWhole) {
  std::string name(size_t{3} << 20, 'n');
  for (size_t i = 0; i < name.size(); i += 4099) name[i] = static_cast<char>('a' + i % 26);
  std::string head = R"({"big":")" + name + R"(","traceEvents":[{"ph":"X","name":")" + name +
                     R"(","pid":1,"tid":1,"ts":1,"dur":2},)" + kEvent + "]}";
  SpacedSource src(head, 0, "");
  ImportOptions options;
  options.chunk_bytes = 4096;
  auto t = ImportKinetoJson(src, options);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const EventGraph& g = (*t)->graph;
  ASSERT_EQ(g.events.size(), 2u);
  EXPECT_TRUE(g.strings.Get(g.events.name[0]) == name);
  EXPECT_EQ(g.strings.Get(g.events.name[1]), "k");
  EXPECT_TRUE((*t)->info.metadata.at("big") == "\"" + name.substr(0, 4095) + "...");
}

TEST(TopLevelReader, TwoCommasBetweenEventsAreStillAnError) {
  std::string head = std::string(R"({"traceEvents":[)") + kEvent + ",";
  SpacedSource src(head, uint64_t{1} << 20, std::string(",") + kEvent + "]}");
  ImportOptions options;
  auto t = ImportKinetoJson(src, options);
  EXPECT_FALSE(t.ok());
}

}  // namespace
}  // namespace th::kineto
