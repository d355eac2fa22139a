#include "core/scan/fleet_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/graph/analysis_results.h"
#include "core/graph/json_number.h"
#include "core/graph/median.h"
#include "core/graph/text_escape.h"
#include "core/graph/utc_time.h"

namespace th::scan {

namespace {

struct RunRow {
  std::string run_id, name, location, host, status, error;
  std::optional<int64_t> captured_at_ns;
  int64_t ranks = 0;
  std::string job_family;  // "" = NULL (rows of schema v2 and older: one family)
};

// A place a run was found at: its location and location-based name.
struct RunPlace {
  std::string run_id, location, name;
};

// Capture order (runs without a capture time first), then run_id.
bool Later(const RunRow& a, const RunRow& b) {
  return std::make_tuple(a.captured_at_ns.value_or(INT64_MIN), a.run_id) >
         std::make_tuple(b.captured_at_ns.value_or(INT64_MIN), b.run_id);
}

// A location as given on the command line: normal form, no trailing '/'.
std::string NormalPath(const std::string& path) {
  std::string p = std::filesystem::path(path).lexically_normal().string();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// The run --baseline names: a run_id; else a location where the run was
// found or the folder holding it; else a run name; else a run_id prefix.
// Within each kind, more than one run is an error listing them.
StatusOr<std::string> ResolveBaseline(const std::vector<RunRow>& runs,
                                      const std::vector<RunPlace>& places,
                                      const std::string& want) {
  std::set<std::string> by_location, by_name, by_prefix;
  std::set<std::string> wanted = {NormalPath(want)};
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(want, ec);
  if (!ec) wanted.insert(NormalPath(absolute.string()));
  auto place = [&](const std::string& run_id, const std::string& location,
                   const std::string& name) {
    if (wanted.count(NormalPath(location)) ||
        wanted.count(NormalPath(std::filesystem::path(location).parent_path().string())))
      by_location.insert(run_id);
    if (name == want) by_name.insert(run_id);
  };
  for (const RunRow& r : runs) {
    if (r.run_id == want) return r.run_id;
    if (r.run_id.rfind(want, 0) == 0) by_prefix.insert(r.run_id);
    place(r.run_id, r.location, r.name);
  }
  for (const RunPlace& p : places) place(p.run_id, p.location, p.name);
  for (const auto* matches : {&by_location, &by_name, &by_prefix}) {
    if (matches->size() == 1) return *matches->begin();
    if (matches->size() > 1) {
      std::string list;
      size_t i = 0;
      for (auto it = matches->begin(); it != matches->end() && i < 5; ++it, ++i)
        list += (i ? ", " : "") + *it;
      return InvalidInput("--baseline '" + want + "' matches " + std::to_string(matches->size()) +
                          " runs (" + list + (matches->size() > 5 ? ", ..." : "") +
                          "): give a full run_id");
    }
  }
  return NotFound("--baseline '" + want +
                  "': no run has this run_id, location, folder, name or run_id prefix");
}

// ---- formatting ----

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// 3 significant digits with a time unit: 950 ns, 12.3 us, 1.24 s.
std::string Duration(double ns) {
  const double a = std::fabs(ns);
  auto sig3 = [](double v) { return Fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : 2); };
  if (a < 1e3) return Fixed(ns, 0) + " ns";
  if (a < 1e6) return sig3(ns / 1e3) + " us";
  if (a < 1e9) return sig3(ns / 1e6) + " ms";
  return sig3(ns / 1e9) + " s";
}

// Time lost of a group: "not reported" when none of its findings gave one
// (not observed is not zero).
std::string TimeLost(const FindingGroup& g) {
  return g.with_time_lost ? Duration(g.time_lost_ns) : "not reported";
}

std::string Percent(double share) { return Fixed(100.0 * share, 1) + "%"; }

std::string Share(int64_t part, int64_t whole) {
  return whole > 0 ? Percent(static_cast<double>(part) / static_cast<double>(whole)) : "n/a";
}

std::string Utc(int64_t ns) {
  return FormatUtc(static_cast<std::time_t>(ns / 1000000000), "%Y-%m-%dT%H:%M:%SZ");
}

std::string JoinList(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// The severity a findings row stores (result_writer.cc writes its code);
// P2 for a code no writer stores.
FindingSeverity StoredSeverity(const SqlValue& code) {
  return SeverityFromCode(SqlInt(code)).value_or(FindingSeverity::kP2);
}

// A figure with its unit and kind (measured | read | inferred).
std::string Figure(double v, const char* unit, const char* kind) {
  return std::string("{\"value\": ") + JsonNumber(v) + ", \"unit\": \"" + unit +
         "\", \"kind\": \"" + kind + "\"}";
}

std::string MdCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// A report table in a neutral form, rendered as Markdown or HTML.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

std::string MarkdownTable(const Table& t) {
  std::string out = "|";
  for (const auto& h : t.header) out += " " + MdCell(h) + " |";
  out += "\n|";
  for (size_t i = 0; i < t.header.size(); ++i) out += " --- |";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) out += " " + MdCell(cell) + " |";
    out += "\n";
  }
  return out;
}

std::string HtmlTable(const Table& t) {
  std::string out = "<table><thead><tr>";
  for (const auto& h : t.header) out += "<th>" + HtmlText(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + HtmlText(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string RunLabel(const std::string& run_id, const std::string& name) {
  return name.empty() ? run_id : name + " (" + run_id.substr(0, 12) + ")";
}

// The report's sections as (title, intro line, table), shared by Markdown and HTML.
struct Section {
  std::string title, intro;
  std::optional<Table> table;
  std::string empty;  // said instead of the table when it has no rows
};

Table FindingTable(const std::vector<FindingGroup>& groups, int64_t runs_ok) {
  Table t{{"plugin", "finding (numbers as #)", "worst", "findings", "runs", "share of ok runs",
           "time lost (inferred)"},
          {}};
  for (const FindingGroup& g : groups)
    t.rows.push_back({g.plugin, g.pattern, std::string(SeverityLabel(g.worst_severity)),
                      std::to_string(g.findings), std::to_string(g.runs), Share(g.runs, runs_ok),
                      TimeLost(g)});
  return t;
}

Table StragglerTable(const std::vector<StragglerEntry>& entries, const char* what,
                     const char* where) {
  Table t{
      {what, "runs flagged", "runs seen", "share", where, "time lost (inferred)", "last flagged"},
      {}};
  for (const StragglerEntry& e : entries)
    t.rows.push_back({e.key, std::to_string(e.runs_flagged), std::to_string(e.runs_seen),
                      Share(e.runs_flagged, e.runs_seen), JoinList(e.where),
                      Duration(e.time_lost_ns), e.last_run});
  return t;
}

std::vector<Section> Sections(const FleetReport& r) {
  std::vector<Section> s;
  s.push_back({"Top findings by count",
               std::to_string(r.findings) + " findings in " + std::to_string(r.finding_groups) +
                   " groups (plugin, title with numbers as #); top " +
                   std::to_string(r.by_count.size()) + ".",
               r.by_count.empty() ? std::nullopt
                                  : std::optional<Table>(FindingTable(r.by_count, r.runs_ok)),
               "No findings."});
  s.push_back(
      {"Top findings by time lost", "Sum of the findings' time_lost_ns (an estimate: inferred).",
       r.by_time_lost.empty() ? std::nullopt
                              : std::optional<Table>(FindingTable(r.by_time_lost, r.runs_ok)),
       "No finding reports time lost."});
  s.push_back({"Repeated stragglers: ranks",
               "Ranks named by a stragglers finding in at least " +
                   std::to_string(r.min_straggler_runs) +
                   " runs; share = runs flagged / ok runs with that rank.",
               r.straggler_ranks.empty()
                   ? std::nullopt
                   : std::optional<Table>(StragglerTable(r.straggler_ranks, "rank", "hosts")),
               "No rank straggles repeatedly."});
  s.push_back({"Repeated stragglers: hosts",
               "Hosts of a straggling rank in at least " + std::to_string(r.min_straggler_runs) +
                   " runs; share = runs flagged / ok runs with a rank on that host.",
               r.straggler_hosts.empty()
                   ? std::nullopt
                   : std::optional<Table>(StragglerTable(r.straggler_hosts, "host", "ranks")),
               "No host straggles repeatedly."});
  Section reg{"Step-time regressions", "", std::nullopt, ""};
  if (r.baseline_kind.empty()) {
    reg.intro = "No baseline given (--baseline RUN or --since/--until).";
  } else {
    reg.intro =
        "Baseline: " + r.baseline_label + ", median step " + Duration(r.baseline_median_ns) +
        " (measured, " + std::to_string(r.baseline_runs) + " run" +
        (r.baseline_runs == 1 ? "" : "s") + "). Threshold: ratio >= " + Fixed(1 + r.threshold, 2) +
        ". " + std::to_string(r.regressions_total) + " of " + std::to_string(r.runs_compared) +
        " runs compared regress" +
        (r.regressions_total > static_cast<int64_t>(r.regressions.size())
             ? " (the worst " + std::to_string(r.regressions.size()) + " below)"
             : std::string()) +
        (r.runs_without_steps
             ? "; " + std::to_string(r.runs_without_steps) + " ok runs have no steps"
             : std::string()) +
        (r.runs_other_family ? "; " + std::to_string(r.runs_other_family) +
                                   " ok runs are of a job family the baseline lacks (not compared)"
                             : std::string()) +
        ". Each run is compared with the baseline of its job family (same pipeline, "
        "ranks, devices and top kernels; " +
        std::to_string(r.baseline_families) + " in the baseline).";
    Table t{{"run", "captured", "median step (measured)", "ratio", "steps",
             "family baseline (measured)"},
            {}};
    for (const RunStepTime& x : r.regressions)
      t.rows.push_back({RunLabel(x.run_id, x.name),
                        x.captured_at_ns ? Utc(*x.captured_at_ns) : "unknown",
                        Duration(x.median_step_ns), Fixed(x.ratio, 3) + "x",
                        std::to_string(x.steps), Duration(x.baseline_median_ns)});
    if (!t.rows.empty()) reg.table = t;
    reg.empty = "No regression.";
  }
  s.push_back(reg);
  Table f{{"run", "location", "error"}, {}};
  for (const FailedRun& x : r.failures)
    f.rows.push_back({RunLabel(x.run_id, x.name), x.location, x.error});
  s.push_back({"Failed runs", std::to_string(r.failures.size()) + " runs failed to scan.",
               f.rows.empty() ? std::nullopt : std::optional<Table>(f), ""});
  return s;
}

std::string SummaryLine(const FleetReport& r) {
  std::string s = (r.pipelines > 1 ? "pipeline " + r.pipeline_hash.substr(0, 12) + " (of " +
                                         std::to_string(r.pipelines) +
                                         " in the database; choose with --pipeline): "
                                   : std::string()) +
                  std::to_string(r.runs) + " runs (" + std::to_string(r.runs_ok) + " ok, " +
                  std::to_string(r.runs_failed) + " failed), " + std::to_string(r.traces) +
                  " traces, " + std::to_string(r.hosts) + " hosts";
  if (r.first_capture_ns)
    s += ", captured " + Utc(*r.first_capture_ns) + " to " + Utc(*r.last_capture_ns);
  return s;
}

// Step-time regressions: each ok run's median step against the baseline of
// its job family (runs.job_family): the baseline run when it is of that
// family, else the median of the per-run medians of the family's runs in the
// window. Runs of a family without a baseline are counted, not compared.
Status AddStepRegressions(Database& db, const std::vector<RunRow>& runs,
                          const std::vector<RunPlace>& places, const FleetReportOptions& options,
                          FleetReport& report) {
  const bool window = options.since_ns || options.until_ns;
  if (!options.baseline_run.empty() && window)
    return InvalidInput("give either --baseline RUN or a --since/--until window, not both");
  if (options.baseline_run.empty() && !window) return Ok();
  // Per ok run: (steps, median step ns), one query per run so memory stays
  // bounded by the largest run, not the fleet.
  std::map<std::string, std::pair<int64_t, double>> medians;
  for (const RunRow& r : runs) {
    if (r.status != "ok") continue;
    auto rows = db.Query("SELECT dur_ns FROM steps WHERE run_id = $1", {SqlValue{r.run_id}});
    if (!rows.ok()) return rows.status();
    if (rows->rows.empty()) continue;
    std::vector<double> d;
    d.reserve(rows->rows.size());
    for (const SqlRow& row : rows->rows) d.push_back(static_cast<double>(SqlInt(row[0])));
    medians[r.run_id] = {static_cast<int64_t>(d.size()),
                         Median(std::move(d), EvenMedian::kMeanOfMiddles)};
  }
  std::set<std::string> baseline;
  if (window) {
    const int64_t since = options.since_ns.value_or(INT64_MIN);
    const int64_t until = options.until_ns.value_or(INT64_MAX);
    for (const RunRow& r : runs)
      if (r.status == "ok" && r.captured_at_ns && *r.captured_at_ns >= since &&
          *r.captured_at_ns < until && medians.count(r.run_id))
        baseline.insert(r.run_id);
    report.baseline_kind = "window";
    report.baseline_label =
        "runs captured in [" + (options.since_ns ? Utc(*options.since_ns) : std::string("-inf")) +
        ", " + (options.until_ns ? Utc(*options.until_ns) : std::string("+inf")) + ")";
    if (baseline.empty())
      return NotFound("no ok run with steps was captured in the baseline window " +
                      report.baseline_label.substr(report.baseline_label.find('[')));
  } else {
    auto id = ResolveBaseline(runs, places, options.baseline_run);
    if (!id.ok()) return id.status();
    const RunRow& b =
        *std::find_if(runs.begin(), runs.end(), [&](const RunRow& r) { return r.run_id == *id; });
    if (b.status != "ok")
      return InvalidInput("--baseline " + *id + ": the run failed to scan (" + b.error + ")");
    if (!medians.count(*id))
      return InvalidInput("--baseline " + *id + ": the run has no rows in the steps table");
    baseline.insert(*id);
    report.baseline_kind = "run";
    report.baseline_label = "run " + RunLabel(b.run_id, b.name);
  }
  // Baseline median per job family, and over all baseline runs (the summary).
  std::map<std::string, std::vector<double>> family_medians;
  std::vector<double> all_medians;
  for (const RunRow& r : runs) {
    if (!baseline.count(r.run_id)) continue;
    family_medians[r.job_family].push_back(medians[r.run_id].second);
    all_medians.push_back(medians[r.run_id].second);
  }
  std::map<std::string, double> family_baseline;
  for (auto& [family, v] : family_medians)
    family_baseline[family] = Median(std::move(v), EvenMedian::kMeanOfMiddles);
  report.baseline_runs = static_cast<int64_t>(baseline.size());
  report.baseline_families = static_cast<int64_t>(family_baseline.size());
  report.baseline_median_ns = Median(std::move(all_medians), EvenMedian::kMeanOfMiddles);
  for (const RunRow& r : runs) {
    if (r.status != "ok" || baseline.count(r.run_id)) continue;
    auto it = medians.find(r.run_id);
    if (it == medians.end()) {
      ++report.runs_without_steps;
      continue;
    }
    auto family = family_baseline.find(r.job_family);
    if (family == family_baseline.end()) {
      ++report.runs_other_family;
      continue;
    }
    ++report.runs_compared;
    RunStepTime x;
    x.run_id = r.run_id;
    x.name = r.name;
    x.captured_at_ns = r.captured_at_ns;
    x.steps = it->second.first;
    x.median_step_ns = it->second.second;
    x.job_family = r.job_family;
    x.baseline_median_ns = family->second;
    x.ratio = x.baseline_median_ns > 0 ? x.median_step_ns / x.baseline_median_ns : 0;
    if (x.ratio >= 1 + options.regression_threshold) report.regressions.push_back(x);
  }
  std::sort(report.regressions.begin(), report.regressions.end(),
            [](const RunStepTime& a, const RunStepTime& b) {
              if (a.ratio != b.ratio) return a.ratio > b.ratio;
              return a.run_id < b.run_id;
            });
  report.regressions_total = static_cast<int64_t>(report.regressions.size());
  if (report.regressions.size() > options.top) report.regressions.resize(options.top);
  return Ok();
}

}  // namespace

std::string TitlePattern(const std::string& title) {
  std::string out;
  for (size_t i = 0; i < title.size();) {
    if (title[i] >= '0' && title[i] <= '9') {
      while (i < title.size() && title[i] >= '0' && title[i] <= '9') ++i;
      if (i + 1 < title.size() && title[i] == '.' && title[i + 1] >= '0' && title[i + 1] <= '9') {
        ++i;
        while (i < title.size() && title[i] >= '0' && title[i] <= '9') ++i;
      }
      out += '#';
    } else {
      out += title[i++];
    }
  }
  return out;
}

StatusOr<int64_t> ParseTimePoint(const std::string& text) {
  auto bad = [&] {
    return InvalidInput("time '" + text +
                        "' is neither YYYY-MM-DD[THH:MM[:SS]][Z] (UTC) nor epoch seconds");
  };
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    int64_t s = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s);
    if (ec != std::errc() || s > INT64_MAX / 1000000000) return bad();
    return s * 1000000000;
  }
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  char tail[8] = {0};
  int n = std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%7s", &y, &mo, &d, &h, &mi, &sec, tail);
  bool ok = n == 3 || n == 5 || n == 6 || (n == 7 && std::string(tail) == "Z");
  if (n == 5 && text.size() > 16) ok = text.substr(16) == "Z";
  if (n == 3) ok = text.size() == 10;
  if (!ok || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return bad();
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  return static_cast<int64_t>(timegm(&tm)) * 1000000000;
}

StatusOr<FleetReport> BuildFleetReport(Database& db, const FleetReportOptions& options) {
  FleetReport report;
  report.database = db.name();
  report.threshold = options.regression_threshold;
  report.min_straggler_runs = static_cast<int64_t>(options.min_straggler_runs);

  // The pipeline: runs of one content scanned by two pipelines (a plugin
  // upgraded, an option changed) are two rows; a report mixing them would
  // count each run twice. One pipeline per report: the one asked for, else
  // the one with the most runs.
  auto pipelines = db.Query(
      "SELECT pipeline_hash, COUNT(*) FROM runs GROUP BY pipeline_hash ORDER BY pipeline_hash");
  if (!pipelines.ok()) return pipelines.status();
  report.pipelines = static_cast<int64_t>(pipelines->rows.size());
  int64_t best = -1;
  std::vector<std::string> matches;
  for (const SqlRow& row : pipelines->rows) {
    const std::string hash = SqlText(row[0]);
    if (!options.pipeline.empty()) {
      if (hash.rfind(options.pipeline, 0) == 0) matches.push_back(hash);
    } else if (SqlInt(row[1]) > best) {
      best = SqlInt(row[1]);
      report.pipeline_hash = hash;
    }
  }
  if (!options.pipeline.empty()) {
    if (matches.size() != 1)
      return InvalidInput("--pipeline '" + options.pipeline + "' matches " +
                          std::to_string(matches.size()) + " of the " +
                          std::to_string(report.pipelines) +
                          " pipeline hashes in the database: give a longer prefix");
    report.pipeline_hash = matches[0];
  }
  const std::vector<SqlValue> pipeline_param = {SqlValue{report.pipeline_hash}};

  // Runs.
  auto run_rows = db.Query(
      "SELECT run_id, name, location, host, status, error, captured_at_ns, ranks, job_family "
      "FROM runs WHERE pipeline_hash = $1",
      pipeline_param);
  if (!run_rows.ok()) return run_rows.status();
  std::vector<RunRow> runs;
  std::unordered_map<std::string, size_t> run_index;
  std::set<std::string> hosts;
  for (const SqlRow& row : run_rows->rows) {
    RunRow r{SqlText(row[0]), SqlText(row[1]), SqlText(row[2]), SqlText(row[3]), SqlText(row[4]),
             SqlText(row[5]), std::nullopt,    SqlInt(row[7]),  SqlText(row[8])};
    if (!SqlIsNull(row[6])) r.captured_at_ns = SqlInt(row[6]);
    run_index[r.run_id] = runs.size();
    runs.push_back(std::move(r));
  }
  std::sort(runs.begin(), runs.end(), [](const RunRow& a, const RunRow& b) { return Later(b, a); });
  run_index.clear();
  for (size_t i = 0; i < runs.size(); ++i) run_index[runs[i].run_id] = i;
  for (const RunRow& r : runs) {
    ++report.runs;
    if (r.status == "ok")
      ++report.runs_ok;
    else {
      ++report.runs_failed;
      report.failures.push_back({r.run_id, r.name, r.location, r.error});
    }
    if (!r.host.empty()) hosts.insert(r.host);
    if (r.captured_at_ns) {
      report.first_capture_ns =
          std::min(report.first_capture_ns.value_or(INT64_MAX), *r.captured_at_ns);
      report.last_capture_ns =
          std::max(report.last_capture_ns.value_or(INT64_MIN), *r.captured_at_ns);
    }
  }

  // Every location of the runs (for --baseline by location or name).
  auto place_rows = db.Query(
      "SELECT l.run_id, l.location, l.name FROM run_locations l JOIN runs r ON r.run_id = "
      "l.run_id WHERE r.pipeline_hash = $1",
      pipeline_param);
  if (!place_rows.ok()) return place_rows.status();
  std::vector<RunPlace> places;
  for (const SqlRow& row : place_rows->rows)
    places.push_back({SqlText(row[0]), SqlText(row[1]), SqlText(row[2])});

  // Traces: which (rank -> host) each run had.
  auto trace_rows = db.Query(
      "SELECT t.run_id, t.rank, t.host FROM traces t JOIN runs r ON r.run_id = t.run_id "
      "WHERE r.pipeline_hash = $1",
      pipeline_param);
  if (!trace_rows.ok()) return trace_rows.status();
  std::map<std::pair<std::string, int64_t>, std::string> rank_host;  // (run, rank) -> host
  std::map<std::string, std::set<int64_t>> run_ranks;
  for (const SqlRow& row : trace_rows->rows) {
    ++report.traces;
    std::string run_id = SqlText(row[0]);
    std::string host = SqlText(row[2]);
    auto it = run_index.find(run_id);
    if (host.empty() && it != run_index.end()) host = runs[it->second].host;
    if (!host.empty()) hosts.insert(host);
    if (SqlIsNull(row[1])) continue;
    int64_t rank = SqlInt(row[1]);
    rank_host[{run_id, rank}] = host;
    run_ranks[run_id].insert(rank);
  }
  report.hosts = static_cast<int64_t>(hosts.size());
  auto host_of = [&](const std::string& run_id, int64_t rank) -> std::string {
    auto it = rank_host.find({run_id, rank});
    if (it != rank_host.end() && !it->second.empty()) return it->second;
    auto r = run_index.find(run_id);
    return r != run_index.end() ? runs[r->second].host : "";
  };

  // Findings.
  auto finding_rows = db.Query(
      "SELECT f.run_id, f.plugin, f.severity, f.title, f.time_lost_ns, f.rank FROM findings f "
      "JOIN runs r ON r.run_id = f.run_id WHERE r.pipeline_hash = $1",
      pipeline_param);
  if (!finding_rows.ok()) return finding_rows.status();
  struct GroupAcc {
    FindingGroup group;
    std::set<std::string> runs;
  };
  std::map<std::pair<std::string, std::string>, GroupAcc> groups;
  struct StragglerAcc {
    std::set<std::string> runs;
    double time_lost_ns = 0;
    std::set<std::string> where;
  };
  std::map<int64_t, StragglerAcc> rank_acc;
  std::map<std::string, StragglerAcc> host_acc;
  for (const SqlRow& row : finding_rows->rows) {
    ++report.findings;
    std::string run_id = SqlText(row[0]), plugin = SqlText(row[1]), title = SqlText(row[3]);
    const double lost = SqlIsNull(row[4]) ? 0 : SqlDouble(row[4]);
    GroupAcc& g = groups[{plugin, TitlePattern(title)}];
    if (g.group.findings == 0) {
      g.group.plugin = plugin;
      g.group.pattern = TitlePattern(title);
      g.group.example_title = title;
      g.group.worst_severity = StoredSeverity(row[2]);
    }
    ++g.group.findings;
    g.group.worst_severity = MostSevere(g.group.worst_severity, StoredSeverity(row[2]));
    g.group.time_lost_ns += lost;
    if (!SqlIsNull(row[4])) ++g.group.with_time_lost;
    g.runs.insert(run_id);
    if (plugin == "stragglers" && !SqlIsNull(row[5])) {
      int64_t rank = SqlInt(row[5]);
      std::string host = host_of(run_id, rank);
      StragglerAcc& ra = rank_acc[rank];
      ra.runs.insert(run_id);
      ra.time_lost_ns += lost;
      if (!host.empty()) ra.where.insert(host);
      if (!host.empty()) {
        StragglerAcc& ha = host_acc[host];
        ha.runs.insert(run_id);
        ha.time_lost_ns += lost;
        ha.where.insert("rank " + std::to_string(rank));
      }
    }
  }
  std::vector<FindingGroup> all;
  for (auto& [key, acc] : groups) {
    acc.group.runs = static_cast<int64_t>(acc.runs.size());
    all.push_back(acc.group);
  }
  report.finding_groups = static_cast<int64_t>(all.size());
  auto key = [](const FindingGroup& g) { return std::tie(g.plugin, g.pattern); };
  report.by_count = all;
  std::sort(report.by_count.begin(), report.by_count.end(),
            [&](const FindingGroup& a, const FindingGroup& b) {
              if (a.findings != b.findings) return a.findings > b.findings;
              if (a.runs != b.runs) return a.runs > b.runs;
              return key(a) < key(b);
            });
  if (report.by_count.size() > options.top) report.by_count.resize(options.top);
  for (const FindingGroup& g : all)
    if (g.with_time_lost > 0) report.by_time_lost.push_back(g);
  std::sort(report.by_time_lost.begin(), report.by_time_lost.end(),
            [&](const FindingGroup& a, const FindingGroup& b) {
              if (a.time_lost_ns != b.time_lost_ns) return a.time_lost_ns > b.time_lost_ns;
              return key(a) < key(b);
            });
  if (report.by_time_lost.size() > options.top) report.by_time_lost.resize(options.top);

  // Runs each rank / host took part in (ok runs): from traces, else 0..ranks-1.
  std::map<int64_t, int64_t> rank_seen;
  std::map<std::string, int64_t> host_seen;
  for (const RunRow& r : runs) {
    if (r.status != "ok") continue;
    std::set<int64_t> ranks;
    auto it = run_ranks.find(r.run_id);
    if (it != run_ranks.end())
      ranks = it->second;
    else
      for (int64_t k = 0; k < r.ranks; ++k) ranks.insert(k);
    std::set<std::string> run_hosts;
    for (int64_t k : ranks) {
      ++rank_seen[k];
      std::string h = host_of(r.run_id, k);
      if (!h.empty()) run_hosts.insert(h);
    }
    for (const std::string& h : run_hosts) ++host_seen[h];
  }
  auto last_flagged = [&](const std::set<std::string>& ids) {
    const RunRow* last = nullptr;
    for (const std::string& id : ids) {
      auto it = run_index.find(id);
      if (it == run_index.end()) continue;
      if (!last || Later(runs[it->second], *last)) last = &runs[it->second];
    }
    return last ? RunLabel(last->run_id, last->name) : std::string();
  };
  auto finish = [&](StragglerAcc& acc, std::string k, int64_t seen) {
    StragglerEntry e;
    e.key = std::move(k);
    e.runs_flagged = static_cast<int64_t>(acc.runs.size());
    e.runs_seen = std::max(seen, e.runs_flagged);
    e.time_lost_ns = acc.time_lost_ns;
    e.where.assign(acc.where.begin(), acc.where.end());
    e.last_run = last_flagged(acc.runs);
    return e;
  };
  auto straggler_order = [](const StragglerEntry& a, const StragglerEntry& b) {
    if (a.runs_flagged != b.runs_flagged) return a.runs_flagged > b.runs_flagged;
    // Higher share first: a.flagged/a.seen > b.flagged/b.seen.
    if (a.runs_flagged * b.runs_seen != b.runs_flagged * a.runs_seen)
      return a.runs_flagged * b.runs_seen > b.runs_flagged * a.runs_seen;
    return a.key < b.key;
  };
  const int64_t min_runs = static_cast<int64_t>(options.min_straggler_runs);
  for (auto& [rank, acc] : rank_acc)
    if (static_cast<int64_t>(acc.runs.size()) >= min_runs)
      report.straggler_ranks.push_back(
          finish(acc, "rank " + std::to_string(rank), rank_seen[rank]));
  for (auto& [host, acc] : host_acc)
    if (static_cast<int64_t>(acc.runs.size()) >= min_runs)
      report.straggler_hosts.push_back(finish(acc, host, host_seen[host]));
  std::sort(report.straggler_ranks.begin(), report.straggler_ranks.end(), straggler_order);
  std::sort(report.straggler_hosts.begin(), report.straggler_hosts.end(), straggler_order);

  TH_RETURN_IF_ERROR(AddStepRegressions(db, runs, places, options, report));
  return report;
}

std::string FleetReportMarkdown(const FleetReport& r) {
  std::string out = "# Fleet report\n\n" + MdCell(r.database) + ": " + SummaryLine(r) + ".\n";
  for (const Section& s : Sections(r)) {
    out += "\n## " + s.title + "\n\n";
    if (!s.intro.empty()) out += s.intro + "\n\n";
    if (s.table)
      out += MarkdownTable(*s.table);
    else if (!s.empty.empty())
      out += s.empty + "\n";
  }
  return out;
}

std::string FleetReportHtml(const FleetReport& r) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>tracehound fleet report</title>\n<style>\n"
      "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;"
      "max-width:78rem;padding:0 1rem;color:#1b1f24;background:#fff}\n"
      "h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;"
      "border-bottom:1px solid #d0d7de;padding-bottom:.2rem}\n"
      ".summary{color:#57606a}table{border-collapse:collapse;width:100%;margin:.5rem 0}\n"
      "th,td{border:1px solid #d0d7de;padding:.3rem .55rem;text-align:left;vertical-align:top}\n"
      "th{background:#f6f8fa;font-weight:600}tbody tr:nth-child(even){background:#fafbfc}\n"
      "td:nth-child(n+3){font-variant-numeric:tabular-nums}.empty{color:#57606a;"
      "font-style:italic}\n"
      "@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}"
      "th{background:#161b22}tbody tr:nth-child(even){background:#11161d}"
      "th,td,h2{border-color:#30363d}.summary,.empty{color:#8b949e}}\n"
      "</style></head><body>\n<h1>Fleet report</h1>\n<p class=\"summary\">" +
      HtmlText(r.database) + ": " + HtmlText(SummaryLine(r)) + ".</p>\n";
  for (const Section& s : Sections(r)) {
    out += "<h2>" + HtmlText(s.title) + "</h2>\n";
    if (!s.intro.empty()) out += "<p>" + HtmlText(s.intro) + "</p>\n";
    if (s.table)
      out += HtmlTable(*s.table);
    else if (!s.empty.empty())
      out += "<p class=\"empty\">" + HtmlText(s.empty) + "</p>\n";
  }
  return out + "</body></html>\n";
}

std::string FleetReportJson(const FleetReport& r) {
  auto count = [](int64_t v) { return Figure(static_cast<double>(v), "count", "measured"); };
  std::string out =
      "{\n  \"schema\": \"tracehound.fleet_report/1\",\n  \"database\": " + JsonString(r.database) +
      ",\n  \"pipeline_hash\": " + JsonString(r.pipeline_hash) +
      ",\n  \"pipelines_in_database\": " + count(r.pipelines) +
      ",\n  \"summary\": {\"runs\": " + count(r.runs) + ", \"runs_ok\": " + count(r.runs_ok) +
      ", \"runs_failed\": " + count(r.runs_failed) + ", \"traces\": " + count(r.traces) +
      ", \"hosts\": " + count(r.hosts) + ", \"findings\": " + count(r.findings) +
      ", \"finding_groups\": " + count(r.finding_groups) + ", \"first_capture\": " +
      (r.first_capture_ns ? JsonString(Utc(*r.first_capture_ns)) : "null") +
      ", \"last_capture\": " + (r.last_capture_ns ? JsonString(Utc(*r.last_capture_ns)) : "null") +
      "},\n";
  auto groups = [&](const char* name, const std::vector<FindingGroup>& v) {
    out += std::string("  \"") + name + "\": [";
    for (size_t i = 0; i < v.size(); ++i) {
      const FindingGroup& g = v[i];
      out += std::string(i ? "," : "") + "\n    {\"plugin\": " + JsonString(g.plugin) +
             ", \"pattern\": " + JsonString(g.pattern) +
             ", \"example_title\": " + JsonString(g.example_title) +
             ", \"worst_severity\": " + JsonString(SeverityLabel(g.worst_severity)) +
             ", \"findings\": " + count(g.findings) + ", \"runs\": " + count(g.runs) +
             ", \"share_of_ok_runs\": " +
             Figure(r.runs_ok ? 100.0 * static_cast<double>(g.runs) / static_cast<double>(r.runs_ok)
                              : NAN,
                    "%", "measured") +
             ", \"findings_with_time_lost\": " + count(g.with_time_lost) + ", \"time_lost\": " +
             (g.with_time_lost ? Figure(g.time_lost_ns, "ns", "inferred") : std::string("null")) +
             "}";
    }
    out += v.empty() ? "],\n" : "\n  ],\n";
  };
  groups("top_findings_by_count", r.by_count);
  groups("top_findings_by_time_lost", r.by_time_lost);
  auto stragglers = [&](const char* name, const std::vector<StragglerEntry>& v, const char* where) {
    out += std::string("  \"") + name + "\": [";
    for (size_t i = 0; i < v.size(); ++i) {
      const StragglerEntry& e = v[i];
      std::string list;
      for (size_t k = 0; k < e.where.size(); ++k) list += (k ? ", " : "") + JsonString(e.where[k]);
      out += std::string(i ? "," : "") + "\n    {\"key\": " + JsonString(e.key) +
             ", \"runs_flagged\": " + count(e.runs_flagged) +
             ", \"runs_seen\": " + count(e.runs_seen) + ", \"share\": " +
             Figure(100.0 * static_cast<double>(e.runs_flagged) /
                        static_cast<double>(std::max<int64_t>(e.runs_seen, 1)),
                    "%", "measured") +
             ", \"time_lost\": " + Figure(e.time_lost_ns, "ns", "inferred") + ", \"" + where +
             "\": [" + list + "], \"last_flagged\": " + JsonString(e.last_run) + "}";
    }
    out += v.empty() ? "],\n" : "\n  ],\n";
  };
  stragglers("straggler_ranks", r.straggler_ranks, "hosts");
  stragglers("straggler_hosts", r.straggler_hosts, "ranks");
  out += "  \"step_regressions\": ";
  if (r.baseline_kind.empty()) {
    out += "null,\n";
  } else {
    out += "{\"baseline\": {\"kind\": " + JsonString(r.baseline_kind) +
           ", \"label\": " + JsonString(r.baseline_label) +
           ", \"runs\": " + count(r.baseline_runs) +
           ", \"median_step\": " + Figure(r.baseline_median_ns, "ns", "measured") +
           "}, \"threshold_ratio\": " + Figure(1 + r.threshold, "x", "read") +
           ", \"runs_compared\": " + count(r.runs_compared) +
           ", \"runs_without_steps\": " + count(r.runs_without_steps) +
           ", \"baseline_families\": " + count(r.baseline_families) +
           ", \"runs_other_family\": " + count(r.runs_other_family) +
           ", \"regressions_total\": " + count(r.regressions_total) + ", \"regressions\": [";
    for (size_t i = 0; i < r.regressions.size(); ++i) {
      const RunStepTime& x = r.regressions[i];
      out += std::string(i ? "," : "") + "\n    {\"run_id\": " + JsonString(x.run_id) +
             ", \"name\": " + JsonString(x.name) +
             ", \"captured\": " + (x.captured_at_ns ? JsonString(Utc(*x.captured_at_ns)) : "null") +
             ", \"steps\": " + count(x.steps) +
             ", \"median_step\": " + Figure(x.median_step_ns, "ns", "measured") +
             ", \"ratio\": " + Figure(x.ratio, "x", "measured") +
             ", \"job_family\": " + (x.job_family.empty() ? "null" : JsonString(x.job_family)) +
             ", \"baseline_median_step\": " + Figure(x.baseline_median_ns, "ns", "measured") + "}";
    }
    out += r.regressions.empty() ? "]},\n" : "\n  ]},\n";
  }
  out += "  \"failed_runs\": [";
  for (size_t i = 0; i < r.failures.size(); ++i) {
    const FailedRun& f = r.failures[i];
    out += std::string(i ? "," : "") + "\n    {\"run_id\": " + JsonString(f.run_id) +
           ", \"name\": " + JsonString(f.name) + ", \"location\": " + JsonString(f.location) +
           ", \"error\": " + JsonString(f.error) + "}";
  }
  out += r.failures.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace th::scan
