#include "core/diff/diff_text.h"

#include <map>
#include <string_view>

#include "core/report/figure_text.h"

namespace th::diff {
namespace {

std::string Time(int64_t ns) { return FigureText(static_cast<double>(ns), "ns"); }

// A Markdown table cell: pipes escaped, line breaks as spaces.
std::string Cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string Pct(const AggregateRow& r) {
  if (!r.has_pct) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", r.delta_pct);
  return buf;
}

// A name cut to `max` bytes (at a UTF-8 boundary) with "…" when longer.
std::string Short(const std::string& name, size_t max = 100) {
  if (name.size() <= max) return name;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0) == 0x80) --cut;
  return name.substr(0, cut) + "…";
}

std::string Joined(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

void SidesMarkdown(const DiffResult& r, std::string* md) {
  const SideSummary &a = r.a, &b = r.b;
  *md += "| | A | B |\n| --- | --- | --- |\n";
  *md +=
      "| inputs | " + Cell(Joined(a.inputs, ", ")) + " | " + Cell(Joined(b.inputs, ", ")) + " |\n";
  *md += "| ranks | " + std::to_string(a.ranks) + " | " + std::to_string(b.ranks) + " |\n";
  *md += "| steps kept | " + std::to_string(a.steps) + " | " + std::to_string(b.steps) + " |\n";
  *md += "| warm-up steps left out | " + std::to_string(a.warmup_left_out) + " | " +
         std::to_string(b.warmup_left_out) + " |\n";
  *md += "| step source | " + a.step_source + " | " + b.step_source + " |\n";
  *md += "| device | " + Cell(a.device) + " | " + Cell(b.device) + " |\n\n";
}

void AttributionMarkdown(const Attribution& at, std::string* md) {
  *md += "## Step time\n\n";
  if (!at.available) {
    *md += "Not available: a side has no step_breakdown rows.\n\n";
    return;
  }
  *md += "Mean step time: A " + Time(at.a_step_ns) + ", B " + Time(at.b_step_ns) + ", Δ " +
         SignedTime(at.delta_ns) + " (the categories' Δ add up to it exactly).\n\n";
  *md += "| category | A / step | B / step | Δ |\n| --- | ---: | ---: | ---: |\n";
  for (const Contributor& c : at.contributors)
    *md += "| " + c.category + " | " + Time(c.a_ns) + " | " + Time(c.b_ns) + " | " +
           SignedTime(c.delta_ns) + " |\n";
  *md += "\n";
}

void AggregateMarkdown(const DiffResult& r, size_t unchanged_rows, std::string* md) {
  *md +=
      "## Aggregate\n\n| class | A count | A time | B count | B time |\n"
      "| --- | ---: | ---: | ---: | ---: |\n";
  for (const ClassTotal& t : r.totals)
    *md += std::string("| ") + EventClassName(t.cls) + " | " + std::to_string(t.a_count) + " | " +
           Time(t.a_time_ns) + " | " + std::to_string(t.b_count) + " | " + Time(t.b_time_ns) +
           " |\n";
  *md +=
      "\n| status | class | name | A count | A / step | B count | B / step | Δ / step | Δ % "
      "| noise |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  size_t unchanged = 0, left_out = 0;
  for (const AggregateRow& row : r.aggregate) {
    if (row.status == RowStatus::kUnchanged && unchanged++ >= unchanged_rows) {
      ++left_out;
      continue;
    }
    *md += std::string("| ") + RowStatusName(row.status) + " | " + EventClassName(row.cls) + " | " +
           Cell(row.name) + " | " + std::to_string(row.a.count) + " | " +
           Time(row.a.time_per_step_ns) + " | " + std::to_string(row.b.count) + " | " +
           Time(row.b.time_per_step_ns) + " | " + SignedTime(row.delta_ns) + " | " + Pct(row) +
           " | " + Time(row.noise_ns) + " |\n";
  }
  if (left_out) *md += "\n" + std::to_string(left_out) + " more unchanged rows in the JSON.\n";
  *md += "\n";
}

void StructureMarkdown(const DiffResult& r, std::string* md) {
  *md += "## Structure\n\n";
  if (r.structure.empty()) *md += "No step pairs.\n\n";
  for (const StepPair& p : r.structure) {
    *md += "### A rank " + std::to_string(p.a_rank) + " step " + std::to_string(p.a_step) +
           " ↔ B rank " + std::to_string(p.b_rank) + " step " + std::to_string(p.b_step) + "\n\n";
    *md += std::to_string(p.matched) + " nodes aligned; " + std::to_string(p.a_unmatched) +
           " only in A, " + std::to_string(p.b_unmatched) + " only in B.\n\n";
    if (p.rows.empty()) continue;
    *md +=
        "| kind | level | under | A | B | A device | B device | Δ |\n"
        "| --- | --- | --- | --- | --- | ---: | ---: | ---: |\n";
    for (const StructuralRow& row : p.rows)
      *md += "| " + row.kind + " | " + row.level + " | " +
             Cell(row.path.empty() ? "(step)" : Joined(row.path, " › ")) + " | " +
             Cell(row.a_name) + " | " + Cell(row.b_name) + " | " + Time(row.a_device_ns) + " | " +
             Time(row.b_device_ns) + " | " + SignedTime(row.b_device_ns - row.a_device_ns) + " |\n";
    if (p.rows_left_out)
      *md += "\n" + std::to_string(p.rows_left_out) + " smaller rows left out.\n";
    *md += "\n";
  }
}

// "1 rank", "2 ranks".
std::string Counted(int64_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

std::string SignedTime(int64_t ns) {
  if (ns > 0) return "+" + Time(ns);
  if (ns < 0) return "-" + Time(-ns);
  return Time(0);
}

std::string DiffMarkdown(const DiffResult& r, size_t unchanged_rows) {
  std::string md = "# tracehound diff\n\n";
  SidesMarkdown(r, &md);
  md += "## Warnings\n\n";
  for (const std::string& w : r.warnings) md += "- " + w + "\n";
  md += "\n";
  AttributionMarkdown(r.attribution, &md);
  AggregateMarkdown(r, unchanged_rows, &md);
  StructureMarkdown(r, &md);
  return md;
}

std::string DiffTerminal(const DiffResult& r, size_t rows) {
  std::string out = "diff: A " + Joined(r.a.inputs, ", ") + " (" + Counted(r.a.ranks, "rank") +
                    ", " + Counted(r.a.steps, "step") + ") vs B " + Joined(r.b.inputs, ", ") +
                    " (" + Counted(r.b.ranks, "rank") + ", " + Counted(r.b.steps, "step") + ")\n";
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  const Attribution& at = r.attribution;
  if (at.available) {
    out += "step time: A " + Time(at.a_step_ns) + ", B " + Time(at.b_step_ns) + ", Δ " +
           SignedTime(at.delta_ns) + " =";
    for (size_t i = 0; i < at.contributors.size() && i < 3; ++i)
      out += (i ? ", " : " ") + at.contributors[i].category + " " +
             SignedTime(at.contributors[i].delta_ns);
    out += at.contributors.size() > 3 ? ", …\n" : "\n";
  }
  std::map<std::string, int64_t> counts;
  for (const AggregateRow& row : r.aggregate) ++counts[RowStatusName(row.status)];
  out += "rows:";
  for (const auto& [status, n] : counts) out += " " + status + " " + std::to_string(n);
  out += "\n";
  size_t shown = 0;
  for (const AggregateRow& row : r.aggregate) {
    if (row.status == RowStatus::kUnchanged) continue;
    if (shown++ == rows) break;
    out += std::string(" ") + RowStatusName(row.status) + "  " + EventClassName(row.cls) + "  " +
           Short(row.name) + "  " + Time(row.a.time_per_step_ns) + " → " +
           Time(row.b.time_per_step_ns) + " per step (" + SignedTime(row.delta_ns) + ", " +
           Pct(row) + ")\n";
  }
  for (const StepPair& p : r.structure)
    out += "structure: A rank " + std::to_string(p.a_rank) + " step " + std::to_string(p.a_step) +
           " ↔ B step " + std::to_string(p.b_step) + ": " + std::to_string(p.matched) +
           " aligned, " + std::to_string(p.a_unmatched) + " only in A, " +
           std::to_string(p.b_unmatched) + " only in B\n";
  return out;
}

}  // namespace th::diff
