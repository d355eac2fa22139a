// kernel-stats and stream-budget on the real traces in ../shared/data, against
// the independent oracle: kernel totals exact, busy time per device equal to the
// oracle's union of kernel + memcpy + memset intervals, every stream reconciled.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

// Every Kineto trace (and archive of them) that has an oracle file.
std::vector<std::string> KinetoTraces() {
  std::vector<std::string> out;
  std::string data = testing::SharedDataDir();
  if (data.empty()) return out;
  const std::string suffix = ".oracle.json";
  for (const auto& e : std::filesystem::recursive_directory_iterator(data + "/expected")) {
    std::string p = e.path().string();
    if (p.size() < suffix.size() || p.compare(p.size() - suffix.size(), suffix.size(), suffix))
      continue;
    std::string text = testing::ReadFile(p);
    if (text.find("\"kind\": \"kineto_json\"") == std::string::npos &&
        text.find("\"kind\": \"tar\"") == std::string::npos)
      continue;
    std::string rel = std::filesystem::relative(p, data + "/expected").string();
    out.push_back(rel.substr(0, rel.size() - suffix.size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

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
  auto set = LoadTraceSet({data + "/" + GetParam()}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element file =
      parser.load(data + "/expected/" + GetParam() + ".oracle.json").value();
  // The oracle object of each trace (archives hold one per member).
  auto oracle_of = [&](const Trace& t) -> simdjson::dom::element {
    if (file["kind"].get_string().value() != "tar") return file;
    for (simdjson::dom::element m : file["members"].get_array()) {
      std::string member(m["member"].get_string().value());
      if (t.info.path.size() >= member.size() &&
          t.info.path.compare(t.info.path.size() - member.size(), member.size(), member) == 0)
        return m;
    }
    ADD_FAILURE() << "no oracle member for " << t.info.path;
    return file;
  };
  auto gpu_of = [](simdjson::dom::element o) {
    simdjson::dom::element gpu;
    if (o["gpu_legacy_normalized"].get(gpu)) gpu = o["gpu"].value();
    return gpu;
  };

  PluginResults results;
  ASSERT_TRUE(RunPlugin(*registry_->Find("kernel-stats"), *set, {}, &results).ok());
  ASSERT_TRUE(RunPlugin(*registry_->Find("stream-budget"), *set, {}, &results).ok());

  int64_t want_kernels = 0, want_kernel_ns = 0, want_memory_ns = 0, want_streams = 0;
  for (const auto& t : set->traces) {
    simdjson::dom::element gpu = gpu_of(oracle_of(*t));
    want_kernels += gpu.at_pointer("/kernel/count").get_int64().value();
    want_kernel_ns += gpu.at_pointer("/kernel/total_dur_ns").get_int64().value();
    want_memory_ns += gpu.at_pointer("/gpu_memcpy/total_dur_ns").get_int64().value() +
                      gpu.at_pointer("/gpu_memset/total_dur_ns").get_int64().value();
    want_streams += gpu.at_pointer("/streams/pid_tid_count").get_int64().value();
  }

  // kernel-stats: the COMP + COMM rows hold every kernel, to the ns.
  const DerivedTable& ks = results.tables.at("kernel_stats");
  const auto& category = th::testing::Col<std::string>(ks, "category");
  const auto& count = th::testing::Col<int64_t>(ks, "count");
  const auto& total = th::testing::Col<int64_t>(ks, "total");
  int64_t kernels = 0, kernel_ns = 0, memory_ns = 0;
  for (size_t r = 0; r < ks.rows; ++r) {
    if (category[r] == "MEM") {
      memory_ns += total[r];
    } else {
      kernels += count[r];
      kernel_ns += total[r];
    }
  }
  EXPECT_EQ(kernels, want_kernels);
  EXPECT_EQ(kernel_ns, want_kernel_ns);
  EXPECT_EQ(memory_ns, want_memory_ns);

  // stream-budget: busy per (rank, device) == the oracle's activity union.
  const DerivedTable& busy = results.tables.at("device_busy");
  const auto& rank = th::testing::Col<int64_t>(busy, "rank");
  const auto& device = th::testing::Col<int64_t>(busy, "device");
  const auto& busy_ns = th::testing::Col<int64_t>(busy, "busy");
  size_t oracle_devices = 0;
  for (const auto& t : set->traces) {
    simdjson::dom::object by_device =
        gpu_of(oracle_of(*t)).at_pointer("/busy/by_device").get_object().value();
    for (auto [key, facts] : by_device) {
      ++oracle_devices;
      int64_t dev = std::stoll(std::string(key));
      bool found = false;
      for (size_t r = 0; r < busy.rows; ++r) {
        if (rank[r] != t->info.rank || device[r] != dev) continue;
        found = true;
        EXPECT_EQ(busy_ns[r], facts["activity_union_ns"].get_int64().value())
            << "rank " << rank[r] << " device " << dev;
      }
      EXPECT_TRUE(found) << "rank " << t->info.rank << " device " << dev;
    }
  }
  EXPECT_EQ(busy.rows, oracle_devices);
  // Every stream's parts add up to its span.
  double streams = -1, reconciled = -2;
  for (const Metric& m : results.metrics) {
    if (m.plugin == "stream-budget" && m.name == "streams") streams = m.value;
    if (m.plugin == "stream-budget" && m.name == "streams_reconciled") reconciled = m.value;
  }
  EXPECT_EQ(streams, reconciled);
  ASSERT_EQ(results.checks.size(), 1u);
  EXPECT_TRUE(results.checks[0].passed) << results.checks[0].detail;
  EXPECT_EQ(results.checks[0].plugin, "stream-budget");
  EXPECT_EQ(streams, static_cast<double>(want_streams));
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BuiltinPlugins);

TEST(BuiltinPluginsData, SharedDataPresent) {
  if (testing::SharedDataDir().empty())
    GTEST_SKIP() << "../shared/data is absent: real-trace plugin tests skipped";
  EXPECT_GE(KinetoTraces().size(), 40u);
}

INSTANTIATE_TEST_SUITE_P(SharedData, BuiltinPlugins, ::testing::ValuesIn(KinetoTraces()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace th
