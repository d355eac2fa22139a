"""run() and diff(): the bytes the CLI writes, frames of the report, derived
tables as views."""
import json

import numpy as np
import pytest

import tracehound
from tracehound import _tracehound
from conftest import need_shared_data, run_cli, without_seconds

PIPELINE = """version: 1
plugins:
  steps: {{}}
  kernel-stats: {{}}
  stragglers: {{min_ranks: 2}}
  oom-risk: {{}}
outputs:
  - {{type: json, path: "{out}/findings.json"}}
  - {{type: html, path: "{out}/report.html"}}
  - {{type: markdown, path: "{out}/report.md"}}
  - {{type: terminal}}
"""


def check_against_cli(tmp_path, inputs: str):
    """One pipeline file, run by the CLI (its outputs then moved to cli/) and
    by run() (write_outputs() writes the same paths again)."""
    out = tmp_path / "out"
    out.mkdir()
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(PIPELINE.format(out=out))
    got = run_cli("run", pipeline, inputs, check=False)
    assert got.returncode in (0, 3), got.stderr.decode()
    cli = out.rename(tmp_path / "cli")
    out.mkdir()
    report = tracehound.run(str(pipeline), tracehound.load(inputs))
    assert report.exit_code == got.returncode
    cli_json = (cli / "findings.json").read_bytes()
    # The JSON is the first output: written before any other, as to_json() is.
    assert without_seconds(report.to_json()) == without_seconds(cli_json)
    assert b"pipeline.yaml" in report.to_markdown() and b"<!DOCTYPE html>" in report.to_html()
    terminal = report.write_outputs()
    assert without_seconds(terminal.encode()) == without_seconds(got.stdout)
    for name in ["findings.json", "report.md", "report.html"]:
        assert without_seconds((out / name).read_bytes()) == without_seconds(
            (cli / name).read_bytes()), name
    return report, json.loads(cli_json)


def test_run_writes_the_bytes_the_cli_writes(tmp_path, generated):
    report, cli = check_against_cli(tmp_path, str(generated))
    assert report.findings["id"].tolist() == [f["id"] for f in cli["findings"]]
    assert report.verdict == cli["verdict"]
    assert set(report.plugins["id"]) == {"steps", "kernel-stats", "stragglers", "oom-risk"}
    metrics = report.metrics
    assert len(metrics) == sum(len(v) for v in cli["metrics"].values())
    assert len(report.checks) == len(cli["checks"])


def test_run_on_a_real_trace(tmp_path):
    data = need_shared_data()
    check_against_cli(tmp_path, str(data / "hta/tests/data/critical_path/alexnet/"
                                           "benchmark_result_2869224_1695835535_trace.json.gz"))


def test_derived_tables_are_views_kept_alive_by_the_report(generated):
    report = tracehound.run("version: 1\nplugins:\n  kernel-stats: {}\n", generated)
    names = report.table_names()
    assert names, "kernel-stats publishes tables"
    table = report.table(names[0])
    assert table.attrs["plugin"] == "kernel-stats"
    cli = report.json["tables"][names[0]]
    assert len(table) == cli["rows"]
    numeric = [c for c in table.columns if table[c].dtype in (np.int64, np.float64)]
    assert numeric
    base = table[numeric[0]].to_numpy()
    while isinstance(base, np.ndarray):
        base = base.base
    assert isinstance(base, _tracehound._Report)


def test_a_pipeline_error_names_the_line(generated):
    with pytest.raises(ValueError, match=r"pipeline.yaml:3:\d+"):
        tracehound.run("version: 1\nplugins:\n  no-such-plugin: {}\n", generated)


def test_diff_is_the_cli_diff(tmp_path, generated):
    a = tmp_path / "a"
    run_cli("generate", "--out", a, "--ranks", 1, "--steps", 4, "--seed", 3)
    b = tmp_path / "b"
    run_cli("generate", "--out", b, "--ranks", 1, "--steps", 4, "--seed", 4,
            "--kernels-per-step", 150)
    run_cli("diff", a, b, "-o", tmp_path / "cli")
    d = tracehound.diff(str(a), str(b))
    assert d.to_json() == (tmp_path / "cli" / "diff.json").read_bytes()
    assert d.to_html() == (tmp_path / "cli" / "diff.html").read_bytes()
    assert len(d.rows) == len(d.json["aggregate"])
