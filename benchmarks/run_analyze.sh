#!/usr/bin/env bash
# The whole pipeline against import alone: `tracehound analyze` (the default
# pipeline, its Markdown, JSON and HTML reports written to a scratch folder)
# against `tracehound info` on the same ~1 GB amplified trace, the two
# alternated RUNS times, on 2 cores (taskset -c 0,1) and on 1 (taskset -c 0);
# whole-process wall time and peak RSS (/usr/bin/time), medians, and the
# ratios analyze / info. Traces (scratch under the build folder, never
# committed; th_amplify from ../shared/data):
#   train  df_index_resolver.json.gz (V100 training, NCCL) amplified to SIZE
#   infer  google_owlv2 ... h100 (H100 inference) amplified to SIZE
#   xspace tw003.xplane.pb (8 x MI300X, JAX) amplified to SIZE
# Also prints analyze's per-phase seconds (the findings JSON's `timing`).
#
#   benchmarks/run_analyze.sh [BUILD_DIR] [TRACES...]     (default: train infer xspace)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
TRACES=("$@")
[ ${#TRACES[@]} -eq 0 ] && TRACES=(train infer xspace)
SIZE=${SIZE:-1G}
RUNS=${RUNS:-5}
CORES=${CORES:-"0,1 0"}
DATA=../shared/data
OUT=${BENCH_DIR:-$BUILD/bench-data}/analyze
TH="$(pwd)/$BUILD/cli/tracehound"
[ -x "$TH" ] || { echo "$TH not built" >&2; exit 2; }
[ -d "$DATA" ] || { echo "$DATA absent: no source traces" >&2; exit 2; }
mkdir -p "$OUT/reports"

source_of() {
  case $1 in
    train) echo "$DATA/hta/tests/data/df_index_resolver/df_index_resolver.json.gz" ;;
    infer) echo "$DATA/tracelens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz" ;;
    xspace) echo "$DATA/tracelens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb" ;;
    *) echo "unknown trace '$1' (train, infer, xspace)" >&2; exit 2 ;;
  esac
}
file_of() { case $1 in xspace) echo "$OUT/$1.xplane.pb" ;; *) echo "$OUT/$1.json" ;; esac; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $RUNS alternated runs each"
for name in "${TRACES[@]}"; do
  trace=$(file_of "$name")
  [ -f "$trace" ] || "$BUILD/benchmarks/th_amplify" --in "$(source_of "$name")" --out "$trace" \
    --size "$SIZE" | tail -1
  bytes=$(stat -L -c %s "$trace")
  for cores in $CORES; do
    : > "$OUT/info.txt"
    : > "$OUT/analyze.txt"
    for ((r = 0; r < RUNS; r++)); do
      /usr/bin/time -a -o "$OUT/info.txt" -f '%e %M' taskset -c "$cores" "$TH" info "$trace" \
        > /dev/null
      status=0
      TRACEHOUND_REPORT_DIR="$OUT/reports" /usr/bin/time -a -o "$OUT/analyze.txt" -f '%e %M' \
        taskset -c "$cores" "$TH" analyze "$trace" > /dev/null 2> "$OUT/stderr.txt" || status=$?
      # 0: clean; 3: a finding reached fail_on. Anything else is a failed run.
      if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then cat "$OUT/stderr.txt" >&2; exit 1; fi
    done
    iw=$(awk '{print $1}' "$OUT/info.txt" | median)
    aw=$(awk '{print $1}' "$OUT/analyze.txt" | median)
    im=$(awk '{print $2}' "$OUT/info.txt" | median)
    am=$(awk '{print $2}' "$OUT/analyze.txt" | median)
    n=$(echo "$cores" | tr ',' '\n' | wc -l)
    printf '%s (%d bytes), %d core(s): info %.2f s %.0f MiB | analyze %.2f s %.0f MiB (%.0f MB/s) | analyze/info: time %.2fx, peak RSS %.2fx\n' \
      "$name" "$bytes" "$n" "$iw" "$(echo "$im / 1024" | bc -l)" "$aw" "$(echo "$am / 1024" | bc -l)" \
      "$(echo "$bytes / $aw / 1000000" | bc -l)" "$(echo "$aw / $iw" | bc -l)" "$(echo "$am / $im" | bc -l)"
    python3 - "$OUT/reports/tracehound-findings.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["timing"]
slow = sorted(d["plugins"].items(), key=lambda p: -p[1]["seconds"])[:5]
print("   last run: import %.2f s, facts %.2f s, plugins %.2f s wall (%.2f s summed; %s), outputs before the JSON: %s" % (
    t["import_seconds"], t["facts_seconds"], t["plugins_seconds"], t["plugins_summed_seconds"],
    ", ".join("%s %.2f" % (k, v["seconds"]) for k, v in slow),
    ", ".join("%s %.2f s" % (o["type"], o["seconds"]) for o in t["outputs"]) or "none"))
PY
  done
done
