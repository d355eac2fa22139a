// The plugin test kit (<tracehound/testing.h>): its trace builder writes the
// catalog's schemas, its host hands over only declared tables and checks
// publishes as tracehound's does, its compute primitives give the results of
// tracehound's CPU engine, and its assertions say what they expected.
#include <gtest/gtest.h>
#include <tracehound/kernels/primitives.h>
#include <tracehound/testing.h>

#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/graph/core_tables.h"

namespace th {
namespace {

namespace kit = th::sdk::testing;

// One of everything the builder can add.
std::unique_ptr<kit::TestTrace> FullTrace() {
  kit::TraceBuilder b(3, "full.json");
  const uint32_t cpu = b.CpuThread(100, 101, "main");
  const uint32_t s7 = b.GpuStream(0, 7), s9 = b.GpuStream(1, 9);
  b.ProfilerStep(cpu, 2, 10'000, 5'000);
  b.ProfilerStep(cpu, 1, 0, 10'000);
  const uint32_t op = b.CpuOp(cpu, "aten::mm", 100, 900, "[[4096,4096],[4096,4096]]",
                              R"(["c10::BFloat16","c10::BFloat16"])");
  const uint32_t launch = b.Runtime(cpu, "cudaLaunchKernel", 200, 50);
  kit::GpuArgs args;
  args.grid[0] = 4;
  args.grid[1] = 2;
  args.grid[2] = 1;
  args.block[0] = 128;
  args.block[1] = 1;
  args.block[2] = 1;
  args.registers = 32;
  args.occupancy = 50;
  const uint32_t gemm = b.Kernel(s7, "gemm", 300, 2'000, args);
  b.Launch(launch, gemm);
  b.Memcpy(s7, "Memcpy HtoD (Pageable -> Device)", 2'400, 100, 4096);
  b.Memset(s7, "Memset (Device)", 2'600, 10, 512);
  kit::CollectiveArgs coll;
  coll.in_nelems = coll.out_nelems = 1024;
  coll.group_size = 8;
  b.Collective(s9, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 3'000, 4'000, coll);
  b.GpuSync(cpu, "cudaDeviceSynchronize", 7'000, 100);
  kit::MemoryArgs mem;
  mem.addr = 0x1000;
  mem.total_allocated = 4096;
  b.Memory(cpu, 150, 4096, mem);
  b.OutOfMemory(cpu, 160, 1 << 30);
  b.Counter(cpu, "GPU Memory", 170, "used", 12.5);
  b.Flow(op, launch);
  b.SetExternalId(op, 77);
  b.Device({0, "NVIDIA H100 80GB HBM3", 80LL << 30, 9, 0, 132});
  return b.Build();
}

TEST(TestingKit, BuilderWritesEveryCatalogTableWithItsSchema) {
  auto trace = FullTrace();
  const std::vector<TableSchema>& core = CoreTableSchemas();
  ASSERT_EQ(trace->tables().size(), core.size());
  for (size_t i = 0; i < core.size(); ++i) {
    const th_table& t = trace->tables()[i];
    const TableSchema& want = core[i];
    EXPECT_EQ(std::string(t.name), want.name) << "catalog order";
    ASSERT_EQ(t.column_count, want.columns.size()) << want.name;
    for (uint32_t c = 0; c < t.column_count; ++c) {
      const th_table_column& col = t.columns[c];
      const ColumnSchema& w = want.columns[c];
      EXPECT_EQ(std::string(col.name), w.name) << want.name;
      EXPECT_EQ(col.values.type, static_cast<uint32_t>(w.type)) << want.name << "." << w.name;
      EXPECT_EQ(std::string(col.unit), w.unit) << want.name << "." << w.name;
      EXPECT_EQ(col.values.length, t.row_count) << want.name << "." << w.name;
    }
  }
  EXPECT_EQ(trace->Find("events")->row_count, 12u);
  EXPECT_EQ(trace->Find("gpu_args")->row_count, 5u);  // kernel, memcpy, memset, collective, sync
  EXPECT_EQ(trace->Find("graph_capture")->row_count, 1u);
  EXPECT_EQ(trace->Find("op_inputs")->row_count, 1u);
  // event_launches: the gemm (at 300 ns) and its launch call (the runtime event at 200 ns).
  const th_table* launches = trace->Find("event_launches");
  ASSERT_EQ(launches->row_count, 1u);
  const auto* ts = static_cast<const int64_t*>(trace->Find("events")->columns[0].values.data);
  const auto* launched = static_cast<const uint32_t*>(launches->columns[0].values.data);
  const auto* launch = static_cast<const uint32_t*>(launches->columns[1].values.data);
  EXPECT_EQ(ts[launched[0]], 300);
  EXPECT_EQ(ts[launch[0]], 200);
}

// Reads the full trace through the SDK's accessors and reports what it saw.
class Reader final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("reader", "1.0.0", sdk::kAnalyzer, "reads the kit's trace")
        .Reads({"events", "tracks", "edges", "profiler_steps", "gpu_args", "collective_args",
                "memory_args", "devices", "name_classes", "class_rules", "graph_capture",
                "op_inputs"});
  }
  void Run(sdk::Context& ctx) override {
    const sdk::Trace& t = ctx.traces().at(0);
    for (uint64_t i = 0; i < t.size(); ++i) {
      const std::string name(t.name(i));
      sdk::Scope scope;
      scope.rank = t.rank();
      ctx.Metric("class " + name, static_cast<double>(t.kernel_class(i)), "", sdk::kMeasured,
                 scope);
      ctx.Metric("depth " + name, t.depth(i), "", sdk::kMeasured, scope);
      ctx.Metric("correlation " + name, static_cast<double>(t.correlation(i)), "", sdk::kMeasured,
                 scope);
    }
    ctx.Metric("blocks", static_cast<double>(t.gpu_blocks(0)), "", sdk::kMeasured);
    ctx.Metric("threads", static_cast<double>(t.gpu_threads_per_block(0)), "", sdk::kMeasured);
    ctx.Metric("stream of gemm", static_cast<double>(t.gpu_stream(0)), "", sdk::kMeasured);
    ctx.Metric("first step", static_cast<double>(t.step(0).number), "", sdk::kMeasured);
    ctx.Metric("edges", static_cast<double>(t.edge_count()), "", sdk::kMeasured);
    ctx.Metric("launch dst", t.edge_dst(0), "", sdk::kMeasured);
    ctx.Metric("group size", t.collective_group_size(0), "", sdk::kMeasured);
    ctx.Metric("collective", t.collective_name(0) == "allreduce", "", sdk::kMeasured);
    ctx.Metric("allocated", static_cast<double>(t.memory_total_allocated(0)), "bytes",
               sdk::kMeasured);
    ctx.Metric("sms", t.device(0).num_sms, "", sdk::kMeasured);
    ctx.Metric("gpu track", t.track(1).kind == TH_TRACK_GPU_STREAM, "", sdk::kMeasured);
    ctx.Metric("capture", t.capture().dominates, "", sdk::kMeasured);
    for (uint64_t i = 0; i < t.size(); ++i) {
      if (t.name(i) != "aten::mm") continue;
      const uint32_t row = t.args_row(i);
      ctx.Metric("op inputs", static_cast<double>(t.op_inputs_count()), "", sdk::kMeasured);
      ctx.Metric("op inputs row event", t.op_inputs_event(row) == i, "", sdk::kMeasured);
      ctx.Metric("mm dims", t.op_input_dims(row) == "[[4096,4096],[4096,4096]]", "",
                 sdk::kMeasured);
      ctx.Metric("mm types", t.op_input_types(row) == R"(["c10::BFloat16","c10::BFloat16"])", "",
                 sdk::kMeasured);
    }
  }
};

double MetricOf(const kit::RunResult& r, const std::string& name) {
  const kit::ReportedMetric* m = r.Metric(name);
  EXPECT_NE(m, nullptr) << name << "\n" << kit::Summary(r);
  return m ? m->value : -1;
}

// gpu_activity through the SDK: the rows a scan of every event finds GPU
// activity at, in the same (ascending) order; a plugin that does not declare
// the table is told so. string_count: the ids of every event's name.
class GpuActivityReader final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("gpu-activity", "1.0.0", sdk::kAnalyzer, "lists GPU activity")
        .Reads({"events", "gpu_activity", "name_classes"});
  }
  void Run(sdk::Context& ctx) override {
    const sdk::Trace& t = ctx.traces().at(0);
    // string_count: every event's name among the ids below it.
    std::set<std::string_view> strings;
    for (uint32_t id = 0; id < t.string_count(); ++id) strings.insert(t.String(id));
    uint64_t named = 0;
    for (uint32_t i = 0; i < t.size(); ++i)
      named += t.name_id(i) < t.string_count() && strings.count(t.name(i)) > 0;
    ctx.Metric("named", named == t.size() ? 1 : 0, "", sdk::kMeasured);
    ctx.Metric("has gemm", strings.count("gemm") > 0 ? 1 : 0, "", sdk::kMeasured);
    std::vector<uint32_t> scanned;
    for (uint32_t i = 0; i < t.size(); ++i)
      if (t.is_gpu_activity(i)) scanned.push_back(i);
    const std::span<const uint32_t> listed = t.gpu_activity();
    ctx.Metric("listed", static_cast<double>(listed.size()), "count", sdk::kMeasured);
    ctx.Metric("same", std::vector<uint32_t>(listed.begin(), listed.end()) == scanned ? 1 : 0, "",
               sdk::kMeasured);
  }
};
class GpuActivityUndeclared final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("gpu-activity-undeclared", "1.0.0", sdk::kAnalyzer, "forgets it")
        .Reads({"events"});
  }
  void Run(sdk::Context& ctx) override { (void)ctx.traces().at(0).gpu_activity(); }
};

TEST(TestingKit, GpuActivityListsTheKernelsCopiesAndSetsByRowStringsAllNames) {
  auto trace = FullTrace();
  kit::Host host;
  kit::RunResult r = host.Run(kit::DescriptorOf<GpuActivityReader>(), {trace.get()});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(MetricOf(r, "listed"), 4);  // kernel, memcpy, memset, the collective (the sync: no)
  EXPECT_EQ(MetricOf(r, "same"), 1);
  EXPECT_EQ(MetricOf(r, "named"), 1);
  EXPECT_EQ(MetricOf(r, "has gemm"), 1);
  kit::RunResult u = host.Run(kit::DescriptorOf<GpuActivityUndeclared>(), {trace.get()});
  EXPECT_FALSE(u.ok);
  EXPECT_NE(u.error.find("reads catalog table 'gpu_activity' without declaring it"),
            std::string::npos)
      << u.error;
}

TEST(TestingKit, TheSdkReadsTheBuiltTrace) {
  auto trace = FullTrace();
  kit::Host host;
  kit::RunResult r = host.Run(kit::DescriptorOf<Reader>(), {trace.get()});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(MetricOf(r, "class gemm"), TH_CLASS_COMP);
  EXPECT_EQ(MetricOf(r, "class ncclDevKernel_AllReduce_Sum_f32_RING_LL"), TH_CLASS_COMM);
  EXPECT_EQ(MetricOf(r, "class Memcpy HtoD (Pageable -> Device)"), TH_CLASS_MEM);
  EXPECT_EQ(MetricOf(r, "class aten::mm"), TH_CLASS_NONE);
  EXPECT_EQ(MetricOf(r, "depth ProfilerStep#1"), 0);
  EXPECT_EQ(MetricOf(r, "depth aten::mm"), 1);
  EXPECT_EQ(MetricOf(r, "depth cudaLaunchKernel"), 2);
  EXPECT_EQ(MetricOf(r, "correlation gemm"), MetricOf(r, "correlation cudaLaunchKernel"));
  EXPECT_NE(MetricOf(r, "correlation gemm"), static_cast<double>(INT64_MIN));
  EXPECT_EQ(MetricOf(r, "blocks"), 8);
  EXPECT_EQ(MetricOf(r, "threads"), 128);
  EXPECT_EQ(MetricOf(r, "stream of gemm"), 7);
  EXPECT_EQ(MetricOf(r, "first step"), 1) << "profiler_steps are in start order";
  EXPECT_EQ(MetricOf(r, "edges"), 2);
  EXPECT_EQ(MetricOf(r, "launch dst"), 4);
  EXPECT_EQ(MetricOf(r, "group size"), 8);
  EXPECT_EQ(MetricOf(r, "collective"), 1);
  EXPECT_EQ(MetricOf(r, "allocated"), 4096);
  EXPECT_EQ(MetricOf(r, "sms"), 132);
  EXPECT_EQ(MetricOf(r, "gpu track"), 1);
  EXPECT_EQ(MetricOf(r, "capture"), 0);
  EXPECT_EQ(MetricOf(r, "op inputs"), 1);
  EXPECT_EQ(MetricOf(r, "op inputs row event"), 1);
  EXPECT_EQ(MetricOf(r, "mm dims"), 1);
  EXPECT_EQ(MetricOf(r, "mm types"), 1);
}

// Compares launch_of with a cursor (ascending, descending and mixed orders)
// to the binary search, event by event.
class LaunchCursorReader final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("launch-cursor", "1.0.0", sdk::kAnalyzer, "reads launches twice")
        .Reads({"events", "event_launches"});
  }
  void Run(sdk::Context& ctx) override {
    const sdk::Trace& t = ctx.traces().at(0);
    std::vector<uint64_t> order;
    for (uint64_t i = 0; i < t.size(); ++i) order.push_back(i);
    for (uint64_t i = t.size(); i-- > 0;) order.push_back(i);
    for (uint64_t i = 0; i < t.size(); i += 2) order.push_back(i);
    for (uint64_t i = 1; i < t.size(); i += 3) order.push_back(i);
    order.push_back(order.back());
    uint64_t cursor = 0, mismatches = 0, launched = 0;
    for (uint64_t i : order) {
      const uint32_t fast = t.launch_of(i, cursor);
      mismatches += fast != t.launch_of(i);
    }
    for (uint64_t i = 0; i < t.size(); ++i) launched += t.launch_of(i) != sdk::kNoRow;
    ctx.Metric("mismatches", static_cast<double>(mismatches), "count", sdk::kMeasured);
    ctx.Metric("launched", static_cast<double>(launched), "count", sdk::kMeasured);
  }
};

TEST(TestingKit, LaunchOfWithACursorAnswersAsTheBinarySearchInAnyOrder) {
  kit::TraceBuilder b(0, "launches.json");
  const uint32_t cpu = b.CpuThread(1, 1, "main");
  const uint32_t s7 = b.GpuStream(0, 7);
  std::vector<uint32_t> calls, kernels;
  for (int k = 0; k < 6; ++k) calls.push_back(b.Runtime(cpu, "cudaLaunchKernel", 100 * k, 10));
  for (int k = 0; k < 6; ++k) kernels.push_back(b.Kernel(s7, "k", 1'000 + 100 * k, 50));
  b.Kernel(s7, "not launched", 2'000, 50);
  for (int k : {4, 0, 2, 5}) b.Launch(calls[k], kernels[k]);
  auto trace = b.Build();
  kit::Host host;
  kit::RunResult r = host.Run(kit::DescriptorOf<LaunchCursorReader>(), {trace.get()});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(MetricOf(r, "mismatches"), 0);
  EXPECT_EQ(MetricOf(r, "launched"), 4);
}

// Writes each track's events as track_events lists them, as "track:row ...".
class TrackEventsReader final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("track-events", "1.0.0", sdk::kAnalyzer, "lists tracks by start")
        .Reads({"events", "tracks", "track_events", "track_order"})
        .Publishes(sdk::Schema("listed").Text("rows"));
  }
  void Run(sdk::Context& ctx) override {
    const sdk::Trace& t = ctx.traces().at(0);
    std::string rows;
    for (uint32_t k = 0; k < t.track_count(); ++k) {
      const auto events = t.track_events(k);
      for (uint32_t j = 0; j < events.size(); ++j)
        rows += std::to_string(k) + ":" + std::to_string(events[j]) + " ";
    }
    ctx.Publish(sdk::Table("listed").Text("rows", std::vector<std::string>{rows}));
  }
};

TEST(TestingKit, TrackEventsListEachTracksEventsByStartLongerFirst) {
  kit::TraceBuilder b(0, "order.json");
  const uint32_t cpu = b.CpuThread(1, 1, "main");
  const uint32_t s7 = b.GpuStream(0, 7);
  b.CpuOp(cpu, "late", 500, 10);    // 0
  b.Kernel(s7, "k", 50, 5);         // 1
  b.CpuOp(cpu, "inner", 100, 20);   // 2: same start as 3, shorter: after it
  b.CpuOp(cpu, "outer", 100, 300);  // 3
  b.CpuOp(cpu, "first", 10, 5);     // 4
  b.CpuOp(cpu, "tie", 100, 20);     // 5: same start and length as 2: the higher row after
  b.Kernel(s7, "k", 20, 5);         // 6
  auto trace = b.Build();
  kit::Host host;
  kit::RunResult r = host.Run(kit::DescriptorOf<TrackEventsReader>(), {trace.get()});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_NE(r.Table("listed"), nullptr);
  EXPECT_EQ(r.Table("listed")->Find("rows")->texts,
            (std::vector<std::string>{"0:4 0:3 0:2 0:5 0:0 1:6 1:1 "}));
}

// Publishes the trace's names as views (no string of its own per row), an
// empty view and a static one, beside an owned text column; the same as
// NUL-terminated pointers (no packing; NULL for the empty tag); and a column
// from Context::NewInts (this host gives no memory: the plugin's own, copied).
class NameViews final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("name-views", "1.0.0", sdk::kAnalyzer, "lists names by view")
        .Reads({"events"})
        .Publishes(sdk::Schema("names")
                       .Text("name")
                       .Text("tag")
                       .Text("owned")
                       .Text("c_name")
                       .Text("c_tag")
                       .Int("ordinal"));
  }
  void Run(sdk::Context& ctx) override {
    const sdk::Trace& t = ctx.traces().at(0);
    std::vector<std::string_view> names, tags;
    std::vector<const char*> name_pointers, tag_pointers;
    std::vector<std::string> owned;
    sdk::Column<int64_t> ordinal = ctx.NewInts(t.size());
    for (uint64_t i = 0; i < t.size(); ++i) {
      names.push_back(t.name(i));
      name_pointers.push_back(t.name(i).data());
      tags.push_back(i % 2 ? std::string_view("odd") : std::string_view());
      tag_pointers.push_back(i % 2 ? "odd" : nullptr);
      owned.push_back(std::string(t.name(i)) + "!");
      ordinal[i] = static_cast<int64_t>(i) + 1;
    }
    const bool own_memory = !ordinal.in_host_memory();
    ctx.Publish(sdk::Table("names")
                    .TextViews("name", names)
                    .TextViews("tag", tags)
                    .Text("owned", std::move(owned))
                    .CStrings("c_name", std::move(name_pointers))
                    .CStrings("c_tag", std::move(tag_pointers))
                    .IntColumn("ordinal", std::move(ordinal)));
    if (!own_memory) throw std::logic_error("the testing host gives no column memory");
  }
};

TEST(TestingKit, TextViewsPublishTheViewedBytes) {
  kit::TraceBuilder b(0, "views.json");
  const uint32_t cpu = b.CpuThread(1, 1, "main");
  b.CpuOp(cpu, "aten::mm", 10, 5);
  b.CpuOp(cpu, "a much longer name than a short string holds inline", 20, 5);
  b.CpuOp(cpu, "aten::mm", 30, 5);
  auto trace = b.Build();
  kit::Host host;
  kit::RunResult r = host.Run(kit::DescriptorOf<NameViews>(), {trace.get()});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(kit::ExpectTable(r, "names", 3));
  const auto* names = r.Table("names");
  EXPECT_EQ(names->Find("name")->texts,
            (std::vector<std::string>{
                "aten::mm", "a much longer name than a short string holds inline", "aten::mm"}));
  EXPECT_EQ(names->Find("tag")->texts, (std::vector<std::string>{"", "odd", ""}));
  EXPECT_EQ(names->Find("owned")->texts,
            (std::vector<std::string>{
                "aten::mm!", "a much longer name than a short string holds inline!", "aten::mm!"}));
  EXPECT_EQ(names->Find("c_name")->texts, names->Find("name")->texts);
  EXPECT_EQ(names->Find("c_tag")->texts, (std::vector<std::string>{"", "odd", ""}));
  EXPECT_EQ(names->Find("ordinal")->ints, (std::vector<int64_t>{1, 2, 3}));
}

// Reads gpu_args without declaring it, or finds an undeclared table.
class Undeclared final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("undeclared", "1.0.0", sdk::kAnalyzer, "reads too much")
        .Reads({"events"})
        .Option("find_table", false, "ask find_table instead");
  }
  void Run(sdk::Context& ctx) override {
    if (ctx.GetBool("find_table")) {
      ctx.FindTable("other_table");
      return;
    }
    ctx.traces().at(0).gpu_rows();
  }
};

TEST(TestingKit, HostHandsOverOnlyDeclaredTables) {
  auto trace = FullTrace();
  kit::Host host;
  kit::RunResult r = host.Run(kit::DescriptorOf<Undeclared>(), {trace.get()});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("add \"gpu_args\" to the plugin's Declare().Reads"), std::string::npos)
      << r.error;
  kit::RunResult found =
      host.Run(kit::DescriptorOf<Undeclared>(), {trace.get()}, {{"find_table", true}});
  EXPECT_FALSE(found.ok);
  ASSERT_EQ(found.logs.size(), 1u);
  EXPECT_NE(found.logs[0].message.find("reads table 'other_table' without declaring it"),
            std::string::npos);
}

// Publishes `busy` per stream with IntervalUnion, or a table off its schema.
class Publisher final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("publisher", "1.0.0", sdk::kAnalyzer, "busy time per track")
        .Reads({"events"})
        .Publishes(sdk::Schema("busy").Int("track").Int("busy", "ns"))
        .Option("wrong_unit", false, "publish busy in us");
  }
  void Run(sdk::Context& ctx) override {
    const sdk::Trace& t = ctx.traces().at(0);
    std::vector<uint32_t> group;
    std::vector<int64_t> begin, end;
    for (uint64_t i = 0; i < t.size(); ++i) {
      if (!t.is_gpu_activity(i)) continue;
      group.push_back(t.track_index(i));
      begin.push_back(t.ts(i));
      end.push_back(t.end(i));
    }
    std::vector<int64_t> busy = ctx.IntervalUnion(group, begin, end, 3);
    ctx.Publish(sdk::Table("busy")
                    .Int("track", {0, 1, 2})
                    .Int("busy", busy, ctx.GetBool("wrong_unit") ? "us" : "ns"));
  }
};

// Reads the table Publisher published.
class Consumer final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("consumer", "1.0.0", sdk::kAnalyzer, "reads busy").Reads({"busy"});
  }
  void Run(sdk::Context& ctx) override {
    const th_table* t = ctx.FindTable("busy");
    ctx.Metric("busy rows", t ? static_cast<double>(t->row_count) : -1, "", sdk::kMeasured);
  }
};

TEST(TestingKit, HostChecksPublishesAgainstTheirSchemaAndKeepsThemForLaterPlugins) {
  auto trace = FullTrace();
  kit::Host host;
  kit::RunResult r = host.Run(kit::DescriptorOf<Publisher>(), {trace.get()});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_TRUE(kit::ExpectTable(r, "busy", 3));
  // gemm 300..2300, memcpy 2400..2500, memset 2600..2610 on track 1; the
  // collective on track 2.
  EXPECT_EQ(r.Table("busy")->Ints("busy"), (std::vector<int64_t>{0, 2110, 4000}));
  EXPECT_EQ(MetricOf(host.Run(kit::DescriptorOf<Consumer>(), {trace.get()}), "busy rows"), 3);

  kit::Host fresh;
  kit::RunResult wrong =
      fresh.Run(kit::DescriptorOf<Publisher>(), {trace.get()}, {{"wrong_unit", true}});
  EXPECT_FALSE(wrong.ok);
  ASSERT_FALSE(wrong.logs.empty());
  EXPECT_NE(wrong.logs[0].message.find("does not match its declared schema"), std::string::npos)
      << wrong.logs[0].message;
  EXPECT_EQ(MetricOf(fresh.Run(kit::DescriptorOf<Consumer>(), {trace.get()}), "busy rows"), -1);
}

TEST(TestingKit, OptionsAreTheDeclaredOnes) {
  auto trace = FullTrace();
  kit::Host host;
  kit::RunResult unknown =
      host.Run(kit::DescriptorOf<Publisher>(), {trace.get()}, {{"threshold", 3}});
  EXPECT_FALSE(unknown.ok);
  EXPECT_NE(unknown.error.find("option 'threshold' is not among"), std::string::npos);
  kit::RunResult typed =
      host.Run(kit::DescriptorOf<Publisher>(), {trace.get()}, {{"wrong_unit", 1}});
  EXPECT_FALSE(typed.ok);
  EXPECT_NE(typed.error.find("another type"), std::string::npos) << typed.error;
}

// Reports one finding with everything reports rank it by.
class Detector final : public sdk::Plugin {
 public:
  static sdk::Declaration Declare() {
    return sdk::Declaration("detector", "1.0.0", sdk::kDetector, "one finding").Reads({"events"});
  }
  void Run(sdk::Context& ctx) override {
    sdk::Scope scope;
    scope.rank = ctx.traces().at(0).rank();
    ctx.Add(sdk::Finding(sdk::P1, "slow gemm")
                .In(scope)
                .TimeLost(2000)
                .Saving(1000)
                .Group("gemm")
                .At(300, 2300));
  }
};

TEST(TestingKit, FindingAssertionsSayWhatTheyExpected) {
  auto trace = FullTrace();
  kit::Host host;
  kit::RunResult r = host.Run(kit::DescriptorOf<Detector>(), {trace.get()});
  ASSERT_TRUE(kit::ExpectOk(r));
  EXPECT_TRUE(kit::ExpectFinding(r, sdk::P1, "slow"));
  kit::FindingQuery q;
  q.severity = sdk::P1;
  q.group = "gemm";
  q.rank = 3;
  q.with_saving = q.with_time_lost = q.with_range = true;
  EXPECT_TRUE(kit::ExpectFindingCount(r, q, 1));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(*r.findings[0].time_lost_ns, 2000);
  EXPECT_EQ(*r.findings[0].saving_ns, 1000);
  EXPECT_EQ(r.findings[0].range, std::make_pair(int64_t{300}, int64_t{2300}));

  kit::Outcome wrong = kit::ExpectFinding(r, sdk::P0, "slow");
  EXPECT_FALSE(wrong);
  EXPECT_NE(wrong.message.find("expected a finding of severity P0 whose title contains \"slow\""),
            std::string::npos)
      << wrong;
  EXPECT_NE(wrong.message.find("finding P1 \"slow gemm\" time_lost=2000"), std::string::npos)
      << wrong;
  EXPECT_FALSE(kit::ExpectNoFinding(r));
  EXPECT_FALSE(kit::ExpectMetric(r, "events", 0, 1));

  kit::Checks checks;
  EXPECT_TRUE(checks(kit::ExpectFinding(r, sdk::P1, "gemm")));
  EXPECT_EQ(checks.Finish("detector"), 0);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(checks(wrong));
  EXPECT_EQ(checks.Finish("detector"), 1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("FAILED: expected a finding of severity P0"), std::string::npos) << err;
  EXPECT_NE(err.find("detector: 1 check(s) failed"), std::string::npos) << err;
}

// --- The kit's primitives against tracehound's CPU engine.

std::vector<int64_t> RandomInts(std::mt19937_64& rng, size_t n, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<int64_t> v(n);
  for (int64_t& x : v) x = d(rng);
  return v;
}

std::vector<uint32_t> RandomKeys(std::mt19937_64& rng, size_t n, uint32_t below) {
  std::uniform_int_distribution<uint32_t> d(0, below - 1);
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) x = d(rng);
  return v;
}

TEST(TestingKitPrimitives, SortByKeyIsTheEnginesStableSort) {
  auto engine = kernels::MakeCpuEngine();
  std::mt19937_64 rng(1);
  for (size_t n : {0, 1, 2, 17, 300, 3000}) {
    std::vector<int64_t> keys = RandomInts(rng, n, -20, 20), keys2 = keys;
    std::vector<uint32_t> values(n), values2;
    for (size_t i = 0; i < n; ++i) values[i] = static_cast<uint32_t>(i);
    values2 = values;
    ASSERT_TRUE(engine->SortByKey(keys, values).ok());
    EXPECT_EQ(kit::cpu::SortByKey(keys2.data(), values2.data(), n), "");
    EXPECT_EQ(keys2, keys) << n;
    EXPECT_EQ(values2, values) << n;
  }
}

TEST(TestingKitPrimitives, ReduceByKeyMatchesTheEngineForEveryOp) {
  auto engine = kernels::MakeCpuEngine();
  std::mt19937_64 rng(2);
  for (uint32_t op = 0; op < 4; ++op) {
    for (size_t n : {0, 1, 50, 1000}) {
      const std::vector<uint32_t> keys = RandomKeys(rng, n, 7);
      const std::vector<int64_t> values = RandomInts(rng, n, -1000, 1000);
      std::vector<int64_t> want(9), got(9);  // keys 7 and 8 have no row
      ASSERT_TRUE(engine->ReduceByKey(keys, values, static_cast<kernels::ReduceOp>(op), want).ok());
      EXPECT_EQ(kit::cpu::ReduceByKey(keys.data(), values.data(), n, op, got.data(), got.size()),
                "");
      EXPECT_EQ(got, want) << "op " << op << " n " << n;
    }
  }
  const std::vector<uint32_t> keys = {0, 5};
  const std::vector<int64_t> values = {1, 2};
  std::vector<int64_t> out(5);
  EXPECT_FALSE(engine->ReduceByKey(keys, values, kernels::ReduceOp::kSum, out).ok());
  EXPECT_EQ(kit::cpu::ReduceByKey(keys.data(), values.data(), 2, 0, out.data(), out.size()),
            "key 5 is not below the output size 5");
}

TEST(TestingKitPrimitives, SegmentedPercentilesMatchTheEngine) {
  auto engine = kernels::MakeCpuEngine();
  std::mt19937_64 rng(3);
  const std::vector<int64_t> values = RandomInts(rng, 200, 0, 1'000'000);
  const std::vector<uint64_t> offsets = {0, 0, 1, 2, 10, 57, 57, 200};
  const std::vector<double> pcts = {1, 25, 50, 90, 99, 99.9, 100};
  std::vector<int64_t> want((offsets.size() - 1) * pcts.size()), got(want.size());
  ASSERT_TRUE(engine->SegmentedPercentiles(values, offsets, pcts, want).ok());
  EXPECT_EQ(kit::cpu::SegmentedPercentiles(values.data(), offsets.data(), offsets.size() - 1,
                                           pcts.data(), pcts.size(), got.data()),
            "");
  EXPECT_EQ(got, want);
  const std::vector<double> zero = {0};
  std::vector<int64_t> out(offsets.size() - 1);
  EXPECT_FALSE(engine->SegmentedPercentiles(values, offsets, zero, out).ok());
  EXPECT_NE(kit::cpu::SegmentedPercentiles(values.data(), offsets.data(), offsets.size() - 1,
                                           zero.data(), 1, out.data()),
            "");
}

TEST(TestingKitPrimitives, IntervalUnionAndOverlapMatchTheEngine) {
  auto engine = kernels::MakeCpuEngine();
  std::mt19937_64 rng(4);
  for (size_t n : {0, 1, 5, 100, 2000}) {
    const std::vector<uint32_t> ga = RandomKeys(rng, n, 4), gb = RandomKeys(rng, n / 2 + 1, 4);
    std::vector<int64_t> ba = RandomInts(rng, n, 0, 10'000),
                         bb = RandomInts(rng, gb.size(), 0, 10'000);
    std::vector<int64_t> ea(n), eb(gb.size());
    // Some intervals empty or reversed: they cover nothing.
    for (size_t i = 0; i < n; ++i) ea[i] = ba[i] + RandomInts(rng, 1, -50, 500)[0];
    for (size_t i = 0; i < gb.size(); ++i) eb[i] = bb[i] + RandomInts(rng, 1, -50, 500)[0];
    std::vector<int64_t> want(5), got(5);
    ASSERT_TRUE(engine->IntervalUnion({ga, ba, ea}, want).ok());
    EXPECT_EQ(kit::cpu::IntervalUnion(ga.data(), ba.data(), ea.data(), n, got.data(), 5), "");
    EXPECT_EQ(got, want) << "union, n " << n;
    ASSERT_TRUE(engine->IntervalOverlap({ga, ba, ea}, {gb, bb, eb}, want).ok());
    EXPECT_EQ(kit::cpu::IntervalOverlap(ga.data(), ba.data(), ea.data(), n, gb.data(), bb.data(),
                                        eb.data(), gb.size(), got.data(), 5),
              "");
    EXPECT_EQ(got, want) << "overlap, n " << n;
  }
  const std::vector<uint32_t> g = {3};
  const std::vector<int64_t> b = {0}, e = {1};
  std::vector<int64_t> out(2);
  EXPECT_FALSE(engine->IntervalUnion({g, b, e}, out).ok());
  EXPECT_EQ(kit::cpu::IntervalUnion(g.data(), b.data(), e.data(), 1, out.data(), 2),
            "group 3 is not below the output size");
}

}  // namespace
}  // namespace th
