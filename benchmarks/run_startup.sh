#!/usr/bin/env bash
# Start-up benchmark: medians over RUNS runs (default 25) of `tracehound
# --version`, `tracehound info TRACE` and `tracehound analyze TRACE` (the
# default pipeline; its reports are written to a tmpfs, the working folder of
# the runs) on a real trace of ~1 MB of JSON: wall milliseconds and CPU
# milliseconds (perf stat's task-clock), each run timed on its own.
# Given two build folders, runs them alternately (before, after) and prints
# both, so load on a shared machine hits both alike.
#
#   benchmarks/run_startup.sh [BUILD_DIR [OTHER_BUILD_DIR]]
#   RUNS=40 TRACE=path.json.gz benchmarks/run_startup.sh build-before build
set -euo pipefail
cd "$(dirname "$0")/.."
BUILDS=("${1:-build}")
[ $# -ge 2 ] && BUILDS+=("$2")
RUNS=${RUNS:-25}
TRACE=${TRACE:-../shared/data/tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz}
OUT=${STARTUP_OUT:-/dev/shm/tracehound-startup-bench}
[ -f "$TRACE" ] || { echo "trace $TRACE not found (../shared/data absent?)" >&2; exit 2; }
for b in "${BUILDS[@]}"; do
  [ -x "$b/cli/tracehound" ] || { echo "$b/cli/tracehound not built" >&2; exit 2; }
done
mkdir -p "$OUT"
for i in "${!BUILDS[@]}"; do BUILDS[$i]=$(realpath "${BUILDS[$i]}"); done
TRACE=$(realpath "$TRACE")
TIMES=$(mktemp -d)
trap 'rm -rf "$TIMES" "$OUT"' EXIT

echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo; uptime
echo "== trace $TRACE ($(stat -c %s "$TRACE") bytes, $(gzip -dc "$TRACE" | wc -c) of JSON)"
for b in "${BUILDS[@]}"; do
  echo "== $b: $(ldd "$b/cli/tracehound" | wc -l) shared libraries (ldd)"
done

declare -A COMMANDS=(
  [version]="--version"
  [info]="info $TRACE"
  [analyze]="analyze $TRACE"
)
cd "$OUT"
for name in version info analyze; do
  for b in "${BUILDS[@]}"; do "$b/cli/tracehound" ${COMMANDS[$name]} >/dev/null 2>&1; done  # warm
  for ((i = 0; i < RUNS; i++)); do
    for k in "${!BUILDS[@]}"; do
      perf stat -x, -e task-clock --append -o "$TIMES/$k.$name" \
        "${BUILDS[$k]}/cli/tracehound" ${COMMANDS[$name]} >/dev/null 2>&1
    done
  done
done

# Wall times come from bash's own microsecond clock (EPOCHREALTIME, no fork),
# in runs of their own (perf stat's start-up is not in them).
for name in version info analyze; do
  for ((i = 0; i < RUNS; i++)); do
    for k in "${!BUILDS[@]}"; do
      start=${EPOCHREALTIME/./}
      "${BUILDS[$k]}/cli/tracehound" ${COMMANDS[$name]} >/dev/null 2>&1
      echo $((${EPOCHREALTIME/./} - start)) >>"$TIMES/$k.$name.wall"
    done
  done
done

python3 - "$TIMES" "$RUNS" "${BUILDS[@]}" <<'PY'
import os, statistics, sys
times, runs, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print(f"== medians of {runs} runs: wall ms (EPOCHREALTIME), CPU ms (perf stat task-clock, all threads)")
for name in ("version", "info", "analyze"):
    row = []
    for k, b in enumerate(builds):
        base = os.path.join(times, f"{k}.{name}")
        wall = [int(l) / 1e3 for l in open(base + ".wall")]
        cpu = [float(l.split(",")[0]) for l in open(base) if "task-clock" in l]
        row.append(f"{b}: {statistics.median(wall):6.1f} ms wall, {statistics.median(cpu):5.1f} ms CPU")
    print(f"{name:8s} " + " | ".join(row))
PY
