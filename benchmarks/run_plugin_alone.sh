#!/usr/bin/env bash
# Each plugin alone: a pipeline of `steps`, `collectives` (what others read)
# and the plugin, one thread, on TRACE; the plugin's seconds (the findings
# JSON's plugins[].seconds) and the run's page faults (/usr/bin/time %R) over
# those of the same pipeline without it, medians of RUNS runs. Page faults are
# the plugin's scratch memory made resident (see RESULTS.md, "first-touch
# pages"). Default trace: the amplified XSpace of run_analyze.sh.
#
#   benchmarks/run_plugin_alone.sh [BUILD_DIR] [PLUGIN...]   (default: every default plugin)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
PLUGINS=("$@")
[ ${#PLUGINS[@]} -eq 0 ] && PLUGINS=(step-breakdown kernel-stats stream-budget gpu-efficiency
  idle-launch op-stats roofline overlap stragglers cuda-sync oom-risk layout-kernels
  layout-mismatch-copies unfused-reshapes convert-reduce)
TRACE=${TRACE:-$BUILD/bench-data/analyze/xspace.xplane.pb}
RUNS=${RUNS:-3}
TH="$(pwd)/$BUILD/cli/tracehound"
[ -x "$TH" ] || { echo "$TH not built" >&2; exit 2; }
[ -f "$TRACE" ] || { echo "$TRACE absent (benchmarks/run_analyze.sh $BUILD xspace makes it)" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
run() {  # run NAME: prints "faults seconds" medians
  local name=$1 extra=""
  [ "$name" != base ] && extra="  $name: {}"
  printf 'version: 1\ninputs: [%s]\nexecution: {backend: cpu, threads: 1}\nplugins:\n  steps: {}\n  collectives: {}\n%s\noutputs:\n  - {type: json, path: %s/out.json}\n' \
    "$(realpath "$TRACE")" "$extra" "$OUT" > "$OUT/p.yaml"
  : > "$OUT/f" ; : > "$OUT/s"
  for ((r = 0; r < RUNS; r++)); do
    /usr/bin/time -a -o "$OUT/f" -f '%R' taskset -c 0,1 "$TH" run "$OUT/p.yaml" > /dev/null 2>&1
    python3 -c "import json,sys; d=json.load(open('$OUT/out.json')); print(d['plugins'].get('$name',{}).get('seconds',0))" >> "$OUT/s"
  done
  echo "$(median < "$OUT/f") $(median < "$OUT/s")"
}
read -r base_faults _ <<< "$(run base)"
echo "== $TRACE, $RUNS runs each; base pipeline (steps, collectives): $base_faults page faults"
for p in "${PLUGINS[@]}"; do
  read -r faults seconds <<< "$(run "$p")"
  printf '%-24s %8.3f s  %+8d page faults\n' "$p" "$seconds" "$(( ${faults%.*} - ${base_faults%.*} ))"
done
