#!/usr/bin/env python3
"""Writes HTA's TraceDiff.compare_traces result for two traces as a reference JSON.

Runs Holistic Trace Analysis (HTA) itself, at its defaults, on one control and one
test Kineto trace and stores the per-name rows, totals and per-category sums. Not
run by the test suite; see README.md next to this file.

    /usr/bin/python3 make_hta_reference.py --hta <HTA source tree> \
        --hta-commit <40-hex commit of that tree> \
        --control <control.json.gz> --test <test.json.gz> --out <file.json>

The rows kept are all of them when there are at most --max-rows, otherwise the
--max-rows largest by |diff_duration| (ties by name); totals always cover all rows.
"""

import argparse
import hashlib
import json
import os
import platform
import sys
import tempfile

ROW_FIELDS = [
    "name",
    "control_counts",
    "control_total_duration_us",
    "test_counts",
    "test_total_duration_us",
    "diff_counts",
    "diff_duration_us",
    "counts_change_categories",
]


def whole(value):
    """HTA's float64 column value as an int; fails if it is not a whole number."""
    as_int = int(value)
    if as_int != value:
        raise ValueError(f"non-integer value {value!r} in HTA output")
    return as_int


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def single_trace_dir(trace_path, parent):
    """A fresh directory holding only a symlink to trace_path (HTA loads directories)."""
    directory = tempfile.mkdtemp(dir=parent)
    os.symlink(os.path.abspath(trace_path),
               os.path.join(directory, os.path.basename(trace_path)))
    return directory


def per_category(labeled_trace):
    """{cat: [count, total µs]} over the rows compare_traces uses by default."""
    summary = labeled_trace.get_ops_summary(labeled_trace.extract_ops())
    sums = summary.groupby("cat")[["counts", "total_duration"]].sum()
    return {cat: [whole(r.counts), whole(r.total_duration)]
            for cat, r in sums.iterrows()}


def rows_of(comp, control_label, test_label):
    rows = []
    for name, r in comp.iterrows():
        rows.append({
            "name": name,
            "control_counts": whole(r[f"{control_label}_counts"]),
            "control_total_duration_us": whole(r[f"{control_label}_total_duration"]),
            "test_counts": whole(r[f"{test_label}_counts"]),
            "test_total_duration_us": whole(r[f"{test_label}_total_duration"]),
            "diff_counts": whole(r["diff_counts"]),
            "diff_duration_us": whole(r["diff_duration"]),
            "counts_change_categories": r["counts_change_categories"],
        })
    rows.sort(key=lambda row: row["name"])
    return rows


def totals_of(rows):
    changes = {"+": 0, "-": 0, "=": 0}
    for row in rows:
        changes[row["counts_change_categories"]] += 1
    return {
        "rows": len(rows),
        "control_counts": sum(r["control_counts"] for r in rows),
        "control_total_duration_us": sum(r["control_total_duration_us"] for r in rows),
        "control_names": sum(1 for r in rows if r["control_counts"] > 0),
        "test_counts": sum(r["test_counts"] for r in rows),
        "test_total_duration_us": sum(r["test_total_duration_us"] for r in rows),
        "test_names": sum(1 for r in rows if r["test_counts"] > 0),
        "diff_counts": sum(r["diff_counts"] for r in rows),
        "diff_duration_us": sum(r["diff_duration_us"] for r in rows),
        "names_only_in_control": sum(1 for r in rows if r["test_counts"] == 0),
        "names_only_in_test": sum(1 for r in rows if r["control_counts"] == 0),
        "counts_change_categories": changes,
    }


def categories_of(control_cats, test_cats):
    out = {}
    for cat in sorted(set(control_cats) | set(test_cats)):
        c = control_cats.get(cat, [0, 0])
        t = test_cats.get(cat, [0, 0])
        out[cat] = {"control_counts": c[0], "control_total_duration_us": c[1],
                    "test_counts": t[0], "test_total_duration_us": t[1]}
    return out


def kept_rows(rows, max_rows):
    if len(rows) <= max_rows:
        return "all", rows
    top = sorted(rows, key=lambda r: (-abs(r["diff_duration_us"]), r["name"]))
    return f"top {max_rows} by |diff_duration_us|, ties by name", top[:max_rows]


def dump(document, rows):
    """JSON with 2-space indent, one row per line, keys in a fixed order."""
    head = json.dumps(document, indent=2, ensure_ascii=False)
    assert head.endswith("\n}") or head.endswith("}")
    lines = [json.dumps({k: r[k] for k in ROW_FIELDS}, ensure_ascii=False)
             for r in rows]
    return head[:-2] + ',\n  "rows": [\n    ' + ",\n    ".join(lines) + "\n  ]\n}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hta", required=True, help="HTA source tree (holds hta/)")
    parser.add_argument("--hta-commit", required=True, help="commit of that tree")
    parser.add_argument("--control", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--max-rows", type=int, default=1000)
    parser.add_argument("--trace-label", action="append", default=[],
                        help="how to name the traces in the output (control, test)")
    args = parser.parse_args()

    sys.path.insert(0, os.path.abspath(args.hta))
    import numpy
    import pandas
    from hta.trace_diff import LabeledTrace, TraceDiff
    from hta.version import __version__ as hta_version

    with tempfile.TemporaryDirectory() as tmp:
        control = LabeledTrace(label="Control",
                               trace_dir=single_trace_dir(args.control, tmp))
        test = LabeledTrace(label="Test", trace_dir=single_trace_dir(args.test, tmp))
        comp = TraceDiff.compare_traces(control, test)
        rows = rows_of(comp, control.label, test.label)
        cats = categories_of(per_category(control), per_category(test))

    labels = args.trace_label or [args.control, args.test]
    selection, shown = kept_rows(rows, args.max_rows)
    document = {
        "what": "Holistic Trace Analysis TraceDiff.compare_traces(control_dir, test_dir) "
                "at its defaults: per-name counts and summed durations of the first "
                "ProfilerStep of the first rank of each trace, all device types, full names",
        "hta": {"commit": args.hta_commit, "version": hta_version,
                "python": platform.python_version(), "pandas": pandas.__version__,
                "numpy": numpy.__version__},
        "command": "/usr/bin/python3 tests/data/trace_diff/make_hta_reference.py "
                   "--hta <HTA tree> --hta-commit " + args.hta_commit +
                   " --control <shared/data>/hta/tests/data/trace_diff/control/control.json.gz"
                   " --test <shared/data>/hta/tests/data/trace_diff/test/test.json.gz"
                   " --trace-label hta/tests/data/trace_diff/control/control.json.gz"
                   " --trace-label hta/tests/data/trace_diff/test/test.json.gz"
                   " --out tests/data/trace_diff/hta_compare_traces.json",
        "call": {"control_rank": None, "test_rank": None, "control_iteration": None,
                 "test_iteration": None, "device_type": "DeviceType.ALL",
                 "use_short_name": False},
        "units": {"*_counts": "events (rows of HTA's DataFrame)",
                  "*_us": "microseconds, measured (sums of the trace's dur); HTA keeps them "
                          "as float64, every value here is a whole number"},
        "inputs": {
            side: {"trace": label, "sha256": sha256_of(path),
                   "rank": lt.ranks()[0], "iteration": lt.iterations()[0]}
            for side, label, path, lt in (("control", labels[0], args.control, control),
                                          ("test", labels[1], args.test, test))
        },
        "totals": totals_of(rows),
        "per_category": cats,
        "row_order": "by name, Python code-point order (HTA's own order is not meaningful)",
        "rows_kept": selection,
    }
    text = dump(document, shown)
    tmp_out = args.out + ".tmp"
    with open(tmp_out, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp_out, args.out)


if __name__ == "__main__":
    main()
