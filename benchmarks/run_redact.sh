#!/usr/bin/env bash
# Redaction benchmark: amplify a real trace with Python stacks (home-directory
# paths in every "Call stack") to ~1 GB, plain and gzip, and a real XSpace to
# ~1 GB (scratch folder, never committed), then time `tracehound redact` on
# each (best of 3: wall, user+sys CPU, peak RSS), writing to a tmpfs so the
# disk is not what is measured.
#
#   benchmarks/run_redact.sh [BUILD_DIR] [SOURCE_TRACE] [SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SRC=${2:-../shared/data/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz}
SIZE=${3:-1G}
DATA=${BENCH_DIR:-$BUILD/bench-data}
OUT=${REDACT_OUT:-/dev/shm/tracehound-redact-bench}
XSPACE_SRC=${XSPACE_SOURCE:-../shared/data/xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb}
mkdir -p "$DATA"
[ -f "$SRC" ] || { echo "source trace $SRC not found (../shared/data absent?)" >&2; exit 2; }

json="$DATA/redact-src.json" gz="$DATA/redact-src.json.gz" xspace="$DATA/redact-src.xplane.pb"
[ -f "$json" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$json" --size "$SIZE"
[ -f "$gz" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$gz" --size "$SIZE"
[ -f "$xspace" ] || "$BUILD/benchmarks/th_amplify" --in "$XSPACE_SRC" --out "$xspace" --size "$SIZE"

echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo; uptime
printf 'key-for-the-benchmark-0123456789' >"$DATA/redact.key"
for f in "$json" "$gz" "$xspace"; do
  text_bytes=$(if [[ $f == *.gz ]]; then gzip -dc "$f" | wc -c; else stat -c %s "$f"; fi)
  best=""
  for i in 1 2 3; do
    rm -rf "$OUT"
    /usr/bin/time -f "%e %U %S %M" -o "$DATA/redact.time" \
      "$BUILD/cli/tracehound" redact "$f" -o "$OUT" --key-file "$DATA/redact.key" -q
    read -r wall user sys rss <"$DATA/redact.time"
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < ${best%% *})}"; then best="$wall $user $sys $rss"; fi
  done
  read -r wall user sys rss <<<"$best"
  python3 - "$f" "$text_bytes" "$wall" "$user" "$sys" "$rss" "$OUT/redaction-report.json" <<'PY'
import json, sys
f, n, wall, user, sys_, rss = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:6]), int(sys.argv[6])
rep = json.load(open(sys.argv[7]))
t = rep["totals"]
print(f"{f}: {n/1e6:.0f} MB of text in {wall:.2f} s = {n/1e6/wall:.0f} MB/s wall, "
      f"{n/1e6/(user+sys_):.0f} MB/s per CPU-second (user {user:.2f} s, sys {sys_:.2f} s), "
      f"peak RSS {rss/1024:.0f} MiB; {t['strings']:,} strings, {t['strings_changed']:,} changed, "
      f"{t['replacements']:,} replacements")
PY
done
rm -rf "$OUT"
