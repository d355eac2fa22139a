#include "core/report/path_changes.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "core/report/figure_text.h"
#include "core/report/finding_groups.h"

namespace th {
namespace {

template <typename T>
const std::vector<T>* ColumnOf(const DerivedTable& t, std::string_view name) {
  const DerivedColumn* c = t.Find(name);
  return c ? std::get_if<std::vector<T>>(&c->values) : nullptr;
}
const TextColumn* TextOf(const DerivedTable& t, std::string_view name) {
  const DerivedColumn* c = t.Find(name);
  return c ? std::get_if<TextColumn>(&c->values) : nullptr;
}

// One per-rank step path and the what-if of each category.
struct PathRow {
  int64_t step = 0, rank = 0, path = 0, elapsed = 0;
  std::map<std::string, int64_t> category_time, what_if;
  std::vector<size_t> spans;  // rows of critical_path_spans
};

struct Spans {
  const std::vector<int64_t>*event_rank = nullptr, *event = nullptr, *time = nullptr;
  const TextColumn* category = nullptr;
};

// Reads the critical-path tables; false when one is missing.
bool ReadPaths(const PluginResults& results, std::vector<PathRow>* paths, Spans* spans) {
  auto table = [&](const char* name) {
    auto it = results.tables.find(name);
    return it == results.tables.end() ? nullptr : &it->second;
  };
  const DerivedTable *p = table("critical_path"), *w = table("critical_path_whatif"),
                     *s = table("critical_path_spans"), *c = table("critical_path_categories");
  if (!p || !w || !s || !c) return false;
  auto ps = ColumnOf<int64_t>(*p, "step"), pr = ColumnOf<int64_t>(*p, "rank"),
       pp = ColumnOf<int64_t>(*p, "path"), pe = ColumnOf<int64_t>(*p, "elapsed");
  auto ws = ColumnOf<int64_t>(*w, "step"), wr = ColumnOf<int64_t>(*w, "rank"),
       wa = ColumnOf<int64_t>(*w, "path_after");
  auto wc = TextOf(*w, "category");
  auto cs = ColumnOf<int64_t>(*c, "step"), cr = ColumnOf<int64_t>(*c, "rank"),
       ct = ColumnOf<int64_t>(*c, "time");
  auto cc = TextOf(*c, "category");
  auto ss = ColumnOf<int64_t>(*s, "step"), sr = ColumnOf<int64_t>(*s, "rank");
  spans->event_rank = ColumnOf<int64_t>(*s, "event_rank");
  spans->event = ColumnOf<int64_t>(*s, "event");
  spans->time = ColumnOf<int64_t>(*s, "time");
  spans->category = TextOf(*s, "category");
  if (!ps || !pr || !pp || !pe || !ws || !wr || !wa || !wc || !cs || !cr || !ct || !cc || !ss ||
      !sr || !spans->event_rank || !spans->event || !spans->time || !spans->category)
    return false;
  std::map<std::pair<int64_t, int64_t>, size_t> at;
  for (size_t i = 0; i < p->rows; ++i) {
    if ((*pr)[i] < 0) continue;  // the causes are placed on each rank's own path
    at[{(*ps)[i], (*pr)[i]}] = paths->size();
    paths->push_back({(*ps)[i], (*pr)[i], (*pp)[i], (*pe)[i], {}, {}, {}});
  }
  for (size_t i = 0; i < w->rows; ++i)
    if (auto it = at.find({(*ws)[i], (*wr)[i]}); it != at.end())
      (*paths)[it->second].what_if[std::string((*wc)[i])] = (*wa)[i];
  for (size_t i = 0; i < c->rows; ++i)
    if (auto it = at.find({(*cs)[i], (*cr)[i]}); it != at.end())
      (*paths)[it->second].category_time[std::string((*cc)[i])] = (*ct)[i];
  for (size_t i = 0; i < s->rows; ++i)
    if (auto it = at.find({(*ss)[i], (*sr)[i]}); it != at.end())
      (*paths)[it->second].spans.push_back(i);
  return true;
}

// What the report needs of an event on a path.
class EventLookup {
 public:
  explicit EventLookup(const TraceSet& set) {
    for (const auto& t : set.traces) by_rank_.emplace(t->info.rank, t.get());
  }
  const Trace* TraceOf(int64_t rank) const {
    auto it = by_rank_.find(rank);
    return it == by_rank_.end() ? nullptr : it->second;
  }

 private:
  std::map<int64_t, const Trace*> by_rank_;
};

// Whether a scope of the cause holds the path: its rank and its steps.
bool Reaches(const Finding& f, const PathRow& p) {
  if (f.scope.rank >= 0 && f.scope.rank != p.rank) return false;
  if (f.scope.step_first >= 0 && p.step < f.scope.step_first) return false;
  if (f.scope.step_last >= 0 && p.step > f.scope.step_last) return false;
  return true;
}

// Whether span `i` (category already matched) lies in a scope of `f`: its
// rank, stream (GPU events only) and time range. A span without an event (a
// transfer) lies only in scopes without stream and range.
bool InScope(const Finding& f, const Spans& s, size_t i, const EventLookup& events) {
  const int64_t rank = (*s.event_rank)[i], event = (*s.event)[i];
  if (f.scope.rank >= 0 && f.scope.rank != rank) return false;
  const Trace* t = events.TraceOf(rank);
  if (event < 0 || !t || static_cast<size_t>(event) >= t->graph.events.size())
    return f.scope.stream < 0 && !f.range;
  const EventGraph& g = t->graph;
  const auto e = static_cast<EventId>(event);
  const Track& track = g.tracks[g.events.track[e]];
  if (f.scope.stream >= 0 && track.kind == TrackKind::kGpuStream && track.stream != f.scope.stream)
    return false;
  if (f.range) {
    const int64_t ts = g.events.ts[e], end = ts + std::max<int64_t>(g.events.dur[e], 1);
    if (end <= f.range->first || ts > f.range->second) return false;
  }
  return true;
}

std::string_view EventName(const Spans& s, size_t i, const EventLookup& events) {
  const Trace* t = events.TraceOf((*s.event_rank)[i]);
  const int64_t e = (*s.event)[i];
  if (!t || e < 0 || static_cast<size_t>(e) >= t->graph.events.size()) return {};
  return t->graph.strings.Get(t->graph.events.name[static_cast<EventId>(e)]);
}

// The GPU kernels the group's findings name (in their title or text), among
// every kernel name of the traces; empty when they name none.
std::set<std::string_view> NamedKernels(const std::vector<const Finding*>& members,
                                        const TraceSet& set) {
  std::set<std::string_view> out;
  for (const auto& t : set.traces) {
    const EventGraph& g = t->graph;
    std::vector<bool> seen(g.strings.size(), false);
    for (EventId e = 0; e < g.events.size(); ++e) {
      if (g.events.kind[e] != EventKind::kKernel || seen[g.events.name[e]]) continue;
      seen[g.events.name[e]] = true;
      const std::string_view name = g.strings.Get(g.events.name[e]);
      if (name.size() < 4) continue;
      for (const Finding* f : members)
        if (f->title.find(name) != std::string::npos || f->what.find(name) != std::string::npos)
          out.insert(name);
    }
  }
  return out;
}

const char* CategoryWords(const std::string& c) {
  if (c == "compute") return "compute";
  if (c == "communication") return "communication";
  if (c == "launch_overhead") return "launch overhead";
  if (c == "kernel_gap") return "kernel-to-kernel gaps";
  return "host time";
}

const char* DefaultKnob(const std::string& c) {
  if (c == "launch_overhead" || c == "kernel_gap")
    return "CUDA graphs, or torch.compile(mode=\"reduce-overhead\"), to launch the small "
           "kernels at once";
  if (c == "communication")
    return "DDP/FSDP bucket size and overlap (bucket_cap_mb), so the collective runs under "
           "compute";
  if (c == "host")
    return "DataLoader(num_workers>0, pin_memory=True) and fewer host synchronisations";
  return "a faster kernel for the named ops (fusion, torch.compile, a tuned library kernel)";
}

// One path's figures for one cause.
struct PathFigures {
  const PathRow* path = nullptr;
  std::map<std::string, int64_t> covered;  // by category
  int64_t covered_ns = 0, path_after = 0;
  double share = 0;
};

PathFigures Figure(const PathRow& p, std::map<std::string, int64_t> covered) {
  PathFigures f{&p, std::move(covered), 0, p.path, 0};
  __int128 reduction = 0;
  for (const auto& [c, ns] : f.covered) {
    f.covered_ns += ns;
    const auto cat = p.category_time.find(c);
    const auto w = p.what_if.find(c);
    if (ns <= 0 || cat == p.category_time.end() || cat->second <= 0 || w == p.what_if.end())
      continue;
    // The what-if's saving, scaled to the cause's share of the category.
    reduction += static_cast<__int128>(p.path - w->second) * ns / cat->second;
  }
  f.path_after = std::max<int64_t>(0, p.path - static_cast<int64_t>(reduction));
  f.share = p.path > 0 ? static_cast<double>(f.covered_ns) / static_cast<double>(p.path) : 0;
  return f;
}

std::string Assumption(const PathFigures& f, const std::vector<std::string>& cats) {
  const PathRow& p = *f.path;
  const std::string where = " on the critical path of rank " + std::to_string(p.rank) + " (step " +
                            std::to_string(p.step) + ")";
  if (f.covered_ns == 0) return "none of its time is" + where + ": the step time does not change";
  std::string what, what_ifs;
  bool whole = true;
  int parts = 0;
  for (const std::string& c : cats) {
    const auto it = f.covered.find(c);
    if (it == f.covered.end() || it->second == 0) continue;
    ++parts;
    what += (what.empty() ? "the " : " and the ") +
            FigureText(static_cast<double>(it->second), "ns") + " of " + CategoryWords(c);
    const auto w = p.what_if.find(c);
    if (w != p.what_if.end())
      what_ifs += std::string(what_ifs.empty() ? "" : "; ") + "without any " + CategoryWords(c) +
                  ": " + FigureText(static_cast<double>(w->second), "ns");
    const auto cat = p.category_time.find(c);
    whole &= cat != p.category_time.end() && cat->second == it->second;
  }
  const std::string out = what + where + (parts > 1 ? " disappear" : " disappears");
  const std::string after =
      ": the step takes " +
      FigureText(static_cast<double>(p.elapsed - (p.path - f.path_after)), "ns") + " (path " +
      FigureText(static_cast<double>(f.path_after), "ns") + ", the waits on it unchanged)";
  if (whole && parts == 1) return out + "; the next-longest path then takes over" + after;
  return out + "; the path shrinks by the what-if's saving scaled to that share (" + what_ifs +
         ")" + after;
}

}  // namespace

std::vector<std::string> PathCategoriesOf(const std::string& plugin) {
  if (plugin == "idle-launch") return {"launch_overhead", "kernel_gap"};
  if (plugin == "collectives" || plugin == "overlap" || plugin == "stragglers")
    return {"communication"};
  if (plugin == "cuda-sync" || plugin == "op-stats") return {"host"};
  if (plugin == "kernel-stats" || plugin == "gpu-efficiency" || plugin == "roofline" ||
      plugin == "layout-kernels" || plugin == "layout-mismatch-copies" ||
      plugin == "unfused-reshapes" || plugin == "convert-reduce")
    return {"compute"};
  return {};
}

PathChanges RankChangesByPath(const TraceSet& set, const PluginResults& results) {
  PathChanges out;
  std::vector<PathRow> paths;
  Spans spans;
  if (!ReadPaths(results, &paths, &spans)) return out;
  out.available = true;
  const EventLookup events(set);
  const GroupedFindings grouped = GroupFindings(results.findings);
  for (const FindingGroup& g : grouped.groups) {
    const std::vector<std::string> cats = PathCategoriesOf(g.plugin);
    if (cats.empty() || g.severity == FindingSeverity::kInfo) continue;
    std::vector<const Finding*> members;
    for (size_t m : g.members) members.push_back(&results.findings[m]);
    const std::set<std::string_view> named =
        std::find(cats.begin(), cats.end(), "compute") != cats.end() ? NamedKernels(members, set)
                                                                     : std::set<std::string_view>{};
    std::vector<PathFigures> figures;
    for (const PathRow& p : paths) {
      std::vector<const Finding*> reaching;  // the scopes whose rank and steps hold the path
      for (const Finding* f : members)
        if (Reaches(*f, p)) reaching.push_back(f);
      if (reaching.empty()) continue;
      std::map<std::string, int64_t> covered;
      for (const std::string& c : cats) covered[c] = 0;
      for (size_t i : p.spans) {
        auto it = covered.find(std::string((*spans.category)[i]));
        if (it == covered.end()) continue;
        if (it->first == "compute" && !named.empty() && !named.count(EventName(spans, i, events)))
          continue;
        for (const Finding* f : reaching) {
          if (!InScope(*f, spans, i, events)) continue;
          it->second += (*spans.time)[i];
          break;
        }
      }
      figures.push_back(Figure(p, std::move(covered)));
    }
    if (figures.empty()) continue;
    std::stable_sort(figures.begin(), figures.end(),
                     [](const PathFigures& a, const PathFigures& b) {
                       return std::tie(a.share, a.path->step, a.path->rank) <
                              std::tie(b.share, b.path->step, b.path->rank);
                     });
    const PathFigures& mid = figures[figures.size() / 2];
    PathChange c;
    c.finding = members.front();
    c.group = g.id;
    c.categories = cats;
    c.paths = static_cast<int64_t>(figures.size());
    c.share_median = mid.share;
    c.share_min = figures.front().share;
    c.share_max = figures.back().share;
    c.step = mid.path->step;
    c.rank = mid.path->rank;
    c.path_ns = mid.path->path;
    c.covered_ns = mid.covered_ns;
    c.path_after_ns = mid.path_after;
    std::string first = cats.front();
    for (const std::string& cat : cats)
      if (mid.covered.at(cat) > 0) {
        first = cat;
        break;
      }
    const auto w = mid.path->what_if.find(first);
    c.what_if_ns = w == mid.path->what_if.end() ? mid.path->path : w->second;
    c.step_ns = mid.path->elapsed;
    c.step_after_ns = mid.path->elapsed - (mid.path->path - mid.path_after);
    c.assumption = Assumption(mid, cats);
    c.knob = !c.finding->suggestion.empty() ? c.finding->suggestion : DefaultKnob(first);
    for (const PathFigures& f : figures)
      c.per_path.push_back({f.path->step, f.path->rank, f.covered_ns, f.path->path});
    out.changes.push_back(std::move(c));
  }
  std::stable_sort(
      out.changes.begin(), out.changes.end(), [](const PathChange& a, const PathChange& b) {
        return std::tie(a.share_median, a.share_max) > std::tie(b.share_median, b.share_max);
      });
  return out;
}

}  // namespace th
