// The canonical JSON of plugin results (the bytes `tracehound test-plugin`
// compares), and the line diff it reports on a mismatch.
#include "core/report/plugin_results_json.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/report/line_diff.h"

namespace th {
namespace {

TEST(PluginResultsJson, WritesEveryPartInAFixedOrder) {
  PluginResults r;
  Finding f;
  f.plugin = "p";
  f.severity = FindingSeverity::kP1;
  f.title = "slow";
  f.scope.rank = 0;
  f.evidence.push_back({"duration", 1500, "ns", NumberKind::kMeasured});
  f.time_lost_ns = 1500;
  f.range = std::make_pair(int64_t{10}, int64_t{1510});
  r.findings.push_back(f);
  r.metrics.push_back({"p", "events", "count", 3, NumberKind::kMeasured, {}});
  DerivedTable t;
  t.name = "busy";
  t.plugin = "p";
  t.rows = 2;
  t.columns.push_back({"stream", "", std::vector<int64_t>{7, 9}});
  t.columns.push_back({"name", "", std::vector<std::string>{"a", "b"}});
  r.tables["busy"] = t;
  r.checks.push_back({"p", "adds up", "", true});
  r.skips.push_back({"p", 1, "capture"});
  r.notes.push_back({"p", "no steps", true});
  std::ostringstream out;
  WritePluginResultsJson(r, out);
  EXPECT_EQ(out.str(), R"({
  "findings": [
    {
      "plugin": "p",
      "severity": "P1",
      "title": "slow",
      "what": "",
      "suggestion": "",
      "confidence": 1,
      "scope": {
        "rank": 0,
        "device": null,
        "stream": null,
        "step_first": null,
        "step_last": null
      },
      "evidence": [
        {
          "name": "duration",
          "value": 1500,
          "unit": "ns",
          "kind": "measured"
        }
      ],
      "time_lost_ns": 1500,
      "saving_ns": null,
      "group": "",
      "range": [
        10,
        1510
      ]
    }
  ],
  "metrics": [
    {
      "plugin": "p",
      "name": "events",
      "value": 3,
      "unit": "count",
      "kind": "measured",
      "scope": {
        "rank": null,
        "device": null,
        "stream": null,
        "step_first": null,
        "step_last": null
      }
    }
  ],
  "tables": [
    {
      "name": "busy",
      "plugin": "p",
      "view": "",
      "rows": 2,
      "columns": [
        {
          "name": "stream",
          "unit": "",
          "values": [
            7,
            9
          ]
        },
        {
          "name": "name",
          "unit": "",
          "values": [
            "a",
            "b"
          ]
        }
      ]
    }
  ],
  "checks": [
    {
      "plugin": "p",
      "name": "adds up",
      "passed": true,
      "detail": ""
    }
  ],
  "skips": [
    {
      "plugin": "p",
      "rank": 1,
      "reason": "capture"
    }
  ],
  "notes": [
    {
      "plugin": "p",
      "warning": true,
      "text": "no steps"
    }
  ]
}
)");
}

TEST(LineDiff, EqualTextsHaveNoSummary) { EXPECT_EQ(LineDiffSummary("a\nb\n", "a\nb\n"), ""); }

TEST(LineDiff, NamesTheFirstDifferenceAndTheLinesOnlyOneSideHas) {
  EXPECT_EQ(LineDiffSummary("a\nb\nc\nd\n", "a\nc\nb\nx\n"),
            "first difference at line 2:\n"
            "  expected: b\n"
            "  actual:   c\n"
            "1 line(s) only expected, 1 only actual\n"
            "- d\n"
            "+ x\n");
  EXPECT_EQ(LineDiffSummary("a\n", "a\nb\nc\nd\n", 2),
            "first difference at line 2:\n"
            "  expected: (end of text)\n"
            "  actual:   b\n"
            "0 line(s) only expected, 3 only actual\n"
            "+ b\n"
            "+ c\n"
            "+ ... 1 more\n");
}

}  // namespace
}  // namespace th
