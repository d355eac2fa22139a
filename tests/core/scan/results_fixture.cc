#include "tests/core/scan/results_fixture.h"

#include "core/scan/results_schema.h"

namespace th::testing {

namespace {

scan::SqlValue Opt(const std::optional<int64_t>& v) {
  return v ? scan::SqlValue{*v} : scan::SqlValue{};
}
scan::SqlValue Opt(const std::optional<double>& v) {
  return v ? scan::SqlValue{*v} : scan::SqlValue{};
}
scan::SqlValue Text(const std::string& s) {
  return s.empty() ? scan::SqlValue{} : scan::SqlValue{s};
}

}  // namespace

Status WriteFixtureRun(scan::Database& db, const FixtureRun& run, const std::string& job_family) {
  TH_RETURN_IF_ERROR(scan::MigrateResultsSchema(db));
  TH_RETURN_IF_ERROR(db.Begin());
  auto body = [&]() -> Status {
    const size_t colon = run.run_id.find(':');
    TH_RETURN_IF_ERROR(db.Exec(
        "INSERT INTO runs (run_id, content_hash, pipeline_hash, location, name, host, status, "
        "error, verdict, exit_code, traces, ranks, bytes, events, captured_at_ns, scanned_at, "
        "scan_seconds, worker, job_family) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
        "$12, $13, $14, $15, $16, $17, $18, $19)",
        {run.run_id, run.run_id.substr(0, colon),
         colon == std::string::npos ? std::string("p") : run.run_id.substr(colon + 1),
         "/fleet/" + run.name, run.name, Text(run.host), run.status, Text(run.error),
         run.status == "ok"
             ? scan::SqlValue{std::string(run.findings.empty() ? "OPTIMAL" : "NEEDS_ATTENTION")}
             : scan::SqlValue{},
         int64_t{run.findings.empty() ? 0 : 3}, static_cast<int64_t>(run.traces.size()),
         static_cast<int64_t>(run.traces.size()), int64_t{1000} * (1 + int64_t(run.traces.size())),
         int64_t{42}, Opt(run.captured_at_ns), std::string("2026-11-29T16:00:00Z"), 0.25,
         run.worker, Text(job_family)}));
    TH_RETURN_IF_ERROR(db.Exec(
        "INSERT INTO run_locations (run_id, location, name, first_seen) VALUES ($1, $2, $3, $4)",
        {run.run_id, "/fleet/" + run.name, run.name, std::string("2026-11-29T16:00:00Z")}));
    int64_t seq = 0;
    for (const FixtureTrace& t : run.traces) {
      const std::string path = "/fleet/" + run.name + "/rank" + std::to_string(t.rank) + ".json";
      TH_RETURN_IF_ERROR(
          db.Exec("INSERT INTO traces (run_id, path, rank, host, file_hash, bytes, events, format) "
                  "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                  {run.run_id, path, t.rank, Text(t.host), "h" + std::to_string(t.rank),
                   int64_t{1000}, int64_t{42}, std::string("kineto_json")}));
      TH_RETURN_IF_ERROR(db.Exec(
          "INSERT INTO metrics (run_id, seq, plugin, name, unit, kind, value, rank) VALUES ($1, "
          "$2, $3, $4, $5, $6, $7, $8)",
          {run.run_id, seq++, std::string("stragglers"), std::string("arrived_last"),
           std::string("count"), std::string("measured"), 1.5 * static_cast<double>(t.rank),
           t.rank}));
    }
    seq = 0;
    for (const FixtureFinding& f : run.findings)
      TH_RETURN_IF_ERROR(
          db.Exec("INSERT INTO findings (run_id, seq, plugin, severity, title, what, confidence, "
                  "evidence, time_lost_ns, rank) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                  {run.run_id, seq++, f.plugin, f.severity, f.title, "what: " + f.title, 0.9,
                   std::string("[]"), Opt(f.time_lost_ns), Opt(f.rank)}));
    for (const FixtureStep& s : run.steps)
      TH_RETURN_IF_ERROR(db.Exec(
          "INSERT INTO steps (run_id, rank, step, start_ns, dur_ns) VALUES ($1, $2, $3, $4, $5)",
          {run.run_id, s.rank, s.step, s.step * s.dur_ns, s.dur_ns}));
    return Ok();
  };
  Status s = body();
  if (!s.ok()) {
    (void)db.Rollback();
    return s;
  }
  return db.Commit();
}

FixtureRun SyntheticRun(size_t i) {
  FixtureRun r;
  const std::string n = std::to_string(i);
  r.run_id = "c" + n + ":p";
  r.name = "job" + n;
  r.host = "node" + std::to_string(i % 7);
  r.captured_at_ns = int64_t{1764000000} * 1000000000 + static_cast<int64_t>(i) * 60000000000;
  if (i % 13 == 5) {
    r.status = "failed";
    r.error = "/fleet/job" + n + "/rank0.json: truncated gzip member at byte " + n;
    return r;
  }
  const int64_t ranks = 1 + static_cast<int64_t>(i % 4);
  for (int64_t k = 0; k < ranks; ++k) {
    r.traces.push_back({k, "node" + std::to_string((i + static_cast<size_t>(k)) % 7)});
    for (int64_t s = 0; s < 3; ++s)
      r.steps.push_back({k, s, 1000000 + static_cast<int64_t>(i) * 1000 + k * 10 + s});
  }
  if (i % 3 == 0)
    r.findings.push_back({"stragglers", 1, "rank " + std::to_string(ranks - 1) + " is a straggler",
                          static_cast<double>(i) * 1.25, ranks - 1});
  r.findings.push_back({"idle-launch", 2, "stream 7 idles " + n + "% waiting on the host",
                        std::nullopt, std::nullopt});
  return r;
}

}  // namespace th::testing
