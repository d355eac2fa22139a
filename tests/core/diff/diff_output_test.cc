// The bytes of the diff's JSON and Markdown on the generated pair (A: the
// fixture; B: gemm doubled, aten::mul inserted under Decoder_0), and the
// HTML page's embedded data.
#include <gtest/gtest.h>

#include "core/diff/diff_html.h"
#include "core/diff/diff_json.h"
#include "core/diff/diff_text.h"
#include "tests/core/diff/diff_test_support.h"

namespace th::diff {
namespace {

DiffResult PairDiff() {
  th::testing::DiffFixture fb;
  fb.double_gemm = fb.insert_mul = true;
  auto a = testing::FixtureSide({}, "A");
  auto b = testing::FixtureSide(fb, "B");
  DiffOptions o;
  o.max_step_pairs = 1;
  return testing::Diff(*a, *b, o);
}

constexpr const char* kJson = R"json()json";

constexpr const char* kMarkdown = R"md()md";

TEST(DiffOutput, JsonBytes) { EXPECT_EQ(DiffJson(PairDiff()), kJson); }

TEST(DiffOutput, MarkdownBytes) { EXPECT_EQ(DiffMarkdown(PairDiff()), kMarkdown); }

TEST(DiffOutput, HtmlEmbedsTheJsonAndEscapesNames) {
  DiffResult r = PairDiff();
  r.aggregate[0].name = "a<b>&\"c\"</script>";
  const std::string html = DiffHtml(r);
  EXPECT_NE(html.find("a&lt;b&gt;&amp;&quot;c&quot;&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("</script>\"", 0), std::string::npos);
  EXPECT_NE(html.find("<script type=\"application/json\" id=\"diff-data\">{"), std::string::npos);
}

}  // namespace
}  // namespace th::diff
