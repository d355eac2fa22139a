// Parity warnings on input shapes: a generated pair whose aten::linear ops
// differ in Input Dims, checked in every output format's bytes; pairs that
// agree or lack shapes; ties and the cap on a hand-built profile.
#include "core/diff/diff_shapes.h"

#include <gtest/gtest.h>

#include <map>

#include "core/diff/diff_html.h"
#include "core/diff/diff_json.h"
#include "core/diff/diff_text.h"
#include "tests/core/diff/diff_test_support.h"

namespace th::diff {
namespace {

using th::testing::DiffFixture;

constexpr const char* kLinearWarning =
    R"(input shapes differ for cpu_op aten::linear (most common): )"
    R"(A [[8,1024],[1024,1024],[1024]] ["c10::BFloat16","c10::BFloat16","c10::BFloat16"], )"
    R"(B [[16,1024],[1024,1024],[1024]] ["c10::BFloat16","c10::BFloat16","c10::BFloat16"])";

DiffResult ShapesPair(bool b_differs) {
  DiffFixture fa, fb;
  fa.shapes = fb.shapes = true;
  if (b_differs) fb.linear_dims = "[[16, 1024], [1024, 1024], [1024]]";
  auto a = testing::FixtureSide(fa, "A");
  auto b = testing::FixtureSide(fb, "B");
  DiffOptions o;
  o.max_step_pairs = 1;
  return testing::Diff(*a, *b, o);
}

TEST(DiffShapes, DifferentDimsOfOneOpAreAParityWarning) {
  const DiffResult r = ShapesPair(true);
  EXPECT_EQ(r.warnings, std::vector<std::string>{kLinearWarning});
}

TEST(DiffShapes, TheWarningComesFirstInEveryFormat) {
  const DiffResult r = ShapesPair(true);
  const std::string json = DiffJson(r);
  const std::string json_warning =
      "  \"warnings\": [\n"
      "    \"input shapes differ for cpu_op aten::linear (most common): A "
      "[[8,1024],[1024,1024],[1024]] "
      "[\\\"c10::BFloat16\\\",\\\"c10::BFloat16\\\",\\\"c10::BFloat16\\\"], B "
      "[[16,1024],[1024,1024],[1024]] "
      "[\\\"c10::BFloat16\\\",\\\"c10::BFloat16\\\",\\\"c10::BFloat16\\\"]\"\n"
      "  ],\n"
      "  \"attribution\": {";
  const size_t at = json.find(json_warning);
  ASSERT_NE(at, std::string::npos) << json;
  EXPECT_EQ(json.find("\"aggregate\""), json.find("\"aggregate\"", at));  // after the warnings

  const std::string md = DiffMarkdown(r);
  const std::string md_warning = std::string("## Warnings\n\n- ") + kLinearWarning + "\n\n";
  ASSERT_NE(md.find(md_warning), std::string::npos) << md;
  EXPECT_LT(md.find(md_warning), md.find("## Step time"));

  const std::string term = DiffTerminal(r);
  const std::string term_warning = std::string("\nwarning: ") + kLinearWarning + "\n";
  ASSERT_NE(term.find(term_warning), std::string::npos) << term;
  EXPECT_LT(term.find(term_warning), term.find("step time:"));

  const std::string html = DiffHtml(r);
  const std::string html_warning =
      "<h2>Warnings</h2>\n<ul>\n<li>input shapes differ for cpu_op aten::linear (most common): A "
      "[[8,1024],[1024,1024],[1024]] "
      "[&quot;c10::BFloat16&quot;,&quot;c10::BFloat16&quot;,&quot;c10::BFloat16&quot;], B "
      "[[16,1024],[1024,1024],[1024]] "
      "[&quot;c10::BFloat16&quot;,&quot;c10::BFloat16&quot;,&quot;c10::BFloat16&quot;]</li>\n"
      "</ul>";
  EXPECT_NE(html.find(html_warning), std::string::npos) << html;
}

TEST(DiffShapes, EqualShapesGiveNoWarning) { EXPECT_TRUE(ShapesPair(false).warnings.empty()); }

TEST(DiffShapes, ASideWithoutShapesIsSaid) {
  DiffFixture fa;
  fa.shapes = true;
  auto a = testing::FixtureSide(fa, "A");
  auto b = testing::FixtureSide(DiffFixture{}, "B");
  EXPECT_EQ(testing::Diff(*a, *b).warnings,
            std::vector<std::string>{
                "input shapes and dtypes of matched ops are not compared: side B has no Kineto "
                "Input Dims / Input type (record_shapes)"});
}

// A profile with one cpu_op row per name and the given signature counts.
Profile Shaped(const std::vector<std::pair<std::string, std::map<std::string, int64_t>>>& rows) {
  Profile p;
  for (const auto& [name, counts] : rows) {
    ProfileRow r;
    r.name = name;
    for (const auto& [text, count] : counts) {
      auto [it, fresh] =
          p.signature_index.try_emplace(text, static_cast<uint32_t>(p.signatures.size()));
      if (fresh) p.signatures.push_back(text);
      r.signatures[it->second] = count;
      p.shaped_events += count;
    }
    p.row_index[RowKey(r.cls, r.name)] = p.rows.size();
    p.rows.push_back(std::move(r));
  }
  return p;
}

TEST(DiffShapes, MostCommonSignatureTiesTakeTheSmallestText) {
  const Profile a = Shaped({{"op", {{"[[2]]", 2}, {"[[1]]", 2}}}});
  const Profile b = Shaped({{"op", {{"[[1]]", 1}}}});
  EXPECT_TRUE(ShapeWarnings(a, b).empty());  // A's tie goes to [[1]]
  const Profile c = Shaped({{"op", {{"[[2]]", 3}, {"[[1]]", 2}}}});
  EXPECT_EQ(ShapeWarnings(c, b),
            std::vector<std::string>{
                "input shapes differ for cpu_op op (most common): A [[2]], B [[1]]"});
}

TEST(DiffShapes, AtMostMaxOpsWarningsThenACount) {
  const Profile a = Shaped({{"x", {{"[[1]]", 1}}}, {"y", {{"[[1]]", 1}}}, {"z", {{"[[1]]", 1}}}});
  const Profile b = Shaped({{"z", {{"[[2]]", 1}}}, {"y", {{"[[2]]", 1}}}, {"x", {{"[[2]]", 1}}}});
  EXPECT_EQ(
      ShapeWarnings(a, b, 1),
      (std::vector<std::string>{"input shapes differ for cpu_op x (most common): A [[1]], B [[2]]",
                                "input shapes differ for 2 more matched ops"}));
}

}  // namespace
}  // namespace th::diff
