#!/usr/bin/env bash
# Ingest benchmark: amplify a real trace from ../shared/data to ~1 GB (plain
# and gzip, written to a scratch folder, never committed), and a real XSpace
# to ~1 GB (XSPACE_SOURCE, default the TPU capture), then run ingest_benchmark
# (medians of 5) and measure peak RSS of `tracehound info`.
#
#   benchmarks/run_ingest.sh [BUILD_DIR] [SOURCE_TRACE] [SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SRC=${2:-../shared/data/hta/tests/data/df_index_resolver/df_index_resolver.json.gz}
SIZE=${3:-1G}
OUT=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$OUT"
[ -f "$SRC" ] || { echo "source trace $SRC not found (../shared/data absent?)" >&2; exit 2; }

XSPACE_SRC=${XSPACE_SOURCE:-../shared/data/xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb}

json="$OUT/amplified.json" gz="$OUT/amplified.json.gz" xspace="$OUT/amplified.xplane.pb"
[ -f "$json" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$json" --size "$SIZE"
[ -f "$gz" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$gz" --size "$SIZE"
# XSpace: re-read with the strict reader after writing (K x the source's events).
[ -f "$xspace" ] || "$BUILD/benchmarks/th_amplify" --in "$XSPACE_SRC" --out "$xspace" --size "$SIZE"

echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
echo "== ingest_benchmark (median of 5)"
TRACEHOUND_BENCH_JSON="$json" TRACEHOUND_BENCH_GZ="$gz" TRACEHOUND_BENCH_XSPACE="$xspace" \
  "$BUILD/benchmarks/ingest_benchmark" \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>&1 | grep -E 'median|Benchmark'

echo "== peak resident memory of tracehound info (1 thread, then all)"
for t in 1 0; do
  for f in "$json" "$gz"; do
    /usr/bin/time -f "%M" -o "$OUT/rss" "$BUILD/cli/tracehound" info --threads "$t" --json "$f" >"$OUT/info.json"
    python3 - "$OUT/info.json" "$(cat "$OUT/rss")" "$f" "$t" <<'PY'
import json, sys
info = json.load(open(sys.argv[1])); rss_kb = int(sys.argv[2])
ev = info["events"]; mem = info["memory_bytes"]
print(f"{sys.argv[3]} threads={sys.argv[4] or 'all'}: events={ev:,} peak_rss={rss_kb/1024:.0f} MiB "
      f"= {rss_kb*1024/ev:.1f} B/event; graph tables {mem['graph_per_event']:.1f} B/event; "
      f"strings {mem['strings']/1024:.0f} KiB; import {info['import_seconds']:.3f} s "
      f"profile {info['import_profile_seconds']}")
PY
  done
done
