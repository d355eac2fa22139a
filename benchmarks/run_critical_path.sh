#!/usr/bin/env bash
# critical-path on a large trace: a real Kineto trace from ../shared/data
# amplified to SIZE (scratch under the build folder, never committed), run
# RUNS times through `tracehound run` with collectives + critical-path; prints
# the median of the plugin's own seconds (the findings JSON's
# plugins[].seconds), its ratio to the import's seconds (timing.import_seconds)
# in the same run, the whole run's wall time and CPU time (user + sys), and the
# peak RSS.
#
#   benchmarks/run_critical_path.sh [BUILD_DIR]
# SET=plugins.critical-path.what_if=false: a pipeline value to override.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SRC=${SRC:-../shared/data/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz}
SIZE=${SIZE:-1G}
RUNS=${RUNS:-3}
OUT=${BENCH_DIR:-$BUILD/bench-data}/critical-path
mkdir -p "$OUT"
[ -f "$SRC" ] || { echo "source trace $SRC not found (../shared/data absent?)" >&2; exit 2; }
trace="$OUT/amplified-$SIZE.json"
[ -f "$trace" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$trace" --size "$SIZE" | tail -1
cat >"$OUT/pipeline.yaml" <<YAML
version: 1
plugins:
  collectives: {}
  critical-path: {}
outputs:
  - {type: json, path: $OUT/findings.json}
YAML
echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo
rm -f "$OUT/runs.txt"
for ((r = 0; r < RUNS; r++)); do
  /usr/bin/time -f "%e %M %U %S" -o "$OUT/time.txt" "$BUILD/cli/tracehound" run "$OUT/pipeline.yaml" \
    "$trace" ${SET:+--set "$SET"} >/dev/null 2>"$OUT/stderr.txt" || { cat "$OUT/stderr.txt" >&2; exit 1; }
  python3 - "$OUT/findings.json" "$(cat "$OUT/time.txt")" >>"$OUT/runs.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
wall, rss_kb, user, system = sys.argv[2].split()
paths = d["tables"]["critical_path"]
plugin = d["plugins"]["critical-path"]["seconds"]
print(plugin, wall, rss_kb, paths["rows"], float(user) + float(system),
      plugin / d["timing"]["import_seconds"])
PY
done
python3 - "$OUT/runs.txt" "$trace" <<'PY'
import os, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = lambda i: statistics.median(float(r[i]) for r in rows)
print(f"{sys.argv[2]} ({os.path.getsize(sys.argv[2]) / 1e9:.3f} GB), {len(rows)} runs, "
      f"{int(rows[0][3])} paths: critical-path {med(0):.3f} s (median; {med(5):.2f} x the "
      f"import), whole run "
      f"{med(1):.2f} s, CPU {med(4):.2f} s, peak RSS {med(2) / 1024:.0f} MiB")
PY
