"""Programmatic capture: a 2-process torch.distributed (gloo) job under
tracehound.capture.run writes one run that `info` and `analyze` read."""

import json
import os
import sqlite3

from capture_support import finish, free_port, read_json, start_worker, step_numbers, tracehound


def test_two_gloo_ranks_make_one_run(tmp_path):
    out = str(tmp_path / "run")
    port = free_port()
    finish([start_worker("programmatic", out, r, 2, port) for r in range(2)], timeout_s=120)

    assert sorted(os.listdir(out)) == [
        "rank0.trace.json", "rank0.tracehound-manifest.json",
        "rank1.trace.json", "rank1.tracehound-manifest.json"]
    for rank in range(2):
        m = read_json(os.path.join(out, "rank%d.tracehound-manifest.json" % rank))
        assert (m["rank"], m["world_size"], m["mode"]) == (rank, 2, "programmatic")
        assert (m["steps"], m["warmup"], m["first_step"]) == (3, 2, 2)
        assert m["tags"] == {"model": "mlp", "test": "programmatic"}
        assert m["framework"] == "torch" and m["framework_version"].startswith("1.13")
        assert m["trace"] == "rank%d.trace.json" % rank
        # warmup 2, then exactly 3 steps: #2, #3, #4
        assert step_numbers(os.path.join(out, m["trace"])) == [2, 3, 4]

    info = json.loads(tracehound("info", "--json", out).stdout)
    assert info["ranks"] == 2
    traces = info["traces"]
    assert [t["rank"] for t in traces] == [0, 1]
    assert {t["rank_source"] for t in traces} == {"run manifest"}
    assert {t["format"] for t in traces} == {"autograd_profiler_json"}
    for t in traces:
        # The bare array's ts count from the manifest's start time.
        m = read_json(os.path.join(out, "rank%d.tracehound-manifest.json" % t["rank"]))
        assert t["epoch_start_ns"] == m["start_time_ns"] + t["span_ns"]["first_ts"]
        assert t["profiler_step_events"] == 3

    # analyze writes its reports into the working folder.
    tracehound("analyze", out, cwd=str(tmp_path))
    findings = read_json(str(tmp_path / "tracehound-findings.json"))
    assert [(t["path"].rsplit("/", 1)[1], t["rank"]) for t in findings["traces"]] == [
        ("rank0.trace.json", 0), ("rank1.trace.json", 1)]
    # Each rank's 3 steps (#2..#4) and its all-reduces (4 parameters x 3
    # steps), matched across the 2 ranks (how many match depends on timing).
    step_scopes = sorted((m["scope"]["rank"], m["scope"]["step_first"], m["scope"]["step_last"])
                         for m in findings["metrics"]["cuda-sync"] if m["name"] == "step_time")
    assert step_scopes == [(0, 2, 4), (1, 2, 4)]
    collectives = findings["metrics"]["collectives"]
    per_rank = sorted((m["scope"]["rank"], m["value"]) for m in collectives
                      if m["name"] == "collectives")
    assert per_rank == [(0, 12), (1, 12)]
    matched = [m["value"] for m in collectives if m["name"] == "matched_collectives"]
    assert len(matched) == 1 and 1 <= matched[0] <= 12
    trust = {t["id"]: t["count"] for t in findings["trust"]}
    assert (trust["bare_event_array"], trust["autograd_profiler_trace"],
            trust["run_manifest_read"]) == (2, 2, 2)

    # scan reads the manifests' facts: the run's host and capture time.
    db = str(tmp_path / "fleet.db")
    tracehound("scan", out, "--db", "sqlite:" + db, cwd=str(tmp_path))
    manifests = [read_json(os.path.join(out, "rank%d.tracehound-manifest.json" % r))
                 for r in range(2)]
    with sqlite3.connect(db) as c:
        runs = c.execute("SELECT host, captured_at_ns, ranks FROM runs").fetchall()
        traces = c.execute("SELECT rank, host FROM traces ORDER BY rank").fetchall()
    assert runs == [(manifests[0]["host"], min(m["start_time_ns"] for m in manifests), 2)]
    assert traces == [(0, manifests[0]["host"]), (1, manifests[1]["host"])]
