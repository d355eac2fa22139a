#include "core/import/kineto/event_boundary_scanner.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace th::kineto {
namespace {

// Reference: element ends by a byte-at-a-time walk.
std::vector<size_t> ReferenceEnds(const std::string& s, size_t* close) {
  std::vector<size_t> ends;
  int depth = 0;
  bool in_str = false, esc = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_str) {
      if (esc)
        esc = false;
      else if (c == '\\')
        esc = true;
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"')
      in_str = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if (c == '}' || c == ']') {
      if (depth == 0) {
        *close = i;
        return ends;
      }
      if (--depth == 0) ends.push_back(i + 1);
    }
  }
  *close = s.size();
  return ends;
}

std::string RandomEvents(std::mt19937& rng, int n) {
  const char* pieces[] = {"{\"name\": \"a{b}[c]\", \"ph\": \"X\"}",
                          "{\"name\": \"esc \\\" } ] \\\\\", \"args\": {\"grid\": [1, 2, 3]}}",
                          "{\"x\": \"\\\\\\\\\\\"}\"}",
                          "  {\n    \"ph\": \"i\", \"s\": \"t\"\n  }",
                          "{\"nested\": [[{\"a\": []}], {}]}",
                          "17",
                          "\"str]\""};
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i) s += ",\n";
    s += pieces[rng() % std::size(pieces)];
    s.append(rng() % 70, ' ');  // shift alignment across 64-byte blocks
  }
  return s + "]  trailing";
}

TEST(EventBoundaryScanner, MatchesReferenceOnRandomTextFedInPieces) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string text = RandomEvents(rng, 1 + static_cast<int>(rng() % 60));
    size_t ref_close = 0;
    std::vector<size_t> ref = ReferenceEnds(text, &ref_close);

    EventBoundaryScanner scanner;
    std::vector<size_t> got;
    size_t pos = 0, last = 0, prev_last = 0;
    EventBoundaryScanner::Result r;
    while (pos < text.size()) {
      size_t step = 1 + rng() % 300;
      size_t end = std::min(text.size(), pos + step);
      r = scanner.Scan(text.data(), pos, end, &last);
      if (last != prev_last) {
        got.push_back(last);  // only the last end per call is reported
        prev_last = last;
      }
      if (r.array_closed || r.bad_close) break;
      pos = r.stop;
    }
    ASSERT_TRUE(r.array_closed) << text;
    EXPECT_EQ(r.stop, ref_close);
    EXPECT_EQ(scanner.elements_closed(), static_cast<int64_t>(ref.size()));
    ASSERT_FALSE(ref.empty() && !got.empty());
    if (!ref.empty()) {
      EXPECT_EQ(got.back(), ref.back());
    }
    for (size_t e : got) EXPECT_NE(std::find(ref.begin(), ref.end(), e), ref.end());
  }
}

TEST(EventBoundaryScanner, ReportsStrayClosingBrace) {
  std::string text = "{\"a\": 1}, }";
  EventBoundaryScanner scanner;
  size_t last = 0;
  auto r = scanner.Scan(text.data(), 0, text.size(), &last);
  EXPECT_TRUE(r.bad_close);
  EXPECT_EQ(r.stop, text.size() - 1);
  EXPECT_EQ(last, 8u);
}

}  // namespace
}  // namespace th::kineto
