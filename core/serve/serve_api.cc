#include "core/serve/serve_api.h"

#include <limits>
#include <sstream>

#include "core/graph/utf8.h"
#include "core/report/json_writer.h"
#include "core/serve/lod_levels.h"
#include "core/serve/lod_viewport.h"
#include "core/serve/serve_binary.h"
#include "core/serve/serve_event_details.h"
#include "core/serve/serve_meta.h"
#include "core/serve/serve_overview.h"
#include "core/serve/serve_search.h"

namespace th::serve {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

bool IsUtf8(std::string_view s) {
  size_t bad = 0;
  return ValidUtf8(s, &bad);
}

// The ready run named by `text`, or the error response in *error.
const ServeRun* FindRun(const Runs& runs, const std::string& text, ApiResponse* error) {
  const auto n = ParseInt64(text);
  if (!n || *n < 0 || static_cast<uint64_t>(*n) >= runs.size()) {
    *error = ErrorResponse(404, "run: no run " + std::string(IsUtf8(text) ? text : "?") +
                                    " (there are " + std::to_string(runs.size()) + ")");
    return nullptr;
  }
  const ServeRun* run = runs[static_cast<size_t>(*n)].get();
  if (run->failed()) {
    *error = ErrorResponse(500, "run: run " + text + " could not be loaded: " + run->load_error());
    return nullptr;
  }
  if (!run->ready()) {
    *error = ErrorResponse(503, "run: run " + text + " is still importing");
    return nullptr;
  }
  return run;
}

// The run named by `text` when it is ready or has an overview (which may
// answer before it is ready), or the error response in *error.
const ServeRun* FindEarlyRun(const Runs& runs, const std::string& text, ApiResponse* error) {
  const ServeRun* run = FindRun(runs, text, error);
  if (run || error->status != 503) return run;
  const ServeRun* early = runs[static_cast<size_t>(*ParseInt64(text))].get();
  return early->overview() ? early : nullptr;
}

// What a viewport or tile request needs of a run, from its overview when
// it is not ready.
struct RunFacts {
  const RunOverview* overview = nullptr;  // may be null once ready
  bool ready = false;
  size_t row_count = 0;
  int64_t origin_ns = 0;
  std::string content_key;
};

// Readiness is read first: once it is seen, an overview read after it is
// one of the run's content. Nullopt when the run has neither (its overview
// was just dropped).
std::optional<RunFacts> Facts(const ServeRun& run) {
  RunFacts f;
  f.ready = run.ready();
  f.overview = run.overview();
  if (f.ready) {
    f.row_count = run.index().row_count();
    f.origin_ns = run.origin_ns();
    f.content_key = run.content_key();
  } else if (f.overview) {
    f.row_count = f.overview->row_count;
    f.origin_ns = f.overview->origin_ns;
    f.content_key = f.overview->content_key;
  } else {
    return std::nullopt;
  }
  return f;
}

ApiResponse StillImporting(const std::string& run) {
  return ErrorResponse(503, "run: run " + run + " is still importing (only the overview answers)");
}

ApiResponse Binary(std::string body) {
  ApiResponse r;
  r.body = std::move(body);
  r.content_type = "application/octet-stream";
  return r;
}

ApiResponse Json(std::string body) {
  ApiResponse r;
  r.body = std::move(body);
  return r;
}

// A relative time parameter as absolute ns, or an error naming it.
StatusOr<int64_t> AbsoluteParam(int64_t origin_ns, const QueryParams& params,
                                const std::string& name) {
  auto rel = IntParam(params, name, kMin, kMax);
  if (!rel.ok()) return rel.status();
  int64_t abs;
  if (__builtin_add_overflow(origin_ns, *rel, &abs))
    return InvalidInput(name + ": out of range of the run's clock");
  return abs;
}

// A tile named by the query: row (of `row_count`), level and tile number.
struct TileAddress {
  int64_t row = 0, level = 0, tile = 0;
};

// The tile the query names, or the 400 answer naming the bad parameter.
StatusOr<TileAddress> TileParams(const QueryParams& params, size_t row_count) {
  const auto rows = static_cast<int64_t>(row_count);
  if (rows == 0) return InvalidInput("row: the run has no rows");
  TileAddress a;
  auto row = IntParam(params, "row", 0, rows - 1);
  if (!row.ok()) return row.status();
  auto level = IntParam(params, "level", 0, kMaxLevel);
  if (!level.ok()) return level.status();
  auto tile = IntParam(params, "tile", kMin, kMax);
  if (!tile.ok()) return tile.status();
  a.row = *row;
  a.level = *level;
  a.tile = *tile;
  return a;
}

}  // namespace

const ServeRun* FindReadyRun(const Runs& runs, const std::string& run, ApiResponse* error) {
  return FindRun(runs, run, error);
}

ApiResponse ErrorResponse(int status, const std::string& message) {
  ApiResponse r;
  r.status = status;
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Field("error", message).EndObject();
  }
  r.body = out.str();
  return r;
}

ApiResponse MetaResponse(const Runs& runs, const std::string& run_text) {
  ApiResponse error;
  const ServeRun* run = FindEarlyRun(runs, run_text, &error);
  if (!run) return error;
  const size_t number = static_cast<size_t>(*ParseInt64(run_text));
  const RunOverview* overview = run->overview();
  if (overview) return Json(MetaJsonHead(number, run->name()) + overview->meta_tail);
  return Json(MetaJson(*run, number));
}

ApiResponse ViewportResponse(const Runs& runs, const std::string& run_text,
                             const QueryParams& params) {
  ApiResponse error;
  const ServeRun* run = FindEarlyRun(runs, run_text, &error);
  if (!run) return error;
  const auto found = Facts(*run);
  if (!found) return StillImporting(run_text);
  const RunFacts& facts = *found;
  auto t0 = AbsoluteParam(facts.origin_ns, params, "t0");
  if (!t0.ok()) return ErrorResponse(400, t0.status().message());
  auto t1 = AbsoluteParam(facts.origin_ns, params, "t1");
  if (!t1.ok()) return ErrorResponse(400, t1.status().message());
  if (*t1 <= *t0) return ErrorResponse(400, "t1: must be greater than t0");
  auto width = IntParam(params, "width", 1, kMaxViewportWidth);
  if (!width.ok()) return ErrorResponse(400, width.status().message());
  auto rows = RowsParam(params, facts.row_count);
  if (!rows.ok()) return ErrorResponse(400, rows.status().message());
  const int level = ViewportLevel(static_cast<Int128>(*t1) - *t0, *width);
  if (const OverviewLevel* held = facts.overview ? facts.overview->Level(level) : nullptr) {
    return Binary(AssembleThvp(*held, *rows, FloorShift(*t0, level + kTileBucketsLog2),
                               FloorShift(*t1 - 1, level + kTileBucketsLog2)));
  }
  if (!facts.ready) return StillImporting(run_text);
  auto v = Viewport(run->index(), *rows, *t0, *t1, *width);
  if (!v.ok()) return ErrorResponse(400, v.status().message());
  return Binary(EncodeThvp(*run, *v));
}

ApiResponse TileResponse(const Runs& runs, const std::string& run_text, const QueryParams& params,
                         const std::string& if_none_match) {
  ApiResponse error;
  const ServeRun* run = FindEarlyRun(runs, run_text, &error);
  if (!run) return error;
  const auto found = Facts(*run);
  if (!found) return StillImporting(run_text);
  const RunFacts& facts = *found;
  auto address = TileParams(params, facts.row_count);
  if (!address.ok()) return ErrorResponse(400, address.status().message());
  const auto [row, level, tile] = *address;
  const OverviewLevel* held =
      facts.overview ? facts.overview->Level(static_cast<int>(level)) : nullptr;
  if (!held && !facts.ready) return StillImporting(run_text);
  ApiResponse r;
  r.cache_control = "public, max-age=31536000, immutable";
  r.etag = "\"" + facts.content_key + "-" + std::to_string(row) + "-" + std::to_string(level) +
           "-" + std::to_string(tile) + "\"";
  if (!if_none_match.empty() && if_none_match == r.etag) {
    r.status = 304;
    return r;
  }
  r.content_type = "application/octet-stream";
  if (held) {
    const uint32_t one_row[] = {static_cast<uint32_t>(row)};
    r.body = AssembleThvp(*held, one_row, tile, tile);
    return r;
  }
  auto data = run->index().Tile(static_cast<uint32_t>(row), static_cast<int>(level), tile);
  if (!data.ok()) return ErrorResponse(400, data.status().message());
  r.body = EncodeThvp(*run, TileViewport(static_cast<uint32_t>(row), static_cast<int>(level), tile,
                                         std::move(*data)));
  return r;
}

ApiResponse BucketResponse(const Runs& runs, const std::string& run_text,
                           const QueryParams& params) {
  ApiResponse error;
  const ServeRun* run = FindRun(runs, run_text, &error);
  if (!run) return error;
  auto address = TileParams(params, run->index().row_count());
  if (!address.ok()) return ErrorResponse(400, address.status().message());
  const auto [row, level, tile] = *address;
  auto bucket = IntParam(params, "bucket", 0, kTileBuckets - 1);
  if (!bucket.ok()) return ErrorResponse(400, bucket.status().message());
  const int l = static_cast<int>(level);
  const int shift = l + kTileBucketsLog2;  // tiles starting outside int64 are refused
  if (tile < FloorShift(kMin, shift) || tile > FloorShift(kMax, shift))
    return ErrorResponse(400, "tile: out of range of the run's clock");
  const Int128 start = TileStart(l, tile) + *bucket * Pow2(l) - run->origin_ns();
  if (start < kMin || start > kMax)
    return ErrorResponse(400, "tile: out of range of the run's clock");
  auto data = run->index().Tile(static_cast<uint32_t>(row), l, tile);
  if (!data.ok()) return ErrorResponse(400, data.status().message());
  LodBucket found;  // an empty bucket: zeros
  for (const LodBucket& b : data->buckets)
    if (b.bucket == *bucket) found = b;
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject()
        .Field("row", row)
        .Field("level", level)
        .Field("tile", std::to_string(tile))
        .Field("bucket", *bucket)
        .Field("start_ns", static_cast<int64_t>(start))
        .Field("width_ns", static_cast<int64_t>(Pow2(l)))
        .Field("count", static_cast<int64_t>(found.count))
        .Field("busy_ns", found.busy_ns)
        .EndObject();
  }
  return Json(out.str());
}

ApiResponse EventResponse(const Runs& runs, const std::string& run_text, const std::string& id) {
  ApiResponse error;
  const ServeRun* run = FindRun(runs, run_text, &error);
  if (!run) return error;
  const auto n = ParseInt64(id);
  if (!n || *n < 0 || static_cast<uint64_t>(*n) >= run->graph().events.size())
    return ErrorResponse(404, "id: no such event in run " + run_text);
  return Json(EventDetailsJson(*run, static_cast<EventId>(*n)));
}

ApiResponse SearchResponse(const Runs& runs, const std::string& run_text,
                           const QueryParams& params) {
  ApiResponse error;
  const ServeRun* run = FindRun(runs, run_text, &error);
  if (!run) return error;
  SearchQuery q;
  auto text = params.find("q");
  if (text == params.end() || text->second.empty()) return ErrorResponse(400, "q: missing");
  if (!IsUtf8(text->second)) return ErrorResponse(400, "q: not valid UTF-8");
  q.text = text->second;
  auto mode = params.find("mode");
  if (mode != params.end() && mode->second != "substring" && mode->second != "regex")
    return ErrorResponse(400, "mode: substring or regex");
  q.regex = mode != params.end() && mode->second == "regex";
  auto bins = IntParam(params, "bins", 1, kMaxSearchBins, 1000);
  if (!bins.ok()) return ErrorResponse(400, bins.status().message());
  auto limit = IntParam(params, "limit", 0, kMaxSearchLimit, 100);
  if (!limit.ok()) return ErrorResponse(400, limit.status().message());
  auto after = IntParam(params, "after_ns", kMin, kMax, kMin);
  if (!after.ok()) return ErrorResponse(400, after.status().message());
  q.bins = static_cast<int>(*bins);
  q.limit = static_cast<int>(*limit);
  q.after_ns = *after;
  auto result = Search(*run, q);
  if (!result.ok()) return ErrorResponse(400, result.status().message());
  return Json(SearchJson(*run, q, *result));
}

}  // namespace th::serve
