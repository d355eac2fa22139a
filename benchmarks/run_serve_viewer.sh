#!/usr/bin/env bash
# The serve viewer in headless Chromium (software rendering, --disable-gpu):
# per trace, `tracehound serve` is started, tests/browser/serve_browser_test.js
# --bench drives the page (the test's checks, then 8 rounds of 30 x W at a
# point, 12 x D, 30 x S) and prints the JS heap before and after (after a GC),
# the bytes of the cached tiles' columns, and the frame time on cached tiles
# (40 redraws) at the overview and zoomed in. Default traces: /work/bench's
# ~1 GB amplified training trace and a small real one.
#
#   benchmarks/run_serve_viewer.sh [BUILD_DIR] [TRACES...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
TRACES=("$@")
[ ${#TRACES[@]} -eq 0 ] && TRACES=(/work/bench/train.json
  ../shared/data/tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz)
TH="$(pwd)/$BUILD/cli/tracehound"
[ -x "$TH" ] || { echo "$TH not built" >&2; exit 2; }
OUT=${BENCH_DIR:-$BUILD/bench-data}/serve_viewer
mkdir -p "$OUT"
for t in "${TRACES[@]}"; do
  [ -f "$t" ] || { echo "skip $t: absent"; continue; }
  name=$(basename "$t" | cut -d. -f1)
  echo "== $t ($(du -h "$t" | cut -f1))"
  node tests/browser/serve_browser_test.js --tracehound "$TH" --input "$t" --work "$OUT/$name" \
    --artefacts "$OUT/$name/shots" --case "bench-$name" --bench | grep -E '^(run 0|BENCH|FAIL|PASS)'
done
