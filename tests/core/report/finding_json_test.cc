#include "core/report/finding_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace th {
namespace {

std::string Json(const Finding& f, const FindingJsonOptions& options, JsonStyle style) {
  std::ostringstream out;
  {
    JsonWriter w(out, style);
    WriteFindingJson(w, f, options);
  }
  return out.str();
}

std::string EvidenceText(const std::vector<Evidence>& evidence) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kOneLine);
    WriteEvidenceJson(w, evidence);
  }
  return out.str();
}

// What the host says a trace is: no evidence, no scope, no suggestion.
Finding Info() {
  Finding f;
  f.plugin = "host";
  f.severity = FindingSeverity::kInfo;
  f.title = "CUDA graphs captured";
  f.what = "rank 0 captures \"2\" graphs\n";
  return f;
}

// A problem with every member set and what no output writes as a member.
Finding Problem() {
  Finding f;
  f.plugin = "idle";
  f.severity = FindingSeverity::kP1;
  f.title = "GPU idle";
  f.what = "stream 7 idles";
  f.suggestion = "overlap copies";
  f.confidence = 0.75;
  f.scope = {.rank = 2, .device = 0, .stream = 7, .step_first = 3, .step_last = 5};
  f.evidence = {{"idle_pct", 12.5, "%", NumberKind::kMeasured},
                {"gap_ns", 1500000, "ns", NumberKind::kInferred}};
  f.saving_ns = 1e6;
  f.time_lost_ns = 2e6;
  f.group = "idle";
  f.range = std::pair<int64_t, int64_t>{10, 20};
  return f;
}

JsonMembers Ids(const char* id, const char* group) {
  return [=](JsonWriter& w) { w.Field("id", id).Field("group", group); };
}

TEST(FindingJson, InfoInTheJsonReport) {
  EXPECT_EQ(Json(Info(), {.layout = kReportFindingJson, .leading = Ids("host/1", "host/group-1")},
                 JsonStyle::kPretty),
            "{\n"
            "  \"id\": \"host/1\",\n"
            "  \"group\": \"host/group-1\",\n"
            "  \"plugin\": \"host\",\n"
            "  \"severity\": \"info\",\n"
            "  \"title\": \"CUDA graphs captured\",\n"
            "  \"what\": \"rank 0 captures \\\"2\\\" graphs\\n\",\n"
            "  \"evidence\": [],\n"
            "  \"scope\": {\n"
            "    \"rank\": null,\n"
            "    \"device\": null,\n"
            "    \"stream\": null,\n"
            "    \"step_first\": null,\n"
            "    \"step_last\": null\n"
            "  },\n"
            "  \"suggestion\": null,\n"
            "  \"confidence\": 1\n"
            "}\n");
}

TEST(FindingJson, InfoInTheHtmlDataAndTheAnnotatedTrace) {
  EXPECT_EQ(Json(Info(), {.layout = kHtmlFindingJson}, JsonStyle::kCompact),
            "{\"plugin\":\"host\",\"severity\":\"info\",\"title\":\"CUDA graphs captured\","
            "\"what\":\"rank 0 captures \\\"2\\\" graphs\\n\",\"suggestion\":\"\",\"confidence\":1,"
            "\"scope\":{\"rank\":null,\"device\":null,\"stream\":null,\"step_first\":null,"
            "\"step_last\":null},\"evidence\":[]}");
  // Unscoped: no rank member.
  EXPECT_EQ(Json(Info(), {.layout = kTraceFindingJson}, JsonStyle::kCompact),
            "{\"severity\":\"info\",\"plugin\":\"host\",\"what\":\"rank 0 captures \\\"2\\\" "
            "graphs\\n\",\"evidence\":[],\"suggestion\":\"\",\"confidence\":1}");
}

TEST(FindingJson, ProblemInTheJsonReport) {
  EXPECT_EQ(
      Json(Problem(), {.layout = kReportFindingJson, .leading = Ids("idle/1", "idle/group-1")},
           JsonStyle::kPretty),
      "{\n"
      "  \"id\": \"idle/1\",\n"
      "  \"group\": \"idle/group-1\",\n"
      "  \"plugin\": \"idle\",\n"
      "  \"severity\": \"P1\",\n"
      "  \"title\": \"GPU idle\",\n"
      "  \"what\": \"stream 7 idles\",\n"
      "  \"evidence\": [\n"
      "    {\n"
      "      \"name\": \"idle_pct\",\n"
      "      \"value\": 12.5,\n"
      "      \"unit\": \"%\",\n"
      "      \"kind\": \"measured\"\n"
      "    },\n"
      "    {\n"
      "      \"name\": \"gap_ns\",\n"
      "      \"value\": 1500000,\n"
      "      \"unit\": \"ns\",\n"
      "      \"kind\": \"inferred\"\n"
      "    }\n"
      "  ],\n"
      "  \"scope\": {\n"
      "    \"rank\": 2,\n"
      "    \"device\": 0,\n"
      "    \"stream\": 7,\n"
      "    \"step_first\": 3,\n"
      "    \"step_last\": 5\n"
      "  },\n"
      "  \"suggestion\": \"overlap copies\",\n"
      "  \"confidence\": 0.75\n"
      "}\n");
}

TEST(FindingJson, ProblemInTheHtmlDataWithItsPlace) {
  FindingJsonOptions html{.layout = kHtmlFindingJson,
                          .leading = Ids("idle/1", "idle/group-1"),
                          .trailing = [](JsonWriter& w) {
                            w.Key("place").BeginObject().Field("shown", false).EndObject();
                          }};
  EXPECT_EQ(Json(Problem(), html, JsonStyle::kCompact),
            "{\"id\":\"idle/1\",\"group\":\"idle/group-1\",\"plugin\":\"idle\",\"severity\":\"P1\","
            "\"title\":\"GPU idle\",\"what\":\"stream 7 idles\",\"suggestion\":\"overlap copies\","
            "\"confidence\":0.75,\"scope\":{\"rank\":2,\"device\":0,\"stream\":7,\"step_first\":3,"
            "\"step_last\":5},\"evidence\":[{\"name\":\"idle_pct\",\"value\":12.5,\"unit\":\"%\","
            "\"kind\":\"measured\"},{\"name\":\"gap_ns\",\"value\":1500000,\"unit\":\"ns\","
            "\"kind\":\"inferred\"}],\"place\":{\"shown\":false}}");
}

TEST(FindingJson, ProblemInTheAnnotatedTraceAndTheDatabase) {
  EXPECT_EQ(Json(Problem(), {.layout = kTraceFindingJson}, JsonStyle::kCompact),
            "{\"severity\":\"P1\",\"plugin\":\"idle\",\"what\":\"stream 7 idles\","
            "\"evidence\":[{\"name\":\"idle_pct\",\"value\":12.5,\"unit\":\"%\",\"kind\":"
            "\"measured\"},{\"name\":\"gap_ns\",\"value\":1500000,\"unit\":\"ns\",\"kind\":"
            "\"inferred\"}],\"suggestion\":\"overlap copies\",\"confidence\":0.75,\"rank\":2}");
  EXPECT_EQ(
      EvidenceText(Problem().evidence),
      "[{\"name\": \"idle_pct\", \"value\": 12.5, \"unit\": \"%\", \"kind\": \"measured\"}, "
      "{\"name\": \"gap_ns\", \"value\": 1500000, \"unit\": \"ns\", \"kind\": \"inferred\"}]");
  EXPECT_EQ(EvidenceText({}), "[]");
}

TEST(FindingJson, SavingTimeLostGroupAndRangeAreNoMembers) {
  Finding plain = Problem();
  plain.saving_ns.reset();
  plain.time_lost_ns.reset();
  plain.group.clear();
  plain.range.reset();
  for (const FindingJsonLayout& layout : {kReportFindingJson, kHtmlFindingJson, kTraceFindingJson})
    EXPECT_EQ(Json(Problem(), {.layout = layout}, JsonStyle::kCompact),
              Json(plain, {.layout = layout}, JsonStyle::kCompact));
}

TEST(FindingJson, NumbersThatAreNotFiniteAreNull) {
  Finding f;
  f.plugin = "p";
  f.confidence = std::numeric_limits<double>::infinity();
  f.evidence = {{"ratio", std::nan(""), "", NumberKind::kRead},
                {"x", -std::numeric_limits<double>::infinity(), "ms", NumberKind::kMeasured}};
  EXPECT_EQ(Json(f, {.layout = kTraceFindingJson}, JsonStyle::kCompact),
            "{\"severity\":\"P2\",\"plugin\":\"p\",\"what\":\"\",\"evidence\":[{\"name\":\"ratio\","
            "\"value\":null,\"unit\":\"\",\"kind\":\"read\"},{\"name\":\"x\",\"value\":null,"
            "\"unit\":\"ms\",\"kind\":\"measured\"}],\"suggestion\":\"\",\"confidence\":null}");
  EXPECT_EQ(EvidenceText(f.evidence),
            "[{\"name\": \"ratio\", \"value\": null, \"unit\": \"\", \"kind\": \"read\"}, "
            "{\"name\": \"x\", \"value\": null, \"unit\": \"ms\", \"kind\": \"measured\"}]");
}

}  // namespace
}  // namespace th
