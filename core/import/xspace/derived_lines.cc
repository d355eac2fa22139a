#include "core/import/xspace/derived_lines.h"

#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace th::xspace {
namespace {

constexpr int64_t kDerivedMin = 0xdeadbeef;
constexpr int64_t kStepLine = kDerivedMin + 0, kModuleLine = kDerivedMin + 4,
                  kOpLine = kDerivedMin + 5;

struct Labelled {
  int64_t ts, end;
  uint32_t label;  // row in chunk->xla_labels
};

// The labels of a labelled row that the derived lines group by.
struct Keys {
  int64_t group_id, program_id;
  StringId hlo_module, hlo_op;
};

// The labelled GPU rows of the listed devices, in row order, each device's
// rows together: device i's are rows[begin[i], end[i]) (a device listed twice
// shares its rows). One array of exactly the size needed (a count pass first):
// vectors grown by doubling would copy every row again into fresh pages.
struct RowsByDevice {
  std::vector<Labelled> rows;
  std::vector<size_t> begin, end;
};

RowsByDevice LabelledRowsByDevice(const std::vector<int32_t>& devices,
                                  const kineto::ParsedChunk& chunk) {
  const XlaLabelTable& x = chunk.xla_labels;
  const EventColumns& e = chunk.events;
  std::unordered_map<int32_t, size_t> slot;  // device -> first index listing it
  for (size_t i = 0; i < devices.size(); ++i) slot.emplace(devices[i], i);
  RowsByDevice out;
  out.begin.assign(devices.size(), 0);
  out.end.assign(devices.size(), 0);
  if (devices.empty()) return out;
  // visit(slot, label row, event) for each labelled GPU row of a listed device.
  auto for_each_row = [&](auto&& visit) {
    int32_t last_device = INT32_MIN;
    size_t last = SIZE_MAX;  // slot of last_device; SIZE_MAX: not listed
    for (uint32_t l = 0; l < x.size(); ++l) {
      EventId ev = x.event[l];
      uint32_t g = e.args_row[ev];
      if (!IsGpuActivity(e.kind[ev]) || g == kNoRow) continue;
      const int32_t device = chunk.gpu_args.device[g];
      if (device != last_device) {
        auto it = slot.find(device);
        last = it == slot.end() ? SIZE_MAX : it->second;
        last_device = device;
      }
      if (last != SIZE_MAX) visit(last, l, ev);
    }
  };
  std::vector<size_t> counts(devices.size(), 0);
  for_each_row([&](size_t s, uint32_t, EventId) { ++counts[s]; });
  size_t total = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    out.begin[i] = total;
    total += counts[i];
  }
  out.rows.resize(total);
  std::vector<size_t> cursor = out.begin;
  for_each_row([&](size_t s, uint32_t l, EventId ev) {
    out.rows[cursor[s]++] = {e.ts[ev], e.ts[ev] + e.dur[ev], l};
  });
  for (size_t i = 0; i < devices.size(); ++i) {
    const size_t first = slot[devices[i]];
    out.begin[i] = out.begin[first];
    out.end[i] = out.begin[first] + counts[first];
  }
  return out;
}

// `keys`: a buffer reused across devices (its pages are touched once).
int64_t AppendDerivedLines(int64_t plane_id, const std::string& plane_name,
                           std::span<Labelled> rows, std::vector<Keys>* keys_buffer,
                           const StringPool& strings, kineto::ThreadTables* tables,
                           kineto::ParsedChunk* chunk) {
  const XlaLabelTable& x = chunk->xla_labels;
  EventColumns& e = chunk->events;
  // In time order within each line: merged from those runs (a device listed
  // twice sorts its sorted rows again: no change).
  sdk::StableSortRuns(rows, [](const Labelled& a, const Labelled& b) { return a.ts < b.ts; });
  // The labels of each row in time order, gathered once for the three lines.
  keys_buffer->resize(rows.size());
  const std::vector<Keys>& keys = *keys_buffer;
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint32_t l = rows[i].label;
    (*keys_buffer)[i] = {x.group_id[l], x.program_id[l], x.hlo_module[l], x.hlo_op[l]};
  }
  const StringId derived_cat = tables->Intern("derived");
  const StringId process = tables->Intern(plane_name);
  int64_t appended = 0;
  struct Derived {
    int64_t begin, end;
    StringId name;
  };
  std::vector<Derived> line;
  line.reserve(rows.size());  // at most one per row; pages only as written
  // key(keys) -> comparable tuple; name(keys) -> event name; empty key = skip.
  auto derive = [&](int64_t tid, const char* line_name, auto key, auto name) {
    kineto::TrackKey k;
    k.pid = plane_id;
    k.tid = tid;
    k.pid_str = process;
    uint32_t track = kNoRow;
    line.clear();
    size_t i = 0;
    while (i < rows.size()) {
      auto current = key(keys[i]);
      if (!current.first) {
        ++i;
        continue;
      }
      int64_t begin = rows[i].ts, end = rows[i].end;
      size_t j = i + 1;
      while (j < rows.size() && key(keys[j]) == current) end = std::max(end, rows[j++].end);
      if (track == kNoRow) {
        track = tables->Track(k);
        chunk->names.push_back({kineto::NameRecord::kProcessName, track, process});
        chunk->names.push_back({kineto::NameRecord::kThreadName, track, tables->Intern(line_name)});
      }
      line.push_back({begin, end, name(keys[i])});
      i = j;
    }
    // The line's events appended column by column.
    const size_t n = line.size();
    if (n == 0) return;
    int64_t* ts = e.ts.grow_uninitialized(n);
    int64_t* dur = e.dur.grow_uninitialized(n);
    StringId* names = e.name.grow_uninitialized(n);
    for (size_t d = 0; d < n; ++d) {
      ts[d] = line[d].begin;
      dur[d] = line[d].end - line[d].begin;
      names[d] = line[d].name;
    }
    std::fill_n(e.cat.grow_uninitialized(n), n, derived_cat);
    std::fill_n(e.track.grow_uninitialized(n), n, track);
    std::fill_n(e.parent.grow_uninitialized(n), n, kNoRow);
    e.depth.grow_zeroed(n);
    std::fill_n(e.ph.grow_uninitialized(n), n, 'X');
    std::fill_n(e.kind.grow_uninitialized(n), n, EventKind::kOther);
    std::fill_n(e.flags.grow_uninitialized(n), n, uint8_t{kFlagDerived});
    e.correlation.AppendAbsent(n);
    e.external_id.AppendAbsent(n);
    std::fill_n(e.args_row.grow_uninitialized(n), n, kNoRow);
    appended += static_cast<int64_t>(n);
  };
  auto text = [&](StringId s) { return strings.Get(s); };
  // Names interned once per distinct key (interning the same text again
  // gives the same id, so the ids are those of interning every event's).
  std::unordered_map<int64_t, StringId> step_names;
  std::map<std::pair<int64_t, StringId>, StringId> module_names;
  std::unordered_map<StringId, StringId> op_names;
  using Key = std::pair<bool, std::pair<int64_t, std::pair<StringId, StringId>>>;
  derive(
      kStepLine, "Steps",
      [](const Keys& r) {
        return Key{r.group_id != kNoValue, {r.group_id, {kEmptyString, kEmptyString}}};
      },
      [&](const Keys& r) {
        auto [it, added] = step_names.try_emplace(r.group_id, kEmptyString);
        if (added) it->second = tables->Intern(std::to_string(r.group_id));
        return it->second;
      });
  derive(
      kModuleLine, "XLA Modules",
      [](const Keys& r) {
        bool any = r.hlo_module != kEmptyString || r.program_id != kNoValue;
        return Key{any, {r.program_id, {r.hlo_module, kEmptyString}}};
      },
      [&](const Keys& r) {
        auto [it, added] = module_names.try_emplace({r.program_id, r.hlo_module}, kEmptyString);
        if (added) {
          std::string n(text(r.hlo_module));
          if (r.program_id != kNoValue) n += "(" + std::to_string(r.program_id) + ")";
          it->second = tables->Intern(n);
        }
        return it->second;
      });
  derive(
      kOpLine, "XLA Ops",
      [](const Keys& r) {
        return Key{r.hlo_op != kEmptyString, {r.program_id, {r.hlo_module, r.hlo_op}}};
      },
      [&](const Keys& r) {
        auto [it, added] = op_names.try_emplace(r.hlo_op, kEmptyString);
        if (added) it->second = tables->Intern(std::string(text(r.hlo_op)));
        return it->second;
      });
  return appended;
}

}  // namespace

int64_t AppendDerivedXlaLines(const std::vector<std::pair<int64_t, std::string>>& gpu_planes,
                              const StringPool& strings, kineto::ThreadTables* tables,
                              kineto::ParsedChunk* chunk) {
  std::vector<int32_t> devices;
  for (const auto& [id, name] : gpu_planes) devices.push_back(static_cast<int32_t>(id));
  RowsByDevice by_device = LabelledRowsByDevice(devices, *chunk);
  std::vector<Keys> keys;
  int64_t appended = 0;
  for (size_t i = 0; i < gpu_planes.size(); ++i) {
    std::span<Labelled> rows(by_device.rows.data() + by_device.begin[i],
                             by_device.end[i] - by_device.begin[i]);
    appended += AppendDerivedLines(gpu_planes[i].first, gpu_planes[i].second, rows, &keys, strings,
                                   tables, chunk);
  }
  return appended;
}

}  // namespace th::xspace
