#include "core/import/xspace/derived_lines.h"

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
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Labelled& a, const Labelled& b) { return a.ts < b.ts; });
  const StringId derived_cat = tables->Intern("derived");
  const StringId process = tables->Intern(plane_name);
  int64_t appended = 0;
  // key(label) -> comparable tuple; name(label) -> event name; empty key = skip.
  auto derive = [&](int64_t tid, const char* line_name, auto key, auto name) {
    kineto::TrackKey k;
    k.pid = plane_id;
    k.tid = tid;
    k.pid_str = process;
    uint32_t track = kNoRow;
    size_t i = 0;
    while (i < rows.size()) {
      auto current = key(rows[i].label);
      if (!current.first) {
        ++i;
        continue;
      }
      int64_t begin = rows[i].ts, end = rows[i].end;
      size_t j = i + 1;
      while (j < rows.size() && key(rows[j].label) == current) end = std::max(end, rows[j++].end);
      if (track == kNoRow) {
        track = tables->Track(k);
        chunk->names.push_back({kineto::NameRecord::kProcessName, track, process});
        chunk->names.push_back({kineto::NameRecord::kThreadName, track, tables->Intern(line_name)});
      }
      e.ts.push_back(begin);
      e.dur.push_back(end - begin);
      e.name.push_back(name(rows[i].label));
      e.cat.push_back(derived_cat);
      e.track.push_back(track);
      e.parent.push_back(kNoRow);
      e.depth.push_back(0);
      e.ph.push_back('X');
      e.kind.push_back(EventKind::kOther);
      e.flags.push_back(kFlagDerived);
      e.correlation.push_back(kNoValue);
      e.external_id.push_back(kNoValue);
      e.args_row.push_back(kNoRow);
      ++appended;
      i = j;
    }
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
      [&](uint32_t l) {
        return Key{x.group_id[l] != kNoValue, {x.group_id[l], {kEmptyString, kEmptyString}}};
      },
      [&](uint32_t l) {
        auto [it, added] = step_names.try_emplace(x.group_id[l], kEmptyString);
        if (added) it->second = tables->Intern(std::to_string(x.group_id[l]));
        return it->second;
      });
  derive(
      kModuleLine, "XLA Modules",
      [&](uint32_t l) {
        bool any = x.hlo_module[l] != kEmptyString || x.program_id[l] != kNoValue;
        return Key{any, {x.program_id[l], {x.hlo_module[l], kEmptyString}}};
      },
      [&](uint32_t l) {
        auto [it, added] =
            module_names.try_emplace({x.program_id[l], x.hlo_module[l]}, kEmptyString);
        if (added) {
          std::string n(text(x.hlo_module[l]));
          if (x.program_id[l] != kNoValue) n += "(" + std::to_string(x.program_id[l]) + ")";
          it->second = tables->Intern(n);
        }
        return it->second;
      });
  derive(
      kOpLine, "XLA Ops",
      [&](uint32_t l) {
        return Key{x.hlo_op[l] != kEmptyString, {x.program_id[l], {x.hlo_module[l], x.hlo_op[l]}}};
      },
      [&](uint32_t l) {
        auto [it, added] = op_names.try_emplace(x.hlo_op[l], kEmptyString);
        if (added) it->second = tables->Intern(std::string(text(x.hlo_op[l])));
        return it->second;
      });
  return appended;
}

}  // namespace

int64_t AppendDerivedXlaLines(int64_t plane_id, const std::string& plane_name, int32_t device,
                              const StringPool& strings, kineto::ThreadTables* tables,
                              kineto::ParsedChunk* chunk) {
  auto rows = LabelledRowsByDevice({device}, *chunk);
  return AppendDerivedLines(plane_id, plane_name, std::move(rows[0]), strings, tables, chunk);
}

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
