// XProf / JAX JSON traces (`<host>.trace.json.gz`) through the Kineto
// importer. Fixtures: detection, string args, device mapping, XLA labels,
// the trailing {}, bad values, the loader and the CLI. Real data: every GPU
// and TPU .xplane.pb in ../shared/data written out as JAX would write its
// trace.json.gz imports to the same kernels, copies, device time, launches
// and HLO labels as the .xplane.pb itself.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <tuple>

#include "core/import/common/byte_source.h"
#include "core/import/kineto/kineto_importer.h"
#include "core/import/trace_loader.h"
#include "core/import/xspace/xspace_importer.h"
#include "core/import/xspace/xspace_reader.h"
#include "core/report/trace_summary.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"
#include "tests/support/xprof_json_writer.h"

namespace th::kineto {
namespace {

StatusOr<std::unique_ptr<Trace>> Import(const std::string& json, size_t chunk_bytes = 4096) {
  auto src = MakeMemorySource("host.trace.json", json);
  ImportOptions opt;
  opt.chunk_bytes = chunk_bytes;
  return ImportKinetoJson(*src, opt);
}

constexpr char kTopLevel[] = R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},)";

// GPU capture as TSL writes it: metadata first, host events, device events, {}.
std::string GpuEvents() {
  return R"JSON("traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"M","pid":1,"name":"process_sort_index","args":{"sort_index":1}},
{"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"Stream #7(Compute)"}},
{"ph":"M","pid":1,"tid":7,"name":"thread_sort_index","args":{"sort_index":7}},
{"ph":"M","pid":1,"tid":8,"name":"thread_name","args":{"name":"Stream #8(MemcpyOther)"}},
{"ph":"M","pid":2,"name":"process_name","args":{"name":"/device:GPU:1"}},
{"ph":"M","pid":2,"tid":16,"name":"thread_name","args":{"name":"Stream #16(Kernel)"}},
{"ph":"M","pid":2,"tid":99,"name":"thread_name","args":{"name":"_counters_"}},
{"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},
{"ph":"M","pid":701,"tid":1083,"name":"thread_name","args":{"name":"Host Threads/1083"}},
{"ph":"X","pid":701,"tid":1083,"ts":10,"dur":2.5,"name":"hipModuleLaunchKernel","args":{"correlation_id":"31","device_id":"22244","hlo_module":"jit_f","hlo_op":"fusion.1","tf_op":"XlaModule:"}},
{"ph":"X","pid":701,"tid":1083,"ts":13,"dur":1,"name":"hipMemcpyHtoDAsync","args":{"correlation_id":"32"}},
{"ph":"X","pid":701,"tid":1083,"ts":14,"dur":1,"name":"cuLaunchKernel","args":{"correlation_id":"not-a-number"}},
{"ph":"X","pid":701,"tid":1083,"ts":15,"dur":1,"name":"python work","args":{"group_id":"3"}},
{"ph":"X","pid":1,"tid":7,"ts":20.0025,"dur":5.0025,"name":"fusion_1.kd","args":{"correlation_id":"31","hlo_module":"jit_f","hlo_op":"fusion.1","kernel_details":"regs:32 grid:1,1,1 block:64,1,1","name":"jit(f)/mul","program_id":"12190760917235803885","tf_op":"XlaModule:"}},
{"ph":"X","pid":1,"tid":8,"ts":30,"dur":1,"name":"copy","args":{"correlation_id":"32"}},
{"ph":"X","pid":2,"tid":16,"ts":40,"dur":1,"name":"MemsetD32","args":{}},
{"ph":"X","pid":2,"tid":16,"ts":41,"dur":1,"name":"Memcpy DtoD"},
{"ph":"X","pid":2,"tid":99,"ts":42,"dur":0.000001,"name":"power_mw"},
{}]})JSON";
}

std::string GpuTrace() { return kTopLevel + GpuEvents(); }

std::string_view Str(const Trace& t, StringId id) { return t.graph.strings.Get(id); }

EventId FindEvent(const Trace& t, std::string_view name) {
  const EventColumns& e = t.graph.events;
  for (EventId i = 0; i < e.size(); ++i)
    if (e.kind[i] != EventKind::kMetadata && Str(t, e.name[i]) == name) return i;
  return kNoRow;
}

TEST(XprofJson, DetectsTheFlavourAndMapsGpuPlanes) {
  auto imported = Import(GpuTrace());
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Trace& t = **imported;
  EXPECT_EQ(t.info.format, "xprof_json");
  EXPECT_EQ(t.info.display_time_unit, "ns");
  // 10 metadata + 9 slices; the trailing {} is no event and no defect.
  EXPECT_EQ(t.graph.events.size(), 19u);
  EXPECT_EQ(t.trust.Count(TrustId::kEventWithoutPhase), 0);
  EXPECT_EQ(t.trust.Count(TrustId::kNonObjectEvent), 0);

  TraceSummary s = Summarize(t);
  EXPECT_EQ(s.kernels.count, 1);
  EXPECT_EQ(s.memcpy.count, 2);  // by thread name (MemcpyOther) and by event name
  EXPECT_EQ(s.memset.count, 1);
  EXPECT_EQ(s.events_by_kind["runtime"], 2);  // the ones with an integer correlation_id
  EXPECT_EQ(s.events_by_kind["cpu_op"], 2);
  EXPECT_EQ(s.events_by_kind["other"], 1);  // the counter line's event
  EXPECT_EQ(s.events_by_category["kernel"], 4);
  EXPECT_EQ(s.events_by_category["host"], 4);
  EXPECT_EQ(s.events_by_category["device"], 1);
  EXPECT_EQ(s.launch_edges, 2);
  EXPECT_EQ(s.kernels_with_launch, 1);
  EXPECT_EQ(s.gpu_streams, 3);
  ASSERT_EQ(t.info.devices.size(), 2u);
  EXPECT_EQ(t.info.devices[0].id, 0);
  EXPECT_EQ(t.info.devices[1].name, "/device:GPU:1");

  // µs text → ns, picosecond digits rounded half away from zero (the XSpace rule).
  const EventColumns& e = t.graph.events;
  EventId k = FindEvent(t, "fusion_1.kd");
  ASSERT_NE(k, kNoRow);
  EXPECT_EQ(e.ts[k], 20003);
  EXPECT_EQ(e.dur[k], 5003);
  EXPECT_EQ(e.correlation[k], 31);
  EXPECT_EQ(t.trust.Count(TrustId::kPicosecondTimeRounded), 3);
  const Track& stream = t.graph.tracks[e.track[k]];
  EXPECT_EQ(stream.kind, TrackKind::kGpuStream);
  EXPECT_EQ(stream.device, 0);
  EXPECT_EQ(stream.stream, 7);
  EXPECT_EQ(Str(t, stream.process_name), "/device:GPU:0");
  EXPECT_EQ(Str(t, stream.thread_name), "Stream #7(Compute)");
  const Track& other = t.graph.tracks[e.track[FindEvent(t, "MemsetD32")]];
  EXPECT_EQ(other.device, 1);
  EXPECT_EQ(other.stream, 16);
  EXPECT_EQ(t.graph.gpu_args.size(), 4u);

  // A non-integer correlation id is counted, not a crash; the event stays a host op.
  EXPECT_EQ(e.kind[FindEvent(t, "cuLaunchKernel")], EventKind::kCpuOp);
  EXPECT_EQ(t.trust.Count(TrustId::kNonIntegerArgument), 1);
  bool example = false;
  for (const TrustEntry& x : t.trust.Entries())
    example |= x.example == "correlation_id=\"not-a-number\"";
  EXPECT_TRUE(example);
}

TEST(XprofJson, FillsXlaLabelsInEventOrder) {
  auto imported = Import(GpuTrace());
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Trace& t = **imported;
  const XlaLabelTable& x = t.graph.xla_labels;
  ASSERT_EQ(x.size(), 3u);  // the launch, the host op with a group, the kernel
  EXPECT_TRUE(std::is_sorted(x.event.data(), x.event.data() + x.size()));

  uint32_t launch = x.Find(FindEvent(t, "hipModuleLaunchKernel"));
  ASSERT_NE(launch, kNoRow);
  EXPECT_EQ(Str(t, x.hlo_op[launch]), "fusion.1");
  EXPECT_EQ(Str(t, x.hlo_module[launch]), "jit_f");
  EXPECT_EQ(x.op_name[launch], kEmptyString);  // tf_op "XlaModule:" is no op name
  EXPECT_EQ(x.program_id[launch], kNoValue);
  EXPECT_EQ(x.group_id[launch], kNoValue);

  uint32_t kernel = x.Find(FindEvent(t, "fusion_1.kd"));
  ASSERT_NE(kernel, kNoRow);
  EXPECT_EQ(Str(t, x.hlo_op[kernel]), "fusion.1");
  EXPECT_EQ(Str(t, x.op_name[kernel]), "jit(f)/mul");  // args.name wins over tf_op
  EXPECT_EQ(x.program_id[kernel], static_cast<int64_t>(12190760917235803885ull));
  EXPECT_EQ(x.source[kernel], kEmptyString);

  uint32_t host = x.Find(FindEvent(t, "python work"));
  ASSERT_NE(host, kNoRow);
  EXPECT_EQ(x.group_id[host], 3);
  EXPECT_EQ(x.hlo_op[host], kEmptyString);
  EXPECT_EQ(x.Find(FindEvent(t, "copy")), kNoRow);
}

TEST(XprofJson, TpuXlaOpsAreDeviceOpsLabelledByTheirModule) {
  std::string json = std::string(kTopLevel) + R"JSON("traceEvents":[
{"ph":"M","pid":3,"name":"process_name","args":{"name":"/device:TPU:0"}},
{"ph":"M","pid":3,"tid":2,"name":"thread_name","args":{"name":"XLA Modules"}},
{"ph":"M","pid":3,"tid":3,"name":"thread_name","args":{"name":"XLA Ops"}},
{"ph":"M","pid":3,"tid":4,"name":"thread_name","args":{"name":"Async XLA Ops"}},
{"ph":"M","pid":3,"tid":6,"name":"thread_name","args":{"name":"XLA TraceMe"}},
{"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},
{"ph":"X","pid":701,"tid":5,"ts":90,"dur":5,"name":"PjitFunction(f)"},
{"ph":"X","pid":3,"tid":2,"ts":100,"dur":50,"name":"jit_f(12190760917235803885)","args":{"run_id":"1"}},
{"ph":"X","pid":3,"tid":3,"ts":110,"dur":10,"name":"fusion.3","args":{"long_name":"%fusion.3 = f32[8] fusion(...)","source":"f.py:12","tf_op":"jit(f)/jit(main)/mul:"}},
{"ph":"X","pid":3,"tid":3,"ts":200,"dur":10,"name":"outside"},
{"ph":"X","pid":3,"tid":6,"ts":101,"dur":1,"name":"dependency-wait"},
{}]})JSON";
  auto imported = Import(json);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Trace& t = **imported;
  EXPECT_EQ(t.info.format, "xprof_json");
  TraceSummary s = Summarize(t);
  EXPECT_EQ(s.kernels.count, 2);
  EXPECT_EQ(s.events_by_kind["cpu_op"], 1);
  EXPECT_EQ(s.events_by_kind["other"], 2);  // the module and the TraceMe
  ASSERT_EQ(t.info.devices.size(), 1u);
  EXPECT_EQ(t.info.devices[0].id, 2);
  EXPECT_EQ(t.trust.Count(TrustId::kKernelWithoutCorrelationId), 2);

  const XlaLabelTable& x = t.graph.xla_labels;
  uint32_t op = x.Find(FindEvent(t, "fusion.3"));
  ASSERT_NE(op, kNoRow);
  EXPECT_EQ(Str(t, x.hlo_op[op]), "fusion.3");
  EXPECT_EQ(Str(t, x.hlo_module[op]), "jit_f");
  EXPECT_EQ(x.program_id[op], static_cast<int64_t>(12190760917235803885ull));
  EXPECT_EQ(Str(t, x.source[op]), "f.py:12");
  EXPECT_EQ(Str(t, x.op_name[op]), "jit(f)/jit(main)/mul:");
  uint32_t outside = x.Find(FindEvent(t, "outside"));
  ASSERT_NE(outside, kNoRow);
  EXPECT_EQ(Str(t, x.hlo_op[outside]), "outside");
  EXPECT_EQ(x.hlo_module[outside], kEmptyString);
  EXPECT_EQ(x.program_id[outside], kNoValue);
  EXPECT_EQ(x.Find(FindEvent(t, "dependency-wait")), kNoRow);
  EXPECT_EQ(x.size(), 2u);
}

TEST(XprofJson, DetectedByPlaneNamesWithoutTheMetadataKey) {
  // perfetto_trace.json.gz: the same JSON without "metadata".
  auto perfetto = Import(R"({"displayTimeUnit":"ns",)" + GpuEvents(), 4096);
  ASSERT_TRUE(perfetto.ok()) << perfetto.status().message();
  EXPECT_EQ((*perfetto)->info.format, "xprof_json");
  EXPECT_EQ(Summarize(**perfetto).launch_edges, 2);

  // Kineto in ns display units, its process named "python": not XProf.
  auto kineto = Import(
      R"({"schemaVersion":1,"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[
{"ph":"M","pid":701,"name":"process_name","args":{"name":"python"}},
{"ph":"X","cat":"kernel","pid":0,"tid":7,"ts":1,"dur":1,"name":"k","args":{"correlation":1}}]})");
  ASSERT_TRUE(kineto.ok()) << kineto.status().message();
  EXPECT_EQ((*kineto)->info.format, "kineto_json");
  EXPECT_EQ(Summarize(**kineto).kernels.count, 1);
}

TEST(XprofJson, EveryChunkUsesTheMapping) {
  std::string json = std::string(kTopLevel) + R"JSON("traceEvents":[
{"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
{"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"Stream #7(Compute)"}},
{"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}})JSON";
  constexpr int kEvents = 2000;  // ~300 KB: dozens of 4 KiB chunks
  for (int i = 0; i < kEvents; ++i) {
    std::string id = std::to_string(i + 1), ts = std::to_string(10 * i);
    json += R"(,{"ph":"X","pid":701,"tid":3,"ts":)" + ts +
            R"(,"dur":1,"name":"cudaLaunchKernel","args":{"correlation_id":")" + id + R"("}})";
    json += R"(,{"ph":"X","pid":1,"tid":7,"ts":)" + ts +
            R"(.5,"dur":2,"name":"k","args":{"correlation_id":")" + id + R"(","hlo_op":"fusion.)" +
            id + R"("}})";
  }
  json += ",{}]}";
  auto imported = Import(json, 4096);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Trace& t = **imported;
  TraceSummary s = Summarize(t);
  EXPECT_EQ(s.kernels.count, kEvents);
  EXPECT_EQ(s.kernels.total_ns, 2000 * kEvents);
  EXPECT_EQ(s.launch_edges, kEvents);
  EXPECT_EQ(t.graph.xla_labels.size(), static_cast<size_t>(kEvents));
  const XlaLabelTable& x = t.graph.xla_labels;
  EXPECT_TRUE(std::is_sorted(x.event.data(), x.event.data() + x.size()));
  EXPECT_EQ(Str(t, x.hlo_op[x.size() - 1]), "fusion." + std::to_string(kEvents));
}

// ---------------------------------------------------------------------------
// Loader and CLI.

TEST(XprofJson, LoaderReadsGzipAndSkipsTheCopyBesideAnXplane) {
  using testing::WriteTempFile;
  std::string gz =
      WriteTempFile("xprof_loader/alone/host.trace.json.gz", testing::Gzip(GpuTrace()));
  auto alone = LoadTraceSet({std::filesystem::path(gz).parent_path().string()}, LoadOptions{});
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  ASSERT_EQ(alone->traces.size(), 1u);
  EXPECT_EQ(alone->traces[0]->info.format, "xprof_json");
  EXPECT_EQ(Summarize(*alone->traces[0]).kernels.count, 1);

  // JAX's run folder: host.xplane.pb with host.trace.json.gz and
  // perfetto_trace.json.gz beside it, all one capture (an XSpace holding only
  // its hostname; a 0-byte file is refused as a failed write).
  std::string dir = testing::TempDir() + "/xprof_loader/run";
  WriteTempFile("xprof_loader/run/host.xplane.pb", std::string("\x22\x04host", 6));
  WriteTempFile("xprof_loader/run/host.trace.json.gz", testing::Gzip(GpuTrace()));
  WriteTempFile("xprof_loader/run/perfetto_trace.json.gz", testing::Gzip(GpuTrace()));
  WriteTempFile("xprof_loader/run/other_host.trace.json.gz", testing::Gzip(GpuTrace()));
  auto run = LoadTraceSet({dir}, LoadOptions{});
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->traces.size(), 2u);
  EXPECT_EQ(run->trust.Count(TrustId::kJaxJsonBesideXPlane), 2);
  EXPECT_EQ(run->trust.Count(TrustId::kDuplicateRank), 0);
  std::vector<std::string> formats;
  for (const auto& trace : run->traces) formats.push_back(trace->info.format);
  std::sort(formats.begin(), formats.end());
  EXPECT_EQ(formats, (std::vector<std::string>{"xprof_json", "xspace"}));
  // A glob over the folder reads each capture once too.
  auto glob = LoadTraceSet({dir + "/*"}, LoadOptions{});
  ASSERT_TRUE(glob.ok()) << glob.status().message();
  EXPECT_EQ(glob->traces.size(), 2u);
  // Named explicitly, the JSON copy is read.
  auto named = LoadTraceSet({dir + "/host.trace.json.gz"}, LoadOptions{});
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_EQ(named->traces[0]->info.format, "xprof_json");
}

TEST(XprofJson, InfoJsonOnAJaxTraceJsonGz) {
  // The sanitizer pass builds the tests that read hostile input, not the command.
  if (!std::filesystem::exists(TRACEHOUND_BINARY))
    GTEST_SKIP() << "the tracehound command is not built in this build tree";
  std::string gz =
      testing::WriteTempFile("xprof_cli/tw003.trace.json.gz", testing::Gzip(GpuTrace()));
  testing::CommandResult r = testing::Tracehound("info --json " + gz);
  ASSERT_EQ(r.status, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element o;
  ASSERT_EQ(parser.parse(r.out).get(o), simdjson::SUCCESS) << r.out;
  simdjson::dom::element t = o["traces"].at(0);
  EXPECT_EQ(t["format"].get_string().value(), "xprof_json");
  EXPECT_EQ(t["kernels"]["count"].get_int64().value(), 1);
  EXPECT_EQ(t["memcpy"]["count"].get_int64().value(), 2);
  EXPECT_EQ(t["launch_edges"].get_int64().value(), 2);
  bool counted = false;
  for (simdjson::dom::element x : t["trust"].get_array()) {
    std::string_view id = x["id"].get_string().value();
    counted |= id == "non_integer_argument";
    EXPECT_NE(id, "event_without_phase");
  }
  EXPECT_TRUE(counted);
}

// ---------------------------------------------------------------------------
// Real captures: the JSON JAX would write beside each .xplane.pb.

std::vector<std::string> RealXplanes() {
  std::vector<std::string> out;
  std::string data = testing::SharedDataDir();
  if (data.empty()) return {"(shared data absent)"};
  std::string mi300 = data + "/tracelens/tests/traces/mi300";
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator(mi300, ec)) {
    for (const auto& f : std::filesystem::directory_iterator(dir.path(), ec)) {
      std::string p = f.path().string();
      if (p.size() > 10 && p.compare(p.size() - 10, 10, ".xplane.pb") == 0)
        out.push_back(std::filesystem::relative(p, data).string());
    }
  }
  out.push_back(
      "tracelens/tests/test_data_jax_te_fused_attn_categorization/934987a2fc2f.xplane.pb");
  out.push_back("xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb");
  std::sort(out.begin(), out.end());
  return out;
}

// What a device event is, for comparing the two imports row by row.
using DeviceRow = std::tuple<int32_t, int64_t, int64_t, int64_t, std::string, EventKind,
                             std::string, std::string, int64_t>;

std::vector<DeviceRow> DeviceRows(const Trace& t, bool with_times, bool with_labels,
                                  bool with_program_id) {
  const EventGraph& g = t.graph;
  const EventColumns& e = g.events;
  std::vector<DeviceRow> rows;
  for (EventId i = 0; i < e.size(); ++i) {
    if (!IsGpuActivity(e.kind[i])) continue;
    const Track& tr = g.tracks[e.track[i]];
    uint32_t x = with_labels ? g.xla_labels.Find(i) : kNoRow;
    std::string hlo_op, module;
    int64_t program_id = kNoValue;
    if (x != kNoRow) {
      hlo_op = g.strings.Get(g.xla_labels.hlo_op[x]);
      module = g.strings.Get(g.xla_labels.hlo_module[x]);
      if (with_program_id) program_id = g.xla_labels.program_id[x];
    }
    rows.emplace_back(tr.device, tr.stream, with_times ? e.ts[i] : 0, with_times ? e.dur[i] : 0,
                      std::string(g.strings.Get(e.name[i])), e.kind[i], hlo_op, module, program_id);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The launches (runtime calls) with their labels.
std::vector<std::tuple<int64_t, int64_t, std::string, std::string, std::string>> LaunchRows(
    const Trace& t, bool with_labels) {
  const EventGraph& g = t.graph;
  const EventColumns& e = g.events;
  std::vector<std::tuple<int64_t, int64_t, std::string, std::string, std::string>> rows;
  for (EventId i = 0; i < e.size(); ++i) {
    if (e.kind[i] != EventKind::kRuntime) continue;
    uint32_t x = with_labels ? g.xla_labels.Find(i) : kNoRow;
    rows.emplace_back(e.ts[i], e.correlation[i], std::string(g.strings.Get(e.name[i])),
                      x == kNoRow ? "" : std::string(g.strings.Get(g.xla_labels.hlo_op[x])),
                      x == kNoRow ? "" : std::string(g.strings.Get(g.xla_labels.hlo_module[x])));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

class XprofJsonFromXplane
    : public ::testing::TestWithParam<std::tuple<std::string, testing::XprofTimeText>> {};

TEST_P(XprofJsonFromXplane, ImportsLikeTheXplane) {
  const auto& [rel, time] = GetParam();
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: no real XProf capture to convert";
  const std::string path = data + "/" + rel;
  auto space = xspace::ReadXSpaceFile(path);
  ASSERT_TRUE(space.ok()) << space.status().message();
  auto direct = xspace::ImportXSpaceFile(path);
  ASSERT_TRUE(direct.ok()) << direct.status().message();

  const bool exact = time == testing::XprofTimeText::kExact;
  std::string json = testing::XSpaceToXprofJson(*space, time);
  std::string name = std::filesystem::path(rel).parent_path().filename().string() +
                     (exact ? "/exact/" : "/digits/") + "host.trace.json.gz";
  std::string gz = testing::WriteTempFile("xprof_real/" + name, testing::Gzip(json));
  auto set = LoadTraceSet({gz}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 1u);
  const Trace& from_json = *set->traces[0];
  const Trace& from_xplane = **direct;
  EXPECT_EQ(from_json.info.format, "xprof_json");

  TraceSummary j = Summarize(from_json), x = Summarize(from_xplane);
  ASSERT_GT(x.kernels.count, 0);
  EXPECT_EQ(j.kernels.count, x.kernels.count);
  EXPECT_EQ(j.memcpy.count, x.memcpy.count);
  EXPECT_EQ(j.memset.count, x.memset.count);
  EXPECT_EQ(j.launch_edges, x.launch_edges);
  EXPECT_EQ(j.kernels_with_launch, x.kernels_with_launch);
  EXPECT_EQ(j.gpu_streams, x.gpu_streams);
  EXPECT_EQ(j.events_by_kind["runtime"], x.events_by_kind["runtime"]);
  EXPECT_EQ(from_json.trust.Count(TrustId::kEventWithoutPhase), 0);
  EXPECT_EQ(from_json.trust.Count(TrustId::kNonIntegerArgument), 0);
  // The same accelerators (the JSON has no plane stats, so they are named by plane).
  ASSERT_EQ(from_json.info.devices.size(), from_xplane.info.devices.size());
  for (size_t d = 0; d < from_json.info.devices.size(); ++d)
    EXPECT_EQ(from_json.info.devices[d].id, from_xplane.info.devices[d].id);

  // TSL drops program_id from the JSON; on TPU it comes back from the module
  // around each op, on GPU it is simply absent.
  const bool tpu = rel.find("tpu") != std::string::npos;
  // Labels are compared once the XSpace importer fills xla_labels too.
  const bool labels = from_xplane.graph.xla_labels.size() > 0;
  if (!labels)
    std::cout << "note: the XSpace import of " << rel
              << " has no xla_labels; labels not compared\n";
  if (exact) {
    // Exact µs text: every device event lands on the same ns.
    EXPECT_EQ(j.kernels.total_ns, x.kernels.total_ns);
    EXPECT_EQ(j.memcpy.total_ns, x.memcpy.total_ns);
    EXPECT_EQ(j.memset.total_ns, x.memset.total_ns);
    EXPECT_EQ(DeviceRows(from_json, true, labels, tpu), DeviceRows(from_xplane, true, labels, tpu));
    EXPECT_EQ(LaunchRows(from_json, labels), LaunchRows(from_xplane, labels));
  } else {
    // "%.17g" of ps / 1e6 can land a half-ns tie (ps % 1000 == 500) on either
    // side: at most 1 ns per such duration, and nowhere else.
    int64_t ties = 0;
    for (const xspace::Plane& p : space->planes) {
      if (p.name.rfind("/device:", 0) != 0) continue;
      for (const xspace::Line& l : p.lines)
        for (const xspace::Event& ev : l.events) ties += ev.duration_ps % 1000 == 500;
    }
    int64_t device_ns_json = j.kernels.total_ns + j.memcpy.total_ns + j.memset.total_ns;
    int64_t device_ns_xplane = x.kernels.total_ns + x.memcpy.total_ns + x.memset.total_ns;
    EXPECT_LE(std::abs(device_ns_json - device_ns_xplane), ties);
    EXPECT_EQ(DeviceRows(from_json, false, labels, tpu),
              DeviceRows(from_xplane, false, labels, tpu));
  }
}

std::string CaseName(
    const ::testing::TestParamInfo<std::tuple<std::string, testing::XprofTimeText>>& info) {
  std::string n = std::get<0>(info.param);
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n + (std::get<1>(info.param) == testing::XprofTimeText::kExact ? "_exact" : "_17g");
}

INSTANTIATE_TEST_SUITE_P(SharedData, XprofJsonFromXplane,
                         ::testing::Combine(::testing::ValuesIn(RealXplanes()),
                                            ::testing::Values(testing::XprofTimeText::kExact,
                                                              testing::XprofTimeText::kMaxDigits)),
                         CaseName);

}  // namespace
}  // namespace th::kineto
