#include "core/import/kineto/json_value_check.h"

#include <gtest/gtest.h>

#include <string>

namespace th::kineto {
namespace {

TEST(ClassifyScalarToken, AcceptsJsonScalarsWithTrailingSpace) {
  for (const char* t : {"0", "-0", "12", "-12", "1.5", "1e9", "1E+9", "-2.5e-3", "true", "false",
                        "null", "\"\"", "\"a b\"", "7 \n", "\"x\"\t"})
    EXPECT_EQ(ClassifyScalarToken(t), TokenClass::kValid) << t;
}

TEST(ClassifyScalarToken, CountsNonFiniteLiteralsWritersEmit) {
  for (const char* t : {"NaN", "Infinity", "-Infinity", "nan", "-nan", "inf", "-inf"})
    EXPECT_EQ(ClassifyScalarToken(t), TokenClass::kNonFinite) << t;
}

TEST(ClassifyScalarToken, RejectsWhatJsonDoesNot) {
  for (const char* t : {"+1",   ".5", "1.",    "01",      "-",    "1e",  "1e+",  "--1",
                        "0x10", "1x", "1\x7f", "tru",     "True", "nul", "NULL", "nan1",
                        "Inf",  "\"", "\"abc", "/* c */", "//",   "'a'", ""})
    EXPECT_EQ(ClassifyScalarToken(t), TokenClass::kMalformed) << t;
  EXPECT_EQ(ClassifyScalarToken(std::string("1\0", 2)), TokenClass::kMalformed);
}

TEST(ValidEscapes, AcceptsEveryJsonEscape) {
  for (const char* s : {"plain\"", "a\\\"b\"", "\\\\\\/\\b\\f\\n\\r\\t\"", "\\u00e9\"",
                        "\\uD83D\\uDE00 pair\"", "\\u0000\""})
    EXPECT_TRUE(ValidEscapes(s)) << s;
}

TEST(ValidEscapes, RejectsBadEscapesAndLoneSurrogates) {
  for (const char* s : {"\\q\"", "\\x41\"", "\\u12\"", "\\u12g4\"", "\\uD83D alone\"",
                        "\\uDE00 low first\"", "\\uD83D\\u0041\"", "\\'\""})
    EXPECT_FALSE(ValidEscapes(s)) << s;
}

// CheckContainerText over a padded buffer, as the chunk parser hands it.
simdjson::error_code CheckText(const std::string& text, ValueCheck* check) {
  std::string padded = text + std::string(64, ' ');
  const char* begin = padded.data();
  simdjson::error_code err = CheckContainerText(begin, begin + text.size(), check);
  if (check->bad_at) check->bad_at = text.data() + (check->bad_at - begin);
  return err;
}

TEST(CheckContainerText, AcceptsNestedValidJson) {
  for (const char* t : {"[]", "{}", "[1, 2.5, -3e2, true, false, null, \"s\", [], {}]",
                        "{\"a\": [[1, 2], [3]], \"b\": {\"c\": \"\\u00e9\"}, \"d\" : 1}",
                        "[ [ [ ] ] ]", "{\"k\\\"q\": 0}"}) {
    ValueCheck check;
    EXPECT_EQ(CheckText(t, &check), simdjson::SUCCESS) << t << ": " << check.bad_what;
  }
}

TEST(CheckContainerText, NamesTheFirstMalformedByte) {
  struct Case {
    std::string text;
    size_t offset;  // of the reported byte
  };
  for (const Case& c : std::vector<Case>{{"[1, 2 3]", 6},
                                         {"[1,]", 3},
                                         {"{\"a\":1,}", 7},
                                         {"{\"a\" 1}", 5},
                                         {"{\"a\":+1}", 5},
                                         {"[[\"x\\q\"]]", 2},
                                         {"{\"a\\q\":1}", 1},
                                         {"[1, NaN, .5]", 9},
                                         {std::string("[\"a\x01\"]"), 3},
                                         {"[1 /* c */]", 3},
                                         {"[1, 2", 0}}) {
    ValueCheck check;
    EXPECT_NE(CheckText(c.text, &check), simdjson::SUCCESS) << c.text;
    ASSERT_NE(check.bad_at, nullptr) << c.text;
    EXPECT_EQ(static_cast<size_t>(check.bad_at - c.text.data()), c.offset)
        << c.text << ": " << check.bad_what;
  }
}

// Runs of blanks of every length around the 16-byte steps of the blank skip,
// ending at a valid or a malformed byte, and at the end of the text.
TEST(CheckContainerText, LongBlankRunsAreSkippedExactly) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string blanks;
    for (size_t i = 0; i < n; ++i) blanks += " \n\r\t"[i % 4];
    ValueCheck ok;
    EXPECT_EQ(CheckText("[" + blanks + "1," + blanks + "[" + blanks + "]" + blanks + "]", &ok),
              simdjson::SUCCESS)
        << n << ": " << ok.bad_what;
    const std::string bad = "[1," + blanks + "x]";
    ValueCheck check;
    EXPECT_NE(CheckText(bad, &check), simdjson::SUCCESS) << n;
    ASSERT_NE(check.bad_at, nullptr) << n;
    EXPECT_EQ(static_cast<size_t>(check.bad_at - bad.data()), 3 + n) << n;
    const std::string open = "[1," + blanks;
    ValueCheck unterminated;
    EXPECT_NE(CheckText(open, &unterminated), simdjson::SUCCESS) << n;
  }
}

TEST(CheckContainerText, CountsNonFiniteNumbers) {
  ValueCheck check;
  EXPECT_EQ(CheckText("[NaN, {\"x\": -Infinity}, 1]", &check), simdjson::SUCCESS);
  EXPECT_EQ(check.non_finite, 2);
  EXPECT_EQ(check.first_non_finite, "NaN");
}

TEST(CheckContainerText, RefusesNestingDeeperThanSimdjson) {
  ValueCheck check;
  std::string deep = std::string(2000, '[') + std::string(2000, ']');
  EXPECT_NE(CheckText(deep, &check), simdjson::SUCCESS);
  EXPECT_NE(check.bad_what.find("deeper"), std::string::npos) << check.bad_what;
}

}  // namespace
}  // namespace th::kineto
