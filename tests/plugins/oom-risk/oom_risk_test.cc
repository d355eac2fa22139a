// oom-risk on generated Kineto traces ([memory] instant events of a training
// loop: steady, slow leak, fast leak, near capacity, fragmented, an OOM, and
// no memory events at all), each landing in the tier it was built for; an
// inference server's KV cache allocated before the window and held throughout
// it, named as a preallocated pool; and on
// every real trace with memory events, the peak equals the oracle's maximum
// "Total Allocated" exactly.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

const LoadedPlugin& Plugin() {
  static const std::shared_ptr<const LoadedPlugin> plugin = [] {
    auto p = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_oom_risk.so");
    EXPECT_TRUE(p.ok()) << p.status().message();
    return *p;
  }();
  return *plugin;
}

template <typename T>
const T& Column(const DerivedTable& t, const char* name) {
  const DerivedColumn* c = t.Find(name);
  if (c == nullptr) throw std::runtime_error(t.name + " has no column " + name);
  return std::get<T>(c->values);
}
int64_t Int(const DerivedTable& t, const char* name, size_t row) {
  return Column<std::vector<int64_t>>(t, name)[row];
}
double Real(const DerivedTable& t, const char* name, size_t row) {
  return Column<std::vector<double>>(t, name)[row];
}
std::string Text(const DerivedTable& t, const char* name, size_t row) {
  return std::string(Column<TextColumn>(t, name)[row]);
}

// A training loop on one GPU of `capacity` bytes: step 1 (warm-up) loads
// `base` bytes of weights (aten::to); every step's forward (aten::linear ›
// aten::mm) allocates `activations` in four tensors that the backward frees;
// `leak` bytes per step are allocated by aten::clone and never freed. The
// caching allocator's reserve tracks the high-water mark plus
// `extra_reserved` (blocks cached but not reusable: fragmentation).
struct Scenario {
  int64_t capacity = 16 * kGiB;
  int steps = 12;
  int64_t base = 2 * kGiB;
  int64_t activations = 4 * kGiB;
  int64_t leak = 0;
  int64_t extra_reserved = 0;
  bool oom = false;
  bool memory_events = true;
  bool cpu_events = false;   // a few host allocations too (Device Type 0)
  int64_t preallocated = 0;  // allocated before the capture began (held throughout)
  bool backward = true;      // a training step (inference: forward only)
};

class Writer {
 public:
  explicit Writer(const Scenario& s)
      : s_(s), gpu_allocated_(s.preallocated), reserved_(s.preallocated) {}

  std::string Json() {
    for (int step = 1; step <= s_.steps; ++step) {
      const int64_t t0 = step * 10000;
      Slice("user_annotation", "ProfilerStep#" + std::to_string(step), t0, 9000);
      if (step == 1 && s_.base > 0) {
        Slice("cpu_op", "aten::to", t0 + 10, 50);
        Alloc(t0 + 20, s_.base);
      }
      Slice("cpu_op", "aten::linear", t0 + 100, 3000);
      Slice("cpu_op", "aten::mm", t0 + 200, 2000);
      std::vector<int64_t> acts;
      for (int k = 0; k < 4; ++k) acts.push_back(Alloc(t0 + 300 + k * 100, s_.activations / 4));
      if (s_.cpu_events) {
        const int64_t a = Alloc(t0 + 800, 4096, 0);
        Free(t0 + 900, a, 4096, 0);
      }
      if (s_.leak > 0) {
        Slice("cpu_op", "aten::clone", t0 + 3500, 100);
        Alloc(t0 + 3550, s_.leak);
      }
      if (s_.oom && step == s_.steps) {
        Slice("cpu_op", "aten::empty", t0 + 3700, 100);
        Event(t0 + 3750, "[OutOfMemory]", 0, 8 * kGiB, 1);
      }
      if (s_.backward)
        Slice("cpu_op", "autograd::engine::evaluate_function: MmBackward0", t0 + 4000, 3000);
      for (int k = 0; k < 4; ++k) Free(t0 + 4100 + k * 100, acts[k], s_.activations / 4);
    }
    return R"({"deviceProperties": [{"id": 0, "name": "Test GPU", "numSms": 100, )"
           R"("totalGlobalMem": )" +
           std::to_string(s_.capacity) + R"(}], "traceEvents": [)" + events_ + "]}";
  }

 private:
  void Append(const std::string& e) {
    if (!events_.empty()) events_ += ",\n";
    events_ += e;
  }
  void Slice(const std::string& cat, const std::string& name, int64_t ts, int64_t dur) {
    Append(R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name +
           R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": )" +
           std::to_string(dur) + "}");
  }
  int64_t Alloc(int64_t ts, int64_t bytes, int type = 1) {
    const int64_t addr = next_addr_;
    next_addr_ += bytes + 512;
    Record(ts, addr, bytes, type);
    return addr;
  }
  void Free(int64_t ts, int64_t addr, int64_t bytes, int type = 1) {
    Record(ts, addr, -bytes, type);
  }
  void Record(int64_t ts, int64_t addr, int64_t bytes, int type) {
    if (!s_.memory_events) return;
    int64_t& allocated = type == 1 ? gpu_allocated_ : cpu_allocated_;
    allocated += bytes;
    if (type == 1) reserved_ = std::max(reserved_, allocated + s_.extra_reserved);
    Event(ts, "[memory]", addr, bytes, type);
  }
  void Event(int64_t ts, const char* name, int64_t addr, int64_t bytes, int type) {
    const int64_t allocated = type == 1 ? gpu_allocated_ : cpu_allocated_;
    const int64_t reserved = type == 1 ? reserved_ : 0;
    Append(R"({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": ")" + std::string(name) +
           R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) +
           R"(, "args": {"Total Reserved": )" + std::to_string(reserved) +
           R"(, "Total Allocated": )" + std::to_string(allocated) + R"(, "Bytes": )" +
           std::to_string(bytes) + (addr ? R"(, "Addr": )" + std::to_string(addr) : std::string()) +
           R"(, "Device Id": )" + (type == 1 ? "0" : "-1") + R"(, "Device Type": )" +
           std::to_string(type) + "}}");
  }

  const Scenario& s_;
  std::string events_;
  int64_t next_addr_ = int64_t{1} << 40;
  int64_t gpu_allocated_ = 0, cpu_allocated_ = 0, reserved_ = 0;
};

PluginResults RunScenario(const std::string& name, const Scenario& s,
                          const std::map<std::string, OptionValue>& options = {}) {
  auto set =
      LoadTraceSet({testing::WriteTempFile(name + ".json", Writer(s).Json())}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  Status st = RunPlugin(Plugin(), *set, options, &r);
  EXPECT_TRUE(st.ok()) << st.message();
  return r;
}

// The row of the GPU (CUDA 0).
size_t GpuRow(const DerivedTable& t) {
  for (size_t i = 0; i < t.rows; ++i)
    if (Text(t, "device_type", i) == "CUDA") return i;
  ADD_FAILURE() << "no CUDA row";
  return 0;
}

const Finding* FindingOf(const PluginResults& r) {
  return r.findings.empty() ? nullptr : &r.findings.front();
}

double EvidenceOf(const Finding& f, const std::string& name) {
  for (const auto& e : f.evidence)
    if (e.name == name) return e.value;
  ADD_FAILURE() << "no evidence " << name << " in " << f.title;
  return -1;
}

TEST(OomRisk, SteadyIsLowAndAttributesTheLargestLiveAllocations) {
  Scenario s;
  s.cpu_events = true;
  PluginResults r = RunScenario("steady", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  ASSERT_EQ(t.rows, 2u);  // CPU and CUDA 0
  const size_t g = GpuRow(t);
  EXPECT_EQ(Text(t, "tier", g), "LOW");
  EXPECT_EQ(Int(t, "peak_allocated", g), 6 * kGiB);
  EXPECT_EQ(Int(t, "capacity", g), 16 * kGiB);
  EXPECT_EQ(Int(t, "headroom", g), 10 * kGiB);
  EXPECT_DOUBLE_EQ(Real(t, "headroom_pct", g), 62.5);
  EXPECT_EQ(Int(t, "transient_at_peak", g), 4 * kGiB);  // the step's activations
  EXPECT_EQ(Int(t, "steps_fitted", g), 11);             // 12 steps, 1 warm-up
  EXPECT_DOUBLE_EQ(Real(t, "leak_slope", g), 0);
  EXPECT_EQ(Int(t, "live_at_peak", g), 6 * kGiB);
  const size_t c = 1 - g;
  EXPECT_EQ(Text(t, "tier", c), "LOW");
  EXPECT_EQ(Int(t, "capacity", c), -1);  // host memory: capacity unknown
  EXPECT_EQ(Int(t, "peak_allocated", c), 4096);
  EXPECT_TRUE(r.findings.empty());

  // Live at peak on the GPU: the weights, then the four activations.
  const DerivedTable& a = r.tables.at("oom_risk_allocations");
  std::vector<size_t> gpu;
  for (size_t i = 0; i < a.rows; ++i)
    if (Text(a, "device_type", i) == "CUDA") gpu.push_back(i);
  ASSERT_EQ(gpu.size(), 5u);
  EXPECT_EQ(Int(a, "bytes", gpu[0]), 2 * kGiB);
  EXPECT_EQ(Text(a, "op", gpu[0]), "aten::to");
  for (size_t k = 1; k < 5; ++k) {
    EXPECT_EQ(Int(a, "order", gpu[k]), static_cast<int64_t>(k + 1));
    EXPECT_EQ(Int(a, "bytes", gpu[k]), kGiB);
    EXPECT_EQ(Text(a, "op", gpu[k]), "aten::mm");
    EXPECT_EQ(Text(a, "top_op", gpu[k]), "aten::linear");
    EXPECT_EQ(Text(a, "attribution", gpu[k]), "nesting");
  }
  for (const auto& check : r.checks)
    EXPECT_TRUE(check.passed) << check.name << ": " << check.detail;

  // The timeline per step: weights at each step's end, weights + activations at its high.
  const DerivedTable& st = r.tables.at("oom_risk_steps");
  int gpu_steps = 0;
  for (size_t i = 0; i < st.rows; ++i) {
    if (Text(st, "device_type", i) != "CUDA") continue;
    ++gpu_steps;
    EXPECT_EQ(Int(st, "warmup", i), Int(st, "step", i) == 1 ? 1 : 0);
    EXPECT_EQ(Int(st, "allocated_at_end", i), 2 * kGiB);
    EXPECT_EQ(Int(st, "max_allocated", i), 6 * kGiB);
  }
  EXPECT_EQ(gpu_steps, 12);
}

TEST(OomRisk, SlowLeakIsMedium) {
  Scenario s;
  s.leak = 8 * kMiB;
  PluginResults r = RunScenario("slow_leak", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  const size_t g = GpuRow(t);
  EXPECT_EQ(Text(t, "tier", g), "MEDIUM") << Text(t, "reasons", g);
  EXPECT_NEAR(Real(t, "leak_slope", g), 8.0 * kMiB, 1e-3);
  EXPECT_NEAR(Real(t, "leak_r2", g), 1.0, 1e-12);
  EXPECT_GT(Real(t, "steps_to_exhaustion", g), 100);
  EXPECT_LT(Real(t, "steps_to_exhaustion", g), 10000);
  const Finding* f = FindingOf(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kP2);
  EXPECT_NE(f->what.find("aten::clone"), std::string::npos) << f->what;
  EXPECT_NEAR(EvidenceOf(*f, "est_saved_per_step"), 8.0 * kMiB, 1e-3);
  for (const auto& e : f->evidence) EXPECT_FALSE(e.unit.empty()) << e.name;
  EXPECT_NE(f->suggestion.find("across steps"), std::string::npos);
}

TEST(OomRisk, FastLeakIsHigh) {
  Scenario s;
  s.activations = 2 * kGiB;
  s.leak = 512 * kMiB;
  PluginResults r = RunScenario("fast_leak", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  const size_t g = GpuRow(t);
  EXPECT_EQ(Text(t, "tier", g), "HIGH") << Text(t, "reasons", g);
  EXPECT_GT(Real(t, "headroom_pct", g), 25);  // high because of the leak, not the peak
  EXPECT_LT(Real(t, "steps_to_exhaustion", g), 100);
  const Finding* f = FindingOf(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kP1);
  EXPECT_NEAR(EvidenceOf(*f, "leak_slope"), 512.0 * kMiB, 1e-3);
}

// The same cause on two ranks is one title (the reports group it into one
// finding); the device and its figures are in the message.
TEST(OomRisk, OneCauseOnTwoRanksHasOneTitle) {
  std::vector<std::string> files;
  for (int rank = 0; rank < 2; ++rank) {
    Scenario s;
    s.activations = 2 * kGiB;
    s.leak = (512 + 256 * rank) * kMiB;
    std::string json = Writer(s).Json();
    json.insert(
        1, R"("distributedInfo": {"rank": )" + std::to_string(rank) + R"(, "world_size": 2}, )");
    files.push_back(testing::WriteTempFile("leak_rank" + std::to_string(rank) + ".json", json));
  }
  auto set = LoadTraceSet(files, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(Plugin(), *set, {}, &r).ok());
  ASSERT_EQ(r.findings.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(r.findings[k].title, "OOM risk HIGH: allocated memory grows every step");
    EXPECT_EQ(r.findings[k].scope.rank, k);
  }
  EXPECT_EQ(r.findings[0].what.rfind("CUDA 0 of rank 0: HIGH: allocated grows 512.00 MiB/step", 0),
            0u)
      << r.findings[0].what;
  // Rank 1 is MEDIUM for its peak first, HIGH for the leak: titled by the leak.
  EXPECT_EQ(r.findings[1].what.rfind("CUDA 0 of rank 1: MEDIUM: peak allocated 13.00 GiB", 0), 0u)
      << r.findings[1].what;
  EXPECT_NE(r.findings[1].what.find("; HIGH: allocated grows 768.00 MiB/step"), std::string::npos)
      << r.findings[1].what;
}

TEST(OomRisk, NearCapacityIsHighAndTheThresholdIsAnOption) {
  Scenario s;
  s.base = 6 * kGiB;
  s.activations = 9 * kGiB + 400 * kMiB;
  PluginResults r = RunScenario("near_capacity", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  const size_t g = GpuRow(t);
  EXPECT_EQ(Text(t, "tier", g), "HIGH") << Text(t, "reasons", g);
  // 16 GiB − (6 GiB + 9 GiB + 400 MiB) = 624 MiB free: 3.8 %.
  EXPECT_DOUBLE_EQ(Real(t, "headroom_pct", g), 100.0 * 624 / (16 * 1024));
  const Finding* f = FindingOf(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kP1);
  EXPECT_NE(f->suggestion.find("activation checkpointing"), std::string::npos);
  EXPECT_EQ(EvidenceOf(*f, "est_checkpointing_savings_upper_bound"), 9 * kGiB + 400 * kMiB);
  for (const auto& e : f->evidence) {
    if (e.name.starts_with("est_")) {
      EXPECT_EQ(e.kind, NumberKind::kInferred) << e.name;
    }
  }

  // 3.8 % free: above a 2 % HIGH bound, below the 25 % MEDIUM bound.
  PluginResults lower = RunScenario("near_capacity_opt", s, {{"high_headroom_pct", 2.0}});
  EXPECT_EQ(Text(lower.tables.at("oom_risk"), "tier", 0), "MEDIUM");
}

TEST(OomRisk, FragmentedIsMedium) {
  Scenario s;
  s.base = 3 * kGiB;
  s.activations = 6 * kGiB;
  s.extra_reserved = 5 * kGiB + 512 * kMiB;
  PluginResults r = RunScenario("fragmented", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  const size_t g = GpuRow(t);
  EXPECT_EQ(Text(t, "tier", g), "MEDIUM") << Text(t, "reasons", g);
  EXPECT_EQ(Int(t, "peak_allocated", g), 9 * kGiB);
  EXPECT_EQ(Int(t, "fragmentation", g), 5 * kGiB + 512 * kMiB);
  EXPECT_NEAR(Real(t, "fragmentation_pct", g), 100.0 * 5.5 / 14.5, 1e-9);
  const Finding* f = FindingOf(r);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->suggestion.find("expandable_segments"), std::string::npos);
  EXPECT_EQ(EvidenceOf(*f, "est_recoverable_cache"), 5 * kGiB + 512 * kMiB);
}

TEST(OomRisk, RecordedOutOfMemoryIsHighAndP0) {
  Scenario s;
  s.oom = true;
  PluginResults r = RunScenario("oom", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  const size_t g = GpuRow(t);
  EXPECT_EQ(Text(t, "tier", g), "HIGH");
  EXPECT_EQ(Int(t, "oom_events", g), 1);
  EXPECT_EQ(Int(t, "peak_allocated", g), 6 * kGiB);  // the OOM event's totals are not a peak
  const Finding* f = FindingOf(r);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kP0);
  EXPECT_EQ(EvidenceOf(*f, "oom_largest_request"), 8 * kGiB);
}

// What could not be assessed is a note of the run, not a finding (issue 15
// item 5): a finding would make a trace without allocator events look like
// it has a memory problem.
TEST(OomRisk, NoMemoryEventsIsANoteNamingTheCaptureOptionNotAFinding) {
  Scenario s;
  s.memory_events = false;
  PluginResults r = RunScenario("no_memory", s);
  EXPECT_EQ(r.tables.at("oom_risk").rows, 0u);
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  const Note& n = r.notes[0];
  EXPECT_EQ(n.plugin, "oom-risk");
  EXPECT_NE(n.text.find("OOM risk not assessed"), std::string::npos) << n.text;
  EXPECT_NE(n.text.find("profile_memory=True"), std::string::npos) << n.text;
}

// An inference server on an 80 GiB GPU: 70 GiB (weights and KV cache) were
// allocated before the capture and stay; each forward allocates 4 GiB of
// activations on top and frees them. Peak 74 GiB leaves 7.5 % of the device
// free, HIGH on the device's capacity alone; beside the pool, 6 of the 10 GiB
// it leaves are free (60 %): LOW, and the pool is named.
TEST(OomRisk, PreallocatedPoolIsNamedAndHeadroomJudgedBesideIt) {
  Scenario s;
  s.capacity = 80 * kGiB;
  s.preallocated = 70 * kGiB;
  s.base = 0;
  s.activations = 4 * kGiB;
  s.backward = false;
  PluginResults r = RunScenario("kv_cache", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  const size_t g = GpuRow(t);
  EXPECT_EQ(Int(t, "peak_allocated", g), 74 * kGiB);
  EXPECT_DOUBLE_EQ(Real(t, "headroom_pct", g), 7.5);
  EXPECT_EQ(Int(t, "held_from_start", g), 70 * kGiB);
  EXPECT_EQ(Int(t, "preallocated_pool", g), 70 * kGiB);
  EXPECT_DOUBLE_EQ(Real(t, "pool_headroom_pct", g), 60.0);
  EXPECT_EQ(Text(t, "tier", g), "LOW") << Text(t, "reasons", g);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.severity, FindingSeverity::kInfo);
  EXPECT_EQ(f.title, "preallocated pool (KV cache?) held throughout the window");
  EXPECT_EQ(f.what,
            "On CUDA 0 of rank 0, 70.00 GiB (87.5% of the device) was allocated before the trace's "
            "first allocator "
            "event and stays allocated to its end (Total Allocated never drops below it), in a "
            "trace without a backward pass: a pool the program preallocated, such as an inference "
            "server's KV cache (vLLM gpu_memory_utilization, SGLang mem_fraction_static). Headroom "
            "is judged on the 10.00 GiB it leaves: 60.0% of that was free at peak.");
  EXPECT_EQ(EvidenceOf(f, "preallocated_pool"), 70 * kGiB);
  EXPECT_EQ(EvidenceOf(f, "allocated_before_window"), 70 * kGiB);
  EXPECT_DOUBLE_EQ(EvidenceOf(f, "pool_share"), 87.5);
  EXPECT_EQ(f.scope.rank, 0);
  EXPECT_EQ(f.scope.device, 0);
}

// The same pool with 9.5 GiB of activations: 0.5 of the 10 GiB it leaves
// are free (5 %): HIGH, and the finding says it is beside the pool.
TEST(OomRisk, PreallocatedPoolWithLittleRoomBesideItIsStillHigh) {
  Scenario s;
  s.capacity = 80 * kGiB;
  s.preallocated = 70 * kGiB;
  s.base = 0;
  s.activations = 9 * kGiB + 512 * kMiB;
  s.backward = false;
  PluginResults r = RunScenario("kv_cache_full", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  const size_t g = GpuRow(t);
  EXPECT_EQ(Text(t, "tier", g), "HIGH") << Text(t, "reasons", g);
  EXPECT_DOUBLE_EQ(Real(t, "pool_headroom_pct", g), 5.0);
  ASSERT_EQ(r.findings.size(), 2u);  // the pool (info) and the risk (P1)
  const Finding* risk = nullptr;
  for (const Finding& f : r.findings)
    if (f.severity == FindingSeverity::kP1) risk = &f;
  ASSERT_NE(risk, nullptr);
  EXPECT_EQ(risk->title, "OOM risk HIGH: peak near what the preallocated pool leaves");
  EXPECT_EQ(risk->what.rfind(
                "CUDA 0 of rank 0: HIGH: beside a preallocated pool of 70.00 GiB, peak allocated "
                "79.50 GiB of 80.00 GiB leaves 0.6% free, 5.0% of the 10.00 GiB the pool leaves "
                "(< 10%).",
                0),
            0u)
      << risk->what;
  EXPECT_NE(risk->suggestion.find("gpu_memory_utilization"), std::string::npos);
  EXPECT_EQ(EvidenceOf(*risk, "preallocated_pool"), 70 * kGiB);
}

// Training holds its weights and optimizer state throughout too: reported as
// held from the start, not named a pool, and headroom is the device's.
TEST(OomRisk, MemoryHeldByATrainingStepIsNotAPool) {
  Scenario s;
  s.capacity = 80 * kGiB;
  s.preallocated = 70 * kGiB;
  s.base = 0;
  s.activations = 4 * kGiB;
  PluginResults r = RunScenario("training_held", s);
  const DerivedTable& t = r.tables.at("oom_risk");
  const size_t g = GpuRow(t);
  EXPECT_EQ(Int(t, "held_from_start", g), 70 * kGiB);
  EXPECT_EQ(Int(t, "preallocated_pool", g), 0);
  EXPECT_DOUBLE_EQ(Real(t, "pool_headroom_pct", g), -1);
  EXPECT_EQ(Text(t, "tier", g), "HIGH") << Text(t, "reasons", g);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, FindingSeverity::kP1);
}

TEST(OomRisk, PeakEqualsTheOracleOnEveryRealTraceWithMemoryEvents) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-trace test skipped";
  int compared = 0, relative = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(data + "/expected")) {
    std::string p = e.path().string();
    const std::string suffix = ".oracle.json";
    if (p.size() < suffix.size() || p.compare(p.size() - suffix.size(), suffix.size(), suffix))
      continue;
    simdjson::dom::parser parser;
    simdjson::dom::element o = parser.load(p).value();
    if (o["kind"].get_string().value() != "kineto_json") continue;
    simdjson::dom::element mem;
    if (o["memory_events"].get(mem) || mem["count"].get_int64().value() == 0) continue;
    std::string rel = std::filesystem::relative(p, data + "/expected").string();
    auto set =
        LoadTraceSet({data + "/" + rel.substr(0, rel.size() - suffix.size())}, LoadOptions{});
    ASSERT_TRUE(set.ok()) << set.status().message();
    PluginResults r;
    Status st = RunPlugin(Plugin(), *set, {}, &r);
    ASSERT_TRUE(st.ok()) << rel << ": " << st.message();
    const DerivedTable& t = r.tables.at("oom_risk");
    ASSERT_GT(t.rows, 0u) << rel;
    int64_t want = 0;
    if (mem["max_total_allocated"].get_int64().get(want)) {
      // Old captures record only Bytes: the timeline is relative to the capture's start.
      for (size_t i = 0; i < t.rows; ++i)
        EXPECT_EQ(Text(t, "allocated_source", i), "cumulative Bytes");
      ++relative;
      continue;
    }
    int64_t peak = INT64_MIN;
    for (size_t i = 0; i < t.rows; ++i) {
      EXPECT_EQ(Text(t, "allocated_source", i), "Total Allocated") << rel;
      peak = std::max(peak, Int(t, "peak_allocated", i));
    }
    EXPECT_EQ(peak, want) << rel;
    compared += peak == want;
    // The live set fits in Total Allocated; consecutive totals step by Bytes.
    for (const auto& check : r.checks) EXPECT_TRUE(check.passed) << rel << ": " << check.detail;
  }
  std::printf(
      "oom-risk: peak equals the oracle's max Total Allocated on %d traces (%d with "
      "Bytes only)\n",
      compared, relative);
  EXPECT_GE(compared, 13);
}

}  // namespace
}  // namespace th
