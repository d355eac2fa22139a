#include "core/serve/run_list.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <numeric>
#include <utility>

#include "core/graph/utf8.h"

namespace th::serve {
namespace {

constexpr size_t kMaxTextParam = 256;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Contains(std::string_view hay, const std::string& lowered_needle) {
  return Lower(hay).find(lowered_needle) != std::string::npos;
}

bool MatchesText(const RunSummary& r, const std::string& needle) {
  if (needle.empty()) return true;
  if (Contains(r.name, needle) || Contains(r.location, needle) || Contains(r.host, needle) ||
      Contains(r.verdict, needle))
    return true;
  if (r.top && (Contains(r.top->plugin, needle) || Contains(r.top->title, needle))) return true;
  return std::any_of(r.tags.begin(), r.tags.end(),
                     [&](const std::string& t) { return Contains(t, needle); });
}

bool Matches(const RunSummary& r, const RunListQuery& q, const std::string& needle) {
  if (q.verdict && r.verdict != *q.verdict) return false;
  if (q.host && r.host != *q.host) return false;
  if (q.family && r.family != *q.family) return false;
  for (const std::string& tag : q.tags)
    if (std::find(r.tags.begin(), r.tags.end(), tag) == r.tags.end()) return false;
  return MatchesText(r, needle);
}

// The sort value of a run: a number, a text, or missing.
struct SortValue {
  bool missing = true;
  int64_t number = 0;
  std::string text;
};

SortValue Number(std::optional<int64_t> v) { return v ? SortValue{false, *v, {}} : SortValue{}; }

SortValue Text(const std::string& v) { return v.empty() ? SortValue{} : SortValue{false, 0, v}; }

SortValue ValueOf(const RunSummary& r, size_t number, RunSortKey key) {
  switch (key) {
    case RunSortKey::kRun:
      return Number(static_cast<int64_t>(number));
    case RunSortKey::kName:
      return Text(r.name);
    case RunSortKey::kTime:
      return Number(r.time_ns);
    case RunSortKey::kHost:
      return Text(r.host);
    case RunSortKey::kRanks:
      return Number(r.ranks);
    case RunSortKey::kVerdict:
      return Text(r.verdict);
    case RunSortKey::kSeverity:
      return Number(r.top ? std::optional<int64_t>(r.top->severity) : std::nullopt);
    case RunSortKey::kStepP50:
      return Number(r.step_p50_ns);
    case RunSortKey::kStepRange:
      return Number(r.step_min_ns && r.step_max_ns
                        ? std::optional<int64_t>(*r.step_max_ns - *r.step_min_ns)
                        : std::nullopt);
    case RunSortKey::kFindings:
      return Number(r.findings);
  }
  return {};
}

constexpr std::pair<const char*, RunSortKey> kSortKeys[] = {{"run", RunSortKey::kRun},
                                                            {"name", RunSortKey::kName},
                                                            {"time", RunSortKey::kTime},
                                                            {"host", RunSortKey::kHost},
                                                            {"ranks", RunSortKey::kRanks},
                                                            {"verdict", RunSortKey::kVerdict},
                                                            {"severity", RunSortKey::kSeverity},
                                                            {"step_p50", RunSortKey::kStepP50},
                                                            {"step_range", RunSortKey::kStepRange},
                                                            {"findings", RunSortKey::kFindings}};

// A text parameter: at most kMaxTextParam bytes of UTF-8; each appearance of
// a repeatable one.
StatusOr<std::vector<std::string>> TextParams(const QueryParams& params, const std::string& name) {
  std::vector<std::string> values;
  auto [first, last] = params.equal_range(name);
  for (auto it = first; it != last; ++it) {
    size_t bad = 0;
    if (it->second.size() > kMaxTextParam)
      return InvalidInput(name + ": longer than " + std::to_string(kMaxTextParam) + " bytes");
    if (!ValidUtf8(it->second, &bad)) return InvalidInput(name + ": not valid UTF-8");
    values.push_back(it->second);
  }
  return values;
}

StatusOr<std::optional<std::string>> OneTextParam(const QueryParams& params,
                                                  const std::string& name) {
  auto values = TextParams(params, name);
  if (!values.ok()) return values.status();
  if (values->size() > 1) return InvalidInput(name + ": given more than once");
  if (values->empty()) return std::optional<std::string>();
  return std::optional<std::string>(values->front());
}

}  // namespace

int64_t LowerMedian(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  const size_t mid = (values.size() - 1) / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  return values[mid];
}

std::vector<std::vector<std::string>> PathTags(const std::vector<std::string>& locations) {
  std::vector<std::vector<std::string>> folders;
  for (const std::string& location : locations) {
    std::vector<std::string> parts;
    for (const auto& part : std::filesystem::path(location).parent_path())
      if (part != "/" && part != "." && !part.empty()) parts.push_back(part.string());
    folders.push_back(std::move(parts));
  }
  size_t shared = folders.empty() ? 0 : folders.front().size();
  for (const auto& f : folders) {
    size_t k = 0;
    while (k < std::min(shared, f.size()) && f[k] == folders.front()[k]) ++k;
    shared = k;
  }
  // One location: its own folder stays a tag.
  if (folders.size() == 1 && shared > 0) --shared;
  for (auto& f : folders) f.erase(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(shared));
  return folders;
}

StatusOr<RunListQuery> ParseRunListQuery(const QueryParams& params) {
  RunListQuery q;
  auto sort = OneTextParam(params, "sort");
  if (!sort.ok()) return sort.status();
  if (*sort) {
    std::string_view key = **sort;
    q.descending = key.starts_with('-');
    if (q.descending) key.remove_prefix(1);
    auto it = std::find_if(std::begin(kSortKeys), std::end(kSortKeys),
                           [&](const auto& k) { return key == k.first; });
    if (it == std::end(kSortKeys))
      return InvalidInput(
          "sort: one of run, name, time, host, ranks, verdict, severity, step_p50, step_range, "
          "findings (a leading '-' sorts descending)");
    q.sort = it->second;
  }
  auto text = OneTextParam(params, "q");
  if (!text.ok()) return text.status();
  q.text = text->value_or("");
  auto tags = TextParams(params, "tag");
  if (!tags.ok()) return tags.status();
  q.tags = std::move(*tags);
  auto verdict = OneTextParam(params, "verdict");
  if (!verdict.ok()) return verdict.status();
  q.verdict = *verdict;
  auto host = OneTextParam(params, "host");
  if (!host.ok()) return host.status();
  q.host = *host;
  auto family = OneTextParam(params, "family");
  if (!family.ok()) return family.status();
  q.family = *family;
  auto offset = IntParam(params, "offset", 0, INT32_MAX, 0);
  if (!offset.ok()) return offset.status();
  q.offset = *offset;
  if (params.count("limit")) {
    auto limit = IntParam(params, "limit", 0, INT32_MAX);
    if (!limit.ok()) return limit.status();
    q.limit = *limit;
  }
  return q;
}

std::vector<size_t> SelectRuns(const std::vector<RunSummary>& runs, const RunListQuery& q) {
  const std::string needle = Lower(q.text);
  std::vector<size_t> picked;
  for (size_t k = 0; k < runs.size(); ++k)
    if (Matches(runs[k], q, needle)) picked.push_back(k);
  if (q.sort == RunSortKey::kRun && !q.descending) return picked;
  std::vector<SortValue> values(runs.size());
  for (size_t k : picked) values[k] = ValueOf(runs[k], k, q.sort);
  std::stable_sort(picked.begin(), picked.end(), [&](size_t a, size_t b) {
    const SortValue& x = values[a];
    const SortValue& y = values[b];
    if (x.missing != y.missing) return y.missing;
    if (x.missing) return false;
    if (x.number != y.number) return q.descending ? x.number > y.number : x.number < y.number;
    if (x.text != y.text) return q.descending ? x.text > y.text : x.text < y.text;
    return false;
  });
  return picked;
}

void WriteRunSummaryFields(JsonWriter& w, const RunSummary& r) {
  auto optional_int = [&](const char* key, std::optional<int64_t> v) {
    w.Key(key);
    v ? w.Int(*v) : w.Null();
  };
  auto optional_text = [&](const char* key, const std::string& v) {
    w.Key(key);
    v.empty() ? w.Null() : w.String(v);
  };
  w.Field("location", r.location);
  optional_text("host", r.host);
  optional_text("family", r.family);
  w.Key("time_ns");
  r.time_ns ? w.String(std::to_string(*r.time_ns)) : w.Null();
  optional_text("time_kind", r.time_kind);
  optional_int("ranks", r.ranks);
  optional_text("verdict", r.verdict);
  optional_int("findings", r.findings);
  w.Key("top_finding");
  if (r.top) {
    const char* labels[] = {"P0", "P1", "P2", "info"};
    w.BeginObject().Field("severity", labels[std::clamp<int64_t>(r.top->severity, 0, 3)]);
    w.Field("plugin", r.top->plugin).Field("title", r.top->title).EndObject();
  } else {
    w.Null();
  }
  optional_int("steps", r.steps);
  optional_int("step_p50_ns", r.step_p50_ns);
  optional_int("step_min_ns", r.step_min_ns);
  optional_int("step_max_ns", r.step_max_ns);
  w.Key("tags").BeginArray();
  for (const std::string& t : r.tags) w.String(t);
  w.EndArray().Field("source", r.source);
}

}  // namespace th::serve
