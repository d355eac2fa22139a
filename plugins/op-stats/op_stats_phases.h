// The phases of the op-stats analyzer, each a function of plain inputs (no
// plugin context, no trace), so that each is tested on hand-built inputs:
//
//   OpsAbove            the nearest op around an event
//   KindAtOrAbove       the nearest event of a kind (a Python frame) at or above one
//   OpRows              op keys by (kind, name[, call site]), time per call site
//   AddHostTime         per key: calls, host total and self time
//   AddDeviceTime       per key: device time of launched activity
//   SummarizeOps        per key: totals, mean, main call site; by device time
//   SortHloStats        hlo_op_stats rows by device time
#pragma once

#include <tracehound/zeroed_array.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace th::op_stats {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

// The key of the op each event is (kNone for every other event) when it
// follows from the event's name and kind alone (ops not told apart by call
// site): by_name[name id * 2 + (kind == op_kind)] for events of kind op_kind
// or other_op_kind, kNone past its end. Reads the name and kind columns
// instead of a key per event (4 bytes per event never written).
struct KeyByName {
  std::span<const uint32_t> name;
  std::span<const uint8_t> kind;
  std::span<const uint32_t> by_name;
  uint8_t op_kind = 0, other_op_kind = 0;

  uint32_t operator()(uint32_t i) const {
    const uint8_t k = kind[i];
    if (k != op_kind && k != other_op_kind) return kNone;
    const size_t at = size_t{name[i]} * 2 + (k == op_kind);
    return at < by_name.size() ? by_name[at] : kNone;
  }
};

// The event tree of one trace, as views of its columns: per event its parent
// (kNone for a root), its start and duration, and the key of the framework op
// it is (kNone for every other event): `key` per event, or when it is empty
// `by_name`.
struct EventTree {
  std::span<const uint32_t> parent;
  std::span<const int64_t> ts, dur;
  std::span<const uint32_t> key;
  KeyByName by_name = {};

  uint32_t key_of(uint32_t i) const { return key.empty() ? by_name(i) : key[i]; }
  bool is_op(uint32_t i) const { return key_of(i) != kNone; }
  int64_t end(uint32_t i) const { return ts[i] + dur[i]; }
};

// The nearest op strictly above an event (kNone when none), memoised along
// the parent chains that pass through other events (an answer one step up is
// not written down: the memo's pages stay untouched where ops nest directly).
class OpsAbove {
 public:
  explicit OpsAbove(const EventTree& t);
  uint32_t operator()(uint32_t event);

 private:
  const EventTree& t_;
  th::sdk::ZeroedArray<uint32_t> above_;  // per event its answer + 2 (kNone: 1); 0 unknown
  std::vector<uint32_t> path_;
};

// The nearest event of kind `kind` at or above an event (itself, its parent,
// ...), kNone when none, memoised along parent chains: per event `parent`
// (kNone for a root) and `kinds`.
class KindAtOrAbove {
 public:
  KindAtOrAbove(std::span<const uint32_t> parent, std::span<const uint8_t> kinds, uint8_t kind);
  uint32_t operator()(uint32_t event);
  bool any() const { return any_; }  // some event is of the kind

 private:
  static constexpr uint32_t kUnknown = 0xFFFFFFFEu;
  std::span<const uint32_t> parent_;
  std::span<const uint8_t> kinds_;
  uint8_t kind_;
  bool any_;  // some event is of `kind`; else found_ stays empty
  std::vector<uint32_t> found_, path_;
};

// A launch edge: the runtime call and the duration of the activity it launched.
struct Launch {
  uint32_t src;
  int64_t dur;
};

// Per key, summed over its ops (calls = op count). XLA rows: host_* -1 per call.
struct KeyTotals {
  std::vector<int64_t> calls, host_total, host_self, device_total, device_self, kernels;

  // Room for keys below `keys` (new ones start at 0).
  void Resize(size_t keys);
  void Add(uint32_t key, int64_t host_total, int64_t host_self, int64_t device_total,
           int64_t device_self, int64_t kernels);
};

// Each op: one call, its duration into host_total, and into host_self less
// the part covered by the events nested directly in it (each child clipped
// to the op; children of zero duration left out). `totals` holds every key.
void AddHostTime(const EventTree& t, KeyTotals& totals);

// Each launch gives its activity's duration to the innermost op around the
// call (device_self; the call itself when it is an op) and to every op
// enclosing that one (device_total, kernels: the launched count). Launches
// outside every op count apart. `totals` holds every key.
struct DeviceTime {
  int64_t in_ops = 0, outside_ops = 0, launched_total = 0;
};

DeviceTime AddDeviceTime(const EventTree& t, const std::vector<Launch>& launches,
                         KeyTotals& totals);

struct KeyInfo {
  std::string kind, name, stack;
};

// Op keys: (kind, name), and the call site too when by_stack, numbered in
// order of first use.
class OpRows {
 public:
  explicit OpRows(bool by_stack) : by_stack_(by_stack) {}
  uint32_t Key(const std::string& kind, std::string_view name, const std::string& stack);
  bool by_stack() const { return by_stack_; }

  std::vector<KeyInfo> keys;
  // Time per (key, call site), to name each key's main call site.
  std::map<std::pair<uint32_t, std::string>, int64_t> site_time;

 private:
  bool by_stack_;
  std::unordered_map<std::string, uint32_t> key_of_;
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
