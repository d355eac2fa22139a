// critical-path: the longest chain of dependent work in each step, per rank
// by Holistic Trace Analysis' rules (rank_graph.h) and across ranks through
// a barrier per collective (cross_rank.h). Publishes per step the path
// length, its split by category and by rank, the gating rank of each
// collective and the events on the path; checks that the path length plus
// the waits on it equals the elapsed time.
#include <tracehound/sdk.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "beside.h"
#include "cp_graph.h"
#include "cross_rank.h"
#include "in_order.h"
#include "int_rows.h"
#include "path_summary.h"
#include "rank_graph.h"
#include "rank_path.h"
#include "trace_index.h"
#include "what_if.h"

namespace {

using th::critical_path::Barrier;
using th::critical_path::Category;
using th::critical_path::Graph;
using th::critical_path::IntRows;
using th::critical_path::LongestPath;
using th::critical_path::PathSummary;
using th::critical_path::RankGraph;
using th::critical_path::TraceIndex;
using th::critical_path::Window;
using th::critical_path::WindowPath;
using th::critical_path::Workspace;
using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Schema;

Schema PathTable() {
  return Schema("critical_path", "per step: the longest path, per rank and across ranks (rank -1)")
      .Int("step", "", "ProfilerStep number (else the annotation's instance)")
      .Int("rank", "", "-1: the path across ranks")
      .Int("path", "ns", "measured: sum of the measured durations on the path")
      .Int("late_start", "ns",
           "inferred: across ranks, how late the path's rank entered the step (clocks aligned "
           "on the collectives' ends); 0 per rank")
      .Int("waits", "ns", "measured: time between the path's instants no duration counts")
      .Int("elapsed", "ns", "measured: last - first instant (across ranks: path + waits)")
      .Int("events", "count", "events with an instant on the path")
      .Int("sync_edges", "count", "synchronisation edges in the graph")
      .Int("inferred_sync_edges", "count",
           "of them inferred from timing (a trace without CUDA sync events)");
}
Schema CategoryTable() {
  return Schema("critical_path_categories", "per step and rank: the path by category")
      .Int("step")
      .Int("rank", "", "-1: the path across ranks")
      .Text("category",
            "compute, communication, launch_overhead, kernel_gap, host, late_start, idle")
      .Text("hta_bound", "HTA's bound_by name of the category")
      .Int("time", "ns", "measured (late_start: inferred)");
}
Schema RankShareTable() {
  return Schema("critical_path_ranks", "per step: the path across ranks, by rank")
      .Int("step")
      .Int("rank")
      .Int("time", "ns",
           "the path's time on this rank (transfers: the gating rank's; its late start is "
           "inferred, the rest measured)");
}
Schema CollectiveTable() {
  return Schema("critical_path_collectives", "per step: the gating rank of each collective")
      .Int("step")
      .Int("collective", "", "id in the collectives table")
      .Int("gating_rank", "", "the rank whose path into the collective is longest")
      .Int("lead", "ns",
           "how much longer than the next rank's path (inferred when a late start is on it)")
      .Int("transfer", "ns", "measured: shortest duration among the ranks")
      .Int("on_path", "", "1 when the collective is on the path across ranks");
}
Schema EventTable() {
  return Schema("critical_path_events", "per step and rank: events with an instant on the path")
      .Int("step")
      .Int("rank", "", "-1: on the path across ranks")
      .Int("event_rank", "", "the rank the event belongs to")
      .Int("event", "", "event row")
      .Int("ts", "ns")
      .Int("dur", "ns")
      .Int("time", "ns", "measured: the path's time attributed to the event")
      .Text("name");
}

Schema WhatIfTable() {
  return Schema("critical_path_whatif",
                "per step and rank: the longest path with one category's weights at 0")
      .Int("step")
      .Int("rank", "", "-1: the path across ranks")
      .Text("category", "compute, communication, launch_overhead, kernel_gap, host")
      .Int("path_before", "ns", "measured: the path's length")
      .Int("path_after", "ns", "inferred: the longest path with this category's weights at 0");
}
Schema SpanTable() {
  return Schema("critical_path_spans", "per step and rank: the path's length by event and category")
      .Int("step")
      .Int("rank", "", "-1: the path across ranks")
      .Int("event_rank", "", "the rank the time belongs to (a transfer: the gating rank)")
      .Int("event", "", "event row; -1: a collective's transfer (no single event)")
      .Text("category", "compute, communication, launch_overhead, kernel_gap, host")
      .Int("time", "ns", "measured");
}

// Worker threads when the option says 0: each keeps 4 bytes per event of
// every trace, so more would raise the plugin's peak memory.
constexpr unsigned kMaxAutoThreads = 4;

struct StepWindow {
  int64_t step = 0;
  Window window;
};

// The instances of `annotation` (ix.annotated(): host events whose name holds
// it), by start; the whole trace for "". Step: N of "...#N", else the
// instance's index; the first instance of a step number counts.
std::vector<StepWindow> Windows(const th::sdk::Trace& t, const TraceIndex& ix,
                                const std::string& annotation, int64_t instance) {
  std::vector<StepWindow> out;
  if (annotation.empty()) {
    StepWindow w{0, {INT64_MAX, INT64_MIN}};
    for (uint64_t i = 0; i < t.size(); ++i) {
      if (t.kind(i) == TH_EVENT_METADATA || t.kind(i) == TH_EVENT_FLOW) continue;
      w.window.begin = std::min(w.window.begin, t.ts(i));
      w.window.end = std::max(w.window.end, t.end(i));
    }
    if (w.window.begin <= w.window.end) out.push_back(w);
    return out;
  }
  std::vector<uint32_t> found = ix.annotated();
  std::set<int64_t> seen;
  std::stable_sort(found.begin(), found.end(),
                   [&](uint32_t a, uint32_t b) { return t.ts(a) < t.ts(b); });
  for (size_t k = 0; k < found.size(); ++k) {
    if (instance >= 0 && static_cast<int64_t>(k) != instance) continue;
    const std::string_view n = t.name(found[k]);
    int64_t step = static_cast<int64_t>(k);
    const size_t hash = n.rfind('#');
    if (hash != std::string_view::npos && hash + 1 < n.size()) {
      int64_t v = 0;
      bool digits = true;
      for (char ch : n.substr(hash + 1)) {
        if (ch < '0' || ch > '9')
          digits = false;
        else
          v = v * 10 + (ch - '0');
      }
      if (digits) step = v;
    }
    if (seen.insert(step).second) out.push_back({step, {t.ts(found[k]), t.end(found[k])}});
  }
  return out;
}

// Rows of every table, appended window by window, and the invariant's tally.
struct Rows {
  int64_t paths = 0, failed = 0;
  std::string first_failure;
  std::vector<int64_t> p_step, p_rank, p_path, p_late, p_waits, p_elapsed, p_events, p_sync,
      p_inferred;
  std::vector<int64_t> c_step, c_rank, c_time;
  std::vector<const char*> c_cat, c_bound;  // static names
  std::vector<int64_t> r_step, r_rank, r_time;
  std::vector<int64_t> k_step, k_id, k_gating, k_lead, k_transfer, k_on;
  // The two large tables' integer columns: in the host's memory once sized.
  IntRows e_step, e_rank, e_event_rank, e_event, e_ts, e_dur, e_time;
  std::vector<const char*> e_name;  // the traces' own names (NUL-terminated), valid through the run
  // Per trace slot, per name id: its text (nullptr: not looked up yet).
  std::vector<std::vector<const char*>> names;
  std::vector<int64_t> w_step, w_rank, w_before, w_after;
  std::vector<const char*> w_cat;
  IntRows s_step, s_rank, s_event_rank, s_event, s_time;
  std::vector<const char*> s_cat;
  // Appends the rows of `other` (the paths across ranks), table by table.
  void Append(const Rows& o) {
    auto add = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
    for (auto [to, from] : {std::pair{&p_step, &o.p_step},
                            {&p_rank, &o.p_rank},
                            {&p_path, &o.p_path},
                            {&p_late, &o.p_late},
                            {&p_waits, &o.p_waits},
                            {&p_elapsed, &o.p_elapsed},
                            {&p_events, &o.p_events},
                            {&p_sync, &o.p_sync},
                            {&p_inferred, &o.p_inferred},
                            {&c_step, &o.c_step},
                            {&c_rank, &o.c_rank},
                            {&c_time, &o.c_time},
                            {&r_step, &o.r_step},
                            {&r_rank, &o.r_rank},
                            {&r_time, &o.r_time},
                            {&k_step, &o.k_step},
                            {&k_id, &o.k_id},
                            {&k_gating, &o.k_gating},
                            {&k_lead, &o.k_lead},
                            {&k_transfer, &o.k_transfer},
                            {&k_on, &o.k_on},
                            {&w_step, &o.w_step},
                            {&w_rank, &o.w_rank},
                            {&w_before, &o.w_before},
                            {&w_after, &o.w_after}})
      add(*to, *from);
    for (auto [to, from] : {std::pair{&c_cat, &o.c_cat},
                            {&c_bound, &o.c_bound},
                            {&e_name, &o.e_name},
                            {&w_cat, &o.w_cat},
                            {&s_cat, &o.s_cat}})
      add(*to, *from);
    for (auto [to, from] : {std::pair{&e_step, &o.e_step},
                            {&e_rank, &o.e_rank},
                            {&e_event_rank, &o.e_event_rank},
                            {&e_event, &o.e_event},
                            {&e_ts, &o.e_ts},
                            {&e_dur, &o.e_dur},
                            {&e_time, &o.e_time},
                            {&s_step, &o.s_step},
                            {&s_rank, &o.s_rank},
                            {&s_event_rank, &o.s_event_rank},
                            {&s_event, &o.s_event},
                            {&s_time, &o.s_time}})
      to->Append(*from);
  }
  // Room for `paths` paths; the events table's integer columns but its time
  // sized to exactly `events` rows, in the host's memory (before any row).
  // The rest: SizeSecond.
  void Size(const Context& ctx, size_t paths, size_t events) {
    for (auto* v : {&p_step, &p_rank, &p_path, &p_late, &p_waits, &p_elapsed, &p_events, &p_sync,
                    &p_inferred})
      v->reserve(paths);
    for (auto* v : {&c_step, &c_rank, &c_time}) v->reserve(7 * paths);
    for (auto* v : {&c_cat, &c_bound}) v->reserve(7 * paths);
    if (this->events) {
      for (auto* c : {&e_step, &e_rank, &e_event_rank, &e_event, &e_ts, &e_dur})
        c->Allocate(ctx, events);
      e_name.reserve(events);
    }
  }
  // The events table's time column (`events` rows), the what-if table's
  // room and the spans table's integer columns (`spans` rows): the host's
  // memory, whose first touch is the cost, so this runs on the thread that
  // fills them while Size's columns are filled (six columns each).
  void SizeSecond(const Context& ctx, size_t paths, size_t events, size_t spans) {
    if (this->events) e_time.Allocate(ctx, events);
    if (!what_if) return;
    for (auto* v : {&w_step, &w_rank, &w_before, &w_after}) v->reserve(5 * paths);
    w_cat.reserve(5 * paths);
    for (auto* c : {&s_step, &s_rank, &s_event_rank, &s_event, &s_time}) c->Allocate(ctx, spans);
    s_cat.reserve(spans);
  }
  bool what_if = true;  // the what-if and spans rows
  bool events = true;   // the critical_path_events rows
  Workspace across;     // the paths across ranks' buffers
};

class CriticalPath final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("critical-path", "1.0.0", th::sdk::kAnalyzer,
                       "The critical path of each step: per rank by Holistic Trace Analysis' "
                       "rules, across ranks through a barrier per collective; its length by "
                       "category and by rank, the gating rank of each collective")
        .Reads({"events", "tracks", "gpu_args", "gpu_activity", "event_launches", "name_classes",
                "class_rules", "collectives", "collective_ranks"})
        .Publishes(PathTable())
        .Publishes(CategoryTable())
        .Publishes(RankShareTable())
        .Publishes(CollectiveTable())
        .Publishes(EventTable())
        .Publishes(WhatIfTable())
        .Publishes(SpanTable())
        .Option("annotation", "ProfilerStep",
                "the windows: instances of the events whose name holds this text ('': the "
                "whole trace)")
        .Option("instance", int64_t{-1}, "only this instance of the annotation (-1: all)")
        .Min(-1)
        .Option("infer_sync", true,
                "in a trace without CUDA sync events, infer sync edges from timing: a blocking "
                "call waits for the GPU activity that ended last within it; cudaStreamWaitEvent "
                "makes the next launch wait for the activity recorded before it")
        .Option("across_ranks", true,
                "also the path across ranks, through the collectives the collectives plugin "
                "matched")
        .Option("what_if", true,
                "the what-if and spans tables (each path again with one category at 0; the "
                "path by event and category), what the report ranks changes by")
        .Option("events", true,
                "the critical_path_events table (every event on each path, what a viewer "
                "highlights); false: the table is empty (the other tables are unchanged)")
        .Option("threads", int64_t{0},
                "threads the per-rank paths of the windows are computed on (0: the machine's "
                "cores, at most 4: each holds 4 bytes per event); the tables are the same "
                "whatever the count")
        .Min(0);
  }

  void Run(Context& ctx) override {
    const auto& traces = ctx.traces();
    const std::string annotation = ctx.GetString("annotation");
    const int64_t instance = ctx.GetInt("instance");
    std::vector<std::unique_ptr<TraceIndex>> index;
    std::vector<const TraceIndex*> index_ptr;
    std::vector<std::vector<StepWindow>> windows;
    const bool with_paths_across = ctx.GetBool("across_ranks") && traces.size() > 1;
    for (const auto& t : traces) {
      index.push_back(std::make_unique<TraceIndex>(t, annotation, with_paths_across));
      index_ptr.push_back(index.back().get());
      windows.push_back(Windows(t, *index.back(), annotation, instance));
      ReportMissingSync(ctx, t, *index.back(), ctx.GetBool("infer_sync"));
    }
    WarnWithoutWindows(ctx, traces, annotation, windows);
    Rows rows;
    rows.what_if = ctx.GetBool("what_if");
    rows.events = ctx.GetBool("events");
    const bool infer = ctx.GetBool("infer_sync");
    std::vector<std::pair<uint32_t, const StepWindow*>> items;  // (slot, window), in order
    for (uint32_t s = 0; s < traces.size(); ++s)
      for (const StepWindow& w : windows[s]) items.emplace_back(s, &w);
    size_t threads = static_cast<size_t>(ctx.GetInt("threads"));
    if (threads == 0)
      threads = std::clamp(std::thread::hardware_concurrency(), 1u, kMaxAutoThreads);
    std::vector<Workspace> workspaces;
    std::vector<WindowPath> done(items.size());  // each window's path, kept for the rows
    th::critical_path::RunInOrder<Workspace, WindowPath>(
        items.size(), threads, workspaces,
        [&](size_t i, Workspace& ws, WindowPath& out) {
          const auto& [slot, w] = items[i];
          th::critical_path::RankPath(traces, *index[slot], slot, w->window, infer, rows.what_if,
                                      &ws, &out);
        },
        [&](size_t i, WindowPath& path) {
          CheckRank(ctx, traces[items[i].first], *items[i].second, path, rows);
          done[i] = std::move(path);
        });
    workspaces.clear();
    // The paths across ranks first, so that the large tables' columns are
    // sized once for every row: the per-rank rows, then those across ranks.
    Rows across_ranks;
    across_ranks.what_if = rows.what_if;
    across_ranks.events = rows.events;
    if (with_paths_across) AcrossRanks(ctx, traces, index_ptr, windows, infer, across_ranks);
    // The index is done with: freed before the rows' columns are allocated,
    // which may then take its memory instead of fresh pages.
    index_ptr.clear();
    index.clear();
    AddRankRows(ctx, traces, items, done, across_ranks, rows);
    done.clear();
    rows.Append(across_ranks);
    if (rows.paths > 0)
      ctx.Check("critical path: path + waits = elapsed", rows.failed == 0,
                std::to_string(rows.paths - rows.failed) + " of " + std::to_string(rows.paths) +
                    " per-rank paths" + rows.first_failure);
    Publish(ctx, std::move(rows));
  }

 private:
  static void ReportMissingSync(Context& ctx, const th::sdk::Trace& t, const TraceIndex& ix,
                                bool infer) {
    if (ix.has_sync_events()) return;
    th::sdk::Scope scope;
    scope.rank = t.rank();
    ctx.Add(th::sdk::Finding(
                th::sdk::kInfo,
                "critical path without synchronisation edges on rank " + std::to_string(t.rank()))
                .What(std::string("the trace has no CUDA synchronisation events (cuda_sync: "
                                  "stream, device and event syncs, stream waits), so the "
                                  "critical path has no recorded GPU-to-host or "
                                  "stream-to-stream sync edges; it is still computed") +
                      (infer ? ", with sync edges inferred from timing (infer_sync)"
                             : ", and a host call that waits on the GPU counts as a wait"))
                .Suggest("capture with PyTorch >= 2.1 and "
                         "experimental_config=_ExperimentalConfig(enable_cuda_sync_events=True)")
                .In(scope)
                .Group("critical path without sync edges"));
  }

  // A trace without an instance of the annotation (a JAX capture, a trace
  // without ProfilerStep) has no window: a warning names it and the remedy,
  // never an empty result without a word. (Not the whole trace instead: on an
  // XSpace capture the host spans enclose the device's work, and a path by
  // HTA's rules would read "host-bound" by construction.)
  static void WarnWithoutWindows(Context& ctx, const std::vector<th::sdk::Trace>& traces,
                                 const std::string& annotation,
                                 const std::vector<std::vector<StepWindow>>& windows) {
    if (annotation.empty()) return;
    for (size_t s = 0; s < traces.size(); ++s)
      if (windows[s].empty())
        ctx.Warn("rank " + std::to_string(traces[s].rank()) + ": no host event whose name holds '" +
                 annotation + "', so no window and no critical path (annotation: \"\" takes the " +
                 "whole trace)");
  }

  // Warns when a window has no path; tallies the invariant.
  static void CheckRank(Context& ctx, const th::sdk::Trace& t, const StepWindow& w,
                        const WindowPath& path, Rows& rows) {
    if (!path.ok) {
      ctx.Warn("rank " + std::to_string(t.rank()) + " step " + std::to_string(w.step) + ": " +
               path.error + "; no critical path");
      return;
    }
    const PathSummary& sum = path.summary;
    ++rows.paths;
    if (sum.length + sum.waits != sum.elapsed && rows.failed++ == 0)
      rows.first_failure = "; first: rank " + std::to_string(t.rank()) + " step " +
                           std::to_string(w.step) + ": " + std::to_string(sum.length) + " ns + " +
                           std::to_string(sum.waits) + " ns vs " + std::to_string(sum.elapsed) +
                           " ns";
  }

  // The rows of the per-rank paths, in window order, into columns sized once:
  // the what-if and span rows on a thread of their own (they read no name;
  // the host's column_buffer is the one host call it makes: any thread may).
  static void AddRankRows(const Context& ctx, const std::vector<th::sdk::Trace>& traces,
                          const std::vector<std::pair<uint32_t, const StepWindow*>>& items,
                          const std::vector<WindowPath>& done, const Rows& across, Rows& rows) {
    size_t paths = 0, events = 0, spans = 0;
    for (const WindowPath& p : done) {
      if (!p.ok) continue;
      ++paths;
      events += p.summary.events.size();
      spans += p.spans.size();
    }
    th::critical_path::RunBeside(
        [&] {
          rows.SizeSecond(ctx, paths + across.p_step.size(), events + across.e_step.size(),
                          spans + across.s_step.size());
          for (size_t i = 0; i < done.size(); ++i) {
            if (!done[i].ok) continue;
            AddEventTimes(done[i].summary, rows);
            AddWhatIf(traces, items[i].second->step, traces[items[i].first].rank(), done[i].length,
                      done[i].without, done[i].spans, rows);
          }
        },
        [&] {
          rows.Size(ctx, paths + across.p_step.size(), events + across.e_step.size());
          for (size_t i = 0; i < done.size(); ++i)
            if (done[i].ok)
              AddPath(traces, items[i].second->step, traces[items[i].first].rank(), done[i].summary,
                      done[i].sync_edges, done[i].inferred_sync_edges,
                      /*times=*/false, rows);
        });
  }

  static void AcrossRanks(Context& ctx, const std::vector<th::sdk::Trace>& traces,
                          const std::vector<const TraceIndex*>& index,
                          const std::vector<std::vector<StepWindow>>& windows, bool infer,
                          Rows& rows);

  // The rows of one path: its own, by category, and its events (their
  // times too when `times`; else AddEventTimes writes them).
  static void AddPath(const std::vector<th::sdk::Trace>& traces, int64_t step, int64_t rank,
                      const PathSummary& sum, int64_t sync_edges, int64_t inferred, bool times,
                      Rows& rows) {
    rows.p_step.push_back(step);
    rows.p_rank.push_back(rank);
    const int64_t late = sum.by_category[static_cast<int>(Category::kLateStart)];
    rows.p_path.push_back(sum.length - late);
    rows.p_late.push_back(late);
    rows.p_waits.push_back(sum.waits);
    rows.p_elapsed.push_back(sum.elapsed);
    rows.p_events.push_back(static_cast<int64_t>(sum.events.size()));
    rows.p_sync.push_back(sync_edges);
    rows.p_inferred.push_back(inferred);
    for (Category cat :
         {Category::kCompute, Category::kCommunication, Category::kLaunchOverhead,
          Category::kKernelGap, Category::kHost, Category::kLateStart, Category::kNone}) {
      rows.c_step.push_back(step);
      rows.c_rank.push_back(rank);
      rows.c_cat.push_back(th::critical_path::CategoryName(cat));
      rows.c_bound.push_back(th::critical_path::HtaBoundName(cat));
      rows.c_time.push_back(cat == Category::kNone ? sum.waits
                                                   : sum.by_category[static_cast<int>(cat)]);
    }
    if (!rows.events) return;
    const size_t n = sum.events.size();
    int64_t* const e_step = rows.e_step.Extend(n);
    int64_t* const e_rank = rows.e_rank.Extend(n);
    int64_t* const e_event_rank = rows.e_event_rank.Extend(n);
    int64_t* const e_event = rows.e_event.Extend(n);
    int64_t* const e_ts = rows.e_ts.Extend(n);
    int64_t* const e_dur = rows.e_dur.Extend(n);
    if (times) AddEventTimes(sum, rows);
    rows.names.resize(traces.size());
    for (size_t i = 0; i < n; ++i) {
      const uint32_t slot = sum.events[i].slot, event = sum.events[i].event;
      const th::sdk::Trace& t = traces[slot];
      e_step[i] = step;
      e_rank[i] = rank;
      e_event_rank[i] = t.rank();
      e_event[i] = event;
      e_ts[i] = t.ts(event);
      e_dur[i] = t.dur(event);
      std::vector<const char*>& names = rows.names[slot];
      const uint32_t id = t.name_id(event);
      if (id >= names.size()) names.resize(std::max<size_t>(id + 1, 2 * names.size()), nullptr);
      if (names[id] == nullptr) names[id] = t.String(id).data();
      rows.e_name.push_back(names[id]);
    }
  }

  // The time column of one path's event rows.
  static void AddEventTimes(const PathSummary& sum, Rows& rows) {
    if (!rows.events) return;
    int64_t* const e_time = rows.e_time.Extend(sum.events.size());
    for (size_t i = 0; i < sum.events.size(); ++i) e_time[i] = sum.events[i].time;
  }

  // The what-if rows of one path (one per category) and its spans.
  static void AddWhatIf(const std::vector<th::sdk::Trace>& traces, int64_t step, int64_t rank,
                        int64_t length, const std::array<int64_t, 6>& without,
                        const std::vector<th::critical_path::PathSpan>& spans, Rows& rows) {
    if (!rows.what_if) return;
    for (Category c : {Category::kCompute, Category::kCommunication, Category::kLaunchOverhead,
                       Category::kKernelGap, Category::kHost}) {
      rows.w_step.push_back(step);
      rows.w_rank.push_back(rank);
      rows.w_cat.push_back(th::critical_path::CategoryName(c));
      rows.w_before.push_back(length);
      rows.w_after.push_back(without[static_cast<size_t>(c)]);
    }
    const size_t n = spans.size();
    int64_t* const s_step = rows.s_step.Extend(n);
    int64_t* const s_rank = rows.s_rank.Extend(n);
    int64_t* const s_event_rank = rows.s_event_rank.Extend(n);
    int64_t* const s_event = rows.s_event.Extend(n);
    int64_t* const s_time = rows.s_time.Extend(n);
    for (size_t i = 0; i < n; ++i) {
      const th::critical_path::PathSpan& span = spans[i];
      s_step[i] = step;
      s_rank[i] = rank;
      s_event_rank[i] = traces[span.slot].rank();
      s_event[i] = span.event == th::critical_path::kNone ? -1 : int64_t{span.event};
      s_time[i] = span.time;
      rows.s_cat.push_back(th::critical_path::CategoryName(span.category));
    }
  }

  static void Publish(Context& ctx, Rows r);
};

void CriticalPath::AcrossRanks(Context& ctx, const std::vector<th::sdk::Trace>& traces,
                               const std::vector<const TraceIndex*>& index,
                               const std::vector<std::vector<StepWindow>>& windows, bool infer,
                               Rows& rows) {
  const auto collectives = th::critical_path::ReadCollectives(ctx.FindTable("collectives"),
                                                              ctx.FindTable("collective_ranks"));
  if (collectives.empty()) return;
  std::map<int64_t, uint32_t> slot_of_rank;
  for (uint32_t s = 0; s < traces.size(); ++s) slot_of_rank[traces[s].rank()] = s;
  const auto offsets = th::critical_path::ClockOffsets(collectives, slot_of_rank);
  std::map<int64_t, std::vector<std::pair<uint32_t, Window>>> by_step;
  for (uint32_t s = 0; s < traces.size(); ++s)
    for (const StepWindow& w : windows[s]) by_step[w.step].emplace_back(s, w.window);
  Workspace& ws = rows.across;
  th::critical_path::PrepareScratch(traces, &ws);
  Graph& g = ws.graph;
  for (const auto& [step, members] : by_step) {
    if (members.size() < 2) continue;
    g.Clear();
    std::vector<RankGraph> ranks;
    int64_t sync_edges = 0, inferred = 0;
    for (const auto& [slot, w] : members) {
      ranks.push_back(BuildRankGraph(traces[slot], *index[slot], w, slot, infer, &ws.scratch[slot],
                                     &g, &ws.build));
      sync_edges += ranks.back().sync_edges;
      inferred += ranks.back().inferred_sync_edges;
    }
    const std::vector<Barrier> barriers =
        th::critical_path::AddBarriers(collectives, ranks, index, slot_of_rank, &g);
    if (!barriers.empty()) th::critical_path::AddStartEdges(ranks, offsets, &g);
    for (RankGraph& rg : ranks) rg.Release();
    if (barriers.empty()) continue;
    LongestPath& p = ws.path;
    std::string error;
    const bool acyclic = ws.order.Compute(g);
    std::array<int64_t, 6> without{};
    if (rows.what_if && acyclic)
      without = ws.what_if.PathAndLengthsWithout(g, ws.order, &p);
    else if (!th::critical_path::FindLongestPath(g, ws.order, acyclic, &p, &error)) {
      ctx.Warn("step " + std::to_string(step) + " across ranks: " + error);
      continue;
    }
    std::map<uint32_t, uint32_t> transfer_slot;
    std::vector<bool> on_path(g.edges().size(), false);
    for (uint32_t k : p.edges) on_path[k] = true;
    for (const Barrier& b : barriers) {
      const auto gating = th::critical_path::GatingOf(g, p, b);
      transfer_slot[b.transfer_edge] = static_cast<uint32_t>(gating.slot);
      rows.k_step.push_back(step);
      rows.k_id.push_back(b.id);
      rows.k_gating.push_back(traces[gating.slot].rank());
      rows.k_lead.push_back(gating.lead);
      rows.k_transfer.push_back(b.transfer);
      rows.k_on.push_back(on_path[b.transfer_edge] ? 1 : 0);
    }
    const PathSummary sum = th::critical_path::Summarize(g, p, transfer_slot, &ws.scratch);
    AddPath(traces, step, -1, sum, sync_edges, inferred, /*times=*/true, rows);
    if (rows.what_if)
      AddWhatIf(traces, step, -1, p.length, without,
                th::critical_path::SpansOf(g, p, transfer_slot, &ws.scratch, &ws.span_next), rows);
    for (const auto& [slot, time] : sum.by_rank_slot) {
      rows.r_step.push_back(step);
      rows.r_rank.push_back(traces[slot].rank());
      rows.r_time.push_back(time);
    }
  }
}

void CriticalPath::Publish(Context& ctx, Rows r) {
  // One table at a time: its columns are freed once the host has copied them.
  {
    th::sdk::Table path("critical_path");
    path.Int("step", std::move(r.p_step))
        .Int("rank", std::move(r.p_rank))
        .Int("path", std::move(r.p_path), "ns")
        .Int("late_start", std::move(r.p_late), "ns")
        .Int("waits", std::move(r.p_waits), "ns")
        .Int("elapsed", std::move(r.p_elapsed), "ns")
        .Int("events", std::move(r.p_events), "count")
        .Int("sync_edges", std::move(r.p_sync), "count")
        .Int("inferred_sync_edges", std::move(r.p_inferred), "count");
    ctx.Publish(path);
  }
  {
    th::sdk::Table cats("critical_path_categories");
    cats.Int("step", std::move(r.c_step))
        .Int("rank", std::move(r.c_rank))
        .CStrings("category", std::move(r.c_cat))
        .CStrings("hta_bound", std::move(r.c_bound))
        .Int("time", std::move(r.c_time), "ns");
    ctx.Publish(cats);
  }
  {
    th::sdk::Table ranks("critical_path_ranks");
    ranks.Int("step", std::move(r.r_step))
        .Int("rank", std::move(r.r_rank))
        .Int("time", std::move(r.r_time), "ns");
    ctx.Publish(ranks);
  }
  {
    th::sdk::Table coll("critical_path_collectives");
    coll.Int("step", std::move(r.k_step))
        .Int("collective", std::move(r.k_id))
        .Int("gating_rank", std::move(r.k_gating))
        .Int("lead", std::move(r.k_lead), "ns")
        .Int("transfer", std::move(r.k_transfer), "ns")
        .Int("on_path", std::move(r.k_on));
    ctx.Publish(coll);
  }
  {
    th::sdk::Table events("critical_path_events");
    std::move(r.e_step).AddTo(events, "step");
    std::move(r.e_rank).AddTo(events, "rank");
    std::move(r.e_event_rank).AddTo(events, "event_rank");
    std::move(r.e_event).AddTo(events, "event");
    std::move(r.e_ts).AddTo(events, "ts", "ns");
    std::move(r.e_dur).AddTo(events, "dur", "ns");
    std::move(r.e_time).AddTo(events, "time", "ns");
    events.CStrings("name", std::move(r.e_name));
    ctx.Publish(events);
  }
  {
    th::sdk::Table what_if("critical_path_whatif");
    what_if.Int("step", std::move(r.w_step))
        .Int("rank", std::move(r.w_rank))
        .CStrings("category", std::move(r.w_cat))
        .Int("path_before", std::move(r.w_before), "ns")
        .Int("path_after", std::move(r.w_after), "ns");
    ctx.Publish(what_if);
  }
  {
    th::sdk::Table spans("critical_path_spans");
    std::move(r.s_step).AddTo(spans, "step");
    std::move(r.s_rank).AddTo(spans, "rank");
    std::move(r.s_event_rank).AddTo(spans, "event_rank");
    std::move(r.s_event).AddTo(spans, "event");
    spans.CStrings("category", std::move(r.s_cat));
    std::move(r.s_time).AddTo(spans, "time", "ns");
    ctx.Publish(spans);
  }
}

}  // namespace

TH_PLUGIN(CriticalPath)
