#include "core/graph/text_escape.h"

#include <gtest/gtest.h>

#include <string>

#include "core/graph/utf8.h"

namespace th {
namespace {

TEST(JsonString, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonString("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(JsonString("\n\r\t"), R"("\n\r\t")");
  EXPECT_EQ(JsonString(std::string("\0\x1f", 2)), R"("\u0000\u001f")");
  EXPECT_EQ(JsonString("é 😀 </script>"), "\"é 😀 </script>\"");  // valid UTF-8 kept
}

TEST(JsonString, WritesBytesThatAreNotUtf8AsBackslashX) {
  EXPECT_EQ(JsonString("r\xff"
                       "ank0.json"),
            R"("r\\xffank0.json")");
  EXPECT_EQ(JsonString("\xc3"), R"("\\xc3")");                    // a sequence cut short
  EXPECT_EQ(JsonString("\xed\xa0\x80"), R"("\\xed\\xa0\\x80")");  // a surrogate
  EXPECT_EQ(JsonString("\xc0\xaf"), R"("\\xc0\\xaf")");           // an overlong '/'
  // Whatever the bytes, the result is valid UTF-8.
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  size_t bad = 0;
  EXPECT_TRUE(ValidUtf8(JsonString(all), &bad)) << bad;
}

TEST(PrintableBytes, ShowsInvalidBytesAndControlCharactersAsBackslashX) {
  EXPECT_EQ(PrintableBytes("starts with '\xff'"), "starts with '\\xff'");
  EXPECT_EQ(PrintableBytes("bell\x07 esc\x1b[31m"), "bell\\x07 esc\\x1b[31m");
  EXPECT_EQ(PrintableBytes("tab\tnewline\n é"), "tab\tnewline\n é");
  EXPECT_EQ(PrintableBytes(PrintableBytes("\xff")), "\\xff");  // idempotent
}

TEST(HtmlText, EscapesTheFourMarkupCharactersOnly) {
  EXPECT_EQ(HtmlText("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c'd");
  EXPECT_EQ(HtmlText("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(ScriptSafeJson, NoLessThanSignSurvives) {
  EXPECT_EQ(ScriptSafeJson(R"({"n":"</script><!--"})"), R"({"n":"\u003c/script>\u003c!--"})");
}

}  // namespace
}  // namespace th
