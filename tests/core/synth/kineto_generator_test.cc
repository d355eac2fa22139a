// Checks the synthetic Kineto traces against an independent reading of the
// written JSON (simdjson On-Demand, numbers taken from their raw text).
#include "core/synth/kineto_generator.h"

#include <gtest/gtest.h>
#include <libdeflate.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace th::synth {
namespace {

// "123.456" (µs) -> 123456 ns, exactly; nullopt for anything but <int>.<3 digits>.
std::optional<int64_t> UsTextToNs(std::string_view t) {
  bool neg = !t.empty() && t[0] == '-';
  if (neg) t.remove_prefix(1);
  const size_t dot = t.find('.');
  if (dot == std::string_view::npos || dot == 0 || t.size() - dot - 1 != 3) return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (i == dot) continue;
    if (t[i] < '0' || t[i] > '9') return std::nullopt;
    v = v * 10 + (t[i] - '0');
  }
  return neg ? -v : v;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

struct Event {
  std::string ph, cat, name, s, bp;
  bool has_cat = false;
  std::string pid, tid;  // raw tokens (numbers or quoted strings)
  std::string ts_text, dur_text;
  int64_t ts = 0, dur = 0;
  bool has_dur = false;
  int64_t id = -1;
  std::map<std::string, std::string> args;  // scalar args: raw numbers, unescaped strings
  int64_t end() const { return ts + dur; }
  int64_t Arg(const std::string& key) const { return std::stoll(args.at(key)); }
  bool HasArg(const std::string& key) const { return args.count(key) != 0; }
};

struct Parsed {
  std::vector<Event> events;
  int64_t schema_version = -1;
  size_t devices = 0;
  std::string first_device_name;
  int64_t rank = -1, world_size = -1;
  std::string backend, nccl_version, display_time_unit, trace_name;
  std::optional<int64_t> base_time_ns;
  std::vector<std::string> top_keys;
};

std::string ScalarText(simdjson::ondemand::value v) {
  if (v.type() == simdjson::ondemand::json_type::string)
    return std::string(std::string_view(v.get_string()));
  return std::string(Trim(v.raw_json_token()));
}

Parsed Parse(const std::string& text) {
  Parsed p;
  simdjson::ondemand::parser parser;
  simdjson::padded_string json(text);
  simdjson::ondemand::document doc = parser.iterate(json);
  for (auto field : doc.get_object()) {
    const std::string key(std::string_view(field.unescaped_key()));
    p.top_keys.push_back(key);
    simdjson::ondemand::value value = field.value();
    if (key == "schemaVersion") {
      p.schema_version = int64_t(value.get_int64());
    } else if (key == "deviceProperties") {
      for (auto dev : value.get_array()) {
        simdjson::ondemand::object o = dev.get_object();
        if (p.devices++ == 0)
          p.first_device_name = std::string(std::string_view(o["name"].get_string()));
      }
    } else if (key == "distributedInfo") {
      for (auto f : value.get_object()) {
        const std::string k(std::string_view(f.unescaped_key()));
        if (k == "rank") p.rank = int64_t(f.value().get_int64());
        if (k == "world_size") p.world_size = int64_t(f.value().get_int64());
        if (k == "backend") p.backend = std::string(std::string_view(f.value().get_string()));
        if (k == "nccl_version")
          p.nccl_version = std::string(std::string_view(f.value().get_string()));
      }
    } else if (key == "displayTimeUnit") {
      p.display_time_unit = std::string(std::string_view(value.get_string()));
    } else if (key == "baseTimeNanoseconds") {
      p.base_time_ns = int64_t(value.get_int64());
    } else if (key == "traceName") {
      p.trace_name = std::string(std::string_view(value.get_string()));
    } else if (key == "traceEvents") {
      for (auto item : value.get_array()) {
        Event e;
        for (auto f : item.get_object()) {
          const std::string k(std::string_view(f.unescaped_key()));
          simdjson::ondemand::value v = f.value();
          if (k == "ph")
            e.ph = std::string(std::string_view(v.get_string()));
          else if (k == "cat")
            e.cat = std::string(std::string_view(v.get_string())), e.has_cat = true;
          else if (k == "name")
            e.name = std::string(std::string_view(v.get_string()));
          else if (k == "s")
            e.s = std::string(std::string_view(v.get_string()));
          else if (k == "bp")
            e.bp = std::string(std::string_view(v.get_string()));
          else if (k == "pid")
            e.pid = std::string(Trim(v.raw_json_token()));
          else if (k == "tid")
            e.tid = std::string(Trim(v.raw_json_token()));
          else if (k == "id")
            e.id = int64_t(v.get_int64());
          else if (k == "ts")
            e.ts_text = std::string(Trim(v.raw_json_token()));
          else if (k == "dur")
            e.dur_text = std::string(Trim(v.raw_json_token())), e.has_dur = true;
          else if (k == "args") {
            for (auto a : v.get_object()) {
              const std::string ak(std::string_view(a.unescaped_key()));
              simdjson::ondemand::value av = a.value();
              const auto t = av.type().value();
              if (t == simdjson::ondemand::json_type::array ||
                  t == simdjson::ondemand::json_type::object)
                continue;
              e.args[ak] = ScalarText(av);
            }
          }
        }
        auto ts = UsTextToNs(e.ts_text);
        EXPECT_TRUE(ts.has_value())
            << "ts not <µs>.<3 digits>: '" << e.ts_text << "' in " << e.name;
        e.ts = ts.value_or(0);
        if (e.has_dur) {
          auto dur = UsTextToNs(e.dur_text);
          EXPECT_TRUE(dur.has_value()) << "dur not <µs>.<3 digits>: '" << e.dur_text << "'";
          e.dur = dur.value_or(0);
        }
        p.events.push_back(std::move(e));
      }
    }
  }
  return p;
}

// Independent recount of everything the Manifest claims.
void ExpectManifestMatches(const Parsed& p, const Manifest& m) {
  Manifest c;
  std::set<std::pair<std::string, std::string>> streams;
  std::set<int64_t> runtime_corr;
  for (const Event& e : p.events)
    if (e.cat == "cuda_runtime") runtime_corr.insert(e.Arg("correlation"));
  for (const Event& e : p.events) {
    ++c.events;
    ++c.events_by_phase[e.ph];
    if (e.has_cat) ++c.events_by_category[e.cat];
    if (e.cat == "kernel") {
      ++c.kernels;
      c.kernel_total_ns += e.dur;
      if (runtime_corr.count(e.Arg("correlation"))) ++c.kernels_with_launch;
      if (e.HasArg("Collective name")) ++c.nccl_kernels, c.nccl_total_ns += e.dur;
    }
    if (e.cat == "gpu_memcpy") ++c.memcpy, c.memcpy_total_ns += e.dur;
    if (e.cat == "gpu_memset") ++c.memset, c.memset_total_ns += e.dur;
    if (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset")
      streams.insert({e.pid, e.tid});
    if (e.ph == "X" && e.name.rfind("ProfilerStep#", 0) == 0) ++c.steps;
    if (e.name == "[memory]") {
      ++c.memory_events;
      c.peak_total_allocated = std::max(c.peak_total_allocated, e.Arg("Total Allocated"));
    }
    if (e.cat == "cuda_runtime") ++c.launches;
    if (e.cat == "ac2g") ++c.flows;
    if (e.cat == "cpu_op") ++c.cpu_ops;
  }
  c.gpu_streams = static_cast<int64_t>(streams.size());
  EXPECT_EQ(m.events, c.events);
  EXPECT_EQ(m.events_by_phase, c.events_by_phase);
  EXPECT_EQ(m.events_by_category, c.events_by_category);
  EXPECT_EQ(m.kernels, c.kernels);
  EXPECT_EQ(m.kernel_total_ns, c.kernel_total_ns);
  EXPECT_EQ(m.memcpy, c.memcpy);
  EXPECT_EQ(m.memcpy_total_ns, c.memcpy_total_ns);
  EXPECT_EQ(m.memset, c.memset);
  EXPECT_EQ(m.memset_total_ns, c.memset_total_ns);
  EXPECT_EQ(m.gpu_streams, c.gpu_streams);
  EXPECT_EQ(m.steps, c.steps);
  EXPECT_EQ(m.memory_events, c.memory_events);
  EXPECT_EQ(m.peak_total_allocated, c.peak_total_allocated);
  EXPECT_EQ(m.launches, c.launches);
  EXPECT_EQ(m.kernels_with_launch, c.kernels_with_launch);
  EXPECT_EQ(m.nccl_kernels, c.nccl_kernels);
  EXPECT_EQ(m.nccl_total_ns, c.nccl_total_ns);
  EXPECT_EQ(m.flows, c.flows);
  EXPECT_EQ(m.cpu_ops, c.cpu_ops);
}

// Structural invariants of a Kineto trace.
void ExpectWellFormed(const Scenario& s, int rank, const Parsed& p) {
  const int world = s.world_size > 0 ? s.world_size : s.ranks;
  EXPECT_EQ(p.schema_version, 1);
  EXPECT_EQ(p.devices, static_cast<size_t>(s.gpus_per_node));
  EXPECT_EQ(p.first_device_name, s.gpu_name);
  EXPECT_EQ(p.rank, rank);
  EXPECT_EQ(p.world_size, world);
  EXPECT_EQ(p.backend, "nccl");
  EXPECT_FALSE(p.nccl_version.empty());
  EXPECT_EQ(p.display_time_unit, "ms");
  EXPECT_EQ(p.base_time_ns.has_value(), s.relative_timestamps);
  ASSERT_FALSE(p.top_keys.empty());
  EXPECT_EQ(p.top_keys.front(), "schemaVersion");
  EXPECT_EQ(p.top_keys.back(), "traceName");
  ASSERT_FALSE(p.events.empty());
  EXPECT_EQ(p.events.back().name, "Record Window End");
  EXPECT_EQ(p.events.back().ph, "i");

  // Steps: numbered consecutively.
  std::vector<const Event*> steps;
  for (const Event& e : p.events)
    if (e.ph == "X" && e.name.rfind("ProfilerStep#", 0) == 0) steps.push_back(&e);
  ASSERT_EQ(steps.size(), static_cast<size_t>(s.steps));
  for (int i = 0; i < s.steps; ++i) {
    EXPECT_EQ(steps[i]->name, "ProfilerStep#" + std::to_string(s.first_step + i));
    EXPECT_EQ(steps[i]->cat, "user_annotation");
  }

  // Runtime <-> GPU activity by correlation; pre-capture kernels have no launch.
  std::map<int64_t, const Event*> runtime;
  std::map<int64_t, const Event*> gpu;
  int64_t min_runtime_corr = INT64_MAX;
  for (const Event& e : p.events) {
    if (e.cat == "cuda_runtime") {
      EXPECT_TRUE(runtime.emplace(e.Arg("correlation"), &e).second)
          << "duplicate runtime correlation";
      min_runtime_corr = std::min(min_runtime_corr, e.Arg("correlation"));
    }
    if (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset") {
      EXPECT_TRUE(gpu.emplace(e.Arg("correlation"), &e).second) << "duplicate GPU correlation";
    }
  }
  int pre_capture = 0;
  for (const auto& [corr, g] : gpu) {
    auto it = runtime.find(corr);
    if (it == runtime.end()) {
      EXPECT_EQ(g->cat, "kernel");
      EXPECT_LT(corr, min_runtime_corr);
      EXPECT_FALSE(g->HasArg("External id"));
      ++pre_capture;
      continue;
    }
    const Event& rt = *it->second;
    EXPECT_GT(g->ts, rt.ts) << g->name << " starts before its launch";
    if (rt.HasArg("External id")) {
      EXPECT_EQ(g->Arg("External id"), rt.Arg("External id"));
    }
    EXPECT_EQ(g->Arg("device"), rank % s.gpus_per_node);
    EXPECT_EQ(std::to_string(g->Arg("stream")), g->tid);
  }
  EXPECT_EQ(pre_capture, s.pre_capture_kernels);

  // ac2g flows: one s on the runtime event, one f (bp e) on the GPU event.
  std::map<int64_t, const Event*> starts, finishes;
  for (const Event& e : p.events) {
    if (e.cat != "ac2g") continue;
    EXPECT_EQ(e.name, "ac2g");
    if (e.ph == "s") {
      EXPECT_TRUE(starts.emplace(e.id, &e).second);
    }
    if (e.ph == "f") {
      EXPECT_EQ(e.bp, "e");
      EXPECT_TRUE(finishes.emplace(e.id, &e).second);
    }
  }
  EXPECT_EQ(starts.size(), finishes.size());
  for (const auto& [id, st] : starts) {
    ASSERT_TRUE(finishes.count(id)) << "flow " << id << " has no f";
    ASSERT_TRUE(runtime.count(id));
    ASSERT_TRUE(gpu.count(id));
    EXPECT_EQ(st->ts, runtime[id]->ts);
    EXPECT_EQ(st->tid, runtime[id]->tid);
    EXPECT_EQ(finishes[id]->ts, gpu[id]->ts);
    EXPECT_EQ(finishes[id]->tid, gpu[id]->tid);
  }

  // No overlap on a GPU stream.
  std::map<std::pair<std::string, std::string>, std::vector<const Event*>> by_stream;
  for (const auto& [corr, g] : gpu) by_stream[{g->pid, g->tid}].push_back(g);
  for (auto& [key, list] : by_stream) {
    std::sort(list.begin(), list.end(),
              [](const Event* a, const Event* b) { return a->ts < b->ts; });
    for (size_t i = 1; i < list.size(); ++i)
      EXPECT_GE(list[i]->ts, list[i - 1]->end()) << "overlap on stream " << key.second;
  }

  // CPU thread: X events nest properly and sit inside a ProfilerStep.
  std::vector<const Event*> cpu;
  for (const Event& e : p.events)
    if (e.ph == "X" && (e.cat == "cpu_op" || e.cat == "user_annotation" || e.cat == "cuda_runtime"))
      cpu.push_back(&e);
  std::sort(cpu.begin(), cpu.end(), [](const Event* a, const Event* b) {
    return a->ts != b->ts ? a->ts < b->ts : a->dur > b->dur;
  });
  std::vector<const Event*> stack;
  for (const Event* e : cpu) {
    while (!stack.empty() && stack.back()->end() <= e->ts) stack.pop_back();
    if (!stack.empty()) {
      EXPECT_LE(e->end(), stack.back()->end()) << e->name << " crosses " << stack.back()->name;
      EXPECT_EQ(stack.front()->name.rfind("ProfilerStep#", 0), 0u);
    } else {
      EXPECT_EQ(e->name.rfind("ProfilerStep#", 0), 0u) << e->name << " outside any step";
    }
    stack.push_back(e);
  }

  // Memory: running total is consistent, frees match earlier allocations.
  int64_t prev_total = -1;
  std::map<int64_t, int64_t> live;
  for (const Event& e : p.events) {
    if (e.name != "[memory]") continue;
    EXPECT_EQ(e.cat, "cpu_instant_event");
    EXPECT_EQ(e.s, "t");
    const int64_t bytes = e.Arg("Bytes"), addr = e.Arg("Addr"), total = e.Arg("Total Allocated");
    if (prev_total >= 0) {
      EXPECT_EQ(total, prev_total + bytes);
    }
    EXPECT_LE(total, e.Arg("Total Reserved"));
    prev_total = total;
    if (bytes > 0) {
      EXPECT_TRUE(live.emplace(addr, bytes).second) << "address reused while live";
    } else {
      ASSERT_TRUE(live.count(addr)) << "free of unknown address";
      EXPECT_EQ(live[addr], -bytes);
      live.erase(addr);
    }
  }

  // Collectives: kernel args mirror the launching record_param_comms op.
  std::map<int64_t, const Event*> comms;
  for (const Event& e : p.events)
    if (e.name == "record_param_comms") comms[e.Arg("External id")] = &e;
  int nccl = 0;
  for (const Event& e : p.events) {
    if (e.cat != "kernel" || !e.HasArg("Collective name")) continue;
    ++nccl;
    EXPECT_EQ(e.name.rfind("ncclDevKernel_", 0), 0u);
    ASSERT_TRUE(comms.count(e.Arg("External id")));
    const Event& op = *comms[e.Arg("External id")];
    for (const char* k : {"Collective name", "In msg nelems", "Out msg nelems", "Group size",
                          "dtype", "Process Group Name", "Process Group Ranks"})
      EXPECT_EQ(e.args.at(k), op.args.at(k)) << k;
    EXPECT_EQ(e.Arg("Group size"), world);
  }
  EXPECT_EQ(nccl, s.steps * s.collectives_per_step);
  EXPECT_EQ(comms.size(), static_cast<size_t>(s.steps * s.collectives_per_step));
}

std::string Generate(const Scenario& s, int rank, Manifest* m) {
  std::ostringstream out;
  const Status st = WriteKinetoTrace(s, rank, out, m);
  EXPECT_TRUE(st.ok()) << st.message();
  return out.str();
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("th_synth_" + name + "_" +
              std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(KinetoGeneratorTest, DefaultScenarioMatchesManifest) {
  Scenario s;
  for (int rank = 0; rank < s.ranks; ++rank) {
    Manifest m;
    const std::string text = Generate(s, rank, &m);
    const Parsed p = Parse(text);
    ExpectManifestMatches(p, m);
    ExpectWellFormed(s, rank, p);
    EXPECT_EQ(m.steps, s.steps);
    EXPECT_EQ(m.kernels, int64_t{s.steps} * (s.kernels_per_step + s.collectives_per_step) +
                             s.pre_capture_kernels);
    EXPECT_EQ(m.kernels_with_launch, m.kernels - s.pre_capture_kernels);
    EXPECT_EQ(m.memcpy, int64_t{s.steps} * s.memcpy_per_step);
    EXPECT_EQ(m.memset, int64_t{s.steps} * s.memset_per_step);
    EXPECT_EQ(m.gpu_streams, s.streams + 1);
    EXPECT_GT(m.memory_events, 0);
    EXPECT_GT(m.peak_total_allocated, 0);
    EXPECT_EQ(m.events_by_category.at("ac2g"), 2 * (m.kernels_with_launch + m.memcpy + m.memset));
  }
}

TEST(KinetoGeneratorTest, KinetoTextShape) {
  Scenario s;
  const std::string text = Generate(s, 0, nullptr);
  EXPECT_EQ(text.rfind("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n", 0), 0u);
  EXPECT_NE(
      text.find("\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2"),
      std::string::npos);
  EXPECT_NE(text.find("  \"traceEvents\": [\n  {\n    \"name\": \"process_name\", \"ph\": \"M\""),
            std::string::npos);
  EXPECT_NE(text.find("\n  ],\n  \"traceName\": \"rank0.pt.trace.json\"\n}"), std::string::npos);
  // Every ts / dur has exactly three decimals (Kineto >= 2024).
  const std::regex number(R"re("(ts|dur)": (-?[0-9]+(\.[0-9]*)?))re");
  int checked = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
       it != std::sregex_iterator(); ++it, ++checked)
    ASSERT_TRUE(UsTextToNs((*it)[2].str()).has_value()) << (*it)[0].str();
  EXPECT_GT(checked, 1000);
  // HTA's rank regex needs whitespace after the colon.
  EXPECT_TRUE(std::regex_search(text, std::regex(R"re("rank":\s+(\d+))re")));
}

TEST(KinetoGeneratorTest, AbsoluteTimestampsAndOptions) {
  Scenario s;
  s.relative_timestamps = false;
  s.memory_events = false;
  s.streams = 1;
  s.seed = 7;
  s.gpu_name = "NVIDIA A100-SXM4-80GB";
  Manifest m;
  const Parsed p = Parse(Generate(s, 1, &m));
  ExpectManifestMatches(p, m);
  ExpectWellFormed(s, 1, p);
  EXPECT_EQ(m.memory_events, 0);
  EXPECT_EQ(m.gpu_streams, 2);
  // Absolute epoch µs: 2025-ish, i.e. 16 integer digits.
  EXPECT_GT(p.events.back().ts, int64_t{1700000000} * 1000000000);
}

struct EdgeCase {
  const char* label;
  Scenario s;
};

class KinetoGeneratorEdgeTest : public ::testing::TestWithParam<EdgeCase> {};

TEST_P(KinetoGeneratorEdgeTest, StillWellFormed) {
  const Scenario& s = GetParam().s;
  for (int rank = 0; rank < s.ranks; ++rank) {
    Manifest m;
    const Parsed p = Parse(Generate(s, rank, &m));
    ExpectManifestMatches(p, m);
    ExpectWellFormed(s, rank, p);
    EXPECT_EQ(m.kernels, int64_t{s.steps} * (s.kernels_per_step + s.collectives_per_step) +
                             s.pre_capture_kernels);
  }
}

Scenario Make(int ranks, int steps, int streams, int kernels, int colls, int memcpy, int memset,
              int world = 0, int pre = 2) {
  Scenario s;
  s.ranks = ranks;
  s.steps = steps;
  s.streams = streams;
  s.kernels_per_step = kernels;
  s.collectives_per_step = colls;
  s.memcpy_per_step = memcpy;
  s.memset_per_step = memset;
  s.world_size = world;
  s.pre_capture_kernels = pre;
  s.seed = static_cast<uint64_t>(ranks * 1000 + kernels);
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, KinetoGeneratorEdgeTest,
    ::testing::Values(EdgeCase{"single_rank_no_comms", Make(1, 3, 1, 40, 0, 1, 0)},
                      EdgeCase{"no_kernels", Make(2, 2, 2, 0, 2, 0, 3)},
                      EdgeCase{"tiny", Make(1, 1, 1, 1, 1, 2, 1, 0, 0)},
                      EdgeCase{"zero_steps", Make(2, 0, 2, 50, 2, 3, 1)},
                      EdgeCase{"many_streams_subset_of_world", Make(3, 2, 6, 333, 7, 9, 5, 16)}),
    [](const ::testing::TestParamInfo<EdgeCase>& info) { return std::string(info.param.label); });

TEST(KinetoGeneratorTest, DeterministicPerSeed) {
  Scenario s;
  s.steps = 2;
  const std::string a = Generate(s, 1, nullptr);
  EXPECT_EQ(a, Generate(s, 1, nullptr));
  s.seed = 2;
  EXPECT_NE(a, Generate(s, 1, nullptr));
}

TEST(KinetoGeneratorTest, KernelDurationsVaryByKind) {
  Scenario s;
  s.ranks = 1;
  s.collectives_per_step = 0;
  const Parsed p = Parse(Generate(s, 0, nullptr));
  std::vector<int64_t> gemm, elementwise;
  for (const Event& e : p.events) {
    if (e.cat != "kernel") continue;
    if (e.name.find("gemm") != std::string::npos) gemm.push_back(e.dur);
    if (e.name.find("vectorized_elementwise_kernel") != std::string::npos)
      elementwise.push_back(e.dur);
  }
  ASSERT_FALSE(gemm.empty());
  ASSERT_FALSE(elementwise.empty());
  std::sort(gemm.begin(), gemm.end());
  std::sort(elementwise.begin(), elementwise.end());
  const int64_t gemm_median = gemm[gemm.size() / 2],
                ew_median = elementwise[elementwise.size() / 2];
  EXPECT_GT(gemm_median, 5 * ew_median);
  EXPECT_NE(gemm.front(), gemm.back());
}

TEST(KinetoGeneratorTest, StragglerMakesOthersWaitInCollectives) {
  Scenario s;
  s.ranks = 4;
  s.straggler_rank = 2;
  std::vector<Parsed> parsed;
  std::vector<Manifest> m(4);
  for (int r = 0; r < 4; ++r) parsed.push_back(Parse(Generate(s, r, &m[r])));
  for (int r = 0; r < 4; ++r) {
    if (r == s.straggler_rank) continue;
    EXPECT_GT(m[r].nccl_total_ns, 3 * m[2].nccl_total_ns) << "rank " << r;
    EXPECT_LT(m[r].kernel_total_ns - m[r].nccl_total_ns, m[2].kernel_total_ns - m[2].nccl_total_ns);
  }
  // The i-th collective ends at (nearly) the same time on every rank.
  std::vector<std::vector<int64_t>> ends(4);
  for (int r = 0; r < 4; ++r)
    for (const Event& e : parsed[r].events)
      if (e.cat == "kernel" && e.HasArg("Collective name")) ends[r].push_back(e.end());
  for (int r = 0; r < 4; ++r) {
    ASSERT_EQ(ends[r].size(), ends[0].size());
    std::sort(ends[r].begin(), ends[r].end());
  }
  for (size_t i = 0; i < ends[0].size(); ++i)
    for (int r = 1; r < 4; ++r) EXPECT_NEAR(ends[r][i], ends[0][i], 2000);
}

TEST(KinetoGeneratorTest, WritesFilesAndGzip) {
  Scenario s;
  s.ranks = 3;
  s.steps = 2;
  for (bool gzip : {false, true}) {
    const auto dir = TempDir(gzip ? "gz" : "plain");
    std::vector<Manifest> manifests;
    auto paths = WriteKinetoTraces(s, dir.string(), gzip, &manifests);
    ASSERT_TRUE(paths.ok()) << paths.status().message();
    ASSERT_EQ(paths->size(), 3u);
    ASSERT_EQ(manifests.size(), 3u);
    for (int r = 0; r < 3; ++r) {
      const std::string& path = (*paths)[r];
      EXPECT_EQ(std::filesystem::path(path).filename().string(),
                "rank" + std::to_string(r) + ".pt.trace.json" + (gzip ? ".gz" : ""));
      std::string text = ReadFile(path);
      if (gzip) {
        ASSERT_GE(text.size(), 18u);
        ASSERT_EQ(static_cast<unsigned char>(text[0]), 0x1f);
        const uint32_t isize =
            static_cast<unsigned char>(text[text.size() - 4]) |
            static_cast<unsigned char>(text[text.size() - 3]) << 8 |
            static_cast<unsigned char>(text[text.size() - 2]) << 16 |
            static_cast<uint32_t>(static_cast<unsigned char>(text[text.size() - 1])) << 24;
        std::string plain(isize, '\0');
        libdeflate_decompressor* d = libdeflate_alloc_decompressor();
        size_t n = 0;
        ASSERT_EQ(
            libdeflate_gzip_decompress(d, text.data(), text.size(), plain.data(), plain.size(), &n),
            LIBDEFLATE_SUCCESS);
        libdeflate_free_decompressor(d);
        plain.resize(n);
        text = std::move(plain);
      }
      const Parsed p = Parse(text);
      ExpectManifestMatches(p, manifests[r]);
      ExpectWellFormed(s, r, p);
      EXPECT_EQ(p.trace_name, path);
      // Same simulation as the single-rank entry point (only traceName differs).
      Manifest single;
      Generate(s, r, &single);
      EXPECT_EQ(single.events, manifests[r].events);
      EXPECT_EQ(single.kernel_total_ns, manifests[r].kernel_total_ns);
    }
    std::filesystem::remove_all(dir);
  }
}

TEST(KinetoGeneratorTest, RejectsBadScenarios) {
  std::ostringstream out;
  Scenario s;
  EXPECT_EQ(WriteKinetoTrace(s, 2, out, nullptr).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(WriteKinetoTrace(s, -1, out, nullptr).code(), StatusCode::kInvalidInput);
  s.streams = 0;
  EXPECT_EQ(WriteKinetoTrace(s, 0, out, nullptr).code(), StatusCode::kInvalidInput);
  s = Scenario();
  s.straggler_rank = 5;
  EXPECT_EQ(WriteKinetoTrace(s, 0, out, nullptr).code(), StatusCode::kInvalidInput);
  s = Scenario();
  s.world_size = 1;
  EXPECT_EQ(WriteKinetoTrace(s, 0, out, nullptr).code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(out.str().empty());
  s = Scenario();
  EXPECT_FALSE(WriteKinetoTraces(s, "/proc/forbidden/dir", false, nullptr).ok());
}

}  // namespace
}  // namespace th::synth
