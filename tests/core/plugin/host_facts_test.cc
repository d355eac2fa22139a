// The host's kernel classes reach every plugin that classifies kernels: a MoE
// training step (tests/support/synthetic_traces.h) through overlap,
// stream-budget, kernel-stats and collectives, every figure by hand; then the
// same with a pipeline rule that overrides a built-in one. The classes are
// worked out once per name and trace (HostFacts).
#include "core/plugin/host_facts.h"

#include <gtest/gtest.h>
#include <tracehound/plugin_api.h>

#include <map>
#include <set>
#include <stdexcept>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/synthetic_traces.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

constexpr int64_t kUs = 1000;

const PluginRegistry& Registry() {
  static const PluginRegistry* registry = [] {
    auto* r = new PluginRegistry();
    Status s = r->LoadDirectories({BUILTIN_PLUGIN_DIR});
    EXPECT_TRUE(s.ok()) << s.message();
    return r;
  }();
  return *registry;
}

TraceSet MoeSet() {
  auto set =
      LoadTraceSet({testing::WriteTempFile("moe.json", testing::kMoeTrainingTrace)}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  return std::move(*set);
}

PluginResults RunWith(const char* id, const TraceSet& set, const HostFacts* facts) {
  const LoadedPlugin* p = Registry().Find(id);
  EXPECT_NE(p, nullptr) << id;
  PluginResults r;
  std::map<std::string, OptionValue> options;
  for (const OptionDeclaration& o : p->declaration.options) options[o.name] = o.default_value;
  Status s = RunPlugin(*p, set, options, &r, kernels::BackendChoice::kAuto, facts);
  EXPECT_TRUE(s.ok()) << s.message();
  return r;
}

using th::testing::Col;

// The stream_budget row of a stream.
size_t StreamRow(const DerivedTable& t, int64_t stream) {
  const auto& s = Col<int64_t>(t, "stream");
  for (size_t r = 0; r < s.size(); ++r)
    if (s[r] == stream) return r;
  ADD_FAILURE() << "no stream " << stream;
  return 0;
}

TEST(HostFacts, NamesAreClassifiedOncePerTraceUnderBothSets) {
  TraceSet set = MoeSet();
  HostFacts facts(set, KernelClassTable::Builtin());
  const EventGraph& g = set.traces[0]->graph;
  const NameClasses& names = facts.names(0);
  ASSERT_EQ(names.rule.size(), g.strings.size());
  std::map<std::string, KernelClass> by_name;
  for (EventId e = 0; e < g.events.size(); ++e) {
    const KernelClass c = ClassOfEvent(g, facts.table(), names, RuleSet::kTracehound, e);
    if (c != KernelClass::kNone) by_name[std::string(g.strings.Get(g.events.name[e]))] = c;
  }
  ASSERT_EQ(by_name.size(), 12u);  // 10 kernel names, 2 copies
  size_t comm = 0;
  for (const auto& [name, c] : by_name) comm += c == KernelClass::kComm;
  EXPECT_EQ(comm, 9u);  // 5 DeepEP, NVSHMEM, MSCCL++, NCCL, the peer copy
  EXPECT_EQ(by_name.at("Memcpy HtoD (Pinned -> Device)"), KernelClass::kMem);
  // Runtime calls are no GPU activity: no rule is looked up for them.
  for (EventId e = 0; e < g.events.size(); ++e) {
    if (g.events.kind[e] == EventKind::kRuntime) {
      EXPECT_EQ(names.rule[g.events.name[e]], KernelClassTable::kNoRule);
    }
  }
  EXPECT_FALSE(facts.capture(0).present());
  // The catalog's class_rules point at the table's strings.
  const TraceTables& tables = facts.tables(0);
  EXPECT_NE(tables.Find("events"), nullptr);
  const CatalogTable* rules = tables.Find("class_rules");
  ASSERT_NE(rules, nullptr);
  ASSERT_EQ(rules->rows, facts.table().rules().size());
  EXPECT_STREQ(static_cast<const char* const*>(rules->columns[3])[0], "*nccl*");
  EXPECT_EQ(static_cast<const uint32_t*>(rules->columns[1])[0],
            static_cast<uint32_t>(TH_CLASS_COMM));
  const CatalogTable* capture = tables.Find("graph_capture");
  ASSERT_NE(capture, nullptr);
  EXPECT_EQ(capture->rows, 1u);
  EXPECT_EQ(static_cast<const uint8_t*>(capture->columns[0])[0], 0);  // dominates
  // event_launches: the launched events ascending, each with its launch edge's source.
  const CatalogTable* launches = tables.Find("event_launches");
  ASSERT_NE(launches, nullptr);
  std::map<uint32_t, uint32_t> want;
  for (size_t k = 0; k < g.edges.size(); ++k)
    if (g.edges.kind[k] == EdgeKind::kLaunch) want[g.edges.dst[k]] = g.edges.src[k];
  EXPECT_FALSE(want.empty());
  ASSERT_EQ(launches->rows, want.size());
  const auto* launched = static_cast<const uint32_t*>(launches->columns[0]);
  const auto* launch = static_cast<const uint32_t*>(launches->columns[1]);
  std::map<uint32_t, uint32_t> got;
  for (size_t r = 0; r < launches->rows; ++r) {
    if (r > 0) {
      EXPECT_LT(launched[r - 1], launched[r]) << "ascending, one row per event";
    }
    got[launched[r]] = launch[r];
  }
  EXPECT_EQ(got, want);
  // gpu_activity: every kernel, memcpy and memset, ascending, nothing else.
  const CatalogTable* gpu = tables.Find("gpu_activity");
  ASSERT_NE(gpu, nullptr);
  std::vector<uint32_t> want_gpu;
  for (uint32_t i = 0; i < g.events.size(); ++i)
    if (IsGpuActivity(g.events.kind[i])) want_gpu.push_back(i);
  EXPECT_FALSE(want_gpu.empty());
  const auto* rows = static_cast<const uint32_t*>(gpu->columns[0]);
  EXPECT_EQ(std::vector<uint32_t>(rows, rows + gpu->rows), want_gpu);
}

// comm  = [30,160) + [200,260) + [350,520) + [700,760) + [780,820) + [850,950) = 560 µs
// comp  = [10,30) + [100,400) + [500,800)                                      = 620 µs
// overlap = 60 + 60 + (50 + 20) + 60 + 20 = 270 µs; exposed = 290 µs; span [10, 950)
TEST(HostFacts, MoeOverlapCountsDeepEpNvshmemMscclppAndPeerCopiesAsCommunication) {
  TraceSet set = MoeSet();
  HostFacts facts(set, KernelClassTable::Builtin());
  PluginResults r = RunWith("overlap", set, &facts);
  const DerivedTable& t = r.tables.at("overlap");
  ASSERT_EQ(t.rows, 2u);  // the rank window and step 1, equal here
  for (size_t row = 0; row < 2; ++row) {
    EXPECT_EQ(Col<int64_t>(t, "comm")[row], 560 * kUs);
    EXPECT_EQ(Col<int64_t>(t, "comp")[row], 620 * kUs);
    EXPECT_EQ(Col<int64_t>(t, "overlap")[row], 270 * kUs);
    EXPECT_EQ(Col<int64_t>(t, "exposed_comm")[row], 290 * kUs);
    EXPECT_EQ(Col<int64_t>(t, "span")[row], 940 * kUs);
    EXPECT_DOUBLE_EQ(Col<double>(t, "overlap_pct")[row], 100.0 * 270 / 560);
    EXPECT_DOUBLE_EQ(Col<double>(t, "exposed_pct")[row], 100.0 * 290 / 940);
  }
  // 30.9 % of the span is exposed communication: above the 10 % threshold.
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].title, "communication not hidden behind computation");
  EXPECT_EQ(r.findings[0].what.rfind("rank 0: 30.9% of GPU time is exposed communication", 0), 0u)
      << r.findings[0].what;
}

TEST(HostFacts, MoeStreamBudgetPutsEveryClassInItsPart) {
  TraceSet set = MoeSet();
  HostFacts facts(set, KernelClassTable::Builtin());
  PluginResults r = RunWith("stream-budget", set, &facts);
  const DerivedTable& t = r.tables.at("stream_budget");
  ASSERT_EQ(t.rows, 4u);
  struct Want {
    int64_t stream, span, compute, collective, memory, idle;
  };
  for (const Want& w : {Want{7, 970, 620, 0, 20, 330}, Want{20, 730, 0, 360, 0, 370},
                        Want{21, 170, 0, 140, 0, 30}, Want{22, 60, 0, 60, 0, 0}}) {
    const size_t row = StreamRow(t, w.stream);
    EXPECT_EQ(Col<int64_t>(t, "span")[row], w.span * kUs) << w.stream;
    EXPECT_EQ(Col<int64_t>(t, "compute")[row], w.compute * kUs) << w.stream;
    EXPECT_EQ(Col<int64_t>(t, "collective")[row], w.collective * kUs) << w.stream;
    EXPECT_EQ(Col<int64_t>(t, "memory")[row], w.memory * kUs) << w.stream;
    EXPECT_EQ(Col<int64_t>(t, "idle")[row], w.idle * kUs) << w.stream;
  }
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].passed) << r.checks[0].detail;
}

TEST(HostFacts, MoeKernelStatsCategoriesAndTheirSources) {
  TraceSet set = MoeSet();
  HostFacts facts(set, KernelClassTable::Builtin());
  PluginResults r = RunWith("kernel-stats", set, &facts);
  const DerivedTable& t = r.tables.at("kernel_stats");
  ASSERT_EQ(t.rows, 12u);  // the GEMM's two launches share a row
  const auto& category = Col<std::string>(t, "category");
  const auto& source = Col<std::string>(t, "category_source");
  auto at = [&](const std::string& prefix) {
    const auto& names = Col<std::string>(t, "name");
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i].starts_with(prefix)) return i;
    ADD_FAILURE() << "no kernel " << prefix;
    return size_t{0};
  };
  const size_t gemm = at("sm90_xmma_gemm");
  EXPECT_EQ(category[gemm], "COMP");
  EXPECT_EQ(source[gemm], "no rule: a kernel is COMP");
  EXPECT_EQ(Col<int64_t>(t, "count")[gemm], 2);
  EXPECT_EQ(Col<int64_t>(t, "total")[gemm], 600 * kUs);
  EXPECT_EQ(category[at("void deep_ep::layout::")], "COMP");
  EXPECT_EQ(source[at("void deep_ep::layout::")],
            "DeepEP (deepseek-ai/DeepEP): get_dispatch_layout, local token counting");
  for (const char* comm :
       {"void deep_ep::internode::notify_dispatch", "void deep_ep::internode::dispatch",
        "void deep_ep::internode::combine", "void deep_ep::intranode::dispatch",
        "void deep_ep::intranode::combine"}) {
    EXPECT_EQ(category[at(comm)], "COMM") << comm;
    EXPECT_TRUE(source[at(comm)].starts_with("DeepEP (deepseek-ai/DeepEP): ")) << source[at(comm)];
  }
  EXPECT_EQ(category[at("void nvshmemi_proxy_rma_entrypoint")], "COMM");
  EXPECT_EQ(source[at("void nvshmemi_proxy_rma_entrypoint")],
            "NVSHMEM (nvshmem_*/nvshmemx_*/nvshmemi_* kernels)");
  EXPECT_EQ(source[at("void mscclpp::executionKernel")], "MSCCL++ (microsoft/mscclpp)");
  EXPECT_EQ(source[at("ncclDevKernel_AllGather")],
            "NCCL (NVIDIA Collective Communications Library)");
  EXPECT_EQ(category[at("Memcpy PtoP")], "COMM");
  EXPECT_EQ(source[at("Memcpy PtoP")],
            "one-sided copy (cudaMemcpyPeer/P2P: CUPTI memcpy kind PtoP)");
  EXPECT_EQ(category[at("Memcpy HtoD")], "MEM");
  EXPECT_EQ(source[at("Memcpy HtoD")], "no rule: a copy is MEM");
}

TEST(HostFacts, MoeCollectivesAreEveryCommunicationKernelWithItsLibrary) {
  TraceSet set = MoeSet();
  HostFacts facts(set, KernelClassTable::Builtin());
  PluginResults r = RunWith("collectives", set, &facts);
  const DerivedTable& t = r.tables.at("collectives");
  EXPECT_EQ(t.rows, 8u);  // 5 DeepEP, NVSHMEM, MSCCL++, NCCL kernels; copies are no collectives
  std::multiset<std::string> backends;
  for (const std::string& b : Col<std::string>(t, "backend")) backends.insert(b);
  EXPECT_EQ(backends.count("DeepEP"), 5u);
  EXPECT_EQ(backends.count("NVSHMEM"), 1u);
  EXPECT_EQ(backends.count("MSCCL++"), 1u);
  EXPECT_EQ(backends.count("nccl"), 1u);
}

// A pipeline rule makes notify_dispatch [30,60) computation: comm loses 30 µs
// (530), comp gains them (650), the overlap stays 270, exposed 260.
TEST(HostFacts, APipelineRuleOverridesABuiltinOneEverywhere) {
  TraceSet set = MoeSet();
  KernelClassRule rule;
  rule.match = "*internode::notify_dispatch*";
  rule.klass = KernelClass::kComp;
  rule.source = "pipeline moe.yaml:4:5";
  HostFacts facts(set, KernelClassTable::WithPipelineRules({rule}));
  PluginResults o = RunWith("overlap", set, &facts);
  const DerivedTable& t = o.tables.at("overlap");
  EXPECT_EQ(Col<int64_t>(t, "comm")[0], 530 * kUs);
  EXPECT_EQ(Col<int64_t>(t, "comp")[0], 650 * kUs);
  EXPECT_EQ(Col<int64_t>(t, "overlap")[0], 270 * kUs);
  EXPECT_EQ(Col<int64_t>(t, "exposed_comm")[0], 260 * kUs);

  PluginResults b = RunWith("stream-budget", set, &facts);
  const DerivedTable& sb = b.tables.at("stream_budget");
  EXPECT_EQ(Col<int64_t>(sb, "collective")[StreamRow(sb, 20)], 330 * kUs);
  EXPECT_EQ(Col<int64_t>(sb, "compute")[StreamRow(sb, 20)], 30 * kUs);

  PluginResults k = RunWith("kernel-stats", set, &facts);
  const DerivedTable& ks = k.tables.at("kernel_stats");
  const auto& names = Col<std::string>(ks, "name");
  size_t row = names.size();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i].starts_with("void deep_ep::internode::notify_dispatch")) row = i;
  ASSERT_LT(row, names.size());
  EXPECT_EQ(Col<std::string>(ks, "category")[row], "COMP");
  EXPECT_EQ(Col<std::string>(ks, "category_source")[row], "pipeline moe.yaml:4:5");
}

// HTA's definition is not moved by the kernel class table: DeepEP is
// computation to HTA, so only the NCCL kernel [900,950) is communication.
TEST(HostFacts, HtaDefinitionKeepsHtasKernelTypes) {
  TraceSet set = MoeSet();
  HostFacts facts(set, KernelClassTable::Builtin());
  const LoadedPlugin* p = Registry().Find("overlap");
  ASSERT_NE(p, nullptr);
  std::map<std::string, OptionValue> options;
  for (const OptionDeclaration& o : p->declaration.options) options[o.name] = o.default_value;
  options["definition"] = std::string("hta");
  PluginResults r;
  ASSERT_TRUE(RunPlugin(*p, set, options, &r, kernels::BackendChoice::kAuto, &facts).ok());
  const DerivedTable& t = r.tables.at("overlap");
  EXPECT_EQ(Col<int64_t>(t, "comm")[0], 50 * kUs);
  EXPECT_EQ(Col<int64_t>(t, "overlap")[0], 0);
}

}  // namespace
}  // namespace th
