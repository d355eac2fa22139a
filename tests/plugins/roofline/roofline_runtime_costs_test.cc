// The roofline on TPU captures: where every execution of an instruction
// carries the runtime's `flops` / `bytes_accessed` (table xla_op_costs), F
// and B are those figures summed, not the HLO model's; collectives and
// asynchronous ops stay out whatever they carry. On the TPU capture of
// ../shared/data (skipped when absent), F and B per op equal the runtime's
// stats summed over its XLA Ops events, read here straight from the protobuf.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

using th::testing::Cell;

void SetShape(tracehound::hlo::HloInstructionProto* ins, std::vector<int64_t> dims) {
  auto* s = ins->mutable_shape();
  s->Clear();
  s->set_element_type(16);  // BF16
  for (size_t k = 0; k < dims.size(); ++k) {
    s->add_dimensions(dims[k]);
    s->mutable_layout()->add_minor_to_major(static_cast<int64_t>(dims.size() - 1 - k));
  }
}

// Module jit_mm(7): a bf16 dot [1024,4096]·[4096,2048] and an all-reduce of
// its result, run on one TPU: two 1 ms executions of the dot and one of the
// all-reduce. The runtime's costs differ from the HLO model's, so the test
// tells them apart. `all_costed`: they sit on the ops' event metadata (as
// TPU captures write them); else only the dot's first execution carries
// them, as its own stats.
std::string WriteTpuCapture(bool all_costed) {
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_mm");
  m.set_id(7);
  auto* main = testing::AddComputation(&m, 1, "main");
  m.set_entry_computation_id(1);
  SetShape(testing::AddInstruction(main, 1, "a", "parameter"), {1024, 4096});
  auto* b = testing::AddInstruction(main, 2, "b", "parameter");
  SetShape(b, {4096, 2048});
  b->set_parameter_number(1);
  auto* dot = testing::AddInstruction(main, 3, "dot.1", "dot", {1, 2});
  SetShape(dot, {1024, 2048});
  dot->mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
  dot->mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
  SetShape(testing::AddInstruction(main, 4, "all-reduce.2", "all-reduce", {3}), {1024, 2048});
  testing::XSpaceBuilder x;
  x.EmbedHlo(m);
  auto* tpu = x.AddPlane(1, "/device:TPU:0");
  auto* ops = x.AddLine(tpu, 1, "XLA Ops", 0);
  auto label = [](const char* op) {
    return std::vector<testing::StatSpec>{{"hlo_op", std::string(op)},
                                          {"hlo_module", std::string("jit_mm")},
                                          {"program_id", int64_t{7}}};
  };
  const std::vector<testing::StatSpec> dot_costs = {{"flops", int64_t{17000000000}},
                                                    {"bytes_accessed", int64_t{30000000}}};
  if (all_costed) x.AddMetadataStats(tpu, "dot.1", dot_costs);
  x.AddMetadataStats(tpu, "all-reduce.2",
                     {{"flops", int64_t{2097152}}, {"bytes_accessed", int64_t{8388608}}});
  for (int e = 0; e < 2; ++e) {
    std::vector<testing::StatSpec> stats = label("dot.1");
    if (!all_costed && e == 0) stats.insert(stats.end(), dot_costs.begin(), dot_costs.end());
    x.AddEvent(tpu, ops, "dot.1", int64_t{e} * 10000000000, 1000000000, stats);  // 1 ms
  }
  x.AddEvent(tpu, ops, "all-reduce.2", 30000000000, 2000000000, label("all-reduce.2"));
  static int n = 0;
  const std::string dir = testing::TempDir() + "/roofline_tpu_" + std::to_string(++n);
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(x.WriteTo(dir + "/tpu.xplane.pb"));
  return dir + "/tpu.xplane.pb";
}

PluginResults RunRoofline(const std::string& path,
                          const std::map<std::string, OptionValue>& options = {}) {
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_roofline.so");
  EXPECT_TRUE(plugin.ok()) << plugin.status().message();
  auto set = LoadTraceSet({path}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  const Status s = RunPlugin(**plugin, *set, options, &r);
  EXPECT_TRUE(s.ok()) << s.message();
  return r;
}

TEST(RooflineRuntimeCosts, TpuOpTakesTheRuntimesFlopsAndBytes) {
  const PluginResults r = RunRoofline(WriteTpuCapture(true), {{"device", std::string("tpu-v6e")}});
  const DerivedTable& ops = r.tables.at("roofline_ops");
  ASSERT_EQ(ops.rows, 1u);
  EXPECT_EQ(Cell<std::string>(ops, "name", 0), "jit_mm(7)/dot.1");
  EXPECT_EQ(Cell<std::string>(ops, "cost_source", 0), "runtime");
  EXPECT_EQ(Cell<int64_t>(ops, "count", 0), 2);
  EXPECT_EQ(Cell<int64_t>(ops, "flops", 0), 34000000000);  // 2 × the runtime's, not 2 × 2^34
  EXPECT_EQ(Cell<int64_t>(ops, "bytes", 0), 60000000);
  EXPECT_EQ(Cell<int64_t>(ops, "time", 0), 2000000);
  EXPECT_EQ(Cell<std::string>(ops, "dtype", 0), "bf16");
  EXPECT_EQ(Cell<std::string>(ops, "unit", 0), "matrix");
  EXPECT_EQ(Cell<std::string>(ops, "peak", 0), "matrix bf16");
  const double peak = Cell<double>(ops, "peak_flops", 0);
  ASSERT_GT(peak, 0);
  EXPECT_DOUBLE_EQ(
      Cell<double>(ops, "efficiency", 0),
      std::max(34000000000.0 / peak, 60000000.0 / Cell<double>(ops, "peak_bytes_per_s", 0)) / 2e-3);
  // The all-reduce carries costs too, but its time is communication.
  const DerivedTable& loose = r.tables.at("roofline_unmodelled");
  ASSERT_EQ(loose.rows, 1u);
  EXPECT_EQ(Cell<std::string>(loose, "name", 0), "jit_mm(7)/all-reduce.2");
  EXPECT_EQ(Cell<std::string>(loose, "reason", 0), "collective: communication, not a roofline op");
  EXPECT_EQ(Cell<int64_t>(loose, "time", 0), 2000000);
}

TEST(RooflineRuntimeCosts, AnExecutionWithoutTheStatsLeavesTheHloModel) {
  const PluginResults r = RunRoofline(WriteTpuCapture(false), {{"device", std::string("tpu-v6e")}});
  const DerivedTable& ops = r.tables.at("roofline_ops");
  ASSERT_EQ(ops.rows, 1u);
  EXPECT_EQ(Cell<std::string>(ops, "cost_source", 0), "hlo");
  EXPECT_EQ(Cell<int64_t>(ops, "flops", 0), 2 * int64_t{17179869184});  // 2 · 1024 · 2048 · 4096
  EXPECT_EQ(Cell<int64_t>(ops, "bytes", 0), 2 * 29360128);
}

// Per XLA Ops instruction name of the TPU planes: the runtime's flops and
// bytes_accessed summed over its events (event stats over metadata stats),
// and the program ids it ran under.
struct RuntimeSum {
  int64_t flops = 0, bytes = 0, events = 0;
  std::set<uint64_t> programs;
};
std::map<std::string, RuntimeSum> ReadRuntimeStats(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  tracehound::xspace::XSpace space;
  EXPECT_TRUE(space.ParseFromString(ss.str()));
  std::map<std::string, RuntimeSum> out;
  for (const auto& plane : space.planes()) {
    if (plane.name().rfind("/device:TPU:", 0) != 0) continue;
    std::map<int64_t, std::string> stat_name;
    for (const auto& [id, m] : plane.stat_metadata()) stat_name[id] = m.name();
    for (const auto& line : plane.lines()) {
      if (line.name() != "XLA Ops") continue;
      for (const auto& ev : line.events()) {
        const auto& md = plane.event_metadata().at(ev.metadata_id());
        int64_t flops = -1, bytes = -1;
        uint64_t program = 0;
        auto take = [&](const tracehound::xspace::XStat& s) {
          const std::string& n = stat_name[s.metadata_id()];
          if (n == "flops") flops = s.int64_value();
          if (n == "bytes_accessed") bytes = s.int64_value();
          if (n == "program_id") program = s.uint64_value() | uint64_t(s.int64_value());
        };
        for (const auto& s : md.stats()) take(s);
        for (const auto& s : ev.stats()) take(s);
        if (flops < 0 || bytes < 0) continue;
        RuntimeSum& sum = out[md.display_name().empty() ? md.name() : md.display_name()];
        sum.flops += flops;
        sum.bytes += bytes;
        ++sum.events;
        sum.programs.insert(program);
      }
    }
  }
  return out;
}

TEST(RooflineRuntimeCostsRealTrace, TpuOpsEqualTheRuntimesStats) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  const std::string path = data + "/xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb";
  const std::map<std::string, RuntimeSum> runtime = ReadRuntimeStats(path);
  ASSERT_FALSE(runtime.empty());
  const PluginResults r = RunRoofline(path);
  // Per instruction: the rows' sums (one per device name).
  std::map<std::string, RuntimeSum> rows;
  const DerivedTable& ops = r.tables.at("roofline_ops");
  for (size_t i = 0; i < ops.rows; ++i) {
    const std::string& name = Cell<std::string>(ops, "name", i);
    const std::string op = name.substr(name.rfind('/') + 1);
    SCOPED_TRACE(name);
    ASSERT_TRUE(runtime.count(op)) << "a roofline op without the runtime's stats";
    EXPECT_EQ(Cell<std::string>(ops, "cost_source", i), "runtime");
    rows[op].flops += Cell<int64_t>(ops, "flops", i);
    rows[op].bytes += Cell<int64_t>(ops, "bytes", i);
    rows[op].events += Cell<int64_t>(ops, "count", i);
  }
  std::map<std::string, std::string> left_out;  // op -> reason
  const DerivedTable& loose = r.tables.at("roofline_unmodelled");
  for (size_t i = 0; i < loose.rows; ++i) {
    const std::string& name = Cell<std::string>(loose, "name", i);
    left_out[name.substr(name.rfind('/') + 1)] = Cell<std::string>(loose, "reason", i);
  }
  int64_t compared = 0;
  for (const auto& [op, want] : runtime) {
    SCOPED_TRACE(op);
    ASSERT_EQ(want.programs.size(), 1u) << "an op name in two programs: rows would merge";
    if (auto it = left_out.find(op); it != left_out.end()) {
      EXPECT_TRUE(it->second.rfind("collective:", 0) == 0 ||
                  it->second.rfind("asynchronous:", 0) == 0)
          << it->second;
      continue;
    }
    ASSERT_TRUE(rows.count(op)) << "an op with the runtime's stats in no table";
    EXPECT_EQ(rows[op].flops, want.flops);
    EXPECT_EQ(rows[op].bytes, want.bytes);
    EXPECT_EQ(rows[op].events, want.events);
    ++compared;
  }
  EXPECT_GE(compared, 4);  // the three broadcast_add fusions and broadcast.2
}

}  // namespace
}  // namespace th
