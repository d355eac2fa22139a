// step-breakdown against HTA 0.6.1 on every trace with an .hta.json in
// ../shared/data/expected (44): the temporal breakdown (idle / compute /
// non-compute % per rank) and the kernel type shares (get_gpu_kernel_breakdown)
// agree within 0.5 percentage points where the definitions match; each
// intended difference is pinned here and explained in
// plugins/step-breakdown/README.md.
//
// - hta_us_rounding on (HTA's whole-µs rounding of fractional traces
//   reproduced): every comparable trace within 0.5 pp.
// - Default (exact ns): the same figures on traces with whole-µs timestamps;
//   on fractional ones the difference left is HTA's rounding, pinned per trace.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "tests/plugins/steps/plugin_run.h"

namespace th {
namespace {

using testing::Column;
using testing::RunSteps;

constexpr double kTolerancePp = 0.5;

std::vector<std::string> HtaTraces() {
  std::vector<std::string> out;
  std::string data = testing::SharedDataDir();
  if (data.empty()) return out;
  const std::string suffix = ".hta.json";
  for (const auto& e : std::filesystem::recursive_directory_iterator(data + "/expected")) {
    std::string p = e.path().string();
    if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(std::filesystem::relative(p, data + "/expected").string());
  }
  for (std::string& s : out) s.resize(s.size() - suffix.size());
  std::sort(out.begin(), out.end());
  return out;
}

// MTIA traces: HTA counts mtia_ccp_events as GPU kernels; tracehound's event
// graph has no device activity for them (kind other), so there is nothing to
// compare. Pinned: no temporal row, no kernel type.
const std::set<std::string> kMtia = {
    "hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz",
    "hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz"};

// HTA counts host cpu_op rows that carry a `stream` argument (Inductor's
// Triton launchers) as GPU kernels; tracehound counts device activity only.
// Pinned: idle % (tracehound − HTA) with HTA's rounding reproduced.
const std::map<std::string, double> kHostOpsWithStream = {
    {"tracelens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz", 1.24},
};

// Exact nanoseconds against HTA's whole-µs rounding: the largest difference
// in pp over the temporal and kernel type figures, per fractional trace where
// it exceeds 0.5 pp (every other trace stays within 0.5 pp).
const std::map<std::string, double> kRoundingPins = {
    {"hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 1.10},
    {"hta/tests/data/nccl_parser_config/nccl_data.json.gz", 0.65},
    // HTA's kernel type list is empty (its one 20 ns kernel lasts -1 µs after
    // rounding); tracehound: COMPUTATION 100 %.
    {"kineto/docs/traces/after_fix_trace.json", 100.0},
    {"kineto/docs/traces/before_fix_trace.json", 100.0},
    {"hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 0.95},
    {"tracelens/tests/traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz", 2.08},
    {"tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", 1.42},
    {"tracelens/tests/traces/inference/xdit_flux.1_aiter_sage/profile_trace_rank_0.json.gz", 3.47},
    {"tracelens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz", 0.55},
    {"tracelens/tests/traces/mi210/gpu_only_trace/gpu_only_trace.json.gz", 9.41},
    {"tracelens/tests/traces/mi300/Falconsai_nsfw_image_detection__1016002.json.gz", 2.23},
    {"tracelens/tests/traces/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 3.22},
    {"tracelens/tests/traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz", 1.82},
    {"tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz", 3.92},
};

// HTA's get_temporal_breakdown fails on these (its rounding gives negative
// durations, then an assert); the kernel type list of the kineto docs traces
// is empty for the same reason. tracehound reports exact figures.
const std::set<std::string> kHtaFailed = {
    "kineto/docs/traces/after_fix_trace.json", "kineto/docs/traces/before_fix_trace.json",
    "tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"};

struct Figures {
  // rank -> idle, compute, non-compute %
  std::map<int64_t, std::array<double, 3>> temporal;
  std::map<std::string, double> kernel_types;  // all ranks
  bool check_passed = false;
};

Figures Breakdown(const TraceSet& set, bool rounding) {
  PluginResults r = RunSteps(set, {}, true, {{"hta_us_rounding", rounding}});
  Figures f;
  const DerivedTable& tb = r.tables.at("temporal_breakdown");
  for (size_t k = 0; k < tb.rows; ++k)
    f.temporal[Column<int64_t>(tb, "rank")[k]] = {Column<double>(tb, "idle_pct")[k],
                                                  Column<double>(tb, "compute_pct")[k],
                                                  Column<double>(tb, "non_compute_pct")[k]};
  const DerivedTable& kt = r.tables.at("kernel_type_breakdown");
  for (size_t k = 0; k < kt.rows; ++k)
    if (Column<int64_t>(kt, "rank")[k] == -1)
      f.kernel_types[Column<std::string>(kt, "kernel_type")[k]] = Column<double>(kt, "share")[k];
  f.check_passed = !r.checks.empty() && r.checks[0].passed;
  return f;
}

// Largest |tracehound − HTA| (pp) of one metric class over all traces.
struct MaxDiff {
  double idle = 0, compute = 0, non_compute = 0, kernel_type = 0;
  double Max() const { return std::max({idle, compute, non_compute, kernel_type}); }
};

struct Comparison {
  MaxDiff diff;
  int temporal_rows = 0, kernel_type_rows = 0;
};

// Compares one run with the HTA file; `hta_rank_of` maps tracehound ranks to
// HTA's (HTA reads its own rank from the file text).
Comparison Compare(const Figures& f, simdjson::dom::element hta,
                   const std::map<int64_t, int64_t>& hta_rank_of) {
  Comparison c;
  simdjson::dom::element calls = hta["calls"];
  if (calls["get_temporal_breakdown"]["ok"].get_bool().value()) {
    std::map<int64_t, simdjson::dom::element> by_rank;
    for (auto row : calls["get_temporal_breakdown"]["result"].get_array())
      by_rank[row["rank"].get_int64().value()] = row;
    for (const auto& [rank, pct] : f.temporal) {
      auto it = by_rank.find(hta_rank_of.at(rank));
      if (it == by_rank.end()) {
        ADD_FAILURE() << "HTA has no rank " << hta_rank_of.at(rank);
        continue;
      }
      ++c.temporal_rows;
      c.diff.idle = std::max(c.diff.idle,
                             std::fabs(pct[0] - it->second["idle_time_pctg"].get_double().value()));
      c.diff.compute = std::max(
          c.diff.compute, std::fabs(pct[1] - it->second["compute_time_pctg"].get_double().value()));
      c.diff.non_compute =
          std::max(c.diff.non_compute,
                   std::fabs(pct[2] - it->second["non_compute_time_pctg"].get_double().value()));
    }
    EXPECT_EQ(static_cast<size_t>(c.temporal_rows), by_rank.size());
  }
  std::map<std::string, double> mine = f.kernel_types;
  for (auto row :
       calls["get_gpu_kernel_breakdown"]["result"]["kernel_type_breakdown"].get_array()) {
    std::string type(row["kernel_type"].get_string().value());
    c.diff.kernel_type = std::max(c.diff.kernel_type,
                                  std::fabs(mine[type] - row["percentage"].get_double().value()));
    mine.erase(type);
    ++c.kernel_type_rows;
  }
  for (const auto& [type, share] : mine) c.diff.kernel_type = std::max(c.diff.kernel_type, share);
  return c;
}

bool Fractional(const TraceSet& set) {
  for (const auto& t : set.traces)
    for (EventId i = 0; i < t->graph.events.size(); ++i)
      if (t->graph.events.ts[i] % 1000 != 0) return true;
  return false;
}

TEST(StepBreakdownHta, AgreesWithHtaWhereTheDefinitionsMatch) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: HTA agreement tests skipped";
  const std::vector<std::string> traces = HtaTraces();
  ASSERT_EQ(traces.size(), 44u);
  MaxDiff rounded_all, exact_whole_us;
  int compared = 0, temporal_rows = 0, kernel_type_traces = 0;
  for (const std::string& rel : traces) {
    SCOPED_TRACE(rel);
    auto set = LoadTraceSet({data + "/" + rel}, LoadOptions{});
    ASSERT_TRUE(set.ok()) << set.status().message();
    simdjson::dom::parser parser;
    simdjson::dom::element hta = parser.load(data + "/expected/" + rel + ".hta.json").value();
    // HTA's rank of each of our traces, by file name.
    std::map<int64_t, int64_t> hta_rank_of;
    for (auto [key, file] : hta["input"]["ranks"].get_object()) {
      std::string f(file.get_string().value());
      for (const auto& t : set->traces)
        if (t->info.path.size() >= f.size() &&
            t->info.path.compare(t->info.path.size() - f.size(), f.size(), f) == 0)
          hta_rank_of[t->info.rank] = std::stoll(std::string(key));
    }
    ASSERT_EQ(hta_rank_of.size(), set->traces.size());

    const Figures exact = Breakdown(*set, false);
    const Figures rounded = Breakdown(*set, true);
    EXPECT_TRUE(exact.check_passed) << "step breakdown does not add up";

    if (kMtia.count(rel)) {  // pinned: no device activity in tracehound's graph
      EXPECT_TRUE(exact.temporal.empty());
      EXPECT_TRUE(exact.kernel_types.empty());
      EXPECT_GT(hta["calls"]["get_gpu_kernel_breakdown"]["result"]["kernel_type_breakdown"]
                    .get_array()
                    .size(),
                0u);
      continue;
    }
    ++compared;
    Comparison r = Compare(rounded, hta, hta_rank_of);
    Comparison e = Compare(exact, hta, hta_rank_of);
    temporal_rows += r.temporal_rows;
    kernel_type_traces += r.kernel_type_rows > 0;

    // With HTA's rounding reproduced, the kernel types always agree, and the
    // temporal breakdown too but where HTA counts host ops as GPU kernels.
    EXPECT_LE(r.diff.kernel_type, kTolerancePp);
    auto host_ops = kHostOpsWithStream.find(rel);
    if (host_ops != kHostOpsWithStream.end()) {
      EXPECT_NEAR(
          rounded.temporal.begin()->second[0] - hta["calls"]["get_temporal_breakdown"]["result"]
                                                    .at(0)["idle_time_pctg"]
                                                    .get_double()
                                                    .value(),
          host_ops->second, 0.01);
    } else {
      EXPECT_LE(r.diff.Max(), kTolerancePp);
      rounded_all.idle = std::max(rounded_all.idle, r.diff.idle);
      rounded_all.compute = std::max(rounded_all.compute, r.diff.compute);
      rounded_all.non_compute = std::max(rounded_all.non_compute, r.diff.non_compute);
    }
    rounded_all.kernel_type = std::max(rounded_all.kernel_type, r.diff.kernel_type);

    if (kHtaFailed.count(rel)) {
      EXPECT_FALSE(hta["calls"]["get_temporal_breakdown"]["ok"].get_bool().value());
      // tracehound's exact split is whole.
      for (const auto& [rank, pct] : exact.temporal)
        EXPECT_NEAR(pct[0] + pct[1] + pct[2], 100.0, 1e-9);
      EXPECT_FALSE(exact.temporal.empty());
    }

    // Exact ns: identical to the rounded run on whole-µs traces; on
    // fractional ones HTA's rounding is the difference, pinned.
    if (!Fractional(*set)) {
      EXPECT_EQ(exact.temporal, rounded.temporal);
      EXPECT_EQ(exact.kernel_types, rounded.kernel_types);
      exact_whole_us.idle = std::max(exact_whole_us.idle, e.diff.idle);
      exact_whole_us.compute = std::max(exact_whole_us.compute, e.diff.compute);
      exact_whole_us.non_compute = std::max(exact_whole_us.non_compute, e.diff.non_compute);
      exact_whole_us.kernel_type = std::max(exact_whole_us.kernel_type, e.diff.kernel_type);
      if (!kHostOpsWithStream.count(rel)) {
        EXPECT_LE(e.diff.Max(), kTolerancePp);
      }
    } else if (auto pin = kRoundingPins.find(rel); pin != kRoundingPins.end()) {
      EXPECT_NEAR(e.diff.Max(), pin->second, 0.01);
    } else {
      EXPECT_LE(e.diff.Max(), kTolerancePp);
    }
  }
  EXPECT_EQ(compared, 42);
  EXPECT_GE(temporal_rows, 45);       // 39 single-rank files + 8 DLRM ranks - 3 HTA failures
  EXPECT_EQ(kernel_type_traces, 40);  // the two kineto docs traces: HTA's list is empty
  std::printf(
      "max |tracehound - HTA| in pp, HTA rounding reproduced (%d traces): idle %.3f, compute "
      "%.3f, non-compute %.3f (host ops with a stream arg left out), kernel types %.3f\n"
      "exact ns on whole-µs traces: idle %.3f, compute %.3f, non-compute %.3f, kernel types "
      "%.3f\n",
      compared, rounded_all.idle, rounded_all.compute, rounded_all.non_compute,
      rounded_all.kernel_type, exact_whole_us.idle, exact_whole_us.compute,
      exact_whole_us.non_compute, exact_whole_us.kernel_type);
}

}  // namespace
}  // namespace th
