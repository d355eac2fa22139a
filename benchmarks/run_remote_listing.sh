#!/usr/bin/env bash
# Listing a bucket prefix of COUNT objects (default 10,000: one run of one
# small trace each, under runs/rNNNNN/) on a loopback S3 server (OpenStack
# Swift with s3api, tests/support/swift_s3_server.py): `tracehound scan
# --list` pages through ListObjectsV2 (1,000 keys a page) and prints one run
# per folder; wall time and peak RSS, medians of RUNS runs, and the check that
# every object was found. Uploading takes about 100 s per 10,000 objects.
#
#   benchmarks/run_remote_listing.sh [BUILD_DIR] [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
COUNT=${2:-10000}
RUNS=${RUNS:-3}
dir=$(mktemp -d)
server=tests/support/swift_s3_server.py
started=$(/usr/bin/python3 "$server" start "$dir")
port=$(echo "$started" | sed -n 's/^port=\([0-9]*\) .*/\1/p')
pids=$(echo "$started" | sed -n 's/.* pids=//p' | tr ',' ' ')
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
printf '{"traceEvents": [{"ph": "X", "name": "step", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]}\n' \
  >"$dir/tiny.json"
start=$(date +%s)
/usr/bin/python3 "$server" copies "$dir" fleet runs/ "$COUNT" "$dir/tiny.json"
echo "== $COUNT objects uploaded in $(( $(date +%s) - start )) s"
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=test:tester \
  AWS_SECRET_ACCESS_KEY=testing AWS_REGION=auto
for ((r = 0; r < RUNS; r++)); do
  /usr/bin/time -f "%e %M" -o "$dir/time" "$BUILD/cli/tracehound" scan --list s3://fleet/runs/ \
    >"$dir/list.txt"
  found=$(wc -l <"$dir/list.txt")
  [ "$found" -eq "$COUNT" ] || { echo "listed $found runs, expected $COUNT" >&2; exit 1; }
  cat "$dir/time"
done | python3 -c "
import statistics, sys
rows = [tuple(map(float, l.split())) for l in sys.stdin]
print(f'scan --list s3://fleet/runs/: $COUNT runs listed, median {statistics.median(r[0] for r in rows):.2f} s, '
      f'peak RSS {statistics.median(r[1] for r in rows) / 1024:.0f} MiB ({len(rows)} runs)')
"
