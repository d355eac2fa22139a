#!/usr/bin/env python3
"""Writes HTA's critical path analysis of its own critical_path test traces as a reference JSON.

Runs Holistic Trace Analysis (HTA) itself on the four traces under
hta/tests/data/critical_path/ with the rank, annotation and instance HTA's own
tests/test_critical_path_analysis.py uses, and stores per trace the critical
path length, its breakdown by HTA's bound_by and by edge type, and the number
of nodes on the path. Not run by the test suite; see README.md next to this file.

    /usr/bin/python3 make_hta_reference.py --hta <HTA source tree> \
        --hta-commit <40-hex commit of that tree> --data <shared/data> --out <file.json>
"""

import argparse
import hashlib
import json
import os
import platform
import sys

CASES = [
    # (directory under hta/tests/data/critical_path, annotation, instance_id)
    ("simple_add", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1),
    ("alexnet", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1),
    ("cuda_event_sync", "ProfilerStep", 0),
    ("cuda_event_sync_multi_stream", "", None),
]


def whole(value):
    """HTA's float64 sum as an int; fails if it is not a whole number."""
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


def one_case(data, name, annotation, instance):
    from hta.trace_analysis import TraceAnalysis

    directory = os.path.join(data, "hta/tests/data/critical_path", name)
    (trace_file,) = [f for f in sorted(os.listdir(directory)) if f.endswith(".json.gz")]
    analysis = TraceAnalysis(trace_dir=directory)
    graph, ok = analysis.critical_path_analysis(
        rank=0, annotation=annotation, instance_id=instance)
    if not ok:
        raise RuntimeError(f"HTA's critical path failed on {name}")
    edges = graph.get_critical_path_breakdown()
    by_bound = edges.groupby("bound_by").duration.sum()
    by_type = edges.groupby("type").duration.sum()
    return {
        "trace": f"hta/tests/data/critical_path/{name}/{trace_file}",
        "sha256": sha256_of(os.path.join(directory, trace_file)),
        "rank": 0,
        "annotation": annotation,
        "instance_id": instance,
        "path_us": whole(edges.duration.sum()),
        "nodes_on_path": len(graph.critical_path_nodes),
        "by_bound_us": {k: whole(v) for k, v in sorted(by_bound.items()) if k != ""},
        "by_edge_type_us": {k: whole(v) for k, v in sorted(by_type.items())},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hta", required=True, help="HTA source tree (holds hta/)")
    parser.add_argument("--hta-commit", required=True, help="commit of that tree")
    parser.add_argument("--data", required=True, help="the shared/data directory")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    sys.path.insert(0, os.path.abspath(args.hta))
    import networkx
    import pandas

    cases = {name: one_case(args.data, name, a, i) for name, a, i in CASES}
    document = {
        "what": "Holistic Trace Analysis CPGraph critical path (TraceAnalysis."
                "critical_path_analysis, then get_critical_path_breakdown) on HTA's "
                "critical_path test traces, at the rank/annotation/instance_id of HTA's "
                "tests/test_critical_path_analysis.py",
        "hta": {"commit": args.hta_commit, "python": platform.python_version(),
                "pandas": pandas.__version__, "networkx": networkx.__version__},
        "command": "/usr/bin/python3 tests/data/critical_path/make_hta_reference.py "
                   "--hta <HTA tree> --hta-commit " + args.hta_commit +
                   " --data <shared/data> --out tests/data/critical_path/hta_critical_path.json",
        "units": {"*_us": "microseconds, measured: sums of HTA's edge weights (int64 µs)"},
        "cases": cases,
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    tmp_out = args.out + ".tmp"
    with open(tmp_out, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp_out, args.out)


if __name__ == "__main__":
    main()
