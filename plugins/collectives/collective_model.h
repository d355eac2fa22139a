// Collectives of a trace set as the timeline analyzers see them, header-only
// so that `collectives`, `stragglers` and `overlap` each stand alone as a
// library (they include this file; nothing of the host):
//
// - which events are collectives: communication kernels on GPU streams (the
//   host's kernel class COMM: NCCL/RCCL, DeepEP, NVSHMEM, MSCCL++ ... by the
//   kernel class table, or the kernel carries Kineto's collective metadata)
//   and gloo's CPU collectives (`gloo:*` annotations on the worker thread; the
//   `c10d::` op on the caller thread only enqueues them);
// - what they are: collective, NCCL algorithm/protocol from the kernel name,
//   dtype, process group, message size (nelems x dtype size), group size;
// - which ProfilerStep they belong to (the step holding their launch);
// - which instances on different ranks are the same collective (MatchAcrossRanks).
#pragma once

#include <tracehound/sdk.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace th::collectives {

inline constexpr int64_t kNoStep = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// The library of a communication kernel: nccl or rccl by name, else the
// source of the rule that made it communication up to its first " (" or ":"
// ("DeepEP", "NVSHMEM", "MSCCL++", "pipeline my.yaml").
inline std::string CommBackend(const th::sdk::Trace& t, uint64_t event) {
  const std::string lower = Lower(t.name(event));
  if (Contains(lower, "rccl")) return "rccl";
  if (Contains(lower, "nccl")) return "nccl";
  const th_class_rule* r = t.kernel_class_rule(event);
  if (!r || !r->source) return "nccl";
  std::string_view s = r->source;
  s = s.substr(0, s.find(" ("));
  return std::string(s.substr(0, s.find(':')));
}

// "all_reduce", "AllReduce", "_allgather_base", "reduce_scatter_tensor" ->
// allreduce, allgather, reducescatter, ...; unknown names lower-cased.
inline std::string NormalizeCollective(std::string_view raw) {
  std::string s;
  for (char c : Lower(raw))
    if (c != '_' && c != ' ') s += c;
  static const char* const kKnown[] = {"allreduce", "allgather", "reducescatter", "alltoall",
                                       "broadcast", "sendrecv",  "barrier",       "gather",
                                       "scatter",   "reduce",    "send",          "recv"};
  for (const char* k : kKnown)
    if (Contains(s, k)) return k;
  return s;
}

// What an NCCL/RCCL kernel name says: "ncclKernel_AllReduce_RING_LL_Sum_float(...)"
// -> collective allreduce, algorithm RING_LL, dtype float. Newer NCCL names
// ("ncclDevKernel_Generic_1") carry no algorithm: it stays empty.
struct NcclName {
  std::string collective, algorithm, dtype;
};

inline NcclName ParseNcclKernelName(std::string_view name) {
  NcclName out;
  size_t k = name.find("Kernel_");
  if (k == std::string_view::npos) return out;
  std::string_view rest = name.substr(k + 7);
  rest = rest.substr(0, rest.find('('));
  std::vector<std::string_view> parts;
  while (!rest.empty()) {
    size_t u = rest.find('_');
    parts.push_back(rest.substr(0, u));
    if (u == std::string_view::npos) break;
    rest = rest.substr(u + 1);
  }
  if (parts.empty()) return out;
  if (parts[0] != "Generic") out.collective = NormalizeCollective(parts[0]);
  for (size_t p = 1; p < parts.size(); ++p) {
    if (parts[p] == "LL" || parts[p] == "LL128" || parts[p] == "SIMPLE") {
      for (size_t q = 1; q <= p; ++q) out.algorithm += (q > 1 ? "_" : "") + std::string(parts[q]);
      // <op>_<algo...>_<proto>_<redop>_<dtype>; dtypes may hold '_' (int8_t, __nv_bfloat16).
      if (p + 2 < parts.size()) {
        std::string dtype;
        for (size_t q = p + 2; q < parts.size(); ++q)
          dtype += (q > p + 2 ? "_" : "") + std::string(parts[q]);
        out.dtype = dtype;
      }
      break;
    }
  }
  return out;
}

// Bytes per element of a Kineto dtype ("Float", "BFloat16": c10 ScalarType
// names) or an NCCL kernel dtype ("float", "int8_t", "__nv_bfloat16"); 0 when
// unknown.
inline int DtypeBytes(std::string_view dtype) {
  std::string d = Lower(dtype);
  while (!d.empty() && d[0] == '_') d.erase(0, 1);
  static const std::pair<const char*, int> kSizes[] = {{"float", 4},
                                                       {"float32", 4},
                                                       {"double", 8},
                                                       {"float64", 8},
                                                       {"half", 2},
                                                       {"float16", 2},
                                                       {"bfloat16", 2},
                                                       {"nv_bfloat16", 2},
                                                       {"byte", 1},
                                                       {"char", 1},
                                                       {"bool", 1},
                                                       {"int8_t", 1},
                                                       {"uint8_t", 1},
                                                       {"int8", 1},
                                                       {"uint8", 1},
                                                       {"short", 2},
                                                       {"int16", 2},
                                                       {"uint16", 2},
                                                       {"int", 4},
                                                       {"int32", 4},
                                                       {"int32_t", 4},
                                                       {"uint32", 4},
                                                       {"uint32_t", 4},
                                                       {"long", 8},
                                                       {"int64", 8},
                                                       {"int64_t", 8},
                                                       {"uint64", 8},
                                                       {"uint64_t", 8},
                                                       {"complexhalf", 4},
                                                       {"complexfloat", 8},
                                                       {"complexdouble", 16},
                                                       {"float8_e4m3fn", 1},
                                                       {"float8_e5m2", 1},
                                                       {"float8_e4m3fnuz", 1},
                                                       {"float8_e5m2fnuz", 1},
                                                       {"nv_fp8_e4m3", 1},
                                                       {"nv_fp8_e5m2", 1}};
  for (const auto& [name, bytes] : kSizes)
    if (d == name) return bytes;
  return 0;
}

// NCCL-tests' bus bandwidth factor for `collective` over `n` ranks: busbw =
// algbw x factor (allreduce 2(n-1)/n; allgather, reducescatter, alltoall
// (n-1)/n; broadcast, reduce, send/recv 1). 0 when unknown.
inline double BusFactor(std::string_view collective, int64_t n) {
  if (n < 1) return 0;
  const double r = static_cast<double>(n);
  if (collective == "allreduce") return 2.0 * (r - 1) / r;
  if (collective == "allgather" || collective == "reducescatter" || collective == "alltoall")
    return (r - 1) / r;
  if (collective == "broadcast" || collective == "reduce" || collective == "sendrecv" ||
      collective == "send" || collective == "recv")
    return 1.0;
  return 0;
}

inline constexpr size_t kNoSlot = SIZE_MAX;

// In `steps` (by start), the last step starting at or before `ts`, kNoSlot
// when none: `hint` or the one after it when either is that step, else by
// binary search.
inline size_t LastStepStartingBy(const std::vector<th_step>& steps, int64_t ts, size_t hint) {
  const size_t n = steps.size();
  for (size_t h = hint; h < n && h <= hint + 1; ++h)
    if (steps[h].ts <= ts && (h + 1 == n || steps[h + 1].ts > ts)) return h;
  auto it = std::upper_bound(steps.begin(), steps.end(), ts,
                             [](int64_t v, const th_step& s) { return v < s.ts; });
  if (it == steps.begin()) return kNoSlot;
  return static_cast<size_t>(it - steps.begin()) - 1;
}

// Which ProfilerStep an event belongs to: a GPU activity to the step holding
// its launch (the runtime call, by the host's event_launches table), else the
// step holding its own start; a host event to the step holding its start.
// Reads profiler_steps, events and event_launches.
class StepIndex {
 public:
  explicit StepIndex(const th::sdk::Trace& t) : t_(t) {
    for (uint64_t s = 0; s < t.step_count(); ++s) steps_.push_back(t.step(s));
    std::sort(steps_.begin(), steps_.end(),
              [](const th_step& a, const th_step& b) { return a.ts < b.ts; });
  }
  // Step number of the step whose [ts, ts + dur) holds `ts`, else kNoStep.
  int64_t StepAt(int64_t ts) const {
    size_t hint = 0;
    return StepAt(ts, hint);
  }
  // The same, trying the slot of the previous query first (`hint`, kept by
  // the caller): constant time for queries in time order.
  int64_t StepAt(int64_t ts, size_t& hint) const {
    const size_t slot = LastStepStartingBy(steps_, ts, hint);
    if (slot == kNoSlot) return kNoStep;
    hint = slot;
    const th_step& s = steps_[slot];
    return ts < s.ts + s.dur ? s.number : kNoStep;
  }
  // Start of the runtime call that launched `event`, kNoTime when none.
  int64_t LaunchTs(uint64_t event) const {
    const uint32_t l = t_.launch_of(event);
    return l == th::sdk::kNoRow ? kNoTime : t_.ts(l);
  }
  int64_t StepOf(uint64_t event) const {
    size_t hint = 0;
    return StepOf(event, hint);
  }
  int64_t StepOf(uint64_t event, size_t& hint) const {
    const uint32_t l = t_.launch_of(event);
    return StepAt(t_.ts(l == th::sdk::kNoRow ? event : l), hint);
  }
  // The same for events visited in increasing order, `cursor` kept by the
  // caller as for Trace::launch_of (0 before the first call).
  int64_t LaunchTs(uint64_t event, uint64_t& cursor) const {
    const uint32_t l = t_.launch_of(event, cursor);
    return l == th::sdk::kNoRow ? kNoTime : t_.ts(l);
  }
  int64_t StepOf(uint64_t event, size_t& hint, uint64_t& cursor) const {
    const uint32_t l = t_.launch_of(event, cursor);
    return StepAt(t_.ts(l == th::sdk::kNoRow ? event : l), hint);
  }
  const std::vector<th_step>& steps() const { return steps_; }
  // Distinct step numbers, ascending.
  std::vector<int64_t> Numbers() const {
    std::vector<int64_t> n;
    for (const th_step& s : steps_) n.push_back(s.number);
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
    return n;
  }

 private:
  const th::sdk::Trace& t_;
  std::vector<th_step> steps_;
};

// One collective as one rank ran it.
struct Instance {
  uint64_t event = 0;
  int64_t ts = 0, end = 0;
  bool gpu = true;
  std::string backend;     // nccl, rccl, gloo, or the kernel class rule's source
  int64_t lane = -1;       // GPU stream id, or CPU thread id
  std::string name;        // kernel / annotation name as written
  std::string collective;  // allreduce, ... ("" when the name does not say)
  std::string algorithm;   // NCCL algorithm_protocol from the kernel name, "" unknown
  std::string dtype;       // "" unknown
  std::string group;       // process group name, "" unknown
  int64_t in_nelems = -1, out_nelems = -1;
  int64_t group_size = -1;
  int64_t step = kNoStep;

  int64_t dur() const { return end - ts; }
  // NCCL-tests message size: max(in, out) elements x dtype size; -1 unknown.
  int64_t bytes() const {
    int b = DtypeBytes(dtype);
    int64_t n = std::max(in_nelems, out_nelems);
    return b > 0 && n >= 0 ? n * b : -1;
  }
};

// What a communication kernel's name says, worked out once per name.
struct CommKernelName {
  std::string name, backend;
  NcclName parsed;
};

// A byte per name id, worked out by `decide(event)` at the first event
// bearing the name (an event's name is read once per distinct name, not per
// event). `decide` never returns 0, which marks an unseen name.
class ByName {
 public:
  template <typename Decide>
  uint8_t At(uint32_t name, uint64_t event, Decide&& decide) {
    if (name >= bytes_.size()) bytes_.resize(std::max<size_t>(name + 1, 2 * bytes_.size()), 0);
    if (bytes_[name] == 0) bytes_[name] = decide(event);
    return bytes_[name];
  }

 private:
  std::vector<uint8_t> bytes_;
};

// What a name can make an event: a communication kernel (by the host's
// kernel class table, the class every plugin uses, docs/kernel-classes.md:
// a kernel's class is its name's rule, COMM here) and/or a gloo CPU
// collective ("gloo:*"). Decided once per name (ByName).
enum NameRole : uint8_t { kRoleNone = 1, kRoleComm = 2, kRoleGloo = 4 };

inline uint8_t RoleOfName(const th::sdk::Trace& t, uint64_t event) {
  uint8_t role = kRoleNone;
  const th_class_rule* r = t.kernel_class_rule(event);
  if (r && static_cast<th::sdk::KernelClass>(r->klass) == th::sdk::KernelClass::kComm)
    role |= kRoleComm;
  if (t.name(event).substr(0, 5) == "gloo:") role |= kRoleGloo;
  return role;
}

// Every collective of one trace, by start time (ties in event order). Reads
// events, collective_args, name_classes, class_rules and gpu_activity.
inline std::vector<Instance> ExtractInstances(const th::sdk::Trace& t, const StepIndex& steps) {
  // collective_args rows by event (the last row of an event counts), read
  // along with the events.
  std::vector<std::pair<uint32_t, uint32_t>> meta;  // (event, row)
  for (uint64_t r = 0; r < t.collective_count(); ++r)
    meta.push_back({t.collective_event(r), static_cast<uint32_t>(r)});
  std::stable_sort(meta.begin(), meta.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t next_meta = 0;
  std::unordered_map<uint32_t, CommKernelName> kernel_names;  // by name id
  // Most events bear a name that can make them no collective and are
  // passed over on one byte (a kernel with collective metadata still counts
  // whatever its name).
  ByName roles;
  // First the events that are collectives (with their collective_args row
  // and step, found in event order for the launch cursor), then their
  // instances built in start order into a vector of the exact size.
  struct Found {
    uint32_t event, row;  // row: collective_args row, th::sdk::kNoRow when none
    int64_t step;
  };
  std::vector<Found> found;
  uint64_t launch_cursor = 0;
  size_t step_hint = 0;
  auto visit = [&](uint64_t i) {  // events in increasing row order
    const uint8_t role =
        roles.At(t.name_id(i), i, [&](uint64_t event) { return RoleOfName(t, event); });
    while (next_meta < meta.size() && meta[next_meta].first < i) ++next_meta;
    const bool meta_here = next_meta < meta.size() && meta[next_meta].first == i;
    if (role == kRoleNone && !meta_here) return;
    const uint32_t kind = t.kind(i);
    uint32_t row = th::sdk::kNoRow;
    if (kind == TH_EVENT_KERNEL) {
      while (next_meta < meta.size() && meta[next_meta].first == i) row = meta[next_meta++].second;
      if (row == th::sdk::kNoRow && !(role & kRoleComm)) return;
      found.push_back({static_cast<uint32_t>(i), row, steps.StepOf(i, step_hint, launch_cursor)});
    } else if (kind == TH_EVENT_USER_ANNOTATION || kind == TH_EVENT_CPU_OP) {
      if (!(role & kRoleGloo)) return;
      found.push_back({static_cast<uint32_t>(i), row, steps.StepAt(t.ts(i), step_hint)});
    }
  };
  // Without a "gloo:" name among the trace's strings only kernels can be
  // collectives: the GPU events are visited, not every event.
  bool gloo = false;
  const uint64_t strings = t.string_count();
  for (uint32_t id = 0; id < strings && !gloo; ++id) gloo = t.String(id).starts_with("gloo:");
  if (gloo) {
    for (uint64_t i = 0; i < t.size(); ++i) visit(i);
  } else {
    for (const uint32_t i : t.gpu_activity()) visit(i);
  }
  // By start, ties in event order (the order they were found in).
  std::sort(found.begin(), found.end(), [&](const Found& a, const Found& b) {
    const int64_t ta = t.ts(a.event), tb = t.ts(b.event);
    return ta != tb ? ta < tb : a.event < b.event;
  });
  std::vector<Instance> out(found.size());
  for (size_t k = 0; k < found.size(); ++k) {
    const uint32_t i = found[k].event;
    const uint32_t r = found[k].row;
    Instance& x = out[k];
    if (t.kind(i) == TH_EVENT_KERNEL) {
      auto [known, fresh] = kernel_names.try_emplace(t.name_id(i));
      if (fresh) {
        known->second.name = std::string(t.name(i));
        known->second.backend = CommBackend(t, i);
        known->second.parsed = ParseNcclKernelName(known->second.name);
      }
      const CommKernelName& n = known->second;
      x.name = n.name;
      x.backend = n.backend;
      x.lane = t.track_of(i).stream;
      x.collective = n.parsed.collective;
      x.algorithm = n.parsed.algorithm;
      x.dtype = n.parsed.dtype;
      if (r != th::sdk::kNoRow) {
        if (!t.collective_name(r).empty()) x.collective = NormalizeCollective(t.collective_name(r));
        if (!t.collective_dtype(r).empty()) x.dtype = std::string(t.collective_dtype(r));
        x.group = std::string(t.collective_group(r));
        x.in_nelems = t.collective_in_nelems(r);
        x.out_nelems = t.collective_out_nelems(r);
        x.group_size = t.collective_group_size(r) > 0 ? t.collective_group_size(r) : -1;
      }
    } else {
      x.gpu = false;
      x.name = std::string(t.name(i));
      x.backend = "gloo";
      x.lane = t.track_of(i).tid;
      x.collective = NormalizeCollective(x.name.substr(5));
    }
    x.event = i;
    x.ts = t.ts(i);
    x.end = t.end(i);
    x.step = found[k].step;
  }
  return out;
}

// One collective across ranks: the instance of each rank that ran it.
struct Match {
  using Members = std::vector<std::pair<size_t, size_t>>;
  Match(std::shared_ptr<const std::string> where, size_t k, Members of, bool mismatch = false)
      : position(std::move(where)), ordinal(k), members(std::move(of)), name_mismatch(mismatch) {}
  // The first collective issued at `where` (a position of its own).
  Match(std::string where, Members of, bool mismatch = false)
      : Match(std::make_shared<const std::string>(std::move(where)), 0, std::move(of), mismatch) {}

  // Where it was issued, shared by the matches of that place: "pg 0",
  // "stream#1 ncclKernel_...", "thread#0 gloo:all_reduce".
  std::shared_ptr<const std::string> position;
  size_t ordinal = 0;          // its place among the position's collectives, from 0
  Members members;             // (trace index, instance index), by trace
  bool name_mismatch = false;  // ranks disagree on the collective at this position
  // "pg 0 #3", "stream#1 ncclKernel_... #0", "thread#0 gloo:all_reduce #2".
  std::string key() const { return *position + " #" + std::to_string(ordinal); }
};

// Instances of different ranks are the same collective when they hold the same
// position k: within their process group when the kernel names one (every
// rank issues a group's collectives in the same order), else within their
// lane (GPU streams by stream id, CPU threads by first use) and name.
inline std::vector<Match> MatchAcrossRanks(const std::vector<std::vector<Instance>>& per_trace) {
  // Positions by id; per position, the match of its k-th instance (every
  // rank counts its own from 0, so a rank's k-th is either known or next).
  std::unordered_map<std::string, uint32_t> position_ids;
  std::vector<std::shared_ptr<const std::string>> positions;
  std::vector<std::vector<size_t>> match_of_ordinal;
  std::vector<Match> matches;
  std::vector<int64_t> order_ts;  // first member's start, to order matches
  // A rank's position ids by what names them (group, or lane and name), so
  // that a position's text is written once per rank, not per instance.
  struct Place {
    int where;  // 0 group, 1 GPU lane, 2 CPU lane
    int64_t lane;
    std::string_view text;
    bool operator==(const Place&) const = default;
  };
  struct PlaceHash {
    size_t operator()(const Place& p) const {
      return std::hash<std::string_view>()(p.text) ^
             (std::hash<int64_t>()(p.lane) * 31 + static_cast<size_t>(p.where));
    }
  };
  for (size_t t = 0; t < per_trace.size(); ++t) {
    const auto& inst = per_trace[t];
    // Lane ordinals of instances without a process group.
    std::vector<int64_t> gpu_lanes;
    std::vector<std::pair<int64_t, int64_t>> cpu_first;  // (first ts, tid)
    for (const Instance& x : inst) {
      if (!x.group.empty()) continue;
      if (x.gpu) {
        gpu_lanes.push_back(x.lane);
      } else if (std::none_of(cpu_first.begin(), cpu_first.end(),
                              [&](const auto& p) { return p.second == x.lane; })) {
        cpu_first.push_back({x.ts, x.lane});
      }
    }
    std::sort(gpu_lanes.begin(), gpu_lanes.end());
    gpu_lanes.erase(std::unique(gpu_lanes.begin(), gpu_lanes.end()), gpu_lanes.end());
    std::sort(cpu_first.begin(), cpu_first.end());
    std::unordered_map<Place, uint32_t, PlaceHash> place_ids;
    std::vector<size_t> counts;  // by position id: this rank's instances so far
    for (size_t i = 0; i < inst.size(); ++i) {
      const Instance& x = inst[i];
      const Place place = !x.group.empty() ? Place{0, 0, x.group}
                          : x.gpu          ? Place{1, x.lane, x.name}
                                           : Place{2, x.lane, x.name};
      auto [known, fresh_place] = place_ids.try_emplace(place, 0);
      if (fresh_place) {
        std::string position;
        if (place.where == 0) {
          position = "pg " + x.group;
        } else if (place.where == 1) {
          auto l = std::lower_bound(gpu_lanes.begin(), gpu_lanes.end(), x.lane) - gpu_lanes.begin();
          position = "stream#" + std::to_string(l) + " " + x.name;
        } else {
          size_t l = 0;
          while (cpu_first[l].second != x.lane) ++l;
          position = "thread#" + std::to_string(l) + " " + x.name;
        }
        auto [id, fresh_position] =
            position_ids.try_emplace(position, static_cast<uint32_t>(positions.size()));
        if (fresh_position) {
          positions.push_back(std::make_shared<const std::string>(std::move(position)));
          match_of_ordinal.emplace_back();
        }
        known->second = id->second;
      }
      const uint32_t id = known->second;
      if (id >= counts.size()) counts.resize(id + 1, 0);
      const size_t k = counts[id]++;
      std::vector<size_t>& slots = match_of_ordinal[id];
      if (k == slots.size()) {
        slots.push_back(matches.size());
        matches.emplace_back(positions[id], k, Match::Members{});
        order_ts.push_back(x.ts);
      }
      Match& m = matches[slots[k]];
      if (!m.members.empty()) {
        const Instance& first = per_trace[m.members[0].first][m.members[0].second];
        if (first.collective != x.collective) m.name_mismatch = true;
      }
      m.members.push_back({t, i});
    }
  }
  // Order by the first rank's start (matches first seen on a later rank after).
  std::vector<size_t> order(matches.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& ma = matches[a].members[0];
    const auto& mb = matches[b].members[0];
    if (ma.first != mb.first) return ma.first < mb.first;
    return order_ts[a] < order_ts[b];
  });
  std::vector<Match> sorted;
  sorted.reserve(matches.size());
  for (size_t i : order) sorted.push_back(std::move(matches[i]));
  return sorted;
}

// Median of `v` (copied); NaN when empty. Mean of the two middle values for
// an even count.
inline double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  double hi = v[h];
  if (v.size() % 2) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h));
  return (lo + hi) / 2;
}

}  // namespace th::collectives
