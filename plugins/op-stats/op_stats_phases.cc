#include "op_stats_phases.h"

#include <algorithm>
#include <tuple>

namespace th::op_stats {

OpsAbove::OpsAbove(const EventTree& t) : t_(t), above_(t.parent.size()) {}

uint32_t OpsAbove::operator()(uint32_t event) {
  path_.clear();
  uint32_t p = t_.parent[event];
  while (p != kNone && !t_.is_op(p) && above_[p] == 0) {
    path_.push_back(p);
    p = t_.parent[p];
  }
  const uint32_t found = p == kNone || t_.is_op(p) ? p : above_[p] - 2;
  if (path_.empty()) return found;  // one step: as quick as the memo
  for (uint32_t q : path_) above_[q] = found + 2;
  above_[event] = found + 2;
  return found;
}

KindAtOrAbove::KindAtOrAbove(std::span<const uint32_t> parent, std::span<const uint8_t> kinds,
                             uint8_t kind)
    : parent_(parent),
      kinds_(kinds),
      kind_(kind),
      any_(std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) {
  if (any_) found_.assign(parent.size(), kUnknown);
}

uint32_t KindAtOrAbove::operator()(uint32_t event) {
  if (!any_) return kNone;  // no event of the kind: no memo over every event
  path_.clear();
  uint32_t p = event;
  while (p != kNone && found_[p] == kUnknown && kinds_[p] != kind_) {
    path_.push_back(p);
    p = parent_[p];
  }
  const uint32_t found = p == kNone ? kNone : found_[p] != kUnknown ? found_[p] : p;
  for (uint32_t q : path_) found_[q] = found;
  if (p != kNone) found_[p] = found;
  return found;
}

void KeyTotals::Resize(size_t keys) {
  for (auto* c : {&calls, &host_total, &host_self, &device_total, &device_self, &kernels})
    c->resize(keys, 0);
}

void KeyTotals::Add(uint32_t key, int64_t row_host_total, int64_t row_host_self,
                    int64_t row_device_total, int64_t row_device_self, int64_t row_kernels) {
  calls[key] += 1;
  host_total[key] += row_host_total;
  host_self[key] += row_host_self;
  device_total[key] += row_device_total;
  device_self[key] += row_device_self;
  kernels[key] += row_kernels;
}

void AddHostTime(const EventTree& t, KeyTotals& totals) {
  const size_t n = t.parent.size();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t k = t.key_of(i);
    if (k != kNone) {
      totals.calls[k] += 1;
      totals.host_total[k] += t.dur[i];
      totals.host_self[k] += t.dur[i];
    }
    const uint32_t p = t.parent[i];
    if (p == kNone || t.dur[i] <= 0) continue;
    const uint32_t kp = t.key_of(p);
    if (kp == kNone) continue;
    totals.host_self[kp] -=
        std::max<int64_t>(0, std::min(t.end(i), t.end(p)) - std::max(t.ts[i], t.ts[p]));
  }
}

DeviceTime AddDeviceTime(const EventTree& t, const std::vector<Launch>& launches,
                         KeyTotals& totals) {
  DeviceTime d;
  OpsAbove above(t);
  for (const Launch& l : launches) {
    d.launched_total += l.dur;
    const uint32_t owner = t.is_op(l.src) ? l.src : above(l.src);
    if (owner == kNone) {
      d.outside_ops += l.dur;
      continue;
    }
    d.in_ops += l.dur;
    totals.device_self[t.key_of(owner)] += l.dur;
    for (uint32_t a = owner; a != kNone; a = above(a)) {
      const uint32_t k = t.key_of(a);
      totals.device_total[k] += l.dur;
      totals.kernels[k] += 1;
    }
  }
  return d;
}

uint32_t OpRows::Key(const std::string& kind, std::string_view name, const std::string& stack) {
  std::string k = kind + '\n' + std::string(name) + '\n' + (by_stack_ ? stack : "");
  auto [it, fresh] = key_of_.try_emplace(k, static_cast<uint32_t>(keys.size()));
  if (fresh) keys.push_back({kind, std::string(name), by_stack_ ? stack : ""});
  return it->second;
}

std::vector<OpStatRow> SummarizeOps(const OpRows& rows, const KeyTotals& totals, bool by_stack) {
  const auto& keys = rows.keys;
  const size_t k = keys.size();
  // Each key's main call site (most time) and how many it has.
  std::vector<std::string> site(k);
  std::vector<int64_t> sites(k, 0), best(k, -1);
  for (const auto& [ks, ns] : rows.site_time) {
    ++sites[ks.first];
    if (ns > best[ks.first]) best[ks.first] = ns, site[ks.first] = ks.second;
  }
  std::vector<uint32_t> order(k);
  for (uint32_t i = 0; i < k; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (totals.device_total[a] != totals.device_total[b])
      return totals.device_total[a] > totals.device_total[b];
    if (totals.host_total[a] != totals.host_total[b])
      return totals.host_total[a] > totals.host_total[b];
    return std::tie(keys[a].name, keys[a].stack) < std::tie(keys[b].name, keys[b].stack);
  });
  std::vector<OpStatRow> out;
  for (uint32_t i : order) {
    const bool xla = keys[i].kind == "xla_op";
    const int64_t calls = totals.calls[i];
    out.push_back({keys[i].kind, keys[i].name, calls, xla ? -1 : totals.host_total[i],
                   xla ? -1 : totals.host_self[i],
                   xla || !calls
                       ? -1.0
                       : static_cast<double>(totals.host_total[i]) / static_cast<double>(calls),
                   totals.device_total[i], totals.device_self[i], totals.kernels[i],
                   by_stack ? keys[i].stack : site[i],
                   by_stack ? (keys[i].stack.empty() ? 0 : 1) : sites[i]});
  }
  return out;
}

std::vector<HloStat> SortHloStats(std::map<std::pair<std::string, std::string>, HloStat> hlo) {
  std::vector<HloStat> rows;
  for (auto& [id, h] : hlo) rows.push_back(std::move(h));
  std::sort(rows.begin(), rows.end(), [](const HloStat& a, const HloStat& b) {
    if (a.device != b.device) return a.device > b.device;
    return std::tie(a.module, a.name) < std::tie(b.module, b.name);
  });
  return rows;
}

}  // namespace th::op_stats
