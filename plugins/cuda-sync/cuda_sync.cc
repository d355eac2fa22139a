// cuda-sync: host calls that block on the GPU, and the host time they cost
// inside training steps.
//
// Phase 1: every CUDA/HIP runtime or driver call is classified by name:
//   device_sync, stream_sync, event_sync (explicit synchronisation),
//   sync_memcpy / sync_memset (the synchronous API, no Async suffix), and
//   pageable_memcpy_async (an Async copy whose GPU copy names pageable host
//   memory: the host blocks while the driver stages it).
// Phase 2: each call's blocked time is its duration on the host thread; the
//   part inside ProfilerStep#N windows (their union) is the time lost in steps.
//   Per (rank, class, name) and per (rank, step); a finding per rank and class
//   when the time lost reaches a share of the step time.
//
// Cost: names are classified once per string id; only the calls that can
// block are kept (with the copies they launched), and each call visits only
// the steps its interval can touch.
#include <tracehound/format.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "per_step_sweep.h"

namespace {

using th::cuda_sync::PerStepSweep;
using th::cuda_sync::StepWindow;
using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Trace;

constexpr uint32_t kNone = 0xFFFFFFFFu;

enum Class : int {
  kDeviceSync,
  kStreamSync,
  kEventSync,
  kSyncMemcpy,
  kSyncMemset,
  kPageableMemcpy,
  kNotSync
};
const char* const kClassNames[] = {"device_sync", "stream_sync", "event_sync",
                                   "sync_memcpy", "sync_memset", "pageable_memcpy_async"};
const char* const kSuggestions[] = {
    "remove the device-wide synchronisation from the step (torch.cuda.synchronize, "
    "timing code), or move it to the end of the step",
    "find the op that reads a GPU value on the host (.item(), .cpu(), .tolist(), printing or "
    "branching on a CUDA tensor) and defer it, batch it, or keep the value on the GPU",
    "wait on events less often, or let the GPU wait (cudaStreamWaitEvent) instead of the host",
    "copy with the asynchronous API from pinned memory (tensor.to(device, non_blocking=True) "
    "on a pinned tensor)",
    "use the asynchronous memset (cudaMemsetAsync / hipMemsetAsync)",
    "pin the host buffer (DataLoader(pin_memory=True), tensor.pin_memory()) so the copy is "
    "asynchronous"};

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool Contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

// The class of a runtime/driver call by its name (pageable copies are decided
// later from the GPU copy it launched).
Class Classify(std::string_view name) {
  static const std::pair<const char*, Class> kExact[] = {
      {"cudaDeviceSynchronize", kDeviceSync}, {"hipDeviceSynchronize", kDeviceSync},
      {"cuCtxSynchronize", kDeviceSync},      {"cudaThreadSynchronize", kDeviceSync},
      {"cudaStreamSynchronize", kStreamSync}, {"hipStreamSynchronize", kStreamSync},
      {"cuStreamSynchronize", kStreamSync},   {"cudaEventSynchronize", kEventSync},
      {"hipEventSynchronize", kEventSync},    {"cuEventSynchronize", kEventSync},
  };
  for (const auto& [n, c] : kExact)
    if (name == n) return c;
  if (Contains(name, "Async")) return kNotSync;
  if (StartsWith(name, "cudaMemcpy") || StartsWith(name, "hipMemcpy") ||
      StartsWith(name, "cuMemcpy"))
    return kSyncMemcpy;
  if (StartsWith(name, "cudaMemset") || StartsWith(name, "hipMemset") ||
      StartsWith(name, "cuMemset"))
    return kSyncMemset;
  return kNotSync;
}

bool IsAsyncCopy(std::string_view name) {
  return Contains(name, "Async") && (StartsWith(name, "cudaMemcpy") ||
                                     StartsWith(name, "hipMemcpy") || StartsWith(name, "cuMemcpy"));
}

// Call names classified once per string id: the class Classify gives and
// whether the name is an asynchronous copy (a pageable candidate).
class CallNames {
 public:
  explicit CallNames(const Trace& t) : t_(t) {}
  Class ClassOf(uint32_t name) { return static_cast<Class>((Get(name) & kClassBits) - 1); }
  bool IsAsyncCopy(uint32_t name) { return (Get(name) & kAsyncCopy) != 0; }

 private:
  static constexpr uint8_t kClassBits = 15, kAsyncCopy = 16;
  uint8_t Get(uint32_t name) {
    if (name >= bits_.size()) bits_.resize(std::max<size_t>(name + 1, bits_.size() * 2), 0);
    uint8_t& b = bits_[name];
    if (b == 0) {
      const std::string_view s = t_.String(name);
      b = static_cast<uint8_t>(Classify(s) + 1) | (::IsAsyncCopy(s) ? kAsyncCopy : 0);
    }
    return b;
  }
  const Trace& t_;
  std::vector<uint8_t> bits_;  // by string id; 0 until classified
};

// The runtime/driver calls of a trace that may block (a synchronising name,
// or an async copy that may turn out pageable), by row, with the GPU copies
// and sets each launched.
struct BlockingCandidates {
  std::vector<uint32_t> rows;  // ascending
  std::vector<int64_t> launched_dur, launched_bytes;
  std::vector<uint8_t> pageable;  // launched a memcpy that names pageable memory
};

BlockingCandidates FindBlockingCandidates(const Trace& t, CallNames& names) {
  BlockingCandidates c;
  const uint64_t n = t.size();
  // The columns as spans: one tight pass over every event.
  const th::sdk::TableView events = t.Table("events");
  const std::span<const uint8_t> kinds = events.Values<uint8_t>("kind", TH_TYPE_U8);
  const std::span<const uint32_t> name_ids = events.Values<uint32_t>("name", TH_TYPE_STRING_ID);
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t kind = kinds[i];
    if (kind != TH_EVENT_RUNTIME && kind != TH_EVENT_DRIVER) continue;
    const uint32_t name = name_ids[i];
    if (names.ClassOf(name) != kNotSync || names.IsAsyncCopy(name))
      c.rows.push_back(static_cast<uint32_t>(i));
  }
  c.launched_dur.assign(c.rows.size(), 0);
  c.launched_bytes.assign(c.rows.size(), 0);
  c.pageable.assign(c.rows.size(), 0);
  if (c.rows.empty()) return c;
  std::vector<bool> candidate(n, false);
  for (uint32_t i : c.rows) candidate[i] = true;
  for (uint64_t k = 0; k < t.edge_count(); ++k) {
    if (t.edge_kind(k) != TH_EDGE_LAUNCH) continue;
    const uint32_t src = t.edge_src(k);
    if (src >= n || !candidate[src]) continue;
    const size_t at = std::lower_bound(c.rows.begin(), c.rows.end(), src) - c.rows.begin();
    const uint32_t dst = t.edge_dst(k);
    c.launched_dur[at] += t.dur(dst);
    const uint32_t row = t.args_row(dst);
    if (row != kNone && t.gpu_bytes(row) > 0) c.launched_bytes[at] += t.gpu_bytes(row);
    if (t.kind(dst) == TH_EVENT_MEMCPY && Contains(t.name(dst), "Pageable")) c.pageable[at] = 1;
  }
  return c;
}

// First start and last end of the events of the trace's CPU tracks that have
// a duration ({INT64_MAX, INT64_MIN} when none).
std::pair<int64_t, int64_t> HostSpan(const Trace& t) {
  std::vector<uint8_t> cpu(t.track_count());
  for (uint32_t k = 0; k < cpu.size(); ++k) cpu[k] = t.track(k).kind == TH_TRACK_CPU;
  int64_t first = INT64_MAX, last = INT64_MIN;
  const th::sdk::TableView events = t.Table("events");
  const std::span<const uint32_t> track = events.Values<uint32_t>("track", TH_TYPE_U32);
  const std::span<const int64_t> ts = events.Ints("ts"), dur = events.Ints("dur");
  for (uint64_t i = 0; i < track.size(); ++i) {
    if (!cpu[track[i]] || dur[i] <= 0) continue;
    first = std::min(first, ts[i]);
    last = std::max(last, ts[i] + dur[i]);
  }
  return {first, last};
}

// The `steps` table's host windows per rank, by start.
std::map<int64_t, std::vector<StepWindow>> StepsByRank(const th_table* table) {
  std::map<int64_t, std::vector<StepWindow>> out;
  if (!table) return out;
  const th::sdk::TableView t(table);
  const auto rank = t.Ints("rank"), step = t.Ints("step"), ts = t.Ints("host_ts"),
             dur = t.Ints("host_dur");
  for (uint64_t r = 0; r < t.rows(); ++r) out[rank[r]].push_back({step[r], ts[r], dur[r]});
  for (auto& [rank_id, steps] : out)
    std::stable_sort(steps.begin(), steps.end(),
                     [](const StepWindow& a, const StepWindow& b) { return a.ts < b.ts; });
  return out;
}

// Union of the step windows of one rank, sorted and merged.
std::vector<std::pair<int64_t, int64_t>> StepUnion(const std::vector<StepWindow>& steps) {
  std::vector<std::pair<int64_t, int64_t>> w;
  for (const StepWindow& s : steps) w.emplace_back(s.ts, s.ts + s.dur);
  std::sort(w.begin(), w.end());
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& x : w) {
    if (!out.empty() && x.first <= out.back().second) {
      out.back().second = std::max(out.back().second, x.second);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

int64_t Inside(const std::vector<std::pair<int64_t, int64_t>>& u, int64_t a, int64_t b) {
  int64_t in = 0;
  auto it = std::upper_bound(u.begin(), u.end(), std::make_pair(a, INT64_MAX));
  if (it != u.begin()) --it;
  for (; it != u.end() && it->first < b; ++it)
    in += std::max<int64_t>(0, std::min(b, it->second) - std::max(a, it->first));
  return in;
}

using th::sdk::Millis;
using th::sdk::Percent;

// The tables it publishes.
th::sdk::Schema CudaSyncTable() {
  return th::sdk::Schema("cuda_sync")
      .Int("rank")
      .Text("class")
      .Text("name")
      .Int("calls", "count")
      .Int("calls_in_steps", "count")
      .Int("blocked", "ns")
      .Int("blocked_in_steps", "ns")
      .Int("max", "ns")
      .Int("device_time", "ns")
      .Int("bytes", "bytes")
      .Text("top_op");
}
th::sdk::Schema CudaSyncPerStepTable() {
  return th::sdk::Schema("cuda_sync_per_step")
      .View("per-step")
      .Int("rank")
      .Int("step")
      .Int("step_dur", "ns")
      .Int("sync_calls", "count")
      .Int("blocked", "ns")
      .Real("share", "%");
}

class CudaSync final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("cuda-sync", "1.0.0", th::sdk::kDetector,
                       "Synchronous memcpy/memset, pageable async memcpy, device/stream/event "
                       "synchronisation: host time blocked, inside ProfilerStep windows")
        .Reads({"events", "tracks", "edges", "gpu_args", "steps"})
        .Publishes(CudaSyncTable())
        .Publishes(CudaSyncPerStepTable())
        .Option("min_step_share_pct", 1.0,
                "report a rank and class whose blocked time in steps is at least this % of the "
                "step time (P2)")
        .Range(0, 100)
        .Option("p1_step_share_pct", 10.0, "... and as P1 from this % of the step time")
        .Range(0, 100);
  }

  void Run(Context& ctx) override {
    const double p2 = ctx.GetDouble("min_step_share_pct");
    const double p1 = ctx.GetDouble("p1_step_share_pct");

    struct Row {
      int64_t calls = 0, calls_in_steps = 0, blocked = 0, in_steps = 0, max = 0;
      int64_t device = 0, bytes = 0;
      std::map<std::string, int64_t> ops;  // innermost op around the call -> blocked ns
    };
    std::map<std::tuple<int64_t, int, std::string>, Row> rows;  // (rank, class, name)
    std::vector<int64_t> ps_rank, ps_step, ps_dur, ps_blocked, ps_calls;
    std::vector<double> ps_share;

    const auto steps_by_rank = StepsByRank(ctx.FindTable("steps"));
    static const std::vector<StepWindow> kNoSteps;
    for (const Trace& t : ctx.traces()) {
      const auto found = steps_by_rank.find(t.rank());
      const std::vector<StepWindow>& rank_steps =
          found == steps_by_rank.end() ? kNoSteps : found->second;
      const auto steps = StepUnion(rank_steps);
      int64_t step_time = 0;
      for (const auto& w : steps) step_time += w.second - w.first;
      std::array<int64_t, 6> class_in_steps{}, class_blocked{};
      PerStepSweep per_step(rank_steps);

      // This trace's rows by (class, name id), added to `rows` by text below.
      struct Local {
        Row row;
        std::map<uint32_t, int64_t> ops;  // innermost cpu_op's name id (kNone: none) -> blocked ns
      };
      std::map<std::pair<int, uint32_t>, Local> local;
      CallNames names(t);
      const BlockingCandidates candidates = FindBlockingCandidates(t, names);
      for (size_t k = 0; k < candidates.rows.size(); ++k) {
        const uint32_t i = candidates.rows[k];
        const uint32_t name = t.name_id(i);
        Class c = names.ClassOf(name);
        if (c == kNotSync && candidates.pageable[k] && names.IsAsyncCopy(name)) c = kPageableMemcpy;
        if (c == kNotSync) continue;
        const int64_t in = Inside(steps, t.ts(i), t.end(i));
        Local& l = local[{c, name}];
        Row& r = l.row;
        r.calls += 1;
        r.calls_in_steps += Inside(steps, t.ts(i), t.ts(i) + 1) > 0;  // starts in a step
        r.blocked += t.dur(i);
        r.in_steps += in;
        r.max = std::max(r.max, t.dur(i));
        r.device += candidates.launched_dur[k];
        r.bytes += candidates.launched_bytes[k];
        uint32_t op = kNone;
        for (uint32_t p = t.parent(i); p != kNone; p = t.parent(p)) {
          if (t.kind(p) == TH_EVENT_CPU_OP) {
            op = p;
            break;
          }
        }
        l.ops[op == kNone ? kNone : t.name_id(op)] += t.dur(i);
        class_blocked[c] += t.dur(i);
        class_in_steps[c] += in;
        per_step.Add(t.ts(i), t.end(i));
      }
      for (const auto& [key, l] : local) {
        Row& r = rows[{t.rank(), key.first, std::string(t.String(key.second))}];
        r.calls += l.row.calls;
        r.calls_in_steps += l.row.calls_in_steps;
        r.blocked += l.row.blocked;
        r.in_steps += l.row.in_steps;
        r.max = std::max(r.max, l.row.max);
        r.device += l.row.device;
        r.bytes += l.row.bytes;
        for (const auto& [op, ns] : l.ops)
          r.ops[op == kNone ? std::string() : std::string(t.String(op))] += ns;
      }
      for (size_t s = 0; s < rank_steps.size(); ++s) {
        const auto& w = per_step.windows()[s];
        const int64_t dur = w.second - w.first;
        ps_rank.push_back(t.rank());
        ps_step.push_back(rank_steps[s].number);
        ps_dur.push_back(dur);
        ps_blocked.push_back(per_step.blocked()[s]);
        ps_calls.push_back(per_step.calls()[s]);
        ps_share.push_back(dur ? 100.0 * static_cast<double>(per_step.blocked()[s]) /
                                     static_cast<double>(dur)
                               : 0.0);
      }

      // Metrics and findings per rank and class. Without steps the window is
      // the span of the rank's host events.
      const bool has_steps = !steps.empty();
      int64_t window = step_time;
      if (!has_steps) {
        const auto [host_first, host_last] = HostSpan(t);
        window = host_last > host_first ? host_last - host_first : 0;
      }
      th::sdk::Scope scope;
      scope.rank = t.rank();
      if (has_steps) {
        scope.step_first = rank_steps.front().number;
        scope.step_last = rank_steps.back().number;
      }
      int64_t all_blocked = 0, all_in_steps = 0;
      for (int c = 0; c < 6; ++c) {
        all_blocked += class_blocked[c];
        all_in_steps += class_in_steps[c];
        const int64_t lost = has_steps ? class_in_steps[c] : class_blocked[c];
        if (lost <= 0 || window <= 0) continue;
        const double share = 100.0 * static_cast<double>(lost) / static_cast<double>(window);
        if (share < p2) continue;
        std::string calls;
        int64_t count = 0;
        for (const auto& [key, r] : rows) {
          if (std::get<0>(key) != t.rank() || std::get<1>(key) != c) continue;
          calls += (calls.empty() ? "" : ", ") + std::get<2>(key) + " ×" + std::to_string(r.calls);
          count += has_steps ? r.calls_in_steps : r.calls;
        }
        ctx.Add(th::sdk::Finding(share >= p1 ? th::sdk::P1 : th::sdk::P2,
                                 std::string("host blocked by ") + kClassNames[c])
                    .What("rank " + std::to_string(t.rank()) + ": " + calls + " block the host " +
                          Millis(lost) + " " +
                          (has_steps
                               ? "inside ProfilerStep windows (" + Percent(share) + " of step time)"
                               : "(" + Percent(share) +
                                     " of the host span; no "
                                     "ProfilerStep windows in the trace)"))
                    .In(scope)
                    .Evidence("blocked", static_cast<double>(lost), "ns", th::sdk::kMeasured)
                    .Evidence(has_steps ? "step_time" : "host_span", static_cast<double>(window),
                              "ns", th::sdk::kMeasured)
                    .Evidence("share", share, "%", th::sdk::kMeasured)
                    .Evidence("calls", static_cast<double>(count), "count", th::sdk::kMeasured)
                    .Suggest(kSuggestions[c]));
      }
      ctx.Metric("sync_blocked", static_cast<double>(all_blocked), "ns", th::sdk::kMeasured, scope);
      ctx.Metric("sync_blocked_in_steps", static_cast<double>(all_in_steps), "ns",
                 th::sdk::kMeasured, scope);
      ctx.Metric("step_time", static_cast<double>(step_time), "ns", th::sdk::kMeasured, scope);
    }

    std::vector<int64_t> rank, calls, calls_in, blocked, in_steps, mx, device, nbytes;
    std::vector<std::string> cls, name, op;
    for (const auto& [key, r] : rows) {
      rank.push_back(std::get<0>(key));
      cls.push_back(kClassNames[std::get<1>(key)]);
      name.push_back(std::get<2>(key));
      calls.push_back(r.calls);
      calls_in.push_back(r.calls_in_steps);
      blocked.push_back(r.blocked);
      in_steps.push_back(r.in_steps);
      mx.push_back(r.max);
      device.push_back(r.device);
      nbytes.push_back(r.bytes);
      auto top = std::max_element(r.ops.begin(), r.ops.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
      op.push_back(top != r.ops.end() ? top->first : "");
    }
    ctx.Publish(th::sdk::Table("cuda_sync")
                    .Int("rank", rank)
                    .Text("class", cls)
                    .Text("name", name)
                    .Int("calls", calls, "count")
                    .Int("calls_in_steps", calls_in, "count")
                    .Int("blocked", blocked, "ns")
                    .Int("blocked_in_steps", in_steps, "ns")
                    .Int("max", mx, "ns")
                    .Int("device_time", device, "ns")
                    .Int("bytes", nbytes, "bytes")
                    .Text("top_op", op));
    ctx.Publish(th::sdk::Table("cuda_sync_per_step")
                    .Int("rank", ps_rank)
                    .Int("step", ps_step)
                    .Int("step_dur", ps_dur, "ns")
                    .Int("sync_calls", ps_calls, "count")
                    .Int("blocked", ps_blocked, "ns")
                    .Real("share", ps_share, "%"));
  }
};

}  // namespace

TH_PLUGIN(CudaSync)
