"""load(): the frames hold what `tracehound info --json` reports, trace by
trace, for every file of ../shared/data and a generated run."""
import json

import numpy as np
import pytest

import tracehound
from conftest import need_shared_data, run_cli, shared_inputs

INT64_MIN = np.iinfo(np.int64).min


def info_traces(report: dict) -> list:
    return report["traces"] if "traces" in report else [report]


def totals(frame) -> dict:
    return {"count": len(frame), "total_ns": int(frame["dur"].sum())}


def expected_of(trace: tracehound.Trace) -> dict:
    """The info JSON's per-trace facts, worked out from the frames alone."""
    ev = trace.events
    own = ev[(ev["flags"].to_numpy() & 32) == 0]  # importer-made events are not counted
    by_kind = own["kind"].value_counts()
    edges = trace.edges
    launch = edges[edges["kind"] == 0]
    kinds = ev["kind"].to_numpy()
    memory = trace.memory[trace.memory["kind"] == "memory"]
    allocated = memory["total_allocated"][memory["total_allocated"] != INT64_MIN]
    reserved = memory["total_reserved"][memory["total_reserved"] != INT64_MIN]
    return {
        "path": trace.path,
        "rank": trace.rank,
        "format": trace.format,
        "events": len(own),
        "events_by_kind": {k: int(v) for k, v in sorted(by_kind.items()) if v},
        "kernels": totals(own[own["kind"] == "kernel"]),
        "memcpy": totals(own[own["kind"] == "memcpy"]),
        "memset": totals(own[own["kind"] == "memset"]),
        "gpu_streams": int((trace.tracks["kind"] == "gpu_stream").sum()),
        "steps": len(trace.steps),
        "step_numbers": trace.steps["number"].tolist(),
        "memory_events": int(by_kind.get("memory", 0)),
        "peak_total_allocated": int(allocated.max()) if len(allocated) else None,
        "peak_total_reserved": int(reserved.max()) if len(reserved) else None,
        "launch_edges": len(launch),
        "kernels_with_launch": int((kinds[launch["dst"].to_numpy()] == "kernel").sum()),
        "flow_edges": len(edges) - len(launch),
        "devices": [{"id": int(d.id), "name": d.name, "total_global_mem": int(d.total_global_mem),
                     "compute_capability": f"{d.compute_major}.{d.compute_minor}",
                     "num_sms": int(d.num_sms)} for d in trace.devices.itertuples()],
        "trust": [{k: v for k, v in row.items() if k != "example" or v}
                  for row in trace.trust.to_dict("records")],
    }


def compare_with_info(inputs: list) -> None:
    got = run_cli("info", "--json", *inputs, check=False)
    if got.returncode != 0:
        # What the command refuses, load() refuses with the same message.
        with pytest.raises((ValueError, OSError, NotImplementedError)) as error:
            tracehound.load(inputs)
        message = got.stderr.decode("utf-8", "replace").splitlines()[0]
        assert message.startswith("tracehound: error: " + inputs[0] + ":")
        assert str(error.value).startswith(inputs[0] + ":")
        return
    report = json.loads(got.stdout)
    traces = tracehound.load(inputs)
    assert len(traces) == report["ranks"]
    for trace, want in zip(traces, info_traces(report)):
        have = expected_of(trace)
        assert have == {k: want[k] for k in have}, trace.path


@pytest.mark.parametrize("rel", shared_inputs() or ["<absent>"])
def test_frames_equal_info_on_real_traces(rel):
    data = need_shared_data()
    compare_with_info([str(data / rel)])


def test_frames_equal_info_on_a_generated_run(generated):
    compare_with_info([str(generated)])


def test_a_set_of_ranks_concatenates_with_a_rank_column(generated):
    traces = tracehound.load(generated)
    assert traces.ranks == [0, 1]
    ev = traces.events
    assert ev["rank"].tolist() == [0] * len(traces[0].events) + [1] * len(traces[1].events)
    assert ev["name"].astype(str).tolist() == (
        traces[0].events["name"].astype(str).tolist() + traces[1].events["name"].astype(str).tolist())
    assert int(traces.kernels["dur"].sum()) == sum(int(t.kernels["dur"].sum()) for t in traces)


def test_kernels_join_their_gpu_args(generated):
    trace = tracehound.load(generated)[0]
    k = trace.kernels
    assert len(k) > 0
    ev = trace.events
    rows = k["event"].to_numpy()
    assert (ev["kind"].to_numpy()[rows] == "kernel").all()
    assert (k["ts"].to_numpy() == ev["ts"].to_numpy()[rows]).all()
    assert k["name"].astype(str).tolist() == ev["name"].astype(str).to_numpy()[rows].tolist()
    assert (k["stream"] >= 0).all()


def test_bad_input_raises_naming_the_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        tracehound.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "ts": 1,')
    with pytest.raises(ValueError, match="bad.json"):
        tracehound.load(bad)
    # keep_truncated: the complete events, and an error in the trust table.
    kept = tracehound.load(bad, keep_truncated=True)
    assert "error" in kept[0].trust["severity"].tolist()
