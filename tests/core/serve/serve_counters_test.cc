// Counter tracks against brute force on a generated trace (Chrome counters,
// allocator events, kernels with grids and occupancy, device properties) and
// a real one: per bucket, min/max/last of the sampled series exactly, GPU
// utilisation equal to a union computed per bucket, SM efficiency and
// occupancy equal to their time-weighted sums; a trace without device
// properties says the SM count is not known instead of drawing zeros.
#include "core/serve/serve_counters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "tests/support/test_files.h"

namespace th::serve {
namespace {

// 400 kernels on two devices (overlapping on device 0's two streams), 300
// Chrome counter samples, 200 allocator events; numSms when `sms` > 0.
std::string WriteCounterTrace(const std::string& name, int sms) {
  std::mt19937 rng(5);
  std::string json = "{";
  if (sms > 0)
    json += R"("deviceProperties":[{"id":0,"name":"G","numSms":)" + std::to_string(sms) +
            R"(},{"id":1,"name":"G","numSms":)" + std::to_string(sms) + "}],";
  json += R"("traceEvents":[)";
  for (int i = 0; i < 400; ++i) {
    const int dev = i % 5 == 0 ? 1 : 0, stream = 7 + i % 2;
    const int64_t ts = 1000 + i * 40 + static_cast<int64_t>(rng() % 30), dur = 5 + rng() % 70;
    json += R"({"ph":"X","cat":"kernel","name":"k","pid":)" + std::to_string(dev) + R"(,"tid":)" +
            std::to_string(stream) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
            std::to_string(dur) + R"(,"args":{"device":)" + std::to_string(dev) + R"(,"stream":)" +
            std::to_string(stream) + R"(,"grid":[)" + std::to_string(1 + rng() % 300) +
            R"(,1,1],"block":[128,1,1])" +
            (i % 3 ? R"(,"est. achieved occupancy %":)" + std::to_string(rng() % 100) : "") +
            "}},\n";
  }
  for (int i = 0; i < 300; ++i) {
    json += R"({"ph":"C","name":"Queue","pid":1,"tid":1,"ts":)" + std::to_string(900 + i * 55) +
            R"(,"args":{"length":)" + std::to_string(rng() % 50) + "}},\n";
  }
  int64_t total = 0;
  for (int i = 0; i < 200; ++i) {
    const int64_t bytes = static_cast<int64_t>(rng() % 4096) - 1500;
    total = std::max<int64_t>(0, total + bytes);
    json +=
        R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":)" +
        std::to_string(950 + i * 81) + R"(,"args":{"Device Type":1,"Device Id":0,"Bytes":)" +
        std::to_string(bytes) + R"(,"Total Allocated":)" + std::to_string(total) +
        R"(,"Total Reserved":)" + std::to_string(total + 4096) + "}},\n";
  }
  json.resize(json.size() - 2);
  json += "]}\n";
  return th::testing::WriteTempFile(name, json);
}

std::unique_ptr<ServeRun> Load(const std::string& path) {
  auto run = std::make_unique<ServeRun>(path, "counters");
  std::string note;
  Status s = LoadServeRun(run.get(), {}, &note);
  EXPECT_TRUE(s.ok()) << s.message();
  return run;
}

int64_t Px(int64_t t, int64_t t0, int64_t t1, int64_t width) {
  return static_cast<int64_t>((static_cast<__int128>(t) - t0) * width /
                              (static_cast<__int128>(t1) - t0));
}

size_t TrackNamed(const CounterIndex& index, const std::string& name, const std::string& group) {
  for (size_t k = 0; k < index.tracks().size(); ++k)
    if (index.tracks()[k].name == name && index.tracks()[k].group.back() == group) return k;
  ADD_FAILURE() << "no counter track " << name << " in " << group;
  return 0;
}

// Sampled series: (time, value) in graph order, checked bucket by bucket.
void ExpectSampled(const CounterIndex& index, size_t track,
                   std::vector<std::pair<int64_t, double>> samples, int64_t t0, int64_t t1,
                   int64_t width) {
  std::stable_sort(samples.begin(), samples.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<CounterBucket> want;
  std::optional<double> before;
  for (const auto& [t, v] : samples) {
    if (t < t0) before = v;
    if (t < t0 || t >= t1) continue;
    const int64_t px = Px(t, t0, t1, width);
    if (want.empty() || want.back().px != px) want.push_back({px, v, v, v});
    CounterBucket& b = want.back();
    b.min = std::min(b.min, v);
    b.max = std::max(b.max, v);
    b.last = v;
  }
  const CounterAnswer got = index.Query(track, t0, t1, width);
  EXPECT_EQ(got.before, before);
  ASSERT_EQ(got.buckets.size(), want.size()) << index.tracks()[track].name;
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(got.buckets[k].px, want[k].px);
    EXPECT_EQ(got.buckets[k].min, want[k].min);
    EXPECT_EQ(got.buckets[k].max, want[k].max);
    EXPECT_EQ(got.buckets[k].last, want[k].last);
  }
}

struct Kernel {
  int64_t s, e, blocks;
  double occ;  // < 0: none
};

std::vector<Kernel> KernelsOf(const ServeRun& run, int32_t device) {
  const EventGraph& g = run.graph();
  std::vector<Kernel> out;
  for (size_t r = 0; r < g.gpu_args.size(); ++r) {
    const EventId e = g.gpu_args.event[r];
    if (g.events.kind[e] != EventKind::kKernel || g.gpu_args.device[r] != device) continue;
    out.push_back({run.Relative(g.events.ts[e]), run.Relative(g.events.ts[e] + g.events.dur[e]),
                   int64_t{g.gpu_args.grid[0][r]} * g.gpu_args.grid[1][r] * g.gpu_args.grid[2][r],
                   g.gpu_args.occupancy[r]});
  }
  return out;
}

// The three derived counters of `device`, each bucket from the kernels directly.
void ExpectDerived(const ServeRun& run, const CounterIndex& index, int32_t device, int sms,
                   int64_t t0, int64_t t1, int64_t width) {
  const std::string group = "GPU " + std::to_string(device) + " counters";
  const auto util = index.Query(TrackNamed(index, "GPU utilisation", group), t0, t1, width);
  const auto eff = index.Query(TrackNamed(index, "est. SM efficiency", group), t0, t1, width);
  const auto occ = index.Query(TrackNamed(index, "est. achieved occupancy", group), t0, t1, width);
  const std::vector<Kernel> kernels = KernelsOf(run, device);
  size_t ui = 0, ei = 0, oi = 0;
  for (int64_t b = 0; b < width; ++b) {
    const int64_t a = BucketStart(t0, t1, width, b), e = BucketStart(t0, t1, width, b + 1);
    if (e <= a) continue;
    std::vector<std::pair<int64_t, int64_t>> clipped;
    long double sm = 0, occ_sum = 0, occ_time = 0;
    for (const Kernel& k : kernels) {
      const int64_t lo = std::max(a, k.s), hi = std::min(e, k.e);
      if (hi <= lo) continue;
      clipped.push_back({lo, hi});
      sm += static_cast<long double>(std::min<int64_t>(k.blocks, sms)) * (hi - lo);
      if (k.occ >= 0) occ_sum += k.occ * (hi - lo), occ_time += hi - lo;
    }
    std::sort(clipped.begin(), clipped.end());
    int64_t busy = 0, reach = a;
    for (const auto& [lo, hi] : clipped) {
      if (hi > std::max(lo, reach)) busy += hi - std::max(lo, reach);
      reach = std::max(reach, hi);
    }
    const double len = static_cast<double>(e - a);
    ASSERT_LT(ui, util.buckets.size());
    EXPECT_EQ(util.buckets[ui].px, b);
    EXPECT_NEAR(util.buckets[ui++].last, busy * 100.0 / len, 1e-9);
    if (sms > 0) {
      ASSERT_LT(ei, eff.buckets.size());
      EXPECT_NEAR(eff.buckets[ei++].last, static_cast<double>(sm * 100 / (len * sms)), 1e-9);
    }
    if (occ_time > 0) {
      ASSERT_LT(oi, occ.buckets.size());
      EXPECT_EQ(occ.buckets[oi].px, b);
      EXPECT_NEAR(occ.buckets[oi++].last, static_cast<double>(occ_sum / occ_time), 1e-6);
    }
  }
  EXPECT_EQ(ui, util.buckets.size());
  EXPECT_EQ(ei, eff.buckets.size());
  EXPECT_EQ(oi, occ.buckets.size());
  if (t0 <= 0 && t1 > run.end_rel_ns()) {  // the whole run: something drawn
    auto positive = [](const CounterAnswer& x) {
      return std::any_of(x.buckets.begin(), x.buckets.end(), [](auto& b) { return b.max > 0; });
    };
    EXPECT_TRUE(positive(util));
    EXPECT_TRUE(sms == 0 || positive(eff));
    EXPECT_TRUE(positive(occ));
  }
}

std::vector<std::pair<int64_t, double>> ChromeSamples(const ServeRun& run) {
  std::vector<std::pair<int64_t, double>> out;
  const EventGraph& g = run.graph();
  for (size_t r = 0; r < g.counters.size(); ++r)
    out.push_back({run.Relative(g.events.ts[g.counters.event[r]]), g.counters.value[r]});
  return out;
}

std::vector<std::pair<int64_t, double>> AllocatedSamples(const ServeRun& run, int16_t device) {
  std::vector<std::pair<int64_t, double>> out;
  const MemoryArgsTable& m = run.graph().memory_args;
  for (size_t r = 0; r < m.size(); ++r)
    if (m.device_type[r] == 1 && m.device_id[r] == device)
      out.push_back({run.Relative(run.graph().events.ts[m.event[r]]),
                     static_cast<double>(m.total_allocated[r])});
  return out;
}

TEST(ServeCountersTest, GeneratedTraceBucketsMatchBruteForce) {
  auto run = Load(WriteCounterTrace("serve_counters.json", 108));
  const CounterIndex index(*run);
  const size_t queue = TrackNamed(index, "Queue: length", "process 1");
  const size_t allocated = TrackNamed(index, "Total Allocated", "GPU 0 memory");
  EXPECT_EQ(index.tracks()[allocated].unit, "bytes");
  const int64_t end = run->end_rel_ns();
  std::mt19937_64 rng(3);
  for (int i = 0; i < 30; ++i) {
    const int64_t t0 = static_cast<int64_t>(rng() % static_cast<uint64_t>(end)) - end / 8;
    const int64_t t1 = t0 + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(end));
    const int64_t width = 1 + static_cast<int64_t>(rng() % 400);
    ExpectSampled(index, queue, ChromeSamples(*run), t0, t1, width);
    ExpectSampled(index, allocated, AllocatedSamples(*run, 0), t0, t1, width);
    ExpectDerived(*run, index, 0, 108, t0, t1, width);
    ExpectDerived(*run, index, 1, 108, t0, t1, width);
  }
  ExpectDerived(*run, index, 0, 108, 0, end + 1, 3000);  // narrower buckets than a ns pass
}

TEST(ServeCountersTest, MissingDevicePropertiesSayTheSmCountIsNotKnown) {
  auto run = Load(WriteCounterTrace("serve_counters_nosms.json", 0));
  const CounterIndex index(*run);
  const size_t eff = TrackNamed(index, "est. SM efficiency", "GPU 0 counters");
  EXPECT_NE(index.tracks()[eff].unavailable.find("SM count not known"), std::string::npos);
  EXPECT_TRUE(index.Query(eff, 0, run->end_rel_ns(), 100).buckets.empty());
  EXPECT_NE(CounterJson(index, eff, index.Query(eff, 0, 10, 10)).find("\"unavailable\":\"SM count"),
            std::string::npos);
  ExpectDerived(*run, index, 0, 0, 0, run->end_rel_ns() + 1,
                200);  // utilisation and occupancy still
}

TEST(ServeCountersTest, RealTraceMatchesBruteForce) {
  const std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  const std::string path =
      data + "/tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent: real-trace test skipped";
  auto run = Load(path);
  const CounterIndex index(*run);
  int sms = 0;
  for (const DeviceInfo& d : run->trace().info.devices)
    if (d.id == 0) sms = d.num_sms;
  const int64_t end = run->end_rel_ns();
  for (int64_t width : {1, 97, 1000}) {
    ExpectSampled(index, TrackNamed(index, "Total Allocated", "GPU 0 memory"),
                  AllocatedSamples(*run, 0), 0, end + 1, width);
    ExpectDerived(*run, index, 0, sms, 0, end + 1, width);
    ExpectDerived(*run, index, 0, sms, end / 3, end / 2, width);
  }
}

}  // namespace
}  // namespace th::serve
