#include "core/diff/diff_profile.h"

#include <tracehound/plugin_api.h>

#include <deque>
#include <utility>

namespace th::diff {
namespace {

static_assert(static_cast<int>(EventKind::kTraceSpan) == TH_EVENT_TRACE_SPAN);
static_assert(static_cast<int>(kFlagEndMarker) == TH_EVENT_FLAG_END_MARKER);
static_assert(static_cast<int>(kFlagNoDuration) == TH_EVENT_FLAG_NO_DURATION);

}  // namespace

// What the ProfileTraces point to beyond the event graph's own columns.
struct GraphProfileTraces::Storage {
  std::deque<std::vector<uint32_t>> u32;
  std::deque<std::vector<th_table_column>> columns;
  std::deque<std::vector<const char*>> strings;
  std::deque<th_table> tables;
};

namespace {

using Storage = GraphProfileTraces::Storage;

ProfileTrace ProfileTraceOf(const Trace& trace, Storage* st) {
  const EventGraph& g = trace.graph;
  const EventColumns& ev = g.events;
  ProfileTrace t;
  t.rank = trace.info.rank;
  t.events = ev.size();
  t.ts = ev.ts.data();
  t.dur = ev.dur.data();
  t.name = ev.name.data();
  t.kind = reinterpret_cast<const uint8_t*>(ev.kind.data());
  t.track = ev.track.data();
  t.parent = ev.parent.data();
  t.flags = ev.flags.data();
  std::vector<uint32_t>& kinds = st->u32.emplace_back();
  for (const Track& tr : g.tracks)
    kinds.push_back(tr.kind == TrackKind::kCpu         ? TH_TRACK_CPU
                    : tr.kind == TrackKind::kGpuStream ? TH_TRACK_GPU_STREAM
                                                       : TH_TRACK_OTHER);
  t.tracks = kinds.size();
  t.track_kind = kinds.data();
  // The launch of each launched event: its last launch edge (event_launches).
  std::vector<uint32_t>& launched = st->u32.emplace_back();
  std::vector<uint32_t>& launch = st->u32.emplace_back();
  for (size_t i = 0; i < g.edges.size(); ++i)
    if (g.edges.kind[i] == EdgeKind::kLaunch) {
      launched.push_back(g.edges.dst[i]);
      launch.push_back(g.edges.src[i]);
    }
  t.launches = launched.size();
  t.launched = launched.data();
  t.launch = launch.data();
  t.labels = g.xla_labels.size();
  t.label_event = g.xla_labels.event.data();
  t.label_hlo_op = g.xla_labels.hlo_op.data();
  t.op_inputs = g.op_inputs.size();
  t.op_input_event = g.op_inputs.event.data();
  t.op_input_dims = g.op_inputs.input_dims.data();
  t.op_input_types = g.op_inputs.input_types.data();
  t.string = [&g](uint32_t id) { return g.strings.Get(id); };
  return t;
}

// A published table as the C table a plugin reads (find_table), or nullptr.
const th_table* CTableOf(const PluginResults* results, const char* name, Storage* st) {
  if (!results) return nullptr;
  auto it = results->tables.find(name);
  if (it == results->tables.end()) return nullptr;
  const DerivedTable& t = it->second;
  auto& cols = st->columns.emplace_back();
  for (const DerivedColumn& c : t.columns) {
    th_table_column col{};
    col.name = c.name.c_str();
    col.unit = c.unit.c_str();
    if (auto* i = std::get_if<std::vector<int64_t>>(&c.values)) {
      col.values = {i->data(), i->size(), TH_TYPE_I64, 0};
    } else if (auto* d = std::get_if<std::vector<double>>(&c.values)) {
      col.values = {d->data(), d->size(), TH_TYPE_F64, 0};
    } else {
      auto& ptrs = st->strings.emplace_back();
      const TextColumn& text = std::get<TextColumn>(c.values);
      for (size_t k = 0; k < text.size(); ++k) ptrs.push_back(text.c_str(k));
      col.values = {ptrs.data(), ptrs.size(), TH_TYPE_STRING, 0};
    }
    cols.push_back(col);
  }
  th_table& out = st->tables.emplace_back();
  out = {};
  out.struct_size = sizeof out;
  out.name = t.name.c_str();
  out.columns = cols.data();
  out.column_count = static_cast<uint32_t>(cols.size());
  out.row_count = t.rows;
  return &out;
}

}  // namespace

EventClass ClassOf(EventKind kind, bool all_classes) {
  return ClassOfKind(static_cast<uint32_t>(kind), all_classes);
}

GraphProfileTraces::GraphProfileTraces(const TraceSet& set) : storage_(new Storage) {
  for (const auto& t : set.traces) traces_.push_back(ProfileTraceOf(*t, storage_.get()));
}

GraphProfileTraces::~GraphProfileTraces() = default;

StatusOr<Profile> BuildProfile(const DiffSide& side, const DiffOptions& options) {
  if (!side.traces) return InvalidInput("diff: side " + side.label + " has no traces");
  const GraphProfileTraces graphs(*side.traces);
  return BuildProfile(side, graphs.traces(), options);
}

StatusOr<Profile> BuildProfile(const DiffSide& side, const std::vector<ProfileTrace>& traces,
                               const DiffOptions& options) {
  if (!side.traces) return InvalidInput("diff: side " + side.label + " has no traces");
  Storage st;
  Profile p;
  const std::string error =
      BuildSideProfile(traces, CTableOf(side.results, "steps", &st),
                       CTableOf(side.results, "step_breakdown", &st), side.label, options, &p);
  if (!error.empty()) return InvalidInput(error);
  return p;
}

}  // namespace th::diff
