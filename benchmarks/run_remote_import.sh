#!/usr/bin/env bash
# Remote import benchmark: the ~1 GB amplified Kineto trace (plain and gzip,
# made by th_amplify as run_ingest.sh makes them, in a scratch folder, never
# committed) read by `tracehound info` from a loopback S3 server (OpenStack
# Swift with s3api, tests/support/swift_s3_server.py), and over plain HTTP from
# a loopback C++ file server (benchmarks/range_file_server.cc: the reader's
# own ceiling, Swift being Python on the same cores), against the same file
# read locally: wall time (throughput = stored bytes / wall s) and peak RSS,
# medians of RUNS runs each, alternated (the machine is shared and noisy); and Swift's own
# ceiling, the object fetched by curl through Swift's API with nothing parsing.
#
#   benchmarks/run_remote_import.sh [BUILD_DIR] [SOURCE_TRACE] [SIZE]
# PIN=1: the servers on core 1, tracehound and curl on core 0 (local and
# remote alike): the reader's own rate when the server does not take its core.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SRC=${2:-../shared/data/hta/tests/data/df_index_resolver/df_index_resolver.json.gz}
SIZE=${3:-1G}
RUNS=${RUNS:-5}
OUT=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$OUT"
[ -f "$SRC" ] || { echo "source trace $SRC not found (../shared/data absent?)" >&2; exit 2; }
json="$OUT/amplified.json" gz="$OUT/amplified.json.gz"
[ -f "$json" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$json" --size "$SIZE"
[ -f "$gz" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$gz" --size "$SIZE"

swift_dir=$(mktemp -d)
server=tests/support/swift_s3_server.py
started=$(/usr/bin/python3 "$server" start "$swift_dir")
port=$(echo "$started" | sed -n 's/^port=\([0-9]*\) .*/\1/p')
pids=$(echo "$started" | sed -n 's/.* pids=//p' | tr ',' ' ')
"$BUILD/benchmarks/range_file_server" "$OUT" >"$swift_dir/http.port" &
pids="$pids $!"
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$swift_dir"; }
trap cleanup EXIT
sleep 1
http_port=$(sed -n 's/^port=//p' "$swift_dir/http.port")
client=()
if [ "${PIN:-0}" = 1 ]; then
  for p in $pids; do taskset -a -pc 1 "$p" >/dev/null; done
  client=(taskset -c 0)
fi
/usr/bin/python3 "$server" put "$swift_dir" bench "amplified.json=$json" "amplified.json.gz=$gz"
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=test:tester AWS_SECRET_ACCESS_KEY=testing AWS_REGION=auto
/usr/bin/python3 "$server" public "$swift_dir" bench  # for curl through Swift's own API

echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
echo "== tracehound info, local file vs loopback S3 (median of $RUNS)${client:+, client on core 0, servers on core 1}"
measure() {  # INPUT -> "seconds peak_kib" of one run
  /usr/bin/time -f "%e %M" -o "$OUT/time" "${client[@]}" "$BUILD/cli/tracehound" info --json "$1" \
    >"$OUT/info.json"
  cat "$OUT/time"
}
for f in amplified.json amplified.json.gz; do
  bytes=$(stat -c %s "$OUT/$f")
  # Alternated run by run: the host's noise comes in spells. The stored
  # bytes are read once before each run (this VM pages idle files out within
  # seconds), so every run reads from the page cache.
  local_runs="" remote_runs="" http_runs=""
  for _ in $(seq "$RUNS"); do
    cat "$OUT/$f" >/dev/null
    local_runs+="$(measure "$OUT/$f")"$'\n'
    find "$swift_dir" -name '*.data' -exec cat {} + >/dev/null
    remote_runs+="$(measure "s3://bench/$f")"$'\n'
    cat "$OUT/$f" >/dev/null
    http_runs+="$(measure "http://127.0.0.1:$http_port/$f")"$'\n'
  done
  # Swift's own ceiling: the object through Swift's API (the bucket made
  # public; s3api is not in that path) to curl, parsed by nothing.
  curl_runs=$(for _ in $(seq "$RUNS"); do
    "${client[@]}" curl -sf -o /dev/null -w '%{time_total} 0\n' "http://127.0.0.1:$port/v1/AUTH_test/bench/$f"
  done)
  python3 - "$f" "$bytes" "$local_runs" "$remote_runs" "$http_runs" "$curl_runs" <<'PY'
import statistics, sys
name, size = sys.argv[1], int(sys.argv[2])
def med(text):
    rows = [tuple(map(float, l.split())) for l in text.strip().splitlines()]
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
ls, lk = med(sys.argv[3])
print(f"{name} ({size/1e6:.0f} MB stored): local {ls:.2f} s = {size/ls/1e6:.0f} MB/s, peak RSS {lk/1024:.0f} MiB")
cs, _ = med(sys.argv[6])
print(f"  Swift to curl alone (no parse): {cs:.2f} s = {size/cs/1e6:.0f} MB/s = {ls/cs:.2f}x the local import")
for label, runs in (("S3 (Swift)", sys.argv[4]), ("HTTP (C++ server)", sys.argv[5])):
    rs, rk = med(runs)
    print(f"  {label}: {rs:.2f} s = {size/rs/1e6:.0f} MB/s, peak RSS {rk/1024:.0f} MiB; "
          f"throughput {ls/rs:.2f}x local, RSS {rk/lk:.2f}x local")
PY
done
