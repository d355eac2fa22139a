#!/usr/bin/env bash
# Per-plugin run time of the default pipeline: the seconds each plugin took
# (the findings JSON's plugins[].seconds), median of RUNS runs, on a Kineto
# trace amplified to SIZE from ../shared/data (scratch under the build
# folder). With a second build folder, runs both binaries alternately on the
# same trace and prints the two medians side by side (e.g. before/after a
# change of the plugin ABI).
#
#   benchmarks/run_plugins.sh [BUILD_DIR] [OTHER_BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OTHER=${2:-}
SRC=${SRC:-../shared/data/tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz}
SIZE=${SIZE:-256M}
RUNS=${RUNS:-5}
OUT=${BENCH_DIR:-$BUILD/bench-data}/plugins
mkdir -p "$OUT"
[ -f "$SRC" ] || { echo "source trace $SRC not found (../shared/data absent?)" >&2; exit 2; }
trace="$OUT/amplified.json"
[ -f "$trace" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$trace" --size "$SIZE" | tail -1
config=$(realpath configs/default.yaml)
cat >"$OUT/plugins.yaml" <<YAML
version: 1
include: $config
outputs:
  - {type: json, path: $OUT/findings.json}
YAML
builds=("$BUILD")
[ -n "$OTHER" ] && builds+=("$OTHER")
for ((r = 0; r < RUNS; r++)); do
  for i in "${!builds[@]}"; do
    b=${builds[$i]}
    status=0
    "$b/cli/tracehound" run "$OUT/plugins.yaml" "$trace" >/dev/null 2>"$OUT/stderr.txt" || status=$?
    # 0: clean, 3: a finding reached fail_on; anything else is a failed run.
    if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then cat "$OUT/stderr.txt" >&2; exit 1; fi
    python3 - "$OUT/findings.json" "$OUT/seconds-$i.txt" <<'PY'
import json, sys
plugins = json.load(open(sys.argv[1]))["plugins"]
with open(sys.argv[2], "a") as out:
    for plugin, outcome in plugins.items():
        out.write(f"{plugin} {outcome['seconds']}\n")
PY
  done
done
python3 - "$OUT" "${builds[@]}" <<'PY'
import os, statistics, sys
out, builds = sys.argv[1], sys.argv[2:]
med = {}
for i, b in enumerate(builds):
    rows = {}
    for line in open(os.path.join(out, f"seconds-{i}.txt")):
        k, v = line.split()
        rows.setdefault(k, []).append(float(v))
    med[b] = {k: statistics.median(v) for k, v in rows.items()}
ids = sorted(med[builds[0]], key=lambda k: -med[builds[0]][k])
print("plugin".ljust(24) + "".join(b[-13:].rjust(14) for b in builds))
for k in ids:
    print(k.ljust(24) + "".join(f"{med[b].get(k, float('nan')):14.4f}" for b in builds))
print("sum".ljust(24) + "".join(f"{sum(med[b].values()):14.4f}" for b in builds))
PY
rm -f "$OUT"/seconds-*.txt
