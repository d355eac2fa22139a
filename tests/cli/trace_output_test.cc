// `outputs: [{type: trace}]`: the annotated Chrome trace re-imports through
// tracehound's own importer with every original event intact, plus exactly
// the added finding instants and derived counters.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/import/trace_loader.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

struct Census {
  std::array<int64_t, static_cast<size_t>(EventKind::kCount)> kinds{};
  int64_t kernels = 0, kernel_ns = 0, launch_edges = 0;
  int64_t finding_instants = 0, derived_counters = 0;
};

Census Count(const Trace& t) {
  Census c;
  const EventGraph& g = t.graph;
  StringId finding = g.strings.Find("tracehound.finding");
  StringId derived = g.strings.Find("tracehound.derived");
  for (EventId i = 0; i < g.events.size(); ++i) {
    EventKind k = g.events.kind[i];
    ++c.kinds[static_cast<size_t>(k)];
    if (k == EventKind::kKernel) {
      ++c.kernels;
      c.kernel_ns += g.events.dur[i];
    }
    if (finding != kEmptyString && g.events.cat[i] == finding) ++c.finding_instants;
    if (derived != kEmptyString && g.events.cat[i] == derived) ++c.derived_counters;
  }
  for (size_t x = 0; x < g.edges.size(); ++x)
    c.launch_edges += g.edges.kind[x] == EdgeKind::kLaunch;
  return c;
}

std::string WritePipeline(const std::string& dir, const std::string& trace_path) {
  std::string path = dir + "/annotate.yaml";
  std::ofstream(path) << "version: 1\nplugins:\n  kernel-stats: {}\n  stream-budget: {}\n"
                         "  steps: {}\n  cuda-sync: {}\n  idle-launch: {}\noutputs:\n"
                         "  - {type: json, path: "
                      << dir
                      << "/report.json}\n"
                         "  - {type: trace, path: "
                      << trace_path << "}\n";
  return path;
}

// Findings of the JSON report that belong in `rank`'s file.
int64_t FindingsFor(const std::string& report, int64_t rank) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(report).value();
  int64_t n = 0;
  for (simdjson::dom::element f : doc["findings"].get_array()) {
    int64_t r = -1;
    simdjson::dom::element scope;
    if (!f["scope"].get(scope)) {
      int64_t v;
      if (!scope["rank"].get_int64().get(v)) r = v;
    }
    n += r < 0 || r == rank;
  }
  return n;
}

// Loads `original` and `annotated` and checks the annotated one holds every
// original event plus the added ones. Returns the added findings.
int64_t ExpectIntact(const std::string& original, const std::string& annotated,
                     const std::string& report) {
  auto a = LoadTraceSet({original}, {});
  auto b = LoadTraceSet({annotated}, {});
  EXPECT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(b.ok()) << b.status().message();
  if (!a.ok() || !b.ok()) return 0;
  EXPECT_EQ(a->traces.size(), 1u);
  EXPECT_EQ(b->traces.size(), 1u);
  const Trace& ta = *a->traces[0];
  const Trace& tb = *b->traces[0];
  EXPECT_EQ(ta.info.rank, tb.info.rank);
  Census ca = Count(ta), cb = Count(tb);
  EXPECT_GT(cb.derived_counters, 0) << "no counter track";
  EXPECT_EQ(cb.finding_instants, FindingsFor(report, ta.info.rank));
  for (size_t k = 0; k < ca.kinds.size(); ++k) {
    int64_t added = 0;
    if (k == static_cast<size_t>(EventKind::kInstant)) added = cb.finding_instants;
    if (k == static_cast<size_t>(EventKind::kCounter)) added = cb.derived_counters;
    EXPECT_EQ(cb.kinds[k], ca.kinds[k] + added) << EventKindName(static_cast<EventKind>(k));
  }
  EXPECT_EQ(cb.kernels, ca.kernels);
  EXPECT_EQ(cb.kernel_ns, ca.kernel_ns);
  EXPECT_EQ(cb.launch_edges, ca.launch_edges);
  EXPECT_EQ(tb.graph.memory_args.size(), ta.graph.memory_args.size());
  EXPECT_EQ(tb.graph.edges.size(), ta.graph.edges.size());
  return cb.finding_instants;
}

TEST(TraceOutput, GeneratedRanksReimportIntactOneFilePerRank) {
  std::string dir = testing::TempDir() + "/trace-output-generated";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/out");
  ASSERT_EQ(Tracehound("generate --out " + dir + "/traces --ranks 2 --steps 2").status, 0);
  std::string pipeline = WritePipeline(dir, dir + "/out/annotated.json.gz");
  CommandResult r = Tracehound("run " + pipeline + " " + dir + "/traces");
  ASSERT_TRUE(r.status == 0 || r.status == 3) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/annotated.json.gz"));
  int64_t findings = 0;
  for (int rank : {0, 1}) {
    SCOPED_TRACE(rank);
    std::string annotated = dir + "/out/annotated.rank" + std::to_string(rank) + ".json.gz";
    ASSERT_TRUE(std::filesystem::exists(annotated));
    // Valid JSON with the keys the viewers need.
    simdjson::dom::parser parser;
    std::string text = testing::ReadFile(annotated);
    ASSERT_GT(text.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(text[0]), 0x1f);  // gzip
    findings += ExpectIntact(dir + "/traces/rank" + std::to_string(rank) + ".pt.trace.json",
                             annotated, dir + "/report.json");
  }
  EXPECT_GT(findings, 0) << "the generated ranks carry problems: findings expected";
  // Nothing temporary is left beside the outputs.
  for (const auto& e : std::filesystem::directory_iterator(dir + "/out"))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(TraceOutput, RealKinetoTraceReimportsIntact) {
  std::string data = testing::SharedDataDir();
  std::string original = data +
                         "/kineto/tb_plugin/samples/resnet50_num_workers_4/"
                         "worker0.1623212756351.pt.trace.json.gz";
  if (data.empty() || !std::filesystem::exists(original))
    GTEST_SKIP() << "real Kineto trace absent: " << original;
  std::string dir = testing::TempDir() + "/trace-output-kineto";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string pipeline = WritePipeline(dir, dir + "/annotated.json");
  CommandResult r = Tracehound("run " + pipeline + " " + original);
  ASSERT_TRUE(r.status == 0 || r.status == 3) << r.out;
  std::string annotated = dir + "/annotated.json";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(annotated).get(doc), simdjson::SUCCESS);  // plain, valid JSON
  EXPECT_EQ(doc["displayTimeUnit"].get_string().value(), "ns");
  EXPECT_TRUE(doc["traceEvents"].is_array());
  ExpectIntact(original, annotated, dir + "/report.json");
}

}  // namespace
}  // namespace th
