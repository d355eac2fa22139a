#!/usr/bin/env bash
# Fleet scans past one process (issue 9.6): the same RUNS generated runs
# (2 ranks each, distinct seeds, `tracehound generate --gzip`, scratch folder,
# never committed; shared with run_scan.sh) scanned with configs/fleet-scan.yaml
# into a fresh SQLite database by
#   single      one process, --jobs 2
#   mpi-np2     mpirun -np 2, --jobs 1 per rank (rank 0 merges rank 1's file)
#   mpi-np4     mpirun --oversubscribe -np 4, --jobs 1 per rank
#   shards4     4 processes --shard i/4 --jobs 1 at once, then tracehound merge
# REPS times each, interleaved; prints wall seconds and runs/s per repetition and
# the medians (the merge of shards4 is also timed alone). Every mode's database
# content is checked against the single-process one by tests/cli/fleet_scan_test.
#
#   benchmarks/run_fleet_mpi.sh [BUILD_DIR] [RUNS] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNS=${2:-200}
REPS=${3:-3}
OUT=${BENCH_DIR:-$BUILD/bench-data}/fleet-$RUNS
TH="$(pwd)/$BUILD/cli/tracehound"
[ -x "$TH" ] || { echo "$TH not built" >&2; exit 2; }
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
command -v mpirun > /dev/null || { echo "mpirun not found (Debian: openmpi-bin)" >&2; exit 2; }

if [ ! -f "$OUT/.done" ]; then
  rm -rf "$OUT"
  for i in $(seq 1 "$RUNS"); do
    "$TH" generate --out "$OUT/$(printf 'run%04d' "$i")" --ranks 2 --steps 4 --seed "$i" \
      --gzip > /dev/null
  done
  touch "$OUT/.done"
fi
BYTES=$(find "$OUT" -name '*.json.gz' -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "== fleet: $RUNS runs, $(find "$OUT" -name '*.json.gz' | wc -l) files, $BYTES bytes stored"
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

DB=$(mktemp -d)
trap 'rm -rf "$DB"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
timed() {  # command... -> wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
shards4() {
  for s in 0 1 2 3; do
    "$TH" scan "$OUT" --shard "$s/4" --jobs 1 --progress none --db "sqlite:$DB/s$s.db" &
  done
  wait
  MERGE_T0=$(date +%s.%N)
  "$TH" merge "sqlite:$DB/m.db" "$DB"/s0.db "$DB"/s1.db "$DB"/s2.db "$DB"/s3.db
  echo "$(date +%s.%N) - $MERGE_T0" | bc -l > "$DB/merge_seconds"
}
declare -A T
MERGES=()
for rep in $(seq 1 "$REPS"); do
  rm -f "$DB"/*.db*
  T[single]+="$(timed "$TH" scan "$OUT" --jobs 2 --progress none --db "sqlite:$DB/a.db") "
  T[mpi-np2]+="$(timed $MPIRUN -np 2 "$TH" scan "$OUT" --jobs 1 --progress none \
    --db "sqlite:$DB/b.db") "
  T[mpi-np4]+="$(timed $MPIRUN -np 4 "$TH" scan "$OUT" --jobs 1 --progress none \
    --db "sqlite:$DB/c.db") "
  T[shards4]+="$(timed shards4) "
  MERGES+=("$(cat "$DB/merge_seconds")")
done
for mode in single mpi-np2 mpi-np4 shards4; do
  # shellcheck disable=SC2086
  for s in ${T[$mode]}; do printf '%s: %.2f s  %.1f runs/s\n' "$mode" "$s" "$(echo "$RUNS / $s" | bc -l)"; done
  # shellcheck disable=SC2086
  m=$(printf '%s\n' ${T[$mode]} | median)
  printf '%s median: %.2f s  %.1f runs/s\n' "$mode" "$m" "$(echo "$RUNS / $m" | bc -l)"
done
m=$(printf '%s\n' "${MERGES[@]}" | median)
printf 'merge of the 4 shards alone: median %.2f s  %.1f runs/s\n' "$m" "$(echo "$RUNS / $m" | bc -l)"
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
