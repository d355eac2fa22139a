#!/usr/bin/env bash
# Fleet scan benchmark (issue 9): RUNS generated runs (2 ranks each, distinct
# seeds, `tracehound generate --gzip`, written to a scratch folder, never
# committed), scanned with configs/fleet-scan.yaml on 2 cores (taskset -c 0,1,
# --jobs 2) into a fresh SQLite database, REPS times; then a rerun over the
# full database (every run skipped: the cost of resuming = hashing + lookups).
# Prints runs/s and GB/s (stored bytes) per repetition and the medians.
# With PG=1 also into a fresh database of a local PostgreSQL 15 server started
# for the benchmark (needs Debian's postgresql; run as root or postgres).
# With SOURCE=<real trace .json[.gz]> the runs are copies of that trace
# instead (one file each), made distinct by i trailing blanks after the JSON
# (same events, different content hash) and gzip -1. PIPELINE=<file or shipped
# config name> scans with another pipeline than configs/fleet-scan.yaml.
#
#   benchmarks/run_scan.sh [BUILD_DIR] [RUNS] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNS=${2:-1000}
REPS=${3:-3}
SOURCE=${SOURCE:-}
PIPELINE=${PIPELINE:-fleet-scan}
OUT=${BENCH_DIR:-$BUILD/bench-data}/fleet-${SOURCE:+real-}$RUNS
TH="$(pwd)/$BUILD/cli/tracehound"
[ -x "$TH" ] || { echo "$TH not built" >&2; exit 2; }

if [ ! -f "$OUT/.done" ]; then
  rm -rf "$OUT"
  if [ -n "$SOURCE" ]; then
    mkdir -p "$OUT"
    base="$OUT/source.json.tmp"
    case "$SOURCE" in *.gz) zcat "$SOURCE" > "$base" ;; *) cp "$SOURCE" "$base" ;; esac
    for i in $(seq 1 "$RUNS"); do
      mkdir -p "$OUT/$(printf 'run%04d' "$i")"
      (cat "$base"; printf '\n%*s\n' "$i" '') | gzip -1 > "$OUT/$(printf 'run%04d' "$i")/trace.json.gz"
    done
    rm -f "$base"
  else
    for i in $(seq 1 "$RUNS"); do
      "$TH" generate --out "$OUT/$(printf 'run%04d' "$i")" --ranks 2 --steps 4 --seed "$i" \
        --gzip > /dev/null
    done
  fi
  touch "$OUT/.done"
fi
BYTES=$(find "$OUT" -name '*.json.gz' -printf '%s\n' | awk '{s+=$1} END {print s}')
TEXT=$(find "$OUT" -name '*.json.gz' -exec gzip -lq {} + | awk '$4 != "(totals)" {s+=$2} END {printf "%.0f", s}')
echo "== fleet: $RUNS runs, $(find "$OUT" -name '*.json.gz' | wc -l) files, $BYTES bytes stored, $TEXT bytes of JSON"
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
CPU_LOG=$(mktemp)
scan() {  # scan DB_URL -> wall seconds; appends "user+sys" CPU seconds to $CPU_LOG
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -a -o "$CPU_LOG" -f '%U + %S' \
    taskset -c 0,1 "$TH" scan "$OUT" --pipeline "$PIPELINE" --jobs 2 --progress none --db "$1" > /dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
cpu_report() {  # label: the CPU time of the scans since the last call
  local label=$1
  local per_run
  per_run=$(while read -r line; do echo "$line" | bc -l; done < "$CPU_LOG" | median)
  printf '%s: CPU (user + sys) median %.2f s = %.1f ms per run\n' "$label" "$per_run" \
    "$(echo "$per_run * 1000 / $RUNS" | bc -l)"
  : > "$CPU_LOG"
}
report() {  # label seconds...
  local label=$1; shift
  for s in "$@"; do
    printf '%s: %.2f s  %.1f runs/s  %.3f GB/s stored  %.3f GB/s JSON\n' "$label" "$s" \
      "$(echo "$RUNS / $s" | bc -l)" "$(echo "$BYTES / $s / 1000000000" | bc -l)" \
      "$(echo "$TEXT / $s / 1000000000" | bc -l)"
  done
  local m; m=$(printf '%s\n' "$@" | median)
  printf '%s median: %.2f s  %.1f runs/s  %.3f GB/s stored  %.3f GB/s JSON\n' "$label" "$m" \
    "$(echo "$RUNS / $m" | bc -l)" "$(echo "$BYTES / $m / 1000000000" | bc -l)" \
    "$(echo "$TEXT / $m / 1000000000" | bc -l)"
}

times=() resume=()
for r in $(seq 1 "$REPS"); do
  db="$OUT/../scan-$r.db"
  rm -f "$db" "$db-wal" "$db-shm"
  times+=("$(scan "sqlite:$db")")
done
cpu_report "sqlite scan"
for r in $(seq 1 "$REPS"); do
  resume+=("$(scan "sqlite:$OUT/../scan-$r.db")")
done
cpu_report "sqlite rerun"
report "sqlite scan" "${times[@]}"
report "sqlite rerun (all skipped)" "${resume[@]}"

if [ "${PG:-0}" = 1 ]; then
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
  PGDIR=$(mktemp -d) PORT=55439
  chmod 777 "$PGDIR"
  as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
  as_pg "$PGBIN/initdb -D $PGDIR/data -U tracehound -A trust > /dev/null"
  as_pg "$PGBIN/pg_ctl -D $PGDIR/data -o '-p $PORT -k $PGDIR -c listen_addresses=127.0.0.1' -w -l $PGDIR/log start > /dev/null"
  trap 'as_pg "$PGBIN/pg_ctl -D $PGDIR/data -m immediate stop" > /dev/null; rm -rf "$PGDIR"' EXIT
  pg_times=()
  for r in $(seq 1 "$REPS"); do
    psql -q -h 127.0.0.1 -p $PORT -U tracehound -d postgres -c "CREATE DATABASE scan$r"
    pg_times+=("$(scan "postgresql://tracehound@127.0.0.1:$PORT/scan$r")")
  done
  cpu_report "postgresql scan"
  report "postgresql scan" "${pg_times[@]}"
fi
