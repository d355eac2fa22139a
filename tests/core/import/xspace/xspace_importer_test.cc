// XSpace captures through the common loader, against the oracle: planes, their
// events, the HLO modules embedded in the metadata plane; GPU kernels linked to
// their launches; the corrupt upstream file refused with its byte offset.
#include "core/import/xspace/xspace_importer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>

#include "core/import/trace_loader.h"
#include "core/report/trace_summary.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

class XSpaceImport : public ::testing::TestWithParam<std::string> {};

TEST_P(XSpaceImport, MatchesOracle) {
  std::string data = testing::SharedDataDir();
  auto set = LoadTraceSet({data + "/" + GetParam()}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 1u);
  const Trace& t = *set->traces[0];
  EXPECT_EQ(t.info.format, "xspace");
  simdjson::dom::parser parser;
  simdjson::dom::element o = parser.load(data + "/expected/" + GetParam() + ".oracle.json").value();
  simdjson::dom::array planes = o["planes"].get_array().value();
  ASSERT_EQ(t.info.planes.size(), planes.size());
  int64_t timed = 0, occurrences = 0, gpu_kernel_events = 0;
  bool gpu_capture = false;
  size_t i = 0;
  for (simdjson::dom::element p : planes) {
    const PlaneSummary& mine = t.info.planes[i++];
    if (mine.name.rfind("/device:GPU:", 0) == 0) {
      gpu_capture = true;
      gpu_kernel_events += p["kernel_events"].get_int64().value();
    }
    EXPECT_EQ(mine.name, p["name"].get_string().value());
    EXPECT_EQ(mine.events, p["events_total"].get_int64().value()) << mine.name;
    EXPECT_EQ(static_cast<int64_t>(mine.lines.size()), p["lines_count"].get_int64().value());
    EXPECT_EQ(static_cast<int64_t>(mine.stat_names.size()),
              p["stat_metadata_count"].get_int64().value());
    for (simdjson::dom::element l : p["lines"].get_array()) {
      timed += l["events"].get_int64().value();
      occurrences += l["events_with_num_occurrences"].get_int64().value();
    }
  }
  // Timed events become event rows; aggregated (num_occurrences) ones do not.
  // On GPU planes the importer adds derived XLA lines, flagged as such.
  int64_t derived = 0, derived_ops = 0, labelled_gpu = 0;
  const EventGraph& g = t.graph;
  for (EventId i = 0; i < g.events.size(); ++i) {
    if (!(g.events.flags[i] & kFlagDerived)) continue;
    ++derived;
    EXPECT_EQ(g.strings.Get(g.events.cat[i]), "derived");
    const Track& track = g.tracks[g.events.track[i]];
    // XProf's derived line ids: Steps +0, XLA Modules +4, XLA Ops +5.
    const std::map<std::string_view, int64_t> kTid = {
        {"Steps", 0xdeadbeef}, {"XLA Modules", 0xdeadbeef + 4}, {"XLA Ops", 0xdeadbeef + 5}};
    EXPECT_EQ(track.tid, kTid.at(g.strings.Get(track.thread_name)));
    derived_ops += g.strings.Get(track.thread_name) == "XLA Ops";
  }
  for (size_t r = 0; r < g.xla_labels.size(); ++r) {
    EventId ev = g.xla_labels.event[r];
    labelled_gpu +=
        IsGpuActivity(g.events.kind[ev]) && g.xla_labels.hlo_op[r] != kEmptyString &&
        g.tracks[g.events.track[ev]].kind == TrackKind::kGpuStream &&
        g.strings.Get(g.tracks[g.events.track[ev]].process_name).starts_with("/device:GPU");
  }
  EXPECT_EQ(static_cast<int64_t>(g.events.size()) - derived, timed - occurrences);
  EXPECT_EQ(Summarize(t).events, timed - occurrences);
  // Each XLA Ops event covers one or more consecutive labelled kernels.
  EXPECT_LE(derived_ops, labelled_gpu);
  EXPECT_EQ(derived_ops > 0, labelled_gpu > 0);
  EXPECT_EQ(timed, o["events_total"].get_int64().value());
  EXPECT_EQ(t.info.hlo_protos, o.at_pointer("/metadata_plane/hlo_proto_stats").get_int64().value());
  // Every GPU kernel with a correlation id finds its launch on the host.
  TraceSummary s = Summarize(t);
  // On GPU captures the kernels are exactly the stream events carrying kernel_details.
  if (gpu_capture) {
    EXPECT_EQ(s.kernels.count, gpu_kernel_events);
  }
  EXPECT_EQ(t.trust.Count(TrustId::kKernelWithoutLaunch), 0);
  // Relative line origins take the Task Environment's profile_start_time as base.
  bool task_environment = false;
  for (const PlaneSummary& p : t.info.planes) task_environment |= p.name == "Task Environment";
  if (task_environment) {
    ASSERT_TRUE(t.info.base_time_ns.has_value());
    EXPECT_GT(*t.info.base_time_ns, 1'577'836'800'000'000'000LL);  // after 2020-01-01
    EXPECT_LT(*t.info.base_time_ns, 1'893'456'000'000'000'000LL);  // before 2030-01-01
  }
  EXPECT_LE(s.kernels_with_launch, s.kernels.count);
}

INSTANTIATE_TEST_SUITE_P(SharedData, XSpaceImport,
                         ::testing::ValuesIn(testing::FilesWithOracle(".xplane.pb")),
                         [](const auto& info) { return testing::ParamName(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(XSpaceImport);

TEST(XSpaceImportFiles, AllocatorEventsFillTheMemoryTable) {
  testing::XSpaceBuilder b;
  auto* host = b.AddPlane(0, "/host:CPU");
  auto* line = b.AddLine(host, 7, "python", 0);
  auto alloc = [&](const char* name, int64_t t, int64_t bytes, int64_t total, const char* who) {
    b.AddEvent(host, line, name, t, 0,
               {{"allocator_name", std::string(who)},
                {"allocation_bytes", bytes},
                {"bytes_allocated", total},
                {"bytes_reserved", int64_t{0}},
                {"addr", int64_t{4096}}});
  };
  alloc("MemoryAllocation", 1000, 256, 256, "GPU_3_bfc");
  alloc("MemoryAllocation", 2000, 1024, 1280, "GPU_3_bfc");
  alloc("MemoryDeallocation", 3000, 256, 1024, "GPU_3_bfc");
  alloc("MemoryAllocation", 4000, 64, 64, "xla_gpu_host_bfc");
  std::string path = testing::TempDir() + "/alloc.xplane.pb";
  ASSERT_TRUE(b.WriteTo(path));
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const MemoryArgsTable& m = set->traces[0]->graph.memory_args;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m.device_type[0], 1);
  EXPECT_EQ(m.device_id[0], 3);
  EXPECT_EQ(m.bytes[2], -256);  // a free
  EXPECT_EQ(m.total_allocated[1], 1280);
  EXPECT_EQ(m.device_type[3], 0);  // host allocator
  EXPECT_EQ(Summarize(*set->traces[0]).peak_total_allocated, 1280);
}

TEST(XSpaceImportFiles, RuntimeOpCostsFillTheCostTable) {
  // TPU XLA Ops: costs on the op's event metadata, an event's own stats
  // taking precedence; a non-integral value is not a count; host events and
  // ops without the stats get no row.
  testing::XSpaceBuilder b;
  auto* tpu = b.AddPlane(1, "/device:TPU:0");
  auto* ops = b.AddLine(tpu, 1, "XLA Ops", 0);
  b.AddMetadataStats(
      tpu, "fusion.1",
      {{"flops", int64_t{100}}, {"model_flops", int64_t{90}}, {"bytes_accessed", int64_t{4096}}});
  b.AddMetadataStats(tpu, "copy.2", {{"bytes_accessed", uint64_t{64}}});
  b.AddEvent(tpu, ops, "fusion.1", 1000000, 500000);
  b.AddEvent(tpu, ops, "copy.2", 2000000, 500000, {{"flops", int64_t{0}}});
  b.AddEvent(tpu, ops, "fusion.1", 3000000, 500000, {{"bytes_accessed", int64_t{8192}}});
  b.AddEvent(tpu, ops, "nop", 4000000, 500000);
  b.AddEvent(tpu, ops, "fusion.3", 5000000, 500000, {{"flops", 1.5}, {"bytes_accessed", 256.0}});
  auto* host = b.AddPlane(2, "/host:CPU");
  b.AddEvent(host, b.AddLine(host, 7, "python", 0), "step", 0, 9000000, {{"flops", int64_t{7}}});
  const std::string path = testing::TempDir() + "/op_costs.xplane.pb";
  ASSERT_TRUE(b.WriteTo(path));
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const EventGraph& g = set->traces[0]->graph;
  auto on_tpu = [&](int64_t ts) {
    for (EventId e = 0; e < g.events.size(); ++e)
      if (g.events.ts[e] == ts && g.events.dur[e] == 500) return e;
    ADD_FAILURE() << "no TPU op at " << ts;
    return EventId{0};
  };
  const XlaOpCostTable& c = g.xla_op_costs;
  std::vector<std::vector<int64_t>> rows;
  for (size_t r = 0; r < c.size(); ++r)
    rows.push_back({c.event[r], c.flops[r], c.model_flops[r], c.bytes_accessed[r]});
  const std::vector<std::vector<int64_t>> want = {
      {on_tpu(1000), 100, 90, 4096},
      {on_tpu(2000), 0, -1, 64},
      {on_tpu(3000), 100, 90, 8192},
      {on_tpu(5000), -1, -1, 256},
  };
  EXPECT_EQ(rows, want);
}

TEST(XSpaceImportFiles, CorruptFileIsAnErrorWithTheOffset) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  EXPECT_GE(testing::FilesWithOracle(".xplane.pb").size(), 6u);
  auto set = LoadTraceSet(
      {data + "/xprof/corrupted_upstream/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb"},
      LoadOptions{});
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("at byte offset 1"), std::string::npos)
      << set.status().message();
}

}  // namespace
}  // namespace th
