#include "core/import/kineto/object_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace th::kineto {
namespace {

namespace ondemand = simdjson::ondemand;

// Which handler ran, with the key it was given.
struct Calls {
  std::vector<std::string> seen;
};

constexpr auto kRecord = [](std::string_view key, Calls* calls) {
  calls->seen.push_back(std::string(key));
};

constexpr KeyHandlers kKeys{
    On<"name">(kRecord),
    On<"nelems">(kRecord),
    On<"names">(kRecord),
    On<"id">(kRecord),
};

bool Dispatch(const char* raw_key, Calls* calls) { return kKeys.Dispatch(raw_key, calls); }

TEST(KeyHandlers, CallsTheHandlerOfTheExactKeyAmongKeysSharingAFirstByte) {
  Calls calls;
  EXPECT_TRUE(Dispatch("name\":1", &calls));
  EXPECT_TRUE(Dispatch("names\":1", &calls));
  EXPECT_TRUE(Dispatch("nelems\":1", &calls));
  EXPECT_TRUE(Dispatch("id\":1", &calls));
  EXPECT_EQ(calls.seen, (std::vector<std::string>{"name", "names", "nelems", "id"}));
}

TEST(KeyHandlers, RefusesPrefixesLongerKeysAndUnknownFirstBytes) {
  Calls calls;
  EXPECT_FALSE(Dispatch("nam\":1", &calls));
  EXPECT_FALSE(Dispatch("namesake\":1", &calls));
  EXPECT_FALSE(Dispatch("ids\":1", &calls));
  EXPECT_FALSE(Dispatch("zzz\":1", &calls));
  EXPECT_FALSE(Dispatch("\":1", &calls));
  EXPECT_TRUE(calls.seen.empty());
}

// Keys over many first bytes, one of them not ASCII, and a later key that
// shares its first byte with an earlier one.
constexpr KeyHandlers kManyFirstBytes{
    On<"A">(kRecord), On<"b">(kRecord),  On<"C">(kRecord),
    On<"d">(kRecord), On<"E">(kRecord),  On<"f">(kRecord),
    On<"G">(kRecord), On<"h">(kRecord),  On<"\xc3\xa9t\xc3\xa9">(kRecord),
    On<"z">(kRecord), On<"bb">(kRecord),
};

TEST(KeyHandlers, DispatchesOnEveryFirstByteOfTheTable) {
  Calls calls;
  for (const char* raw : {"A\"", "b\"", "C\"", "d\"", "E\"", "f\"", "G\"", "h\"",
                          "\xc3\xa9t\xc3\xa9\"", "z\"", "bb\""})
    EXPECT_TRUE(kManyFirstBytes.Dispatch(raw, &calls)) << raw;
  EXPECT_FALSE(kManyFirstBytes.Dispatch("a\"", &calls));
  EXPECT_FALSE(kManyFirstBytes.Dispatch("\xc3\xa9\"", &calls));
  EXPECT_FALSE(kManyFirstBytes.Dispatch("\xff\"", &calls));
  EXPECT_EQ(calls.seen, (std::vector<std::string>{"A", "b", "C", "d", "E", "f", "G", "h",
                                                  "\xc3\xa9t\xc3\xa9", "z", "bb"}));
}

// A reader that records the fields ForEachField hands back unread.
struct SkipRecorder {
  simdjson::error_code err = simdjson::SUCCESS;
  std::vector<std::string> skipped;
  void SkipField(const char* key, ondemand::value) {
    skipped.push_back(std::string(key, std::string_view(key).find('"')));
  }
};

TEST(ForEachField, HandsKnownKeysToOnKeyAndTheRestToSkipField) {
  simdjson::padded_string json(std::string(R"({"a": 1, "b": 2, "c": 3})"));
  ondemand::parser parser;
  ondemand::document doc = parser.iterate(json);
  ondemand::object obj = doc.get_object();
  SkipRecorder reader;
  int64_t sum = 0;
  auto err = ForEachField(obj, reader, [&](const char* key, ondemand::value v) {
    if (!RawKeyIs<"a">(key) && !RawKeyIs<"c">(key)) return false;
    sum += int64_t(v.get_int64());
    return true;
  });
  EXPECT_EQ(err, simdjson::SUCCESS);
  EXPECT_EQ(sum, 4);
  EXPECT_EQ(reader.skipped, (std::vector<std::string>{"b"}));
}

TEST(ForEachField, StopsAtTheReadersFirstError) {
  simdjson::padded_string json(std::string(R"({"a": 1, "b": 2})"));
  ondemand::parser parser;
  ondemand::document doc = parser.iterate(json);
  ondemand::object obj = doc.get_object();
  SkipRecorder reader;
  int fields = 0;
  auto err = ForEachField(obj, reader, [&](const char*, ondemand::value) {
    ++fields;
    reader.err = simdjson::NUMBER_ERROR;
    return true;
  });
  EXPECT_EQ(err, simdjson::NUMBER_ERROR);
  EXPECT_EQ(fields, 1);
}

}  // namespace
}  // namespace th::kineto
