#include "core/report/finding_groups.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/report/figure_text.h"

namespace th {

namespace {

// How bad a finding is within its group: severity first, then the time it
// costs (TimeLost, else Saving; for a plugin that states neither, an
// evidence item named time_lost_ns or saving*), else its first figure.
double Weight(const Finding& f) {
  if (f.time_lost_ns) return *f.time_lost_ns;
  if (f.saving_ns) return *f.saving_ns;
  for (const Evidence& e : f.evidence)
    if (e.name == "time_lost_ns") return e.value;
  for (const Evidence& e : f.evidence)
    if (e.name.rfind("saving", 0) == 0) return e.value;
  return f.evidence.empty() ? 0 : f.evidence.front().value;
}

// "8 streams on 4 ranks", "3 ranks", "2 devices on 1 rank", "5 scopes".
std::string ScopeCount(const std::vector<Finding>& findings, const std::vector<size_t>& members) {
  std::set<int64_t> ranks;
  std::set<std::pair<int64_t, int64_t>> devices;
  std::set<std::tuple<int64_t, int64_t, int64_t>> streams;
  for (size_t m : members) {
    const ReportScope& s = findings[m].scope;
    if (s.rank >= 0) ranks.insert(s.rank);
    if (s.device >= 0) devices.insert({s.rank, s.device});
    if (s.stream >= 0) streams.insert({s.rank, s.device, s.stream});
  }
  auto count = [](size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string on_ranks = ranks.empty() ? "" : " on " + count(ranks.size(), "rank", "ranks");
  if (!streams.empty()) return count(streams.size(), "stream", "streams") + on_ranks;
  if (!devices.empty()) return count(devices.size(), "device", "devices") + on_ranks;
  if (!ranks.empty()) return count(ranks.size(), "rank", "ranks");
  return count(members.size(), "scope", "scopes");
}

// "name lo–hi unit" for each figure every member has (at most four).
std::string Ranges(const std::vector<Finding>& findings, const std::vector<size_t>& members) {
  std::string out;
  int shown = 0;
  for (const Evidence& e : findings[members.front()].evidence) {
    double lo = e.value, hi = e.value;
    bool everywhere = true;
    for (size_t m : members) {
      auto it = std::find_if(findings[m].evidence.begin(), findings[m].evidence.end(),
                             [&](const Evidence& x) { return x.name == e.name; });
      if (it == findings[m].evidence.end() || it->unit != e.unit) {
        everywhere = false;
        break;
      }
      lo = std::min(lo, it->value);
      hi = std::max(hi, it->value);
    }
    if (!everywhere) continue;
    std::string a = FigureText(lo, e.unit), b = FigureText(hi, e.unit);
    out += (out.empty() ? "" : ", ") + e.name + " " + (a == b ? a : a + " – " + b);
    if (++shown == 4) break;
  }
  return out;
}

}  // namespace

std::string ScopeText(const ReportScope& s) {
  std::string out;
  auto add = [&](const char* what, int64_t v) {
    if (v >= 0) out += std::string(out.empty() ? "" : ", ") + what + " " + std::to_string(v);
  };
  add("rank", s.rank);
  add("device", s.device);
  add("stream", s.stream);
  if (s.step_first >= 0) {
    out += std::string(out.empty() ? "" : ", ") + "steps " + std::to_string(s.step_first) + "–" +
           std::to_string(s.step_last);
  }
  return out.empty() ? "all" : out;
}

GroupedFindings GroupFindings(const std::vector<Finding>& findings, const FindingFilter& filter) {
  std::vector<FindingGroup> groups;
  // (plugin, group key or title) -> group
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    auto [it, fresh] =
        index.try_emplace({f.plugin, f.group.empty() ? f.title : f.group}, groups.size());
    if (fresh) {
      FindingGroup g;
      g.plugin = f.plugin;
      g.title = f.title;
      g.severity = f.severity;
      groups.push_back(std::move(g));
    }
    FindingGroup& g = groups[it->second];
    g.members.push_back(i);
    g.severity = MostSevere(g.severity, f.severity);
  }
  std::map<std::string, int> per_plugin;
  for (FindingGroup& g : groups) {
    g.id = g.plugin + "/group-" + std::to_string(++per_plugin[g.plugin]);
    std::stable_sort(g.members.begin(), g.members.end(), [&](size_t a, size_t b) {
      if (findings[a].severity != findings[b].severity)
        return MoreSevere(findings[a].severity, findings[b].severity);
      return Weight(findings[a]) > Weight(findings[b]);
    });
  }
  std::stable_sort(groups.begin(), groups.end(), [](const FindingGroup& a, const FindingGroup& b) {
    return MoreSevere(a.severity, b.severity);
  });
  GroupedFindings out;
  for (FindingGroup& g : groups) {
    bool shown =
        AtLeastAsSevere(g.severity, filter.min_severity) &&
        (filter.max_groups < 0 || out.groups.size() < static_cast<size_t>(filter.max_groups));
    if (shown) {
      // Within a shown group, scopes below the threshold are left out too.
      std::erase_if(g.members, [&](size_t m) {
        bool hide = !AtLeastAsSevere(findings[m].severity, filter.min_severity);
        out.hidden_findings += hide;
        return hide;
      });
      if (g.members.size() > 1) {
        g.summary = ScopeCount(findings, g.members) +
                    " (worst: " + ScopeText(findings[g.members.front()].scope) + ")";
        std::string ranges = Ranges(findings, g.members);
        if (!ranges.empty()) g.summary += "; " + ranges;
      }
      out.groups.push_back(std::move(g));
    } else {
      ++out.hidden_groups;
      out.hidden_findings += g.members.size();
    }
  }
  return out;
}

}  // namespace th
