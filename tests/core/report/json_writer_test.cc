#include "core/report/json_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

namespace th {
namespace {

// The writer gathers its text and writes it in pieces: what reaches the
// stream, across several 64 KiB pieces, is the same text in the same order.
TEST(JsonWriter, LongOutputReachesTheStreamWholeAndInOrder) {
  std::ostringstream out;
  std::string expected = "{\"ints\":[";
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Key("ints").BeginArray();
    for (int64_t i = -20000; i < 20000; ++i) {
      w.Int(i * 7919);
      expected += (i == -20000 ? "" : ",") + std::to_string(i * 7919);
    }
    w.EndArray().Field("s", "a\"b").EndObject();
    expected += "],\"s\":\"a\\\"b\"}";
  }
  EXPECT_GT(expected.size(), size_t{3} << 16);
  EXPECT_EQ(out.str(), expected);
}

// Integers are written as the stream wrote them: every int64_t, no grouping.
TEST(JsonWriter, IntegersAtTheLimits) {
  std::ostringstream out, reference;
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  reference << "[" << lo << ", " << hi << ", " << 0 << "]";
  {
    JsonWriter w(out, JsonStyle::kOneLine);
    w.BeginArray().Int(lo).Int(hi).Int(0).EndArray();
  }
  EXPECT_EQ(out.str(), reference.str());
}

// Pretty output ends with a newline, written with the rest when the writer goes.
TEST(JsonWriter, PrettyEndsWithANewline) {
  std::ostringstream out;
  {
    JsonWriter w(out);
    w.BeginObject().Field("a", int64_t{1}).Key("b").BeginArray().Null().Bool(true).EndArray();
    w.EndObject();
  }
  EXPECT_EQ(out.str(), "{\n  \"a\": 1,\n  \"b\": [\n    null,\n    true\n  ]\n}\n");
}

}  // namespace
}  // namespace th
