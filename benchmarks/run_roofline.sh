#!/usr/bin/env bash
# The roofline plugin on a large Kineto trace with record_shapes: a trace from
# ../shared/data amplified to SIZE, a pipeline of roofline alone, RUNS runs;
# prints the median of the plugin's seconds (the findings JSON's
# plugins.roofline.seconds), of the import and of the whole run, and the rows
# it published.
#
#   benchmarks/run_roofline.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SRC=${SRC:-../shared/data/tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz}
SIZE=${SIZE:-1G}
RUNS=${RUNS:-3}
OUT=${BENCH_DIR:-$BUILD/bench-data}/roofline
mkdir -p "$OUT"
[ -f "$SRC" ] || { echo "source trace $SRC not found (../shared/data absent?)" >&2; exit 2; }
trace="$OUT/amplified-$SIZE.json"
[ -f "$trace" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$trace" --size "$SIZE" | tail -1
cat >"$OUT/roofline.yaml" <<YAML
version: 1
plugins:
  roofline: {}
outputs:
  - {type: json, path: $OUT/findings.json}
YAML
: >"$OUT/seconds.txt"
for ((r = 0; r < RUNS; r++)); do
  start=$(date +%s.%N)
  "$BUILD/cli/tracehound" run "$OUT/roofline.yaml" "$trace" >/dev/null 2>"$OUT/stderr.txt" ||
    { status=$?; [ "$status" -eq 3 ] || { cat "$OUT/stderr.txt" >&2; exit 1; }; }
  end=$(date +%s.%N)
  python3 - "$OUT/findings.json" "$start" "$end" >>"$OUT/seconds.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
imp = d["timing"]["import_seconds"]
rows = {k: v["rows"] for k, v in d["tables"].items() if k.startswith("roofline")}
print(d["plugins"]["roofline"]["seconds"], imp, float(sys.argv[3]) - float(sys.argv[2]), json.dumps(rows))
PY
done
python3 - "$OUT/seconds.txt" "$trace" <<'PY'
import os, statistics, sys
rows = [l.split(maxsplit=3) for l in open(sys.argv[1])]
med = lambda i: statistics.median(float(r[i]) for r in rows)
print(f"trace {os.path.getsize(sys.argv[2]) / 2**20:.0f} MiB, {len(rows)} runs (medians)")
print(f"roofline plugin {med(0):.3f} s, import {med(1):.3f} s, whole run {med(2):.3f} s")
print("tables", rows[-1][3].strip())
PY
