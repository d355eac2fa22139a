// ImportXSpaceFile against the reference importer (the straightforward
// model -> graph conversion it replaced, reference_xspace_importer.h): every
// real capture, amplified copies of them, and synthetic captures with the
// cases the fast importer treats specially (metadata stats overridden by event
// stats, unknown or sparse metadata ids, copy streams, allocator events, TPU
// module lookup) must give the same graph, column by column, string ids
// included; damaged copies the same error. Both ways of importing are
// checked: streaming from the file (ImportXSpaceFile) and through the whole
// model (ImportXSpaceFileFromModel).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "benchmarks/xspace_amplifier.h"
#include "core/import/xspace/xspace_importer.h"
#include "core/import/xspace/xspace_reader.h"
#include "tests/core/import/xspace/reference_xspace_importer.h"
#include "tests/support/test_files.h"
#include "xplane.pb.h"

namespace th {
namespace {

using tracehound::xspace::XEvent;
using tracehound::xspace::XEventMetadata;
using tracehound::xspace::XLine;
using tracehound::xspace::XPlane;
using tracehound::xspace::XSpace;
using tracehound::xspace::XStat;

template <typename T>
void ExpectSameColumn(const PodColumn<T>& a, const PodColumn<T>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  if (a.size() == 0) return;
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0) return;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(std::memcmp(&a[i], &b[i], sizeof(T)) == 0) << what << " differs at row " << i;
}

void ExpectSameColumn(const IdColumn& a, const IdColumn& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << what << " row " << i;
}

#define SAME(field) ExpectSameColumn(a.field, b.field, #field)

void ExpectSameGraph(const EventGraph& a, const EventGraph& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (StringId s = 0; s < a.strings.size(); ++s)
    ASSERT_EQ(a.strings.Get(s), b.strings.Get(s)) << "string id " << s;
  SAME(events.ts);
  SAME(events.dur);
  SAME(events.name);
  SAME(events.cat);
  SAME(events.track);
  SAME(events.parent);
  SAME(events.depth);
  SAME(events.ph);
  SAME(events.kind);
  SAME(events.flags);
  SAME(events.correlation);
  SAME(events.external_id);
  SAME(events.args_row);
  ASSERT_EQ(a.tracks.size(), b.tracks.size());
  for (size_t t = 0; t < a.tracks.size(); ++t) {
    const Track &x = a.tracks[t], &y = b.tracks[t];
    EXPECT_TRUE(x.pid == y.pid && x.tid == y.tid && x.pid_str == y.pid_str &&
                x.tid_str == y.tid_str && x.process_name == y.process_name &&
                x.thread_name == y.thread_name && x.kind == y.kind && x.device == y.device &&
                x.stream == y.stream)
        << "track " << t;
  }
  SAME(gpu_args.event);
  SAME(gpu_args.device);
  SAME(gpu_args.stream);
  for (int i = 0; i < 3; ++i) {
    SAME(gpu_args.grid[i]);
    SAME(gpu_args.block[i]);
  }
  SAME(gpu_args.registers);
  SAME(gpu_args.shared_mem);
  SAME(gpu_args.occupancy);
  SAME(gpu_args.bytes);
  SAME(collective_args.event);
  SAME(memory_args.event);
  SAME(memory_args.device_type);
  SAME(memory_args.device_id);
  SAME(memory_args.addr);
  SAME(memory_args.bytes);
  SAME(memory_args.total_allocated);
  SAME(memory_args.total_reserved);
  SAME(counters.event);
  SAME(xla_labels.event);
  SAME(xla_labels.hlo_op);
  SAME(xla_labels.hlo_module);
  SAME(xla_labels.program_id);
  SAME(xla_labels.op_name);
  SAME(xla_labels.source);
  SAME(xla_labels.group_id);
  SAME(xla_op_costs.event);
  SAME(xla_op_costs.flops);
  SAME(xla_op_costs.model_flops);
  SAME(xla_op_costs.bytes_accessed);
  SAME(edges.src);
  SAME(edges.dst);
  SAME(edges.kind);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_TRUE(a.steps[i].number == b.steps[i].number && a.steps[i].event == b.steps[i].event &&
                a.steps[i].ts == b.steps[i].ts && a.steps[i].dur == b.steps[i].dur)
        << "step " << i;
  }
  SAME(track_order);
  EXPECT_EQ(a.track_offsets, b.track_offsets);
}

#undef SAME

void ExpectSameTrace(const Trace& a, const Trace& b) {
  ExpectSameGraph(a.graph, b.graph);
  auto ta = a.trust.Entries(), tb = b.trust.Entries();
  ASSERT_EQ(ta.size(), tb.size());
  for (size_t i = 0; i < ta.size(); ++i) {
    EXPECT_EQ(ta[i].what, tb[i].what);
    EXPECT_EQ(ta[i].severity, tb[i].severity) << ta[i].what;
    EXPECT_EQ(ta[i].count, tb[i].count) << ta[i].what;
    EXPECT_EQ(ta[i].example, tb[i].example) << ta[i].what;
  }
  EXPECT_EQ(a.info.format, b.info.format);
  EXPECT_EQ(a.info.hlo_protos, b.info.hlo_protos);
  EXPECT_EQ(a.info.base_time_ns, b.info.base_time_ns);
  EXPECT_EQ(a.info.file_bytes, b.info.file_bytes);
  ASSERT_EQ(a.info.planes.size(), b.info.planes.size());
  for (size_t i = 0; i < a.info.planes.size(); ++i) {
    EXPECT_EQ(a.info.planes[i].name, b.info.planes[i].name);
    EXPECT_EQ(a.info.planes[i].events, b.info.planes[i].events);
    EXPECT_EQ(a.info.planes[i].lines, b.info.planes[i].lines);
    EXPECT_EQ(a.info.planes[i].stat_names, b.info.planes[i].stat_names);
  }
  ASSERT_EQ(a.info.devices.size(), b.info.devices.size());
  for (size_t i = 0; i < a.info.devices.size(); ++i) {
    const DeviceInfo &x = a.info.devices[i], &y = b.info.devices[i];
    EXPECT_TRUE(x.id == y.id && x.name == y.name && x.total_global_mem == y.total_global_mem &&
                x.compute_major == y.compute_major && x.compute_minor == y.compute_minor &&
                x.num_sms == y.num_sms)
        << "device " << i;
  }
}

using ImportFn = StatusOr<std::unique_ptr<Trace>> (*)(const std::string&,
                                                      std::vector<xspace::EmbeddedHloProto>*);

// Imports `path` with `fn` and with the reference; both must succeed or fail
// alike (with the same message).
void ExpectSameImport(const std::string& path, ImportFn fn) {
  std::vector<xspace::EmbeddedHloProto> hlo_a, hlo_b;
  auto a = fn(path, &hlo_a);
  auto b = xspace::reference::ImportXSpaceFileReference(path, &hlo_b);
  ASSERT_EQ(a.ok(), b.ok()) << path << ": " << (a.ok() ? b : a).status().message();
  if (!a.ok()) {
    EXPECT_EQ(a.status().message(), b.status().message());
    EXPECT_EQ(a.status().code(), b.status().code());
    return;
  }
  ExpectSameTrace(**a, **b);
  ASSERT_EQ(hlo_a.size(), hlo_b.size());
  for (size_t i = 0; i < hlo_a.size(); ++i) {
    EXPECT_EQ(hlo_a[i].where, hlo_b[i].where);
    EXPECT_EQ(hlo_a[i].bytes, hlo_b[i].bytes);
  }
}

// The streaming import (what ImportXSpaceFile does) and the import through
// the whole model, each against the reference.
void ExpectSameImport(const std::string& path) {
  {
    SCOPED_TRACE("streaming");
    ExpectSameImport(path, &xspace::ImportXSpaceFile);
  }
  {
    SCOPED_TRACE("whole model");
    ExpectSameImport(path, &xspace::ImportXSpaceFileFromModel);
  }
}

class XSpaceEquivalence : public ::testing::TestWithParam<std::string> {};

TEST_P(XSpaceEquivalence, SameGraphAsReference) {
  if (GetParam().empty()) GTEST_SKIP() << "no .xplane.pb under ../shared/data";
  ExpectSameImport(testing::SharedDataDir() + "/" + GetParam());
}

// Three copies of every line (the amplifier shifts times and correlation ids),
// so ids repeat across copies and the graph has launches to link.
TEST_P(XSpaceEquivalence, AmplifiedSameGraphAsReference) {
  if (GetParam().empty()) GTEST_SKIP() << "no .xplane.pb under ../shared/data";
  std::string src = testing::ReadFile(testing::SharedDataDir() + "/" + GetParam());
  bench::XSpaceAmplifyOptions options;
  options.repetitions = 3;
  std::string out;
  auto stats =
      bench::AmplifyXSpace(src, options, [&](std::string_view piece) { out.append(piece); });
  if (!stats.ok()) GTEST_SKIP() << "the strict reader refuses the source: " << GetParam();
  ExpectSameImport(testing::WriteTempFile(testing::ParamName(GetParam()) + ".x3.xplane.pb", out));
}

// Damaged copies: cut short, or with a byte changed. The streaming decoder
// must refuse exactly what the whole-model decoder refuses, with the same
// message (file, byte offset, path), and import the rest the same.
TEST_P(XSpaceEquivalence, DamagedCopiesSameResultAsReference) {
  if (GetParam().empty()) GTEST_SKIP() << "no .xplane.pb under ../shared/data";
  const std::string src = testing::ReadFile(testing::SharedDataDir() + "/" + GetParam());
  ASSERT_FALSE(src.empty());
  const std::string path = testing::WriteTempFile(testing::ParamName(GetParam()) + ".damaged", "");
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int copy = 0; copy < 60; ++copy) {
    std::string bytes = src;
    if (copy % 3 == 0) {
      bytes.resize(next() % bytes.size());
    } else {
      for (int k = 0; k <= copy % 4; ++k)
        bytes[next() % bytes.size()] = static_cast<char>(next() & 0xff);
    }
    testing::WriteTempFile(testing::ParamName(GetParam()) + ".damaged", bytes);
    SCOPED_TRACE(copy);
    ExpectSameImport(path);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The streaming decoder hands over every event of the whole-model decoder,
// line by line, with the same fields and stats (so ImportXSpaceFile does
// stream, and does not fall back to the model).
class RecordingSink : public xspace::XSpaceSink {
 public:
  explicit RecordingSink(const xspace::XSpaceData& model) : model_(model) {}
  std::vector<size_t> BeginPlane(const xspace::Plane& plane) override {
    EXPECT_LT(plane_, model_.planes.size());
    const xspace::Plane& m = model_.planes[plane_];
    EXPECT_EQ(plane.name, m.name);
    EXPECT_EQ(plane.lines.size(), m.lines.size());
    EXPECT_EQ(plane.event_metadata.size(), m.event_metadata.size());
    previewed_ = 0;
    std::vector<size_t> previews;
    if (!plane.lines.empty()) previews.push_back(plane.lines.size() - 1);
    return previews;
  }
  void Preview(const xspace::Plane& plane, size_t line,
               std::span<const xspace::Event> events) override {
    previewed_ += events.size();
    Compare(plane, line, events, previewed_ - events.size());
  }
  void BeginLine(const xspace::Plane& plane, size_t line) override {
    const xspace::Line& m = model_.planes[plane_].lines[line];
    EXPECT_EQ(plane.lines[line].name, m.name);
    EXPECT_EQ(plane.lines[line].display_name, m.display_name);
    EXPECT_EQ(plane.lines[line].timestamp_ns, m.timestamp_ns);
    EXPECT_EQ(plane.lines[line].display_id, m.display_id);
    EXPECT_EQ(plane.lines[line].duration_ps, m.duration_ps);
    EXPECT_EQ(plane.lines[line].id, m.id);
    seen_ = 0;
  }
  void LineEvents(const xspace::Plane& plane, size_t line,
                  std::span<const xspace::Event> events) override {
    Compare(plane, line, events, seen_);
    seen_ += events.size();
  }
  void EndLine(const xspace::Plane&, size_t line, uint64_t events) override {
    EXPECT_EQ(events, model_.planes[plane_].lines[line].events.size());
    EXPECT_EQ(seen_, events);
    events_ += events;
  }
  void EndPlane(const xspace::Plane&) override { ++plane_; }
  uint64_t events() const { return events_; }
  size_t planes() const { return plane_; }

 private:
  void Compare(const xspace::Plane& plane, size_t line, std::span<const xspace::Event> events,
               size_t first) {
    const xspace::Plane& mp = model_.planes[plane_];
    const std::vector<xspace::Event>& m = mp.lines[line].events;
    ASSERT_LE(first + events.size(), m.size());
    for (size_t i = 0; i < events.size(); ++i) {
      const xspace::Event &a = events[i], &b = m[first + i];
      ASSERT_TRUE(a.metadata_id == b.metadata_id && a.offset_ps == b.offset_ps &&
                  a.duration_ps == b.duration_ps &&
                  a.has_num_occurrences == b.has_num_occurrences && a.stats_count == b.stats_count)
          << "line " << line << " event " << first + i;
      auto sa = plane.StatsOf(a), sb = mp.StatsOf(b);
      for (size_t k = 0; k < sa.size(); ++k) {
        ASSERT_TRUE(sa[k].metadata_id == sb[k].metadata_id && sa[k].kind == sb[k].kind &&
                    sa[k].raw == sb[k].raw && sa[k].str == sb[k].str)
            << "line " << line << " event " << first + i << " stat " << k;
      }
    }
  }
  const xspace::XSpaceData& model_;
  size_t plane_ = 0;
  uint64_t seen_ = 0, events_ = 0, previewed_ = 0;
};

TEST_P(XSpaceEquivalence, StreamingDecoderHandsOverTheModelsEvents) {
  if (GetParam().empty()) GTEST_SKIP() << "no .xplane.pb under ../shared/data";
  const std::string path = testing::SharedDataDir() + "/" + GetParam();
  auto model = xspace::ReadXSpaceFile(path);
  xspace::XSpaceData none;
  for (bool guess : {false, true}) {
    SCOPED_TRACE(guess ? "guessing line ends" : "skimming lines");
    RecordingSink sink(model.ok() ? *model : none);
    bool guess_failed = false;
    Status streamed = xspace::StreamXSpaceFile(path, &sink, guess, &guess_failed);
    ASSERT_EQ(streamed.ok(), model.ok());
    if (!model.ok()) {
      if (!guess) {
        EXPECT_EQ(streamed.message(), model.status().message());
      }
      continue;
    }
    // The real captures are written as protobuf writes them: the guess holds.
    EXPECT_FALSE(guess_failed);
    EXPECT_EQ(sink.planes(), model->planes.size());
    EXPECT_EQ(sink.events(), model->EventsTotal());
  }
}

std::vector<std::string> Captures() {
  auto files = testing::FilesWithOracle(".xplane.pb", /*with_corrupt=*/true);
  if (files.empty()) files.push_back("");  // reported by the test below
  return files;
}

INSTANTIATE_TEST_SUITE_P(RealCaptures, XSpaceEquivalence, ::testing::ValuesIn(Captures()),
                         [](const auto& info) {
                           return info.param.empty() ? std::string("no_data")
                                                     : testing::ParamName(info.param);
                         });

// ---- synthetic captures: the special cases, written with libprotobuf ----

XStat* AddStat(google::protobuf::RepeatedPtrField<XStat>* stats, int64_t id) {
  XStat* s = stats->Add();
  s->set_metadata_id(id);
  return s;
}

void AddStatMetadata(XPlane* p, int64_t id, const std::string& name) {
  auto& m = (*p->mutable_stat_metadata())[id];
  m.set_id(id);
  m.set_name(name);
}

XEventMetadata* AddEventMetadata(XPlane* p, int64_t id, const std::string& name,
                                 const std::string& display_name = "") {
  auto& m = (*p->mutable_event_metadata())[id];
  m.set_id(id);
  m.set_name(name);
  if (!display_name.empty()) m.set_display_name(display_name);
  return &m;
}

XEvent* AddEvent(XLine* l, int64_t metadata_id, int64_t offset_ps, int64_t duration_ps) {
  XEvent* e = l->add_events();
  e->set_metadata_id(metadata_id);
  e->set_offset_ps(offset_ps);
  e->set_duration_ps(duration_ps);
  return e;
}

// Label stats on both the metadata and the event (the event's win); string
// values inline and as refs; metadata ids dense, sparse, negative, huge and
// unknown; events with num_occurrences; host launches with correlation ids.
void AddLabelledPlanes(XSpace* space, int64_t id_scale) {
  // Stat ids: 1 correlation_id, 2 hlo_op, 3 hlo_module, 4 program_id,
  // 5 tf_op, 6 name, 7 source, 8 group_id, 9 a ref target "fusion.7".
  const char* kStatNames[] = {"correlation_id", "hlo_op", "hlo_module", "program_id", "tf_op",
                              "name",           "source", "group_id",   "fusion.7"};
  XPlane* host = space->add_planes();
  host->set_id(1);
  host->set_name("/host:CPU");
  XPlane* gpu = space->add_planes();
  gpu->set_id(2);
  gpu->set_name("/device:GPU:0");
  for (XPlane* p : {host, gpu})
    for (int i = 0; i < 9; ++i) AddStatMetadata(p, i + 1, kStatNames[i]);

  const int64_t ids[] = {1, 2, 3 * id_scale, -5, id_scale * 1000 + 7};
  for (int k = 0; k < 5; ++k) {
    XEventMetadata* m = AddEventMetadata(gpu, ids[k], "kernel_" + std::to_string(k),
                                         k == 2 ? "display_kernel_2" : "");
    if (k % 2 == 0) {
      AddStat(m->mutable_stats(), 2)->set_str_value("op_from_metadata_" + std::to_string(k));
      AddStat(m->mutable_stats(), 3)->set_ref_value(9);
      AddStat(m->mutable_stats(), 4)->set_int64_value(100 + k);
    }
    if (k == 3) AddStat(m->mutable_stats(), 5)->set_str_value("XlaModule:");
    if (k == 4) AddStat(m->mutable_stats(), 6)->set_str_value("jit(f)/dot");
  }
  AddEventMetadata(gpu, 50, "MemcpyDtoH");
  AddEventMetadata(gpu, 51, "Memset");
  AddEventMetadata(host, 1, "cudaLaunchKernel");
  AddEventMetadata(host, 2, "MemoryAllocation");
  AddEventMetadata(host, 3, "python_op");

  XLine* launches = host->add_lines();
  launches->set_id(10);
  launches->set_name("thread 10");
  launches->set_timestamp_ns(1000);
  XLine* streams[3];
  const char* kStreamNames[] = {"Stream #7", "Stream #8(MemcpyH2D)", "Stream #9(Memset)"};
  for (int s = 0; s < 3; ++s) {
    streams[s] = gpu->add_lines();
    streams[s]->set_id(7 + s);
    if (s == 1) {
      streams[s]->set_name("gpu stream");
      streams[s]->set_display_name(kStreamNames[s]);
      streams[s]->set_display_id(77);
    } else {
      streams[s]->set_name(kStreamNames[s]);
    }
    streams[s]->set_timestamp_ns(2000 + s);
  }
  XLine* other = gpu->add_lines();
  other->set_id(20);
  other->set_name("Other line");
  for (int i = 0; i < 60; ++i) {
    XEvent* launch = AddEvent(launches, i % 3 == 0 ? 3 : 1, i * 10'000 + 1, 5'000);
    if (i % 3 != 0) AddStat(launch->mutable_stats(), 1)->set_int64_value(i);
    if (i % 7 == 0) AddStat(launch->mutable_stats(), 8)->set_int64_value(i / 7);
    XEvent* e = AddEvent(streams[i % 3], i % 9 == 8 ? 50 + i % 2 : ids[i % 5], i * 10'000 + 1234,
                         3'000 + i);
    if (i % 3 != 0) AddStat(e->mutable_stats(), 1)->set_uint64_value(i);
    if (i % 4 == 1) AddStat(e->mutable_stats(), 2)->set_str_value("op_from_event");
    if (i % 5 == 2) AddStat(e->mutable_stats(), 2)->set_str_value("");  // empties the label
    if (i % 6 == 3) AddStat(e->mutable_stats(), 3)->set_str_value("module_from_event");
    if (i % 8 == 5) AddStat(e->mutable_stats(), 7)->set_str_value("f.py:12");
    if (i % 10 == 9) AddStat(e->mutable_stats(), 4)->set_int64_value(-1);
    if (i % 11 == 4) AddStat(e->mutable_stats(), 6)->set_ref_value(9);
    AddEvent(other, i % 13 == 0 ? 999 : ids[(i + 1) % 5], i * 7'000, 2'000);  // 999: unknown
    if (i % 17 == 0) {
      XEvent* counted = other->add_events();
      counted->set_metadata_id(ids[0]);
      counted->set_num_occurrences(4);
    }
  }
  // Allocator events: with and without allocation_bytes, GPU and host allocators.
  AddStatMetadata(host, 20, "allocator_name");
  AddStatMetadata(host, 21, "bytes_allocated");
  AddStatMetadata(host, 22, "allocation_bytes");
  AddStatMetadata(host, 23, "addr");
  XLine* mem = host->add_lines();
  mem->set_id(11);
  mem->set_name("memory");
  mem->set_timestamp_ns(1000);
  for (int i = 0; i < 12; ++i) {
    XEvent* e = AddEvent(mem, 2, 100'000 - i * 1000, 0);
    AddStat(e->mutable_stats(), 20)->set_str_value(i % 2 ? "GPU_1_bfc" : "cpu_pool");
    AddStat(e->mutable_stats(), 21)->set_int64_value(1000 * (i + 1));
    if (i % 3 == 0) AddStat(e->mutable_stats(), 22)->set_int64_value(64 * i);
    AddStat(e->mutable_stats(), 23)->set_int64_value(0x1000 + i);
  }
}

// A TPU plane: "XLA Modules" names programs by fingerprint, "XLA Ops" events
// take their module from program_id.
void AddTpuPlane(XSpace* space) {
  XPlane* tpu = space->add_planes();
  tpu->set_id(3);
  tpu->set_name("/device:TPU:0");
  AddStatMetadata(tpu, 1, "program_id");
  AddStatMetadata(tpu, 2, "source");
  AddStatMetadata(tpu, 3, "hlo_module");
  AddEventMetadata(tpu, 1, "jit_f(1234)");
  AddEventMetadata(tpu, 2, "jit_g(99)");
  AddEventMetadata(tpu, 3, "fusion.1");
  AddEventMetadata(tpu, 4, "copy.2", "copy-start");
  AddStat(AddEventMetadata(tpu, 5, "MemcpyD2D")->mutable_stats(), 1)->set_int64_value(99);
  XLine* modules = tpu->add_lines();
  modules->set_id(1);
  modules->set_name("XLA Modules");
  modules->set_timestamp_ns(5000);
  AddEvent(modules, 1, 0, 1'000'000);
  AddEvent(modules, 2, 2'000'000, 1'000'000);
  XLine* ops = tpu->add_lines();
  ops->set_id(2);
  ops->set_name("XLA Ops");
  ops->set_timestamp_ns(5000);
  for (int i = 0; i < 20; ++i) {
    XEvent* e = AddEvent(ops, 3 + i % 3, i * 50'000 + 7, 40'000);
    if (i % 3 == 0) AddStat(e->mutable_stats(), 1)->set_int64_value(i % 2 ? 1234 : 99);
    if (i % 4 == 0) AddStat(e->mutable_stats(), 2)->set_str_value("model.py:" + std::to_string(i));
    if (i % 5 == 0) AddStat(e->mutable_stats(), 3)->set_str_value("explicit_module");
  }
}

// Lines whose last event ends in bytes that read as the fields protobuf
// writes after a line's events ("H\x05" = 48 05: duration_ps 5; "P\x03" =
// 50 03: display_id 3), so that guessing where the events end goes wrong.
// `which`: 0 no fields after the events, 1 display_id, 2 display_name.
void AddDeceivingLine(XSpace* space, int which) {
  XPlane* p = space->add_planes();
  p->set_id(40 + which);
  p->set_name("/host:deceiving " + std::to_string(which));
  AddStatMetadata(p, 1, "note");
  AddEventMetadata(p, 1, "op");
  XLine* line = p->add_lines();
  line->set_id(1);
  line->set_name("line");
  line->set_timestamp_ns(100);
  if (which == 1) line->set_display_id(42);
  if (which == 2) line->set_display_name("named line");
  for (int i = 0; i < 4; ++i) {
    XEvent* e = AddEvent(line, 1, i * 1000 + 1, 500);
    if (i == 3) AddStat(e->mutable_stats(), 1)->set_str_value(which == 2 ? "P\x03" : "H\x05");
  }
}

TEST(XSpaceEquivalenceSynthetic, SpecialCasesSameGraphAsReference) {
  for (int64_t scale : {int64_t{1}, int64_t{1000}, int64_t{1} << 40}) {
    SCOPED_TRACE(scale);
    XSpace space;
    AddLabelledPlanes(&space, scale);
    AddTpuPlane(&space);
    ExpectSameImport(testing::WriteTempFile("synthetic_" + std::to_string(scale) + ".xplane.pb",
                                            space.SerializeAsString()));
  }
}

// A wrong guess of a line's end is caught (the import is then decoded again
// without guessing, to the same graph).
TEST(XSpaceEquivalenceSynthetic, WrongGuessOfALineEndIsCaught) {
  for (int which : {0, 1, 2}) {
    SCOPED_TRACE(which);
    XSpace space;
    AddTpuPlane(&space);
    AddDeceivingLine(&space, which);
    const std::string path = testing::WriteTempFile(
        "deceiving_" + std::to_string(which) + ".xplane.pb", space.SerializeAsString());
    auto model = xspace::ReadXSpaceFile(path);
    ASSERT_TRUE(model.ok()) << model.status().message();
    RecordingSink sink(*model);
    bool guess_failed = false;
    EXPECT_FALSE(
        xspace::StreamXSpaceFile(path, &sink, /*guess_line_ends=*/true, &guess_failed).ok());
    EXPECT_TRUE(guess_failed);
    ExpectSameImport(path);
  }
}

TEST(XSpaceEquivalenceSynthetic, DataPresent) {
  if (testing::SharedDataDir().empty()) GTEST_SKIP() << "../shared/data is absent";
  EXPECT_FALSE(testing::FilesWithOracle(".xplane.pb").empty());
}

}  // namespace
}  // namespace th
