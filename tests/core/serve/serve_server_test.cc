// The HTTP server against a real client on loopback: every endpoint of API
// v1 on a generated trace and a real one (THVP bytes decoded and compared
// with Viewport() and Tile() computed directly, search counts with a pass
// over the names), hostile parameters, the token off loopback, the rate bound.
#include "core/serve/serve_server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <filesystem>
#include <numeric>

#include "core/serve/lod_levels.h"
#include "core/serve/lod_viewport.h"
#include "core/serve/response_gzip.h"
#include "core/serve/serve_binary.h"
#include "tests/core/serve/serve_fixture.h"
#include "tests/core/serve/thvp_decoder.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

using testing::DecodeThvp;

// Runs loaded from `inputs`, served on 127.0.0.1 (or `bind`) at a free port.
struct Served {
  std::vector<std::unique_ptr<ServeRun>> runs;
  std::unique_ptr<ServeServer> server;
  std::unique_ptr<httplib::Client> client;

  explicit Served(const std::vector<std::string>& inputs, ServeServerOptions options = {}) {
    for (const std::string& in : inputs) {
      runs.push_back(std::make_unique<ServeRun>(in, std::filesystem::path(in).filename()));
      std::string note;
      Status s = LoadServeRun(runs.back().get(), {}, &note);
      EXPECT_TRUE(s.ok()) << s.message();
    }
    options.port = 0;
    server = std::make_unique<ServeServer>(&runs, options);
    Status bound = server->Bind();
    EXPECT_TRUE(bound.ok()) << bound.message();
    server->Start();
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
  }
  ~Served() { server->Stop(); }

  httplib::Result Get(const std::string& path, const httplib::Headers& headers = {}) {
    return client->Get(path.c_str(), headers);
  }
};

const std::string& Fixture() {
  static const std::string path = testing::WriteServeFixture("serve_fixture.json");
  return path;
}

std::string RealTrace() {
  const std::string dir = th::testing::SharedDataDir();
  if (dir.empty()) return "";
  const std::string path =
      dir +
      "/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
  return std::filesystem::exists(path) ? path : "";
}

simdjson::dom::element Json(simdjson::dom::parser& parser, const httplib::Result& r) {
  EXPECT_TRUE(r);
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(r->body).get(doc), simdjson::SUCCESS) << r->body;
  return doc;
}

// The viewport over HTTP equals Viewport() on the run's index.
void ExpectViewportMatches(Served& s, int64_t t0, int64_t t1, int64_t width) {
  const ServeRun& run = *s.runs[0];
  auto r = s.Get("/api/v1/runs/0/viewport?t0=" + std::to_string(t0) + "&t1=" + std::to_string(t1) +
                 "&width=" + std::to_string(width) + "&rows=all");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/octet-stream");
  EXPECT_EQ(r->get_header_value("Cache-Control"), "no-cache");
  auto got = DecodeThvp(r->body);
  ASSERT_TRUE(got) << "not a complete THVP response";
  std::vector<uint32_t> rows(run.index().row_count());
  std::iota(rows.begin(), rows.end(), 0u);
  auto want = Viewport(run.index(), rows, run.origin_ns() + t0, run.origin_ns() + t1, width);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(got->version, kThvpVersion);
  EXPECT_EQ(got->level, want->level);
  EXPECT_EQ(got->first_tile, want->first_tile);
  EXPECT_EQ(got->last_tile, want->last_tile);
  EXPECT_EQ(got->events_in_view, want->events_in_view);
  EXPECT_EQ(got->events_drawn, want->events_drawn);
  ASSERT_EQ(got->tiles.size(), want->tiles.size());
  const EventColumns& ev = run.graph().events;
  for (size_t i = 0; i < want->tiles.size(); ++i) {
    const auto& g = got->tiles[i];
    const ViewportTile& w = want->tiles[i];
    EXPECT_EQ(g.row, w.row);
    EXPECT_EQ(g.tile, w.tile);
    ASSERT_EQ(g.id.size(), w.data.drawn.size());
    for (size_t k = 0; k < g.id.size(); ++k) {
      const EventId e = w.data.drawn[k];
      EXPECT_EQ(g.id[k], e);
      EXPECT_EQ(g.start[k], ev.ts[e] - run.origin_ns());
      EXPECT_EQ(g.dur[k], std::max<int64_t>(ev.dur[e], 0));
      ASSERT_LT(g.name[k], got->names.size());
      EXPECT_EQ(got->names[g.name[k]], run.graph().strings.Get(ev.name[e]));
    }
    ASSERT_EQ(g.bucket.size(), w.data.buckets.size());
    for (size_t k = 0; k < g.bucket.size(); ++k) {
      EXPECT_EQ(g.bucket[k], w.data.buckets[k].bucket);
      EXPECT_EQ(g.count[k], w.data.buckets[k].count);
      EXPECT_EQ(g.busy_level[k], ThvpBusyLevel(w.data.buckets[k].busy_ns, want->level));
    }
  }
}

TEST(ServeServerTest, RunsAndMetaDescribeTheTrace) {
  Served s({Fixture()});
  simdjson::dom::parser parser;
  auto runs = Json(parser, s.Get("/api/v1/runs"));
  simdjson::dom::element run0 = runs["runs"].at(0);
  EXPECT_EQ(std::string_view(run0["name"]), "serve_fixture.json");
  EXPECT_EQ(int64_t(run0["events"]), static_cast<int64_t>(s.runs[0]->graph().events.size()));
  EXPECT_EQ(std::string_view(run0["origin_ns"]), "100000");  // 100 us
  EXPECT_EQ(int64_t(run0["end_ns"]), (200 + 2999 * 3 + 1) * 1000 - 100000);
  EXPECT_TRUE(bool(run0["ready"]));

  simdjson::dom::parser p2;
  auto meta = Json(p2, s.Get("/api/v1/runs/0/meta"));
  EXPECT_EQ(int64_t(meta["indexed_events"]), 3005);
  simdjson::dom::array tracks = meta["tracks"];
  ASSERT_EQ(tracks.size(), 3u);
  EXPECT_EQ(std::string_view(tracks.at(0)["kind"]), "gpu_stream");
  EXPECT_EQ(std::string_view(tracks.at(0)["name"]), "stream 7");
  EXPECT_EQ(std::string_view(tracks.at(0)["group"].at(1)), "GPU 0");
  EXPECT_EQ(std::string_view(tracks.at(1)["name"]), "stream 8");
  EXPECT_EQ(std::string_view(tracks.at(2)["kind"]), "cpu");
  EXPECT_EQ(std::string_view(tracks.at(2)["group"].at(0)), "rank 0");
  uint64_t row_events = 0;
  for (simdjson::dom::element row : meta["rows"].get_array()) row_events += uint64_t(row["events"]);
  EXPECT_EQ(row_events, 3005u);
}

TEST(ServeServerTest, ViewportBytesAreTheIndexViewport) {
  Served s({Fixture()});
  const int64_t end = s.runs[0]->end_rel_ns();
  ExpectViewportMatches(s, 0, end, 3840);        // the overview: merged buckets
  ExpectViewportMatches(s, 0, end, 40);          // coarser
  ExpectViewportMatches(s, 30000, 80000, 1000);  // the kernel and its launch, drawn
  ExpectViewportMatches(s, -5000000, 2 * end, 7);
}

TEST(ServeServerTest, TileIsImmutableWithAStrongEtag) {
  Served s({Fixture()});
  const ServeRun& run = *s.runs[0];
  const int level = 4;
  const int64_t tile = FloorShift(run.origin_ns() + 200000, level + kTileBucketsLog2);
  uint32_t row = 0;  // the row of the 3,000 short kernels
  for (uint32_t r = 0; r < run.index().row_count(); ++r)
    if (run.index().row(r).events == 3000) row = r;
  const std::string query = "?row=" + std::to_string(row) + "&level=4&tile=" + std::to_string(tile);
  auto r = s.Get("/api/v1/runs/0/tile" + query);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Cache-Control"), "public, max-age=31536000, immutable");
  const std::string etag = r->get_header_value("ETag");
  ASSERT_GE(etag.size(), 2u);
  EXPECT_EQ(etag.front(), '"');
  auto got = DecodeThvp(r->body);
  ASSERT_TRUE(got);
  auto want = run.index().Tile(row, level, tile);
  ASSERT_TRUE(want.ok());
  ASSERT_FALSE(want->empty());
  ASSERT_EQ(got->tiles.size(), 1u);
  EXPECT_EQ(got->first_tile, tile);
  EXPECT_EQ(got->tiles[0].id.size(), want->drawn.size());
  ASSERT_EQ(got->tiles[0].count.size(), want->buckets.size());
  uint64_t counted = 0;
  for (const LodBucket& b : want->buckets) counted += b.count;
  EXPECT_EQ(got->events_in_view, counted + want->drawn.size());

  auto again = s.Get("/api/v1/runs/0/tile" + query, {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());

  auto empty = s.Get("/api/v1/runs/0/tile?row=" + std::to_string(row) + "&level=4&tile=-99");
  ASSERT_TRUE(empty);
  auto none = DecodeThvp(empty->body);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->tiles.empty());
  EXPECT_NE(empty->get_header_value("ETag"), etag);
}

// /bucket gives a bucket's exact count and busy time (THVP carries its busy
// level): the JSON bytes are the index's tile's figures, every bucket of the
// overview's tiles; a bucket without events answers zeros.
TEST(ServeServerTest, BucketAnswersTheExactFiguresOfTheIndex) {
  Served s({Fixture()});
  const ServeRun& run = *s.runs[0];
  std::vector<uint32_t> rows(run.index().row_count());
  std::iota(rows.begin(), rows.end(), 0u);
  auto v = Viewport(run.index(), rows, run.origin_ns(), run.origin_ns() + run.end_rel_ns(), 3840);
  ASSERT_TRUE(v.ok());
  // Every 13th bucket of the whole view (the server's rate bound allows a
  // few hundred requests a second from one client).
  size_t checked = 0, seen = 0;
  for (const ViewportTile& t : v->tiles) {
    for (const LodBucket& b : t.data.buckets) {
      if (seen++ % 13 != 0) continue;
      const int64_t start = static_cast<int64_t>(TileStart(v->level, t.tile)) +
                            (int64_t{b.bucket} << v->level) - run.origin_ns();
      const std::string q = "row=" + std::to_string(t.row) + "&level=" + std::to_string(v->level) +
                            "&tile=" + std::to_string(t.tile) +
                            "&bucket=" + std::to_string(b.bucket);
      auto r = s.Get("/api/v1/runs/0/bucket?" + q);
      ASSERT_TRUE(r);
      ASSERT_EQ(r->status, 200) << r->body;
      EXPECT_EQ(r->body, "{\"row\":" + std::to_string(t.row) +
                             ",\"level\":" + std::to_string(v->level) + ",\"tile\":\"" +
                             std::to_string(t.tile) + "\",\"bucket\":" + std::to_string(b.bucket) +
                             ",\"start_ns\":" + std::to_string(start) +
                             ",\"width_ns\":" + std::to_string(int64_t{1} << v->level) +
                             ",\"count\":" + std::to_string(b.count) +
                             ",\"busy_ns\":" + std::to_string(b.busy_ns) + "}");
      ++checked;
    }
  }
  EXPECT_GT(checked, 10u);
  auto empty = s.Get("/api/v1/runs/0/bucket?row=0&level=4&tile=-99&bucket=3");
  ASSERT_TRUE(empty);
  ASSERT_EQ(empty->status, 200) << empty->body;
  EXPECT_NE(empty->body.find("\"count\":0,\"busy_ns\":0}"), std::string::npos) << empty->body;
}

TEST(ServeServerTest, EventDetailsJoinLaunchAndKernelAndLinkThePythonStack) {
  Served s({Fixture()});
  const EventGraph& g = s.runs[0]->graph();
  EventId kernel = kNoRow, call = kNoRow;
  for (EventId e = 0; e < g.events.size(); ++e) {
    if (g.strings.Get(g.events.name[e]) == "gemm_kernel") kernel = e;
    if (g.strings.Get(g.events.name[e]) == "cudaLaunchKernel") call = e;
  }
  ASSERT_NE(kernel, kNoRow);
  ASSERT_NE(call, kNoRow);
  simdjson::dom::parser parser;
  auto k = Json(parser, s.Get("/api/v1/runs/0/events/" + std::to_string(kernel)));
  EXPECT_EQ(std::string_view(k["name"]), "gemm_kernel");
  EXPECT_EQ(int64_t(k["start_ns"]), 40000);
  EXPECT_EQ(int64_t(k["dur_ns"]), 30000);
  EXPECT_EQ(int64_t(k["launch"]["id"]), call);
  EXPECT_EQ(int64_t(k["args"]["stream"]), 7);
  EXPECT_EQ(int64_t(k["args"]["grid"].at(0)), 4);
  simdjson::dom::array stack = k["stack"];
  ASSERT_EQ(stack.size(), 2u);  // the launch call's Python frames, innermost first
  EXPECT_EQ(std::string_view(stack.at(0)["file"]), "C:\\src\\model.py");
  EXPECT_EQ(int64_t(stack.at(0)["line"]), 30);
  EXPECT_EQ(std::string_view(stack.at(0)["link"]), "vscode://file/C:/src/model.py:30");
  EXPECT_EQ(std::string_view(stack.at(1)["link"]), "vscode://file/train.py:12");

  simdjson::dom::parser p2;
  auto c = Json(p2, s.Get("/api/v1/runs/0/events/" + std::to_string(call)));
  EXPECT_TRUE(c["launch"].is_null());
  ASSERT_EQ(c["kernels"].get_array().size(), 1u);
  EXPECT_EQ(int64_t(c["kernels"].at(0)["id"]), kernel);
  EXPECT_EQ(int64_t(c["args"]["correlation"]), 7);
}

TEST(ServeServerTest, SearchCountsEveryHitOfTheWholeTrace) {
  Served s({Fixture()});
  simdjson::dom::parser parser;
  auto r = Json(parser, s.Get("/api/v1/runs/0/search?q=TINY_KERNEL_3&bins=10&limit=5"));
  // i % 7 == 3 for i in 0..2999: 429 events.
  EXPECT_EQ(int64_t(r["hits_total"]), 429);
  int64_t density = 0;
  for (int64_t d : r["density"].get_array()) density += d;
  EXPECT_EQ(density, 429);
  EXPECT_EQ(r["density"].get_array().size(), 10u);
  simdjson::dom::array hits = r["hits"];
  ASSERT_EQ(hits.size(), 5u);
  EXPECT_EQ(int64_t(hits.at(0)["start_ns"]), (200 + 3 * 3) * 1000 - 100000);
  EXPECT_EQ(int64_t(r["next_after_ns"]), (200 + 38 * 3) * 1000 - 100000);  // the sixth: i = 38

  simdjson::dom::parser p2;
  auto next = Json(p2, s.Get("/api/v1/runs/0/search?q=tiny_kernel_3&limit=5&after_ns=" +
                             std::to_string(int64_t(r["next_after_ns"]))));
  EXPECT_EQ(int64_t(next["hits"].at(0)["start_ns"]), int64_t(r["next_after_ns"]));

  simdjson::dom::parser p3;
  auto re =
      Json(p3, s.Get("/api/v1/runs/0/search?q=%5Etiny_kernel_%5B01%5D%24&mode=regex&limit=0"));
  EXPECT_EQ(int64_t(re["hits_total"]), 429 + 429);  // i % 7 == 0: 429, == 1: 429
  EXPECT_TRUE(re["next_after_ns"].is_null() == false);
  EXPECT_EQ(re["per_row"].get_array().size(), 1u);
}

TEST(ServeServerTest, HostileRequestsAreRefusedWithAnErrorNamingTheParameter) {
  Served s({Fixture()});
  struct Case {
    std::string path;
    int status;
    std::string names;
  };
  const std::string huge = "9223372036854775807";
  const std::vector<Case> cases = {
      {"/api/v1/runs/0/viewport?t0=10&t1=10&width=100", 400, "t1"},
      {"/api/v1/runs/0/viewport?t0=10&t1=5&width=100", 400, "t1"},
      {"/api/v1/runs/0/viewport?t0=0&t1=100&width=-5", 400, "width"},
      {"/api/v1/runs/0/viewport?t0=0&t1=100&width=0", 400, "width"},
      {"/api/v1/runs/0/viewport?t0=0&t1=100&width=99999999999999999999", 400, "width"},
      {"/api/v1/runs/0/viewport?t0=0&t1=100&width=1e3", 400, "width"},
      {"/api/v1/runs/0/viewport?t0=-" + huge + "&t1=" + huge + "&width=3840", 400, "t1"},
      {"/api/v1/runs/0/viewport?t1=100&width=10", 400, "t0"},
      {"/api/v1/runs/0/viewport?t0=0&t1=100&width=10&rows=0,99", 400, "rows"},
      {"/api/v1/runs/0/viewport?t0=0&t1=100&width=10&rows=../../etc/passwd", 400, "rows"},
      {"/api/v1/runs/7/meta", 404, "run"},
      {"/api/v1/runs/-1/meta", 404, "run"},
      {"/api/v1/runs/..%2F..%2Fetc%2Fpasswd/meta", 404, "path"},
      {"/api/v1/runs/%2E%2E/meta", 404, "run"},
      {"/api/v1/runs/0/tile?row=99&level=0&tile=0", 400, "row"},
      {"/api/v1/runs/0/tile?row=0&level=63&tile=0", 400, "level"},
      {"/api/v1/runs/0/bucket?row=0&level=4&tile=0&bucket=256", 400, "bucket"},
      {"/api/v1/runs/0/bucket?row=0&level=4&tile=0&bucket=-1", 400, "bucket"},
      {"/api/v1/runs/0/bucket?row=0&level=4&tile=0", 400, "bucket"},
      {"/api/v1/runs/0/bucket?row=99&level=4&tile=0&bucket=0", 400, "row"},
      {"/api/v1/runs/0/bucket?row=0&level=63&tile=0&bucket=0", 400, "level"},
      {"/api/v1/runs/0/bucket?row=0&level=62&tile=" + huge + "&bucket=0", 400, "tile"},
      {"/api/v1/runs/0/bucket?row=0&level=0&tile=-" + huge + "&bucket=0", 400, "tile"},
      {"/api/v1/runs/0/events/999999", 404, "id"},
      {"/api/v1/runs/0/events/abc", 404, "id"},
      {"/api/v1/runs/0/search?q=", 400, "q"},
      {"/api/v1/runs/0/search?q=(&mode=regex", 400, "q"},
      {"/api/v1/runs/0/search?q=a&mode=glob", 400, "mode"},
      {"/api/v1/runs/0/search?q=a&bins=0", 400, "bins"},
      {"/api/v1/runs/0/search?q=%FF", 400, "q"},
      {"/../../etc/passwd", 404, "path"},
      {"/assets/../../../etc/passwd", 404, "path"},
      {"/assets/%2e%2e/CMakeLists.txt", 404, "path"},
      {"/etc/passwd", 404, "path"},
      {"/api/v2/runs", 404, "path"},
  };
  for (const Case& c : cases) {
    auto r = s.Get(c.path);
    ASSERT_TRUE(r) << c.path;
    EXPECT_EQ(r->status, c.status) << c.path << " " << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << c.path;
    EXPECT_NE(r->body.find("\"error\":\"" + c.names), std::string::npos)
        << c.path << " " << r->body;
  }
  // A huge window is answered, within the tile bound.
  auto wide = s.Get(
      "/api/v1/runs/0/viewport?t0=-4611686018427387904&t1=4611686018427387904&"
      "width=32768");
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->status, 200) << wide->body;
  auto overlong = s.Get("/api/v1/runs?x=" + std::string(9000, 'a'));
  ASSERT_TRUE(overlong);
  EXPECT_EQ(overlong->status, 414);
  auto post = s.client->Post("/api/v1/runs", "{}", "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  auto del = s.client->Delete("/api/v1/runs");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 405);
  auto head = s.client->Head("/api/v1/runs");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
}

TEST(ServeServerTest, ViewerIsServedWithTheStrictCsp) {
  Served s({Fixture()});
  auto page = s.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<html"), std::string::npos);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("default-src 'none'"),
            std::string::npos);
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  auto js = s.Get("/assets/viewer.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
}

TEST(ServeServerTest, TokenIsRequiredOffLoopback) {
  ServeServerOptions no_token;
  no_token.bind = "0.0.0.0";
  std::vector<std::unique_ptr<ServeRun>> none;
  ServeServer refused(&none, no_token);
  Status bound = refused.Bind();
  EXPECT_FALSE(bound.ok());
  EXPECT_NE(bound.message().find("token"), std::string::npos) << bound.message();

  ServeServerOptions options;
  options.bind = "0.0.0.0";
  options.access.token = "0123456789abcdef0123456789abcdef";
  Served s({Fixture()}, options);
  EXPECT_NE(s.server->Url().find("?token=" + options.access.token), std::string::npos);
  for (const char* path : {"/api/v1/runs", "/", "/assets/viewer.js", "/api/v1/runs/0/meta"}) {
    auto r = s.Get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_NE(r->body.find("\"error\":\"token"), std::string::npos);
  }
  auto wrong =
      s.Get("/api/v1/runs", {{"Authorization", "Bearer 0123456789abcdef0123456789abcdee"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto header = s.Get("/api/v1/runs", {{"Authorization", "Bearer " + options.access.token}});
  ASSERT_TRUE(header);
  EXPECT_EQ(header->status, 200);
  auto query = s.Get("/?token=" + options.access.token);
  ASSERT_TRUE(query);
  EXPECT_EQ(query->status, 200);
  // The page sets the token as a cookie, which its assets' requests carry.
  EXPECT_EQ(query->get_header_value("Set-Cookie"),
            "th_token=" + options.access.token + "; Path=/; HttpOnly; SameSite=Strict");
  auto asset = s.Get("/assets/viewer.js", {{"Cookie", "a=1; th_token=" + options.access.token}});
  ASSERT_TRUE(asset);
  EXPECT_EQ(asset->status, 200);
  for (const std::string& cookie :
       {std::string("th_token=0123456789abcdef0123456789abcdee"), std::string("th_token="),
        std::string("xth_token=") + options.access.token}) {
    auto refused = s.Get("/assets/viewer.js", {{"Cookie", cookie}});
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 401) << cookie;
  }
  auto unauthorised = s.Get("/");
  ASSERT_TRUE(unauthorised);
  EXPECT_EQ(unauthorised->get_header_value("Set-Cookie"), "");
}

TEST(ServeServerTest, RateBoundAnswers429) {
  ServeServerOptions options;
  options.access.requests_per_second = 1;
  options.access.request_burst = 5;
  Served s({Fixture()}, options);
  int ok = 0, limited = 0;
  for (int i = 0; i < 20; ++i) {
    auto r = s.Get("/api/v1/runs");
    ASSERT_TRUE(r);
    (r->status == 200 ? ok : limited) += 1;
    if (r->status == 429) {
      EXPECT_NE(r->body.find("\"error\":\"rate"), std::string::npos);
    }
  }
  EXPECT_GE(ok, 5);
  EXPECT_LE(ok, 7);  // the burst, and what refills while the loop runs
  EXPECT_GE(limited, 13);
}

// A large answer to a client that accepts gzip comes compressed and decodes
// to the bytes sent to one that does not; a small one comes as it is.
TEST(ServeServerTest, LargeAnswersAreGzippedForClientsThatAcceptIt) {
  const std::string path = RealTrace();
  if (path.empty()) GTEST_SKIP() << "real traces not found (../shared/data): skipped";
  Served s({path});
  s.client->set_decompress(false);  // the bytes as sent
  const std::string whole =
      "/api/v1/runs/0/viewport?t0=0&t1=" + std::to_string(s.runs[0]->end_rel_ns()) +
      "&width=32768&rows=all";
  auto plain = s.Get(whole);
  ASSERT_TRUE(plain);
  ASSERT_GE(plain->body.size(), kMinGzipBytes);
  EXPECT_EQ(plain->get_header_value("Content-Encoding"), "");
  EXPECT_EQ(plain->get_header_value("Vary"), "Accept-Encoding");
  auto packed = s.Get(whole, {{"Accept-Encoding", "gzip, deflate, br"}});
  ASSERT_TRUE(packed);
  ASSERT_EQ(packed->status, 200);
  EXPECT_EQ(packed->get_header_value("Content-Encoding"), "gzip");
  EXPECT_LT(packed->body.size(), plain->body.size());
  EXPECT_EQ(th::testing::Gunzip(packed->body), plain->body);
  const std::string narrow = "/api/v1/runs/0/viewport?t0=0&t1=1000000&width=100&rows=0";
  auto small = s.Get(narrow, {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(small);
  ASSERT_LT(small->body.size(), kMinGzipBytes);
  EXPECT_EQ(small->get_header_value("Content-Encoding"), "");
}

TEST(ServeServerTest, RealTraceViewportsAndSearch) {
  const std::string path = RealTrace();
  if (path.empty()) GTEST_SKIP() << "real traces not found (../shared/data): skipped";
  Served s({path});
  const ServeRun& run = *s.runs[0];
  const int64_t end = run.end_rel_ns();
  ExpectViewportMatches(s, 0, end, 3840);
  ExpectViewportMatches(s, end / 3, end / 3 + 2000000, 1920);
  ExpectViewportMatches(s, end / 2, end / 2 + 5000, 800);
  // Search counts against a pass over the indexed events.
  uint64_t want = 0;
  const EventGraph& g = run.graph();
  for (uint32_t r = 0; r < run.index().row_count(); ++r) {
    for (EventId e : run.index().row_index(r).order) {
      std::string name(g.strings.Get(g.events.name[e]));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      want += name.find("conv") != std::string::npos;
    }
  }
  ASSERT_GT(want, 0u);
  simdjson::dom::parser parser;
  auto r = Json(parser, s.Get("/api/v1/runs/0/search?q=Conv&limit=3"));
  EXPECT_EQ(uint64_t(r["hits_total"]), want);
  // Every hit's event details answer.
  for (simdjson::dom::element hit : r["hits"].get_array()) {
    auto d = s.Get("/api/v1/runs/0/events/" + std::to_string(int64_t(hit["id"])));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->status, 200);
  }
}

TEST(ServeServerTest, FlowsAnswerTheLaunchEdgeInTheWindowAndRefuseBadParameters) {
  Served s({Fixture()});
  const ServeRun& run = *s.runs[0];
  simdjson::dom::parser parser;
  const std::string whole = "t0=0&t1=" + std::to_string(run.end_rel_ns() + 1);
  auto doc = Json(parser, s.Get("/api/v1/runs/0/flows?" + whole + "&width=1000"));
  ASSERT_EQ(int64_t(doc["total"]), 1);
  simdjson::dom::element flow = doc["flows"].at(0);
  EXPECT_EQ(std::string_view(flow["kind"]), "launch");
  EXPECT_EQ(int64_t(flow["count"]), 1);
  const auto from = static_cast<EventId>(int64_t(flow["from_id"]));
  const auto to = static_cast<EventId>(int64_t(flow["to_id"]));
  EXPECT_EQ(run.graph().strings.Get(run.graph().events.name[from]), "cudaLaunchKernel");
  EXPECT_EQ(run.graph().strings.Get(run.graph().events.name[to]), "gemm_kernel");
  EXPECT_EQ(int64_t(flow["from_ns"]), run.Relative(run.graph().events.ts[from]));
  EXPECT_EQ(int64_t(flow["to_ns"]), run.Relative(run.graph().events.ts[to]));
  EXPECT_EQ(uint64_t(flow["from_row"]),
            *run.RowOf(run.graph().events.track[from], run.graph().events.depth[from]));
  // A window holding neither end, and rows holding neither end, answer none.
  const int64_t after = run.Relative(run.graph().events.ts[to]) + 1;
  doc = Json(parser, s.Get("/api/v1/runs/0/flows?t0=" + std::to_string(after) +
                           "&t1=" + std::to_string(after + 10) + "&width=10"));
  EXPECT_EQ(int64_t(doc["total"]), 0);
  const std::string huge = "9223372036854775807";
  for (const auto& [path, names] : std::vector<std::pair<std::string, std::string>>{
           {"/api/v1/runs/0/flows?t0=10&t1=10&width=10", "t1"},
           {"/api/v1/runs/0/flows?t1=10&width=10", "t0"},
           {"/api/v1/runs/0/flows?t0=0&t1=10&width=0", "width"},
           {"/api/v1/runs/0/flows?t0=0&t1=10&width=-3", "width"},
           {"/api/v1/runs/0/flows?t0=0&t1=10&width=40000", "width"},
           {"/api/v1/runs/0/flows?t0=0&t1=10&width=10&rows=../etc", "rows"},
           {"/api/v1/runs/0/flows?t0=0&t1=10&width=10&rows=99", "rows"},
           {"/api/v1/runs/9/flows?t0=0&t1=10&width=10", "run"}}) {
    auto r = s.Get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, names == "run" ? 404 : 400) << path << " " << r->body;
    EXPECT_NE(r->body.find("\"error\":\"" + names), std::string::npos) << path << " " << r->body;
  }
  auto wide = s.Get("/api/v1/runs/0/flows?t0=-" + huge + "&t1=" + huge + "&width=32768");
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->status, 200) << wide->body;
  EXPECT_NE(wide->body.find("\"total\":1"), std::string::npos) << wide->body;
}

TEST(ServeServerTest, CountersListTheGpuLanesAndAnswerBucketsOrSayWhatIsMissing) {
  Served s({Fixture()});
  simdjson::dom::parser parser;
  auto list = Json(parser, s.Get("/api/v1/runs/0/counters"));
  int64_t util = -1, eff = -1;
  for (simdjson::dom::element t : list["counters"].get_array()) {
    const std::string_view name = t["name"];
    if (name == "GPU utilisation") util = int64_t(t["track"]);
    if (name == "est. SM efficiency") {
      eff = int64_t(t["track"]);
      EXPECT_TRUE(t["unavailable"].is_string());  // the fixture has no device properties
      EXPECT_EQ(std::string_view(t["kind"]), "inferred");
    }
  }
  ASSERT_GE(util, 0);
  ASSERT_GE(eff, 0);
  const std::string window =
      "&t0=0&t1=" + std::to_string(s.runs[0]->end_rel_ns() + 1) + "&width=50";
  auto u = Json(parser, s.Get("/api/v1/runs/0/counters?track=" + std::to_string(util) + window));
  EXPECT_EQ(std::string_view(u["unit"]), "%");
  EXPECT_EQ(u["buckets"].get_array().size(), 50u);
  auto e = Json(parser, s.Get("/api/v1/runs/0/counters?track=" + std::to_string(eff) + window));
  EXPECT_EQ(e["buckets"].get_array().size(), 0u);
  for (const auto& [path, names] : std::vector<std::pair<std::string, std::string>>{
           {"/api/v1/runs/0/counters?track=999&t0=0&t1=10&width=10", "track"},
           {"/api/v1/runs/0/counters?track=-1&t0=0&t1=10&width=10", "track"},
           {"/api/v1/runs/0/counters?track=../x&t0=0&t1=10&width=10", "track"},
           {"/api/v1/runs/0/counters?track=0&t0=5&t1=5&width=10", "t1"},
           {"/api/v1/runs/0/counters?track=0&t1=5&width=10", "t0"},
           {"/api/v1/runs/0/counters?track=0&t0=0&t1=5&width=0", "width"},
           {"/api/v1/runs/0/counters?track=0&t0=0&t1=5&width=99999", "width"},
           {"/api/v1/runs/3/counters", "run"}}) {
    auto r = s.Get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, names == "run" ? 404 : 400) << path << " " << r->body;
    EXPECT_NE(r->body.find("\"error\":\"" + names), std::string::npos) << path << " " << r->body;
  }
  const std::string huge = "9223372036854775807";
  auto wide = s.Get("/api/v1/runs/0/counters?track=" + std::to_string(util) + "&t0=-" + huge +
                    "&t1=" + huge + "&width=32768");
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->status, 200) << wide->body.substr(0, 300);
}

}  // namespace
}  // namespace th::serve
