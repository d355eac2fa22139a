#include "core/serve/serve_meta.h"

#include <algorithm>
#include <sstream>
#include <tuple>

#include "core/report/json_writer.h"
#include "core/serve/serve_overview.h"

namespace th::serve {
namespace {

enum class DisplayKind : uint8_t { kGpuStream, kCpu, kCounter, kOther };

const char* KindName(DisplayKind k) {
  switch (k) {
    case DisplayKind::kGpuStream:
      return "gpu_stream";
    case DisplayKind::kCpu:
      return "cpu";
    case DisplayKind::kCounter:
      return "counter";
    case DisplayKind::kOther:
      break;
  }
  return "other";
}

struct TrackLine {
  TrackId track = 0;
  DisplayKind kind = DisplayKind::kOther;
  std::string name, process;
  std::tuple<int, int64_t, int64_t, TrackId> order;
};

std::string IdText(const StringPool& s, StringId text, int64_t number) {
  return text != kEmptyString ? std::string(s.Get(text)) : std::to_string(number);
}

TrackLine Describe(const EventGraph& g, TrackId id) {
  const Track& t = g.tracks[id];
  const StringPool& s = g.strings;
  TrackLine line;
  line.track = id;
  auto events = g.TrackEvents(id);
  const bool counter = events.size() && g.events.kind[events[0]] == EventKind::kCounter;
  line.kind = t.kind == TrackKind::kGpuStream ? DisplayKind::kGpuStream
              : t.kind == TrackKind::kCpu     ? DisplayKind::kCpu
              : counter                       ? DisplayKind::kCounter
                                              : DisplayKind::kOther;
  if (line.kind == DisplayKind::kGpuStream) {
    line.name = "stream " + std::to_string(t.stream);
    line.process = "GPU " + std::to_string(t.device);
    line.order = {0, t.device, t.stream, id};
    return line;
  }
  line.name = t.thread_name != kEmptyString ? std::string(s.Get(t.thread_name))
                                            : "thread " + IdText(s, t.tid_str, t.tid);
  line.process = t.process_name != kEmptyString ? std::string(s.Get(t.process_name))
                                                : "process " + IdText(s, t.pid_str, t.pid);
  line.order = {static_cast<int>(line.kind), t.pid, t.tid, id};
  return line;
}

void WriteTracks(const ServeRun& run, JsonWriter& w) {
  const EventGraph& g = run.graph();
  std::vector<TrackLine> lines;
  for (uint32_t r = 0; r < run.index().row_count(); ++r) {
    const TrackId t = run.index().row(r).track;
    if (lines.empty() || lines.back().track != t) lines.push_back(Describe(g, t));
  }
  // Ranks in rank order, each rank's tracks as for one trace.
  std::stable_sort(lines.begin(), lines.end(), [&](const TrackLine& a, const TrackLine& b) {
    const size_t ra = run.RankOfTrack(a.track), rb = run.RankOfTrack(b.track);
    return ra != rb ? ra < rb : a.order < b.order;
  });
  w.Key("tracks").BeginArray();
  for (size_t k = 0; k < lines.size(); ++k) {
    const TrackLine& l = lines[k];
    const std::string rank = "rank " + std::to_string(run.ranks()[run.RankOfTrack(l.track)].rank);
    w.BeginObject().Field("track", static_cast<int64_t>(l.track)).Field("name", l.name);
    w.Field("kind", KindName(l.kind));
    w.Key("group").BeginArray().String(rank).String(l.process).EndArray();
    w.Field("sort", static_cast<int64_t>(k)).EndObject();
  }
  w.EndArray();
}

void WriteRows(const LodIndex& index, JsonWriter& w) {
  w.Key("rows").BeginArray();
  for (uint32_t r = 0; r < index.row_count(); ++r) {
    const LodRow row = index.row(r);
    w.BeginObject().Field("row", static_cast<int64_t>(r)).Field("track", int64_t{row.track});
    w.Field("depth", int64_t{row.depth}).Field("events", int64_t{row.events}).EndObject();
  }
  w.EndArray();
}

void WriteSteps(const ServeRun& run, JsonWriter& w) {
  w.Key("steps").BeginArray();
  for (const Step& s : run.graph().steps) {
    w.BeginObject().Field("number", s.number);
    w.Field("start_ns", run.Relative(s.ts)).Field("dur_ns", s.dur).EndObject();
  }
  w.EndArray();
}

// Several ranks only (a single trace's meta is unchanged): each rank's
// offsets in the job-wide ids, and the clock offsets (or why there are none).
void WriteRanks(const ServeRun& run, JsonWriter& w) {
  w.Key("ranks").BeginArray();
  for (const RankSpan& r : run.ranks()) {
    w.BeginObject().Field("rank", r.rank).Field("first_event", int64_t{r.first_event});
    w.Field("events", int64_t{r.events}).Field("first_track", int64_t{r.first_track});
    w.Field("tracks", int64_t{r.tracks}).EndObject();
  }
  w.EndArray();
  w.Key("clock_offsets").BeginArray();
  for (size_t k = 0; k < run.clock_offsets().size(); ++k) {
    w.BeginObject().Field("rank", run.ranks()[k].rank).Field("offset_ns", run.clock_offsets()[k]);
    w.Field("source", "stragglers").EndObject();
  }
  w.EndArray();
  if (run.clock_offsets().empty()) w.Field("clock_offsets_note", run.clock_note());
}

}  // namespace

std::string RunsJson(const std::vector<std::unique_ptr<ServeRun>>& runs,
                     const std::vector<bool>* visible) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Key("runs").BeginArray();
    for (size_t i = 0; i < runs.size(); ++i) {
      if (visible && !(*visible)[i]) continue;
      const ServeRun& run = *runs[i];
      const bool ready = run.ready();
      const RunOverview* early = ready ? nullptr : run.overview();
      w.BeginObject().Field("run", static_cast<int64_t>(i)).Field("name", run.name());
      int64_t events = 0, origin = 0, end = 0;
      std::string key;
      if (ready) {
        events = static_cast<int64_t>(run.graph().events.size());
        origin = run.origin_ns();
        end = run.end_rel_ns();
        key = run.content_key();
      } else if (early) {
        events = static_cast<int64_t>(early->events);
        origin = early->origin_ns;
        end = early->end_rel_ns;
        key = early->content_key;
      }
      w.Field("events", events).Field("origin_ns", std::to_string(origin));
      w.Field("end_ns", end).Field("content_key", key);
      w.Field("ready", ready).Field("overview_ready", ready || early != nullptr).EndObject();
    }
    w.EndArray().EndObject();
  }
  return out.str();
}

std::string MetaJsonHead(size_t number, const std::string& name) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Field("run", static_cast<int64_t>(number)).Field("name", name).EndObject();
  }
  std::string head = out.str();
  head.back() = ',';  // the closing brace
  return head;
}

std::string MetaJsonTail(const ServeRun& run) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Field("run", int64_t{0}).Field("name", "");
    w.Field("origin_ns", std::to_string(run.origin_ns())).Field("end_ns", run.end_rel_ns());
    w.Field("events", static_cast<int64_t>(run.graph().events.size()));
    w.Field("indexed_events", static_cast<int64_t>(run.index().indexed_events()));
    w.Field("content_key", run.content_key());
    WriteTracks(run, w);
    WriteRows(run.index(), w);
    WriteSteps(run, w);
    if (run.ranks().size() > 1) WriteRanks(run, w);
    w.EndObject();
  }
  return out.str().substr(MetaJsonHead(0, "").size());
}

std::string MetaJson(const ServeRun& run, size_t number) {
  return MetaJsonHead(number, run.name()) + MetaJsonTail(run);
}

}  // namespace th::serve
