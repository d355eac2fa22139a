// kernel-stats and stream-budget on the real traces in ../shared/data, against
// the independent oracle: kernel totals exact, busy time per device equal to the
// oracle's union of kernel + memcpy + memset intervals, every stream reconciled.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

const std::vector<std::string> kTraces = {
    "hta/tests/data/trace_diff/test/test.json.gz",
    "hta/tests/data/df_index_resolver/df_index_resolver.json.gz",
    "hta/tests/data/negative_queue_length_values_check/rank0.json.gz",
    "tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz",
    "tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
};

class BuiltinPlugins : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    registry_ = new PluginRegistry();
    ASSERT_TRUE(registry_->LoadDirectories({BUILTIN_PLUGIN_DIR}).ok());
  }
  static PluginRegistry* registry_;
};
PluginRegistry* BuiltinPlugins::registry_ = nullptr;

TEST_P(BuiltinPlugins, MatchOracle) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-trace plugin tests skipped";
  auto set = LoadTraceSet({data + "/" + GetParam()}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element oracle =
      parser.load(data + "/expected/" + GetParam() + ".oracle.json").value();
  simdjson::dom::element gpu;
  if (oracle["gpu_legacy_normalized"].get(gpu)) gpu = oracle["gpu"].value();

  PluginResults results;
  ASSERT_TRUE(RunPlugin(*registry_->Find("kernel-stats"), *set, {}, &results).ok());
  ASSERT_TRUE(RunPlugin(*registry_->Find("stream-budget"), *set, {}, &results).ok());

  // kernel-stats: the COMP + COMM rows hold every kernel, to the ns.
  const DerivedTable& ks = results.tables.at("kernel_stats");
  const auto& category = std::get<std::vector<std::string>>(ks.Find("category")->values);
  const auto& count = std::get<std::vector<int64_t>>(ks.Find("count")->values);
  const auto& total = std::get<std::vector<int64_t>>(ks.Find("total")->values);
  int64_t kernels = 0, kernel_ns = 0, memory_ns = 0;
  for (size_t r = 0; r < ks.rows; ++r) {
    if (category[r] == "MEM") {
      memory_ns += total[r];
    } else {
      kernels += count[r];
      kernel_ns += total[r];
    }
  }
  EXPECT_EQ(kernels, gpu.at_pointer("/kernel/count").get_int64().value());
  EXPECT_EQ(kernel_ns, gpu.at_pointer("/kernel/total_dur_ns").get_int64().value());
  EXPECT_EQ(memory_ns, gpu.at_pointer("/gpu_memcpy/total_dur_ns").get_int64().value() +
                           gpu.at_pointer("/gpu_memset/total_dur_ns").get_int64().value());

  // stream-budget: busy per device == the oracle's activity union.
  const DerivedTable& busy = results.tables.at("device_busy");
  const auto& device = std::get<std::vector<int64_t>>(busy.Find("device")->values);
  const auto& busy_ns = std::get<std::vector<int64_t>>(busy.Find("busy")->values);
  simdjson::dom::object by_device = gpu.at_pointer("/busy/by_device").get_object().value();
  size_t oracle_devices = 0;
  for (auto [key, facts] : by_device) {
    ++oracle_devices;
    int64_t dev = std::stoll(std::string(key));
    auto it = std::find(device.begin(), device.end(), dev);
    ASSERT_NE(it, device.end()) << "device " << dev;
    EXPECT_EQ(busy_ns[it - device.begin()], facts["activity_union_ns"].get_int64().value())
        << "device " << dev;
  }
  EXPECT_EQ(busy.rows, oracle_devices);
  // Every stream's parts add up to its span.
  double streams = -1, reconciled = -2;
  for (const Metric& m : results.metrics) {
    if (m.plugin == "stream-budget" && m.name == "streams") streams = m.value;
    if (m.plugin == "stream-budget" && m.name == "streams_reconciled") reconciled = m.value;
  }
  EXPECT_EQ(streams, reconciled);
  EXPECT_EQ(streams,
            static_cast<double>(gpu.at_pointer("/streams/pid_tid_count").get_int64().value()));
}

INSTANTIATE_TEST_SUITE_P(SharedData, BuiltinPlugins, ::testing::ValuesIn(kTraces),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace th
