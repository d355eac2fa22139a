#include "core/import/hlo/kernel_attribution.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/graph/hlo_index.h"

namespace th::hlo {
namespace {

constexpr size_t kMaxScheduleLength = 1u << 22;  // per module, after loop expansion

bool LaunchesNothing(std::string_view opcode) {
  static const std::string_view kNone[] = {
      "parameter",      "constant",    "bitcast", "get-tuple-element", "tuple", "after-all",
      "add-dependency", "opt-barrier", "domain",  "conditional"};
  for (std::string_view n : kNone)
    if (opcode == n) return true;
  return opcode.size() > 5 && opcode.substr(opcode.size() - 5) == "-done";
}

// `"known_trip_count":{"n":"12"}` in a while's backend_config; -1 if absent.
int64_t KnownTripCount(std::string_view config) {
  size_t k = config.find("\"known_trip_count\"");
  if (k == std::string_view::npos) return -1;
  size_t n = config.find("\"n\"", k);
  if (n == std::string_view::npos) return -1;
  size_t digits = config.find_first_of("0123456789", n + 3);
  if (digits == std::string_view::npos || digits > n + 8) return -1;
  int64_t v = -1;
  std::from_chars(config.data() + digits, config.data() + config.size(), v);
  return v;
}

// The kernel-launching instructions of one module in execution order.
class ScheduleBuilder {
 public:
  ScheduleBuilder(const HloIndex& index, uint32_t module) : index_(index), module_(module) {}

  std::vector<uint32_t> Build(int64_t* unknown_trip_counts, bool* truncated) {
    const HloModule& m = index_.modules()[module_];
    const HloComputation* entry = m.EntryComputation();
    if (entry) Expand(*entry, 0);
    *unknown_trip_counts += unknown_;
    *truncated = truncated_;
    return std::move(out_);
  }

 private:
  void ExpandById(int64_t computation_id, int depth) {
    int32_t c = index_.FindComputation(module_, computation_id);
    if (c >= 0) Expand(index_.modules()[module_].computations[static_cast<size_t>(c)], depth);
  }

  void Expand(const HloComputation& comp, int depth) {
    if (depth > 16 || truncated_) return;
    const HloModule& m = index_.modules()[module_];
    std::vector<uint32_t> order;
    auto scheduled = comp.has_id ? m.schedule.find(comp.id) : m.schedule.end();
    if (scheduled != m.schedule.end()) {
      for (int64_t id : scheduled->second) {
        uint32_t f = index_.FindById(module_, id);
        if (f != kNoInstruction) order.push_back(f);
      }
    } else {
      for (const HloInstruction& ins : comp.instructions) {
        uint32_t f = index_.FindByName(module_, ins.name);
        if (f != kNoInstruction) order.push_back(f);
      }
    }
    for (uint32_t f : order) {
      const HloInstruction& ins = index_.instruction(f);
      if (ins.opcode == "while" && ins.called_computation_ids.size() >= 2) {
        // called computations: body, then condition.
        int64_t trips = KnownTripCount(ins.backend_config);
        if (trips < 0) {
          ++unknown_;
          trips = 1;
        }
        for (int64_t t = 0; t < trips && !truncated_; ++t) {
          ExpandById(ins.called_computation_ids[1], depth + 1);
          ExpandById(ins.called_computation_ids[0], depth + 1);
        }
        ExpandById(ins.called_computation_ids[1], depth + 1);
      } else if ((ins.opcode == "call" || ins.opcode == "async-start") &&
                 !ins.called_computation_ids.empty()) {
        for (int64_t c : ins.called_computation_ids) ExpandById(c, depth + 1);
      } else if (!LaunchesNothing(ins.opcode)) {
        if (out_.size() >= kMaxScheduleLength) {
          truncated_ = true;
          return;
        }
        out_.push_back(f);
      }
    }
  }

  const HloIndex& index_;
  uint32_t module_;
  std::vector<uint32_t> out_;
  int64_t unknown_ = 0;
  bool truncated_ = false;
};

std::string NormalizeKernelName(std::string_view s) {
  constexpr std::string_view kKd = ".kd";
  if (s.size() > kKd.size() && s.substr(s.size() - kKd.size()) == kKd) s.remove_suffix(kKd.size());
  std::string out(s);
  for (char& c : out)
    if (c == '.' || c == '-') c = '_';
  return out;
}

struct Row {
  uint32_t gpu_row;
  int64_t ts;
};

class Attributor {
 public:
  explicit Attributor(Trace* trace)
      : trace_(trace), g_(trace->graph), index_(*trace->xla.index), xla_(trace->xla) {}

  void Run() {
    const size_t n = g_.gpu_args.size();
    xla_.kernel_instruction.assign(n, kNoInstruction);
    xla_.kernel_match.assign(n, HloMatch::kNone);
    module_.assign(n, -1);
    launch_of_.clear();
    for (size_t k = 0; k < g_.edges.size(); ++k) {
      if (g_.edges.kind[k] == EdgeKind::kLaunch) launch_of_[g_.edges.dst[k]] = g_.edges.src[k];
    }
    std::map<int32_t, std::vector<Row>> by_device;
    for (uint32_t r = 0; r < n; ++r) {
      Classify(r);
      by_device[g_.gpu_args.device[r]].push_back({r, g_.events.ts[g_.gpu_args.event[r]]});
    }
    for (auto& [device, rows] : by_device) {
      std::stable_sort(rows.begin(), rows.end(),
                       [](const Row& a, const Row& b) { return a.ts < b.ts; });
      Walk(rows);
    }
    trace_->trust.Add(TrustId::kHloWhileTripCountUnknown, unknown_trip_counts_);
    trace_->trust.Add(TrustId::kHloScheduleCut, truncated_schedules_);
    trace_->trust.Add(TrustId::kGpuEventUnknownHloModule, unknown_module_);
    trace_->trust.Add(TrustId::kGpuEventUnknownHloOp, unknown_op_);
    trace_->trust.Add(TrustId::kGpuEventFromRuntimeTransfer, transfers_);
    xla_.attributed = true;
  }

 private:
  // Labels of a GPU row: its own, else its launch's. kNoRow if none.
  uint32_t LabelRow(uint32_t gpu_row) const {
    EventId e = g_.gpu_args.event[gpu_row];
    uint32_t l = g_.xla_labels.Find(e);
    if (l != kNoRow) return l;
    auto it = launch_of_.find(e);
    return it == launch_of_.end() ? kNoRow : g_.xla_labels.Find(it->second);
  }

  int32_t ModuleOf(uint32_t label, std::string_view op) const {
    const XlaLabelTable& x = g_.xla_labels;
    std::string_view name = g_.strings.Get(x.hlo_module[label]);
    if (x.program_id[label] != kNoValue) {
      int32_t m = index_.FindModuleById(x.program_id[label]);
      if (m >= 0 && (name.empty() || index_.modules()[static_cast<size_t>(m)].name == name))
        return m;
    }
    if (name.empty()) return -1;
    auto same_name = index_.FindModulesByName(name);
    for (uint32_t m : same_name)
      if (!op.empty() && index_.FindByName(m, op) != kNoInstruction) return static_cast<int32_t>(m);
    return same_name.empty() ? -1 : static_cast<int32_t>(same_name.front());
  }

  // An unlabelled event launched by an unlabelled memcpy/memset call is a
  // runtime transfer (arguments, device_put), not part of a program: XLA's
  // own copies carry their hlo_op.
  bool UnlabelledTransfer(uint32_t r) const {
    auto it = launch_of_.find(g_.gpu_args.event[r]);
    if (it == launch_of_.end() || g_.xla_labels.Find(it->second) != kNoRow) return false;
    std::string_view api = g_.strings.Get(g_.events.name[it->second]);
    return api.find("Memcpy") != std::string_view::npos ||
           api.find("Memset") != std::string_view::npos ||
           api.find("memcpy") != std::string_view::npos ||
           api.find("memset") != std::string_view::npos;
  }

  void Classify(uint32_t r) {
    uint32_t label = LabelRow(r);
    if (label == kNoRow) {
      if (UnlabelledTransfer(r)) {
        module_[r] = kForeign;
        ++transfers_;
      }
      return;
    }
    const XlaLabelTable& x = g_.xla_labels;
    std::string_view op = g_.strings.Get(x.hlo_op[label]);
    bool labelled = !op.empty() || x.hlo_module[label] != kEmptyString;
    int32_t m = ModuleOf(label, op);
    if (m < 0) {
      if (labelled) {
        ++unknown_module_;
        module_[r] = kForeign;
      }
      return;
    }
    module_[r] = m;
    if (op.empty()) return;
    uint32_t f = index_.FindByName(static_cast<uint32_t>(m), op);
    if (f == kNoInstruction) {
      ++unknown_op_;
      return;
    }
    xla_.kernel_instruction[r] = f;
    xla_.kernel_match[r] = HloMatch::kExact;
  }

  const std::vector<uint32_t>& Schedule(int32_t m) {
    auto it = schedules_.find(m);
    if (it != schedules_.end()) return it->second;
    bool truncated = false;
    auto built =
        ScheduleBuilder(index_, static_cast<uint32_t>(m)).Build(&unknown_trip_counts_, &truncated);
    truncated_schedules_ += truncated;
    // Positions of each instruction, for anchoring.
    auto& positions = positions_[m];
    for (uint32_t p = 0; p < built.size(); ++p) positions[built[p]].push_back(p);
    return schedules_.emplace(m, std::move(built)).first->second;
  }

  // First position >= from of instruction f in module m's schedule, or -1.
  int64_t Position(int32_t m, uint32_t f, int64_t from) {
    Schedule(m);
    auto it = positions_[m].find(f);
    if (it == positions_[m].end()) return -1;
    auto p = std::lower_bound(it->second.begin(), it->second.end(), static_cast<uint32_t>(from));
    return p == it->second.end() ? -1 : static_cast<int64_t>(*p);
  }

  // First position p > after of f with at least `room` positions strictly
  // between; the first p > after when none has; -1 when f does not recur.
  int64_t PositionWithRoom(int32_t m, uint32_t f, int64_t after, size_t room) {
    Schedule(m);
    auto it = positions_[m].find(f);
    if (it == positions_[m].end()) return -1;
    auto first =
        std::upper_bound(it->second.begin(), it->second.end(), static_cast<uint32_t>(after));
    if (first == it->second.end()) return -1;
    for (auto p = first; p != it->second.end(); ++p) {
      if (static_cast<int64_t>(*p) - after - 1 >= static_cast<int64_t>(room))
        return static_cast<int64_t>(*p);
    }
    return static_cast<int64_t>(*first);
  }

  struct Anchor {
    int32_t module = -1;
    int64_t pos = -1;
  };

  void Walk(const std::vector<Row>& rows) {
    Anchor prev;
    std::vector<uint32_t> pending;
    for (const Row& row : rows) {
      uint32_t r = row.gpu_row;
      if (xla_.kernel_match[r] != HloMatch::kExact) {
        pending.push_back(r);
        continue;
      }
      int32_t m = module_[r];
      uint32_t f = xla_.kernel_instruction[r];
      // Within one execution the instruction comes at or after the previous
      // anchor. With kernels in between, it is the first later occurrence
      // that leaves room for them (loops repeat instructions), else the
      // nearest; with none, the same position again is a library call's
      // next kernel.
      int64_t pos = -1;
      if (m == prev.module) {
        if (!pending.empty()) pos = PositionWithRoom(m, f, prev.pos, pending.size());
        if (pos < 0) pos = Position(m, f, prev.pos);
      }
      bool same_execution = pos >= 0;
      if (!same_execution) pos = Position(m, f, 0);
      if (pos < 0) continue;  // not in the schedule (e.g. a conditional branch): no anchor
      Anchor next{m, pos};
      Resolve(pending, prev, next, same_execution);
      pending.clear();
      prev = next;
    }
    Resolve(pending, prev, Anchor{}, false);
  }

  // Places the non-exact rows between anchors `a` and `b` (either may be
  // absent, module -1).
  void Resolve(const std::vector<uint32_t>& pending, const Anchor& a, const Anchor& b,
               bool same_execution) {
    if (pending.empty()) return;
    std::vector<uint32_t> window;  // instructions strictly between, in order
    if (same_execution) {
      const auto& s = Schedule(a.module);
      for (int64_t p = a.pos + 1; p < b.pos; ++p) window.push_back(s[static_cast<size_t>(p)]);
    } else {
      if (a.module >= 0) {
        const auto& s = Schedule(a.module);
        for (size_t p = static_cast<size_t>(a.pos) + 1; p < s.size(); ++p) window.push_back(s[p]);
      }
      if (b.module >= 0) {
        const auto& s = Schedule(b.module);
        for (int64_t p = 0; p < b.pos; ++p) window.push_back(s[static_cast<size_t>(p)]);
      }
    }
    uint32_t a_ins =
        a.module >= 0 ? Schedule(a.module)[static_cast<size_t>(a.pos)] : kNoInstruction;
    uint32_t b_ins =
        b.module >= 0 ? Schedule(b.module)[static_cast<size_t>(b.pos)] : kNoInstruction;
    std::vector<bool> taken(window.size(), false);
    std::vector<bool> placed(pending.size(), false);

    // name: a unique instruction of the window or its anchors with the kernel's name.
    for (size_t k = 0; k < pending.size(); ++k) {
      if (Foreign(pending[k], a, b)) continue;
      std::string kernel =
          NormalizeKernelName(g_.strings.Get(g_.events.name[g_.gpu_args.event[pending[k]]]));
      uint32_t match = kNoInstruction;
      int64_t match_slot = -1;
      bool ambiguous = false;
      auto consider = [&](uint32_t f, int64_t slot) {
        if (f == kNoInstruction || NormalizeKernelName(index_.instruction(f).name) != kernel)
          return;
        if (match != kNoInstruction && match != f) ambiguous = true;
        if (match == kNoInstruction || (match_slot >= 0 && taken[static_cast<size_t>(match_slot)]))
          match_slot = slot;
        match = f;
      };
      for (size_t w = 0; w < window.size(); ++w) consider(window[w], static_cast<int64_t>(w));
      consider(a_ins, -1);
      consider(b_ins, -1);
      if (match == kNoInstruction || ambiguous) continue;
      Place(pending[k], match, HloMatch::kName);
      placed[k] = true;
      if (match_slot >= 0) taken[static_cast<size_t>(match_slot)] = true;
    }
    // order: the window's remaining instructions, monotonically.
    size_t cursor = 0;
    for (size_t k = 0; k < pending.size(); ++k) {
      if (placed[k]) continue;
      uint32_t r = pending[k];
      if (Foreign(r, a, b)) continue;
      while (cursor < window.size() && taken[cursor]) ++cursor;
      if (cursor < window.size()) {
        taken[cursor] = true;
        Place(r, window[cursor++], HloMatch::kOrder);
      } else if (same_execution) {
        Place(r, b_ins != kNoInstruction ? b_ins : a_ins, HloMatch::kOrder);
      }
    }
  }

  // The row's own labels name a module other than the window's.
  bool Foreign(uint32_t r, const Anchor& a, const Anchor& b) const {
    int32_t m = module_[r];
    return m == kForeign || (m >= 0 && m != a.module && m != b.module);
  }

  void Place(uint32_t r, uint32_t f, HloMatch how) {
    xla_.kernel_instruction[r] = f;
    xla_.kernel_match[r] = how;
  }

  Trace* trace_;
  const EventGraph& g_;
  const HloIndex& index_;
  XlaData& xla_;
  static constexpr int32_t kForeign = -2;  // labelled with a module the capture lacks
  std::vector<int32_t> module_;            // per GPU row: module, -1 unknown, kForeign
  std::unordered_map<EventId, EventId> launch_of_;
  std::unordered_map<int32_t, std::vector<uint32_t>> schedules_;
  std::unordered_map<int32_t, std::unordered_map<uint32_t, std::vector<uint32_t>>> positions_;
  int64_t unknown_trip_counts_ = 0, truncated_schedules_ = 0, unknown_module_ = 0, unknown_op_ = 0,
          transfers_ = 0;
};

}  // namespace

void AttributeKernels(Trace* trace) {
  if (!trace->xla.index) trace->xla.BuildIndex(&trace->graph.strings);
  Attributor(trace).Run();
}

}  // namespace th::hlo
