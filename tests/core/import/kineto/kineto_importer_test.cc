#include "core/import/kineto/kineto_importer.h"

#include <gtest/gtest.h>

#include "core/import/common/byte_source.h"
#include "core/report/trace_summary.h"
#include "tests/support/test_files.h"

namespace th::kineto {
namespace {

StatusOr<std::unique_ptr<Trace>> Import(const std::string& json, size_t chunk_bytes = 4096) {
  auto src = MakeMemorySource("fixture.json", json);
  ImportOptions opt;
  opt.chunk_bytes = chunk_bytes;
  return ImportKinetoJson(*src, opt);
}

// A small trace with one step, a launch, its kernel, a flow pair, memory.
std::string SmallTrace() {
  return R"JSON({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85031714816,
                        "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "baseTimeNanoseconds": 1727740800000000000,
  "traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 10, "tid": 0, "args": {"name": "python"}},
  {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 10, "tid": 11,
   "ts": 7889238100000.000, "dur": 1000.500},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11,
   "ts": 7889238100010.000, "dur": 50.000, "args": {"External id": 5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11,
   "ts": 7889238100020.000, "dur": 5.000, "args": {"correlation": 99, "cbid": 211}},
  {"ph": "s", "id": 99, "pid": 10, "tid": 11, "ts": 7889238100020.000, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "sm90_gemm {weird} [name]", "pid": 0, "tid": 7,
   "ts": 7889238100030.001, "dur": 200.250,
   "args": {"device": 0, "stream": 7, "correlation": 99, "grid": [132, 1, 1], "block": [384, 1, 1],
            "registers per thread": 168, "shared memory": 232448, "External id": 5}},
  {"ph": "f", "id": 99, "pid": 0, "tid": 7, "ts": 7889238100030.001, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "kernel", "name": "early_kernel", "pid": 0, "tid": 7,
   "ts": 7889238100001.000, "dur": 3.000, "args": {"device": 0, "stream": 7, "correlation": 3}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 11, "s": "t",
   "ts": 7889238100011.000, "args": {"Device Type": 1, "Device Id": 0, "Addr": 140000, "Bytes": 4096,
   "Total Allocated": 8192, "Total Reserved": 2097152}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 8,
   "ts": 7889238100500.000, "dur": 10.000, "args": {"device": 0, "stream": 8, "bytes": 1024}},
  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 7889238101100.000}
  ],
  "traceName": "x.json"
})JSON";
}

TEST(ImportKinetoJson, ReadsEventsExactly) {
  for (size_t chunk : {size_t{4096}, size_t{1} << 20}) {
    auto t = Import(SmallTrace(), chunk);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const Trace& trace = **t;
    const EventColumns& e = trace.graph.events;
    ASSERT_EQ(e.size(), 12u);
    TraceSummary s = Summarize(trace);
    EXPECT_EQ(s.kernels.count, 2);
    EXPECT_EQ(s.kernels.total_ns, 200250 + 3000);
    EXPECT_EQ(s.memcpy.count, 1);
    EXPECT_EQ(s.memcpy.total_ns, 10000);
    EXPECT_EQ(s.gpu_streams, 2);
    EXPECT_EQ(s.steps, 1);
    EXPECT_EQ(s.step_numbers, std::vector<int64_t>{4});
    EXPECT_EQ(s.memory_events, 1);
    EXPECT_EQ(s.peak_total_allocated, 8192);
    EXPECT_EQ(s.events_by_phase.at("X"), 6);
    EXPECT_EQ(s.events_by_phase.at("M"), 2);
    EXPECT_EQ(s.events_by_category.at("<none>"), 3);
    EXPECT_EQ(s.kernels_with_launch, 1);
    // The kernel's ts keeps its nanosecond digit.
    EXPECT_EQ(e.ts[6], 7889238100030001LL);
    EXPECT_EQ(e.dur[6], 200250);
    EXPECT_EQ(*s.first_ts_ns, 7889238100000000LL);
    EXPECT_EQ(*s.last_end_ns, 7889238101100000LL);
  }
}

TEST(ImportKinetoJson, ReadsTopLevelMetadata) {
  auto t = Import(SmallTrace());
  ASSERT_TRUE(t.ok());
  const TraceInfo& info = (*t)->info;
  ASSERT_EQ(info.devices.size(), 1u);
  EXPECT_EQ(info.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(info.devices[0].num_sms, 132);
  ASSERT_TRUE(info.distributed.has_value());
  EXPECT_EQ(info.distributed->rank, 3);
  EXPECT_EQ(info.distributed->world_size, 8);
  EXPECT_EQ(info.base_time_ns, 1727740800000000000LL);
  EXPECT_EQ(info.metadata.at("traceName"), "\"x.json\"");
}

TEST(ImportKinetoJson, NestsSlicesAndLinksLaunches) {
  auto t = Import(SmallTrace());
  ASSERT_TRUE(t.ok());
  const EventGraph& g = (*t)->graph;
  const EventColumns& e = g.events;
  // aten::mm (3) inside ProfilerStep#4 (2); cudaLaunchKernel (4) inside aten::mm.
  EXPECT_EQ(e.parent[3], 2u);
  EXPECT_EQ(e.parent[4], 3u);
  EXPECT_EQ(e.depth[4], 2);
  EXPECT_EQ(e.parent[2], kNoRow);
  // The memory instant nests in aten::mm too.
  EXPECT_EQ(e.parent[9], 3u);
  // Exactly one launch edge (runtime 4 -> kernel 6); the ac2g flow repeats it.
  int launches = 0;
  for (size_t k = 0; k < g.edges.size(); ++k) {
    if (g.edges.kind[k] != EdgeKind::kLaunch) continue;
    ++launches;
    EXPECT_EQ(g.edges.src[k], 4u);
    EXPECT_EQ(g.edges.dst[k], 6u);
  }
  EXPECT_EQ(launches, 1);
  // The early kernel's correlation (3) is below the first launch (99).
  EXPECT_EQ((*t)->trust.Count(TrustId::kKernelLaunchedBeforeCapture), 1);
  // Tracks: GPU stream 7 on device 0, named by its thread_name record.
  const Track& gpu = g.tracks[e.track[6]];
  EXPECT_EQ(gpu.kind, TrackKind::kGpuStream);
  EXPECT_EQ(gpu.device, 0);
  EXPECT_EQ(gpu.stream, 7);
  EXPECT_EQ(g.strings.Get(gpu.thread_name), "stream 7 ");
  EXPECT_EQ(g.strings.Get(g.tracks[e.track[2]].process_name), "python");
  // Kernel args land in the sparse table.
  uint32_t row = e.args_row[6];
  ASSERT_NE(row, kNoRow);
  EXPECT_EQ(g.gpu_args.grid[0][row], 132);
  EXPECT_EQ(g.gpu_args.registers[row], 168);
  EXPECT_EQ(e.external_id[6], 5);
}

TEST(ImportKinetoJson, PairsBeginEndAndAcceptsStringIds) {
  auto t = Import(R"([
    {"ph": "B", "name": "outer", "pid": "Spans", "tid": "main", "ts": 10},
    {"ph": "B", "name": "inner", "pid": "Spans", "tid": "main", "ts": 12},
    {"ph": "E", "pid": "Spans", "tid": "main", "ts": 15},
    {"ph": "E", "pid": "Spans", "tid": "main", "ts": 20},
    {"ph": "E", "pid": "Spans", "tid": "main", "ts": 21},
    {"ph": "X", "name": "other", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "name": "same thread, old Kineto spelling", "pid": 1, "tid": "1", "ts": 3, "dur": 1},
  )");  // unterminated top-level array with a trailing comma: allowed
  ASSERT_TRUE(t.ok()) << t.status().message();
  const EventGraph& g = (*t)->graph;
  EXPECT_EQ(g.events.size(), 7u);
  EXPECT_EQ(g.events.track[5], g.events.track[6]);  // "1" and 1 are one thread
  EXPECT_EQ(g.events.dur[0], 10000);
  EXPECT_EQ(g.events.dur[1], 3000);
  EXPECT_EQ(g.events.parent[1], 0u);
  EXPECT_EQ(g.strings.Get(g.tracks[g.events.track[0]].pid_str), "Spans");
  EXPECT_EQ(g.tracks.size(), 2u);
  EXPECT_EQ((*t)->trust.Count(TrustId::kUnmatchedEndEvent), 1);
}

TEST(ImportKinetoJson, ToleratesBomTrailingCommaAndEmptyEvents) {
  auto a = Import("\xEF\xBB\xBF{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 1},\n]}");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ((*a)->graph.events.size(), 1u);
  EXPECT_EQ((*a)->trust.Count(TrustId::kTrailingComma), 1);
  auto b = Import(R"({"traceEvents": []})");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ((*b)->graph.events.size(), 0u);
  EXPECT_TRUE((*b)->trust.empty());
  auto c = Import(R"([{"ph": "i", "ts": 1}, {"ph": "i", "ts": 2},)");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)->graph.events.size(), 2u);
  EXPECT_EQ((*c)->trust.Count(TrustId::kTrailingComma), 0);
}

TEST(ImportKinetoJson, KeepsCounterSeries) {
  auto t = Import(R"({"traceEvents": [
    {"ph": "C", "name": "HBM", "pid": 0, "tid": 0, "ts": 5, "args": {"read GB/s": 812.5, "write GB/s": 40}},
    {"ph": "C", "name": "HBM", "pid": 0, "tid": 0, "ts": 6, "args": {"read GB/s": 700, "note": "x"}}
  ]})");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const EventGraph& g = (*t)->graph;
  ASSERT_EQ(g.counters.size(), 3u);
  EXPECT_EQ(g.counters.event[1], 0u);
  EXPECT_EQ(g.strings.Get(g.counters.series[1]), "write GB/s");
  EXPECT_DOUBLE_EQ(g.counters.value[0], 812.5);
  EXPECT_EQ(g.counters.event[2], 1u);
  EXPECT_EQ(g.events.kind[0], EventKind::kCounter);
}

TEST(ImportKinetoJson, CountsDefectsInTheTrustTable) {
  auto t = Import(R"({"traceEvents": [
    {"name": "no phase", "ts": 1},
    {"ph": "Q", "name": "odd phase", "ts": 1},
    {"ph": "X", "name": "no dur", "ts": 2, "pid": 1, "tid": 1},
    {"ph": "X", "name": "bad ts", "ts": "soon", "dur": 1, "pid": 1, "tid": 1},
    {"ph": "X", "name": "sub ns", "ts": 3.0001, "dur": 1, "pid": 1, "tid": 1},
    42,
    {"ph": "X", "name": "neg", "ts": 5, "dur": -1, "pid": 1, "tid": 1}
  ]})");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const TrustTable& trust = (*t)->trust;
  EXPECT_EQ(trust.Count(TrustId::kEventWithoutPhase), 1);
  EXPECT_EQ(trust.Count(TrustId::kUnknownPhase), 1);
  EXPECT_EQ(trust.Count(TrustId::kCompleteEventWithoutDur), 1);
  EXPECT_EQ(trust.Count(TrustId::kEventWithoutValidTs), 1);
  EXPECT_EQ(trust.Count(TrustId::kSubNanosecondTimeRounded), 1);
  EXPECT_EQ(trust.Count(TrustId::kNonObjectEvent), 1);
  EXPECT_EQ(trust.Count(TrustId::kNegativeDur), 1);
  EXPECT_EQ((*t)->graph.events.size(), 6u);
}

// Synchronising runtime calls in a capture without any GPU sync event
// (cuda_sync): one trust entry counting the calls, the first one's name as
// its example; none once the trace holds a GPU sync event.
TEST(ImportKinetoJson, SaysWhenSyncCallsHaveNoGpuSyncEvents) {
  const std::string head = R"({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
     "ts": 10, "dur": 2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 5,
     "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1,
     "ts": 30, "dur": 1, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
     "ts": 40, "dur": 9, "args": {"correlation": 3}})";
  auto without = Import(head + "]}");
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_EQ((*without)->trust.Count(TrustId::kGpuSyncEventsAbsent), 2);
  bool named = false;
  for (const TrustEntry& e : (*without)->trust.Entries())
    if (e.id == TrustId::kGpuSyncEventsAbsent) named = e.example == "cudaStreamWaitEvent";
  EXPECT_TRUE(named) << "the example is the first synchronising call";

  auto with = Import(head + R"(,
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7,
     "ts": 31, "dur": 0, "args": {"device": 0, "stream": 7, "correlation": 2}}]})");
  ASSERT_TRUE(with.ok()) << with.status().message();
  EXPECT_EQ((*with)->trust.Count(TrustId::kGpuSyncEventsAbsent), 0);
}

TEST(ImportKinetoJson, MalformedJsonNamesTheOffset) {
  std::string good = SmallTrace();
  // Break the kernel event: remove the colon after "dur".
  std::string bad = good;
  size_t at = bad.find("\"dur\": 200.250");
  bad.replace(at, 7, "\"dur\"  ");
  auto t = Import(bad);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidInput);
  const std::string& msg = t.status().message();
  EXPECT_NE(msg.find("fixture.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("element #6"), std::string::npos) << msg;
  // The offset is where the structure broke: the value that follows "dur"
  // without its colon.
  EXPECT_NE(msg.find("near text offset " + std::to_string(at + 7)), std::string::npos) << msg;
}

TEST(ImportKinetoJson, TruncatedJsonIsAnErrorWithOffset) {
  std::string good = SmallTrace();
  std::string cut = good.substr(0, good.find("early_kernel"));
  auto t = Import(cut);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("input ends inside the traceEvents array"), std::string::npos)
      << t.status().message();
  EXPECT_NE(t.status().message().find("offset " + std::to_string(cut.size())), std::string::npos);
}

TEST(ImportKinetoJson, KeepTruncatedKeepsCompleteEventsAndSaysSo) {
  std::string good = SmallTrace();
  std::string cut = good.substr(0, good.find("early_kernel"));
  auto src = MakeMemorySource("cut.json", cut);
  ImportOptions opt;
  opt.keep_truncated = true;
  auto t = ImportKinetoJson(*src, opt);
  ASSERT_TRUE(t.ok()) << t.status().message();
  // The 8 elements before the cut event are complete; the cut one is not kept.
  EXPECT_EQ((*t)->graph.events.size(), 8u);
  auto entries = (*t)->trust.Entries();
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0].id, TrustId::kInputTruncated);
  EXPECT_EQ(entries[0].severity, Severity::kError);
  EXPECT_NE(entries[0].example.find("offset " + std::to_string(cut.size())), std::string::npos);
}

TEST(ImportKinetoJson, NotATrace) {
  // A JSON document of another kind (an execution trace) is told apart from
  // input that is no trace at all; both are "not a trace".
  auto a = Import(R"({"nodes": []})");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kOtherFormat);
  EXPECT_TRUE(NotATrace(a.status()));
  auto b = Import("\x80\x04pickle");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kUnsupported);
  auto c = Import("   ");
  ASSERT_FALSE(c.ok());
  auto d = Import(R"({"traceEvents": [{"ph": "X"}]} trailing)");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("after the end"), std::string::npos);
}

}  // namespace
}  // namespace th::kineto

namespace th::kineto {
namespace {

// A plain file is parsed in place from a private mapping; chunk boundaries
// with and without whitespace around the commas must give the same graph.
// Chunks are parsed on several threads, each meeting tracks in its own order:
// the graph's track ids still follow each track's first event, on every run.
TEST(ImportKinetoJson, TrackIdsFollowTheFirstEventOfEachTrack) {
  std::string text = "{\"traceEvents\": [\n";
  for (int i = 0; i < 6000; ++i) {
    const int tid = (i / 50) % 97;  // new tracks keep appearing in every chunk
    text += (i ? ",\n" : "") + std::string("{\"ph\": \"X\", \"name\": \"op\", \"pid\": 1, ") +
            "\"tid\": " + std::to_string(tid) + ", \"ts\": " + std::to_string(i) + ", \"dur\": 1}";
  }
  text += "\n]}\n";
  std::vector<int64_t> first_run;
  for (int run = 0; run < 8; ++run) {
    auto t = Import(text, 4096);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const EventGraph& g = (*t)->graph;
    TrackId next = 0;
    std::vector<bool> seen(g.tracks.size(), false);
    for (EventId i = 0; i < g.events.size(); ++i) {
      const TrackId track = g.events.track[i];
      if (seen[track]) continue;
      seen[track] = true;
      ASSERT_EQ(track, next++) << "run " << run << ", event " << i;
    }
    std::vector<int64_t> tids;
    for (const Track& k : g.tracks) tids.push_back(k.tid);
    if (run == 0) first_run = tids;
    EXPECT_EQ(tids, first_run) << "run " << run;
  }
  EXPECT_EQ(first_run.size(), 97u);
}

TEST(ImportKinetoJson, MappedFileMatchesStreamedText) {
  std::string pretty = "{\"traceEvents\": [\n";
  std::string compact = "{\"traceEvents\":[";
  for (int i = 0; i < 3000; ++i) {
    std::string ev = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k" + std::to_string(i % 7) +
                     "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(i * 10) +
                     ".125, \"dur\": 3.5, \"args\": {\"correlation\": " + std::to_string(i) + "}}";
    pretty += (i ? ",\n  " : "  ") + ev;
    compact += (i ? "," : "") + ev;
  }
  pretty += "\n]}\n";
  compact += "]}";
  for (const std::string& text : {pretty, compact}) {
    std::string path = th::testing::WriteTempFile("mapped.json", text);
    auto file = OpenFileSource(path);
    ASSERT_TRUE(file.ok());
    auto decoded = OpenDecoded(std::move(*file));
    ASSERT_TRUE(decoded.ok());
    size_t size = 0;
    ASSERT_NE((*decoded)->MutableMapping(&size), nullptr);
    ImportOptions opt;
    opt.chunk_bytes = 4096;
    auto mapped = ImportKinetoJson(**decoded, opt);
    ASSERT_TRUE(mapped.ok()) << mapped.status().message();
    // Every alignment of a chunk end against the scanner's stop (an element
    // event is ~130 bytes): a chunk must never bracket bytes not yet scanned.
    for (size_t chunk = 4096; chunk < 4096 + 160; ++chunk) {
      auto file_again = OpenFileSource(path);
      auto again = OpenDecoded(std::move(*file_again));
      ImportOptions o;
      o.chunk_bytes = chunk;
      auto t = ImportKinetoJson(**again, o);
      ASSERT_TRUE(t.ok()) << "chunk " << chunk << ": " << t.status().message();
      ASSERT_EQ((*t)->graph.events.size(), 3000u) << chunk;
    }
    auto streamed = Import(text, 4096);
    ASSERT_TRUE(streamed.ok());
    const EventColumns& a = (*mapped)->graph.events;
    const EventColumns& b = (*streamed)->graph.events;
    ASSERT_EQ(a.size(), 3000u);
    ASSERT_EQ(b.size(), 3000u);
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a.ts[i], b.ts[i]);
      ASSERT_EQ(a.correlation[i], static_cast<int64_t>(i));
    }
    // The file itself is untouched by the in-place brackets.
    EXPECT_EQ(th::testing::ReadFile(path), text);
  }
}

}  // namespace
}  // namespace th::kineto
