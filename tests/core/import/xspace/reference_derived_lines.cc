// The derived XLA lines of 33dad58, verbatim but for the namespace and the
// name: the reference for ImportXSpaceFile's derived lines
// (xspace_import_equivalence_test).
#include "tests/core/import/xspace/reference_derived_lines.h"

#include <algorithm>
#include <vector>

namespace th::xspace::reference {
namespace {

constexpr int64_t kDerivedMin = 0xdeadbeef;
constexpr int64_t kStepLine = kDerivedMin + 0, kModuleLine = kDerivedMin + 4,
                  kOpLine = kDerivedMin + 5;

struct Labelled {
  int64_t ts, end;
  uint32_t label;  // row in chunk->xla_labels
};

}  // namespace

int64_t AppendDerivedXlaLinesReference(int64_t plane_id, const std::string& plane_name,
                                       int32_t device, const StringPool& strings,
                                       kineto::ThreadTables* tables, kineto::ParsedChunk* chunk) {
  const XlaLabelTable& x = chunk->xla_labels;
  EventColumns& e = chunk->events;
  std::vector<Labelled> rows;
  for (uint32_t l = 0; l < x.size(); ++l) {
    EventId ev = x.event[l];
    uint32_t g = e.args_row[ev];
    if (!IsGpuActivity(e.kind[ev]) || g == kNoRow || chunk->gpu_args.device[g] != device) continue;
    rows.push_back({e.ts[ev], e.ts[ev] + e.dur[ev], l});
  }
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
      e.name.push_back(tables->Intern(name(rows[i].label)));
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
  using Key = std::pair<bool, std::pair<int64_t, std::pair<StringId, StringId>>>;
  derive(
      kStepLine, "Steps",
      [&](uint32_t l) {
        return Key{x.group_id[l] != kNoValue, {x.group_id[l], {kEmptyString, kEmptyString}}};
      },
      [&](uint32_t l) { return std::to_string(x.group_id[l]); });
  derive(
      kModuleLine, "XLA Modules",
      [&](uint32_t l) {
        bool any = x.hlo_module[l] != kEmptyString || x.program_id[l] != kNoValue;
        return Key{any, {x.program_id[l], {x.hlo_module[l], kEmptyString}}};
      },
      [&](uint32_t l) {
        std::string n(text(x.hlo_module[l]));
        if (x.program_id[l] != kNoValue) n += "(" + std::to_string(x.program_id[l]) + ")";
        return n;
      });
  derive(
      kOpLine, "XLA Ops",
      [&](uint32_t l) {
        return Key{x.hlo_op[l] != kEmptyString, {x.program_id[l], {x.hlo_module[l], x.hlo_op[l]}}};
      },
      [&](uint32_t l) { return std::string(text(x.hlo_op[l])); });
  return appended;
}

}  // namespace th::xspace::reference
