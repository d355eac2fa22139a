"""Python plugins (tracehound.plugin): named by a pipeline, run by the CLI and
by tracehound.run(), their findings, metrics and tables in the report's bytes;
errors are the plugin's own failure or a pipeline error naming file:line."""
import json
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tracehound
from conftest import REPO, need_shared_data, run_cli, without_seconds

EXAMPLE = REPO / "sdk" / "examples" / "python" / "kernel_totals.py"
KERNEL = 7  # TH_EVENT_KERNEL


def write(folder: pathlib.Path, name: str, text: str) -> pathlib.Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def pipeline(folder: pathlib.Path, plugins: str, out: str = "report.json") -> pathlib.Path:
    """A pipeline in `folder` whose JSON report is `folder`/`out`."""
    return write(folder, "pipeline.yaml", "version: 1\nplugins:\n" +
                 textwrap.indent(textwrap.dedent(plugins), "  ") +
                 f"outputs:\n  - {{type: json, path: \"{folder / out}\"}}\n")


def example_pipeline(folder: pathlib.Path, min_longest_ns: int = 500000) -> pathlib.Path:
    return pipeline(folder, f"""\
          kernel-totals: {{python: "{EXAMPLE}:KernelTotals", min_longest_ns: {min_longest_ns}}}
        """)


def metric_text(name: str, value: int, unit: str, rank: int) -> str:
    """A metric entry of the JSON report, as `tracehound run` writes it."""
    return textwrap.indent(textwrap.dedent(f"""\
        {{
          "name": "{name}",
          "value": {value},
          "unit": "{unit}",
          "kind": "measured",
          "scope": {{
            "rank": {rank},
            "device": null,
            "stream": null,
            "step_first": null,
            "step_last": null
          }}
        }}"""), "      ")


def kernel_facts(path) -> tuple:
    """(count, total ns, longest ns, longest name) of a trace's kernels, from
    `tracehound info --json` and the loaded frame."""
    info = json.loads(run_cli("info", "--json", path).stdout)
    kernels = tracehound.load(str(path))[0].events
    kernels = kernels[kernels["kind"] == "kernel"]
    longest = kernels.loc[kernels["dur"].idxmax()]
    return info["kernels"]["count"], info["kernels"]["total_ns"], int(longest["dur"]), \
        str(longest["name"])


def test_cli_report_holds_the_plugins_finding_metrics_and_table(tmp_path, generated):
    pipe = example_pipeline(tmp_path)
    got = run_cli("run", pipe, generated, check=False)
    assert got.returncode == 0, got.stderr.decode()
    text = (tmp_path / "report.json").read_text()
    report = json.loads(text)
    for rank, trace in enumerate(sorted(generated.glob("*.json"))):
        count, total, longest, name = kernel_facts(trace)
        assert metric_text("kernel_count", count, "", rank) in text
        assert metric_text("kernel_time", total, "ns", rank) in text
        finding = textwrap.indent(textwrap.dedent(f"""\
            "title": "Rank {rank}'s longest kernel runs {longest} ns",
            "what": {json.dumps(name)[:-1]} lasts {longest} ns, {100 * longest // total} % of the rank's kernel time.",
            "evidence": [
              {{
                "name": "longest_kernel",
                "value": {longest},
                "unit": "ns",
                "kind": "measured"
              }},
              {{
                "name": "kernel_time",
                "value": {total},
                "unit": "ns",
                "kind": "measured"
              }}
            ],
            "scope": {{
              "rank": {rank},"""), "      ")
        assert finding in text
    assert report["plugins"]["kernel-totals"]["status"] == "ok"
    assert report["tables"]["kernel_totals"] == {
        "plugin": "kernel-totals", "rows": 2,
        "columns": ["rank", "kernels", "kernel_ns", "longest"]}


def test_run_in_python_writes_the_bytes_the_cli_writes(tmp_path, generated):
    pipe = example_pipeline(tmp_path)
    run_cli("run", pipe, generated)
    cli = (tmp_path / "report.json").read_bytes()
    report = tracehound.run(str(pipe), str(generated))
    assert report.exit_code == 0
    assert without_seconds(report.to_json()) == without_seconds(cli)
    table = report.table("kernel_totals")
    assert table["kernels"].tolist() == [kernel_facts(t)[0] for t in
                                         sorted(generated.glob("*.json"))]


REAL_TRACE = "tracelens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz"


def test_numbers_agree_with_info_on_a_real_trace(tmp_path):
    trace = need_shared_data() / REAL_TRACE  # 239,093 events, 8,042 kernels
    if not trace.is_file():
        pytest.skip(f"../shared/data has no {REAL_TRACE}")
    info = json.loads(run_cli("info", "--json", trace).stdout)
    report = tracehound.run(str(example_pipeline(tmp_path, 10**15)), str(trace))
    metrics = report.metrics.set_index("name")["value"]
    assert info["kernels"]["count"] > 1000
    assert int(metrics["kernel_count"]) == info["kernels"]["count"]
    assert int(metrics["kernel_time"]) == info["kernels"]["total_ns"]
    assert report.table("kernel_totals")["kernel_ns"].tolist() == [info["kernels"]["total_ns"]]


class ColumnProbe(tracehound.Plugin):
    """Records what run() saw of the events table's columns."""
    id = "column-probe"
    summary = "records its input arrays"
    reads = ["events"]
    seen: dict = {}

    def run(self, ctx):
        dur = ctx.traces[0]["events"]["dur"]
        ColumnProbe.seen = {"address": dur.__array_interface__["data"][0],
                            "writeable": dur.flags.writeable, "owns": dur.flags.owndata,
                            "dtype": dur.dtype, "len": len(dur), "sum": int(dur.sum())}


def test_columns_are_read_only_views_of_the_graph(tmp_path, generated, monkeypatch):
    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).parent))
    traces = tracehound.load(str(sorted(generated.glob("*.json"))[0]))
    pipe = pipeline(tmp_path, f"""\
          column-probe: {{python: "{pathlib.Path(__file__).stem}:ColumnProbe"}}
        """)
    report = tracehound.run(str(pipe), traces)
    assert report.exit_code == 0, report.plugins
    frame = traces[0].events["dur"].to_numpy()
    seen = ColumnProbe.seen
    # The plugin's array and the DataFrame's both view the graph's column.
    assert seen["address"] == frame.__array_interface__["data"][0]
    assert (seen["writeable"], seen["owns"], seen["dtype"]) == (False, False, np.int64)
    assert (seen["len"], seen["sum"]) == (len(frame), int(frame.sum()))


TABLE_READER = """\
    import tracehound

    class TableReader(tracehound.Plugin):
        id = "table-reader"
        summary = "reads the steps plugin's table and kernel-totals' table"
        reads = ["steps", "kernel_totals"]

        def run(self, ctx):
            steps = ctx.find_table("steps")
            ctx.publish_metric("steps_rows", len(steps["step"]), "count")
            ctx.publish_metric("steps_dur", int(steps["dur"].sum()), "ns")
            totals = ctx.find_table("kernel_totals")
            ctx.publish_metric("kernels_summed", int(totals["kernels"].sum()), "count")
            ctx.add_check("longest names read", all(totals["longest"]), ",".join(
                str(r) for r in totals["rank"]))
    """


def test_python_plugins_read_tables_of_cpp_and_python_plugins(tmp_path, generated):
    write(tmp_path, "table_reader.py", TABLE_READER)
    pipe = pipeline(tmp_path, f"""\
          table-reader: {{python: "table_reader.py:TableReader"}}
          kernel-totals: {{python: "{EXAMPLE}:KernelTotals"}}
          steps: {{}}
        """)
    report = tracehound.run(str(pipe), str(generated))
    assert report.exit_code == 0, report.plugins
    # Ordered after the plugins whose tables it reads.
    assert report.plugins["id"].tolist()[-1] == "table-reader"
    steps = report.table("steps")
    totals = report.table("kernel_totals")
    metrics = report.metrics[report.metrics["plugin"] == "table-reader"].set_index("name")
    assert int(metrics.loc["steps_rows", "value"]) == len(steps) == 8
    assert int(metrics.loc["steps_dur", "value"]) == int(steps["dur"].sum())
    assert int(metrics.loc["kernels_summed", "value"]) == int(totals["kernels"].sum())
    assert report.checks[["name", "passed", "detail"]].values.tolist() == [
        ["longest names read", True, "0,1"]]


FAILING = """\
    import tracehound

    class Boom(tracehound.Plugin):
        id = "boom"
        summary = "raises"

        def run(self, ctx):
            raise ValueError("boom at step 3")

    class WrongType(tracehound.Plugin):
        id = "wrong-type"
        summary = "passes a number as a title"

        def run(self, ctx):
            ctx.add_finding(3, "what", "P1")
    """


@pytest.mark.parametrize("plugin, last_line", [
    ("Boom", "ValueError: boom at step 3"),
    ("WrongType", "TypeError: title must be a str, got int"),
])
def test_a_failing_python_plugin_fails_alone(tmp_path, generated, plugin, last_line):
    write(tmp_path, "failing.py", FAILING)
    plugin_id = {"Boom": "boom", "WrongType": "wrong-type"}[plugin]
    pipe = pipeline(tmp_path, f"""\
          {plugin_id}: {{python: "failing.py:{plugin}"}}
          kernel-totals: {{python: "{EXAMPLE}:KernelTotals", min_longest_ns: 0}}
          kernel-stats: {{}}
        """)
    got = run_cli("run", pipe, generated, check=False)
    assert got.returncode == 4, got.stderr.decode()  # kExitPluginFailed, as for a C++ plugin
    report = json.loads((tmp_path / "report.json").read_text())
    outcome = report["plugins"][plugin_id]
    assert outcome["status"] == "failed"
    error = outcome["error"]
    assert error.startswith(f"plugin '{plugin_id}' (python:{tmp_path / 'failing.py'}:{plugin})"
                            " failed: "), error
    assert error.endswith(last_line), error
    assert f'failing.py", line {8 if plugin == "Boom" else 15}, in run' in error
    assert "plugin.py" not in error
    assert report["plugins"]["kernel-totals"]["status"] == "ok"
    assert report["plugins"]["kernel-stats"]["status"] == "ok"
    assert {f["plugin"] for f in report["findings"]} >= {"kernel-totals"}
    assert tracehound.run(str(pipe), str(generated)).exit_code == 4


BAD = """\
    import tracehound

    class BadKind(tracehound.Plugin):
        id = "bad-kind"
        kind = "checker"

    class BadOption(tracehound.Plugin):
        id = "bad-option"
        options = {"limit": tracehound.Option("int", "ten")}

    class BadId(tracehound.Plugin):
        id = "Bad_Id"

    class Elsewhere(tracehound.Plugin):
        id = "elsewhere"

    class NotAPlugin:
        id = "not-a-plugin"
    """


@pytest.mark.parametrize("key, spec, message", [
    ("missing", "no_such_module_xyz:Thing", "ModuleNotFoundError: No module named "
                                            "'no_such_module_xyz'"),
    ("missing-file", "nowhere.py:Thing", "nowhere.py: no such Python file"),
    ("bad-kind", "bad.py:BadKind", "kind 'checker' is neither 'analyzer' nor 'detector'"),
    ("bad-option", "bad.py:BadOption", "options['limit'] default 'ten' is not of its type 'int'"),
    ("Bad_Id", "bad.py:BadId", "plugin id 'Bad_Id' is not kebab-case"),
    ("other-key", "bad.py:Elsewhere", "the class declares id 'elsewhere', not the plugin's key "
                                      "'other-key'"),
    ("not-a-plugin", "bad.py:NotAPlugin", "is not a subclass of tracehound.Plugin"),
    ("syntax", "syntax.py:Thing", "SyntaxError: "),
])
def test_load_errors_name_the_pipeline_line(tmp_path, generated, key, spec, message):
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "syntax.py", "class Thing(:\n")
    pipe = pipeline(tmp_path, f"""\
          steps: {{}}
          {key}:
            python: "{spec}"
        """)
    got = run_cli("run", pipe, generated, check=False)
    stderr = got.stderr.decode()
    assert got.returncode not in (0, 3, 4) and not got.stdout, stderr
    assert f"{pipe}:5:13: python plugin '{key}' (" in stderr
    assert message in stderr
    with pytest.raises(ValueError, match=f"{pipe}:5:13: python plugin '{key}'"):
        tracehound.run(str(pipe), str(generated))


def test_dump_config_writes_the_python_key_back(tmp_path, generated):
    folder = tmp_path / "pipelines"
    folder.mkdir()
    (folder / "kernel_totals.py").write_bytes(EXAMPLE.read_bytes())
    pipe = pipeline(folder, """\
          kernel-totals: {python: "kernel_totals.py:KernelTotals", min_longest_ns: 7}
        """)
    dump = run_cli("run", "--dump-config", pipe).stdout.decode()
    assert (f"  kernel-totals:\n    python: {folder}/kernel_totals.py:KernelTotals\n"
            "    enabled: true\n    min_longest_ns: 7\n") in dump
    reloaded = write(tmp_path, "dumped.yaml", dump)
    assert run_cli("run", "--dump-config", reloaded).stdout.decode() == dump
    got = run_cli("run", reloaded, generated, check=False)
    assert got.returncode == 0, got.stderr.decode()
    assert json.loads((folder / "report.json").read_text())["plugins"]["kernel-totals"][
        "status"] == "ok"


def test_the_plugin_base_needs_no_extension_module():
    got = subprocess.run(
        [sys.executable, "-c", "import sys, tracehound\n"
         "assert tracehound.Plugin is sys.modules['tracehound.plugin'].Plugin\n"
         "print(sorted(m for m in sys.modules if m.startswith('tracehound')))"],
        capture_output=True, check=True)
    assert got.stdout.decode().strip() == "['tracehound', 'tracehound.plugin']"
