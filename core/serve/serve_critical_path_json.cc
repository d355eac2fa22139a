#include "core/serve/serve_critical_path_json.h"

#include <map>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "core/report/json_writer.h"
#include "core/serve/derived_table_reader.h"

namespace th::serve {
namespace {

using PathKey = std::pair<int64_t, int64_t>;  // step, rank

// Row numbers of a table by (step, rank), in table order.
std::map<PathKey, std::vector<size_t>> RowsByPath(const DerivedTableReader& t) {
  std::map<PathKey, std::vector<size_t>> out;
  for (size_t i = 0; i < t.rows(); ++i) out[{t.Int("step", i), t.Int("rank", i)}].push_back(i);
  return out;
}

const std::vector<size_t>& RowsOf(const std::map<PathKey, std::vector<size_t>>& rows, PathKey key) {
  static const std::vector<size_t> kNone;
  auto it = rows.find(key);
  return it == rows.end() ? kNone : it->second;
}

// Per (step, rank, event rank, event): the category with the most of the
// event's time on the path (the first such in table order on a tie).
using SpanKey = std::tuple<int64_t, int64_t, int64_t, int64_t>;
std::map<SpanKey, std::pair<std::string, int64_t>> MainCategories(const DerivedTableReader& t) {
  std::map<SpanKey, std::pair<std::string, int64_t>> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    const SpanKey key{t.Int("step", i), t.Int("rank", i), t.Int("event_rank", i),
                      t.Int("event", i)};
    const int64_t time = t.Int("time", i);
    auto [it, fresh] = out.emplace(key, std::pair{t.Text("category", i), time});
    if (!fresh && time > it->second.second) it->second = {t.Text("category", i), time};
  }
  return out;
}

// The job-wide id of event `event` of rank `rank`, when the run holds it at
// time `ts` (the plugin's import and the run's are of the same input).
std::optional<EventId> RunEvent(const ServeRun& run, int64_t rank, int64_t event, int64_t ts) {
  const RankSpan* span = nullptr;
  for (const RankSpan& r : run.ranks())
    if (r.rank == rank || run.ranks().size() == 1) span = &r;
  if (!span || event < 0 || event >= span->events) return std::nullopt;
  const EventId id = span->first_event + static_cast<EventId>(event);
  if (run.graph().events.ts[id] != ts) return std::nullopt;
  return id;
}

struct PathTables {
  explicit PathTables(const PluginResults& r)
      : paths(r, "critical_path"),
        categories(r, "critical_path_categories"),
        ranks(r, "critical_path_ranks"),
        collectives(r, "critical_path_collectives"),
        events(r, "critical_path_events"),
        by_category(RowsByPath(categories)),
        by_rank(RowsByPath(ranks)),
        by_collective(RowsByPath(collectives)),
        by_event(RowsByPath(events)),
        main_category(MainCategories(DerivedTableReader(r, "critical_path_spans"))) {}
  DerivedTableReader paths, categories, ranks, collectives, events;
  std::map<PathKey, std::vector<size_t>> by_category, by_rank, by_collective, by_event;
  std::map<SpanKey, std::pair<std::string, int64_t>> main_category;
};

void WriteEvents(JsonWriter& w, const ServeRun& run, const PathTables& t, PathKey key) {
  const EventGraph& g = run.graph();
  int64_t unplaced = 0;
  w.Key("events").BeginArray();
  for (size_t i : RowsOf(t.by_event, key)) {
    const int64_t rank = t.events.Int("event_rank", i), event = t.events.Int("event", i);
    const auto id = RunEvent(run, rank, event, t.events.Int("ts", i));
    const auto row = id ? run.RowOf(g.events.track[*id], g.events.depth[*id]) : std::nullopt;
    if (!row) {
      ++unplaced;
      continue;
    }
    auto cat = t.main_category.find({key.first, key.second, rank, event});
    w.BeginObject().Field("id", static_cast<int64_t>(*id)).Field("row", static_cast<int64_t>(*row));
    w.Field("rank", rank).Field("track", static_cast<int64_t>(g.events.track[*id]));
    w.Field("start_ns", run.Relative(g.events.ts[*id])).Field("dur_ns", t.events.Int("dur", i));
    w.Field("time_ns", t.events.Int("time", i));
    w.Field("category", cat == t.main_category.end() ? "none" : cat->second.first);
    w.Field("name", t.events.Text("name", i)).EndObject();
  }
  w.EndArray().Field("unplaced", unplaced);
}

void WriteBreakdowns(JsonWriter& w, const PathTables& t, PathKey key) {
  w.Key("categories").BeginArray();
  for (size_t i : RowsOf(t.by_category, key))
    w.BeginObject()
        .Field("category", t.categories.Text("category", i))
        .Field("hta_bound", t.categories.Text("hta_bound", i))
        .Field("time_ns", t.categories.Int("time", i))
        .EndObject();
  w.EndArray().Key("ranks").BeginArray();
  if (key.second == -1)
    for (const auto& [k, rows] : t.by_rank)
      if (k.first == key.first)
        for (size_t i : rows)
          w.BeginObject()
              .Field("rank", t.ranks.Int("rank", i))
              .Field("time_ns", t.ranks.Int("time", i))
              .EndObject();
  w.EndArray().Key("collectives").BeginArray();
  if (key.second == -1)
    for (const auto& [k, rows] : t.by_collective)
      if (k.first == key.first)
        for (size_t i : rows)
          w.BeginObject()
              .Field("collective", t.collectives.Int("collective", i))
              .Field("gating_rank", t.collectives.Int("gating_rank", i))
              .Field("lead_ns", t.collectives.Int("lead", i))
              .Field("transfer_ns", t.collectives.Int("transfer", i))
              .Field("on_path", t.collectives.Int("on_path", i) != 0)
              .EndObject();
  w.EndArray();
}

}  // namespace

std::string CriticalPathJson(const ServeRun& run, const PluginResults& results) {
  const PathTables t(results);
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Key("paths").BeginArray();
    for (size_t i = 0; i < t.paths.rows(); ++i) {
      const PathKey key{t.paths.Int("step", i), t.paths.Int("rank", i)};
      w.BeginObject().Field("step", key.first).Field("rank", key.second);
      w.Field("path_ns", t.paths.Int("path", i))
          .Field("late_start_ns", t.paths.Int("late_start", i));
      w.Field("waits_ns", t.paths.Int("waits", i)).Field("elapsed_ns", t.paths.Int("elapsed", i));
      w.Field("events_on_path", t.paths.Int("events", i));
      w.Field("sync_edges", t.paths.Int("sync_edges", i));
      w.Field("inferred_sync_edges", t.paths.Int("inferred_sync_edges", i));
      WriteBreakdowns(w, t, key);
      WriteEvents(w, run, t, key);
      w.EndObject();
    }
    w.EndArray().EndObject();
  }
  return out.str();
}

}  // namespace th::serve
