#include "core/import/xspace/derived_lines.h"

#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <climits>
#include <map>
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

// The labelled GPU rows of each of `devices` (same order), in row order.
std::vector<std::vector<Labelled>> LabelledRowsByDevice(const std::vector<int32_t>& devices,
                                                        const kineto::ParsedChunk& chunk) {
  const XlaLabelTable& x = chunk.xla_labels;
  const EventColumns& e = chunk.events;
  std::unordered_map<int32_t, size_t> slot;
  for (size_t i = 0; i < devices.size(); ++i) slot.emplace(devices[i], i);
  std::vector<std::vector<Labelled>> rows(devices.size());
  if (devices.empty()) return rows;
  int32_t last_device = INT32_MIN;
  std::vector<Labelled>* last = nullptr;
  for (uint32_t l = 0; l < x.size(); ++l) {
    EventId ev = x.event[l];
    uint32_t g = e.args_row[ev];
    if (!IsGpuActivity(e.kind[ev]) || g == kNoRow) continue;
    const int32_t device = chunk.gpu_args.device[g];
    if (device != last_device || !last) {
      auto it = slot.find(device);
      last = it == slot.end() ? nullptr : &rows[it->second];
      last_device = device;
      if (!last) continue;
    }
    last->push_back({e.ts[ev], e.ts[ev] + e.dur[ev], l});
  }
  for (size_t i = 0; i < devices.size(); ++i) {  // a device listed twice gets its rows twice
    const size_t first = slot[devices[i]];
    if (first != i) rows[i] = rows[first];
  }
  return rows;
}

int64_t AppendDerivedLines(int64_t plane_id, const std::string& plane_name,
                           std::vector<Labelled> rows, const StringPool& strings,
                           kineto::ThreadTables* tables, kineto::ParsedChunk* chunk) {
  const XlaLabelTable& x = chunk->xla_labels;
  EventColumns& e = chunk->events;
  // In time order within each line: merged from those runs.
  sdk::StableSortRuns(rows, [](const Labelled& a, const Labelled& b) { return a.ts < b.ts; });
  // The labels of each row in time order, gathered once for the three lines.
  struct Keys {
    int64_t group_id, program_id;
    StringId hlo_module, hlo_op;
  };
  std::vector<Keys> keys(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint32_t l = rows[i].label;
    keys[i] = {x.group_id[l], x.program_id[l], x.hlo_module[l], x.hlo_op[l]};
  }
  const StringId derived_cat = tables->Intern("derived");
  const StringId process = tables->Intern(plane_name);
  int64_t appended = 0;
  struct Derived {
    int64_t begin, end;
    StringId name;
  };
  std::vector<Derived> line;
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
    std::fill_n(e.depth.grow_uninitialized(n), n, uint16_t{0});
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
  auto rows = LabelledRowsByDevice(devices, *chunk);
  int64_t appended = 0;
  for (size_t i = 0; i < gpu_planes.size(); ++i)
    appended += AppendDerivedLines(gpu_planes[i].first, gpu_planes[i].second, std::move(rows[i]),
                                   strings, tables, chunk);
  return appended;
}

}  // namespace th::xspace
