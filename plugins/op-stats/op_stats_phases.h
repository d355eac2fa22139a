// The phases of the op-stats analyzer, each a function of plain inputs (no
// plugin context, no trace), so that each is tested on hand-built inputs:
//
//   CoveredByChildren   host self time: what an op's direct children cover
//   OpsAbove            the nearest op around an event
//   AttributeLaunches   device time of launched activity, per op
//   OpRows              rows of ops keyed by (kind, name[, call site])
//   SummarizeOps        per key: totals, mean, main call site; by device time
//   SortHloStats        hlo_op_stats rows by device time
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace th::op_stats {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

// The event tree of one trace: per event its parent (kNone for a root), its
// start and duration, and whether it is a framework op.
struct EventTree {
  std::vector<uint32_t> parent;
  std::vector<int64_t> ts, dur;
  std::vector<uint8_t> op;  // 1: a framework op

  bool is_op(uint32_t i) const { return op[i] != 0; }
  int64_t end(uint32_t i) const { return ts[i] + dur[i]; }
};

// Per op: the part of its duration covered by the events nested directly in
// it (each child clipped to the op; children of zero duration left out); 0
// for other events. An op's self time is its duration minus this.
std::vector<int64_t> CoveredByChildren(const EventTree& t);

// The nearest op strictly above an event (kNone when none), memoised along
// parent chains.
class OpsAbove {
 public:
  explicit OpsAbove(const EventTree& t);
  uint32_t operator()(uint32_t event);

 private:
  static constexpr uint32_t kUnknown = 0xFFFFFFFEu;
  const EventTree& t_;
  std::vector<uint32_t> above_, path_;
};

// A launch edge: the runtime call and the duration of the activity it launched.
struct Launch {
  uint32_t src;
  int64_t dur;
};

// Each launch gives its activity's duration to the innermost op around the
// call (self; the call itself when it is an op) and to every op enclosing
// that one (total, launched count). Launches outside every op count apart.
struct DeviceTime {
  std::vector<int64_t> self, total, launched;  // per event
  int64_t in_ops = 0, outside_ops = 0, launched_total = 0;
};

DeviceTime AttributeLaunches(const EventTree& t, const std::vector<Launch>& launches);

struct KeyInfo {
  std::string kind, name, stack;
};

// One row per op event (or per kernel for XLA ops), aggregated into keys:
// (kind, name), and the call site too when by_stack.
class OpRows {
 public:
  explicit OpRows(bool by_stack) : by_stack_(by_stack) {}
  uint32_t Key(const std::string& kind, std::string_view name, const std::string& stack);
  void Add(uint32_t key, int64_t host_total, int64_t host_self, int64_t device_total,
           int64_t device_self, int64_t kernels);

  std::vector<KeyInfo> keys;
  std::vector<uint32_t> key;                                                       // per row
  std::vector<int64_t> host_total, host_self, device_total, device_self, kernels;  // per row
  // Time per (key, call site), to name each key's main call site.
  std::map<std::pair<uint32_t, std::string>, int64_t> site_time;

 private:
  bool by_stack_;
  std::unordered_map<std::string, uint32_t> key_of_;
};

// Per key: the rows reduced (calls = row count, the rest summed).
struct KeyTotals {
  std::vector<int64_t> calls, host_total, host_self, device_total, device_self, kernels;
};

struct OpStatRow {
  std::string kind, name;
  int64_t calls, host_total, host_self;  // host_* -1 for XLA ops
  double host_mean;                      // -1 for XLA ops and keys without calls
  int64_t device_total, device_self, launched;
  std::string call_site;  // by_stack: the key's; else the one with the most time
  int64_t call_sites;
};

// The op_stats rows: by device total, then host total (both descending),
// then name and call site.
std::vector<OpStatRow> SummarizeOps(const OpRows& rows, const KeyTotals& totals, bool by_stack);

// GPU activity of one HLO instruction, over all ranks.
struct HloStat {
  std::string module, name, opcode, op_name, shape, source;
  int64_t kernels = 0, device = 0, exact = 0, inferred = 0;
};

// By device time (descending), then module and instruction name.
std::vector<HloStat> SortHloStats(std::map<std::pair<std::string, std::string>, HloStat> hlo);

}  // namespace th::op_stats
