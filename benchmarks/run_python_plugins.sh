#!/usr/bin/env bash
# Python plugins: what naming one in a pipeline costs. `tracehound run` of
# kernel-stats (C++) alone, then with the example Python plugin
# (sdk/examples/python/kernel_totals.py) beside it, on a real trace of
# ../shared/data: wall-clock seconds and peak resident memory of the process
# (the difference is the interpreter, numpy and the plugin), and each
# plugin's own seconds from the JSON report. Medians of REPS runs (default 7),
# alternating the two pipelines.
#
#   benchmarks/run_python_plugins.sh [BUILD_DIR] [TRACE]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TRACE=${2:-../shared/data/tracelens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz}
REPS=${REPS:-7}
OUT=${BENCH_DIR:-$BUILD/bench-data}/python-plugins
CLI=${CLI:-$BUILD/cli/tracehound}
PYTHON=${PYTHON:-/usr/bin/python3}
[ -f "$TRACE" ] || { echo "trace $TRACE not found (../shared/data absent?)" >&2; exit 2; }
mkdir -p "$OUT"
example="$(pwd)/sdk/examples/python/kernel_totals.py"
for name in cpp python; do
  {
    echo "version: 1"
    echo "plugins:"
    echo "  kernel-stats: {}"
    [ "$name" = python ] && echo "  kernel-totals: {python: \"$example:KernelTotals\"}"
    echo "outputs:"
    echo "  - {type: json, path: \"$OUT/$name.json\"}"
  } >"$OUT/$name.yaml"
done

echo "== machine (shared, noisy)"; nproc; grep -m1 'model name' /proc/cpuinfo
echo "== $TRACE; $REPS runs each (wall s, peak RSS KiB, plugin seconds)"
for i in $(seq "$REPS"); do
  for name in cpp python; do
    PYTHONPATH="$BUILD/python" /usr/bin/time -f "%e %M" -o "$OUT/time" \
      "$CLI" run "$OUT/$name.yaml" "$TRACE" >/dev/null
    echo "$name $(cat "$OUT/time") $("$PYTHON" -c '
import json, sys
p = json.load(open(sys.argv[1]))["plugins"]
print(" ".join(k + "=" + str(v["seconds"]) for k, v in sorted(p.items())))' "$OUT/$name.json")"
  done
done | tee "$OUT/runs.txt"
"$PYTHON" - "$OUT/runs.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for who in ("cpp", "python"):
    mine = [r for r in rows if r[0] == who]
    wall = statistics.median(float(r[1]) for r in mine)
    rss = statistics.median(int(r[2]) for r in mine)
    plugins = {}
    for r in mine:
        for kv in r[3:]:
            k, v = kv.split("=")
            plugins.setdefault(k, []).append(float(v) * 1000)
    own = ", ".join(f"{k} {statistics.median(v):.2f} ms" for k, v in sorted(plugins.items()))
    print(f"{who}: wall {wall:.3f} s, peak RSS {rss / 1024:.1f} MiB; plugins: {own}")
PY
