#include "core/serve/serve_search.h"

#include <re2/re2.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <sstream>

#include "core/report/json_writer.h"
#include "core/serve/lod_levels.h"

namespace th::serve {
namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool ContainsIgnoringCase(std::string_view hay, std::string_view lower_needle) {
  auto it = std::search(hay.begin(), hay.end(), lower_needle.begin(), lower_needle.end(),
                        [](char a, char b) { return Lower(a) == b; });
  return it != hay.end();
}

// match[s] = 1 when string s of the pool matches.
StatusOr<std::vector<uint8_t>> MatchNames(const StringPool& strings, const SearchQuery& q) {
  std::vector<uint8_t> match(strings.size(), 0);
  if (q.regex) {
    RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(8 << 20);
    RE2 re(q.text, options);
    if (!re.ok()) return InvalidInput("q: not a valid regular expression: " + re.error());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, strings.size(), 4096), [&](auto range) {
      for (size_t s = range.begin(); s < range.end(); ++s)
        match[s] = RE2::PartialMatch(strings.Get(static_cast<StringId>(s)), re) ? 1 : 0;
    });
    return match;
  }
  std::string needle = q.text;
  for (char& c : needle) c = Lower(c);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, strings.size(), 4096), [&](auto range) {
    for (size_t s = range.begin(); s < range.end(); ++s)
      match[s] = ContainsIgnoringCase(strings.Get(static_cast<StringId>(s)), needle) ? 1 : 0;
  });
  return match;
}

struct RowHits {
  uint64_t count = 0;
  std::vector<SearchHit> first;  // at most limit + 1, by start
};

bool ByStart(const SearchHit& a, const SearchHit& b) {
  return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.id < b.id;
}

}  // namespace

StatusOr<SearchResult> Search(const ServeRun& run, const SearchQuery& query) {
  if (query.text.empty()) return InvalidInput("q: empty");
  auto match = MatchNames(run.graph().strings, query);
  if (!match.ok()) return match.status();
  const EventColumns& ev = run.graph().events;
  const LodIndex& index = run.index();
  const size_t keep = static_cast<size_t>(query.limit) + 1;
  const Int128 span = static_cast<Int128>(run.end_rel_ns()) + 1;
  std::vector<RowHits> rows(index.row_count());
  tbb::enumerable_thread_specific<std::vector<uint64_t>> bins(
      std::vector<uint64_t>(static_cast<size_t>(query.bins), 0));
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, static_cast<uint32_t>(index.row_count())),
                    [&](auto range) {
                      std::vector<uint64_t>& density = bins.local();
                      for (uint32_t r = range.begin(); r < range.end(); ++r) {
                        RowHits& out = rows[r];
                        for (EventId e : index.row_index(r).order) {
                          if (!(*match)[ev.name[e]]) continue;
                          ++out.count;
                          const int64_t rel = run.Relative(ev.ts[e]);
                          const Int128 bin = static_cast<Int128>(rel) * query.bins / span;
                          if (bin >= 0 && bin < query.bins) ++density[static_cast<size_t>(bin)];
                          if (rel >= query.after_ns && out.first.size() < keep)
                            out.first.push_back({e, r, rel, ev.dur[e] > 0 ? ev.dur[e] : 0});
                        }
                      }
                    });
  SearchResult result;
  result.density.assign(static_cast<size_t>(query.bins), 0);
  for (const auto& local : bins)
    for (size_t b = 0; b < local.size(); ++b) result.density[b] += local[b];
  std::vector<SearchHit> hits;
  for (uint32_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].count) continue;
    result.hits_total += rows[r].count;
    result.per_row.push_back({r, rows[r].count});
    hits.insert(hits.end(), rows[r].first.begin(), rows[r].first.end());
  }
  std::sort(hits.begin(), hits.end(), ByStart);
  if (hits.size() > static_cast<size_t>(query.limit)) {
    result.next_after_ns = hits[static_cast<size_t>(query.limit)].start_ns;
    hits.resize(static_cast<size_t>(query.limit));
  }
  result.hits = std::move(hits);
  return result;
}

std::string SearchJson(const ServeRun& run, const SearchQuery& query, const SearchResult& r) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Field("q", query.text).Field("mode", query.regex ? "regex" : "substring");
    w.Field("hits_total", static_cast<int64_t>(r.hits_total));
    w.Key("per_row").BeginArray();
    for (const auto& [row, hits] : r.per_row) {
      w.BeginObject().Field("row", static_cast<int64_t>(row));
      w.Field("hits", static_cast<int64_t>(hits)).EndObject();
    }
    w.EndArray().Key("density").BeginArray();
    for (uint64_t d : r.density) w.Int(static_cast<int64_t>(d));
    w.EndArray().Key("hits").BeginArray();
    const EventColumns& ev = run.graph().events;
    for (const SearchHit& h : r.hits) {
      w.BeginObject().Field("id", static_cast<int64_t>(h.id)).Field("row", int64_t{h.row});
      w.Field("start_ns", h.start_ns).Field("dur_ns", h.dur_ns);
      w.Field("name", run.graph().strings.Get(ev.name[h.id])).EndObject();
    }
    w.EndArray().Key("next_after_ns");
    if (r.next_after_ns)
      w.Int(*r.next_after_ns);
    else
      w.Null();
    w.EndObject();
  }
  return out.str();
}

}  // namespace th::serve
