#!/usr/bin/env bash
# Python load benchmark: tracehound.load() of the ~1 GB amplified Kineto trace
# (th_amplify from a real trace of ../shared/data, as run_ingest.sh; written
# to a scratch folder, never committed) against `tracehound info` on the same
# file: wall-clock seconds and peak resident memory of each process, and the
# import seconds inside it (info's import_seconds; the Python side times
# load() itself). Medians of REPS runs (default 5), alternating the two.
# Each process's baseline (the command on an empty trace; the interpreter
# with numpy, pandas and tracehound imported) is measured too: the peak above
# it is what the trace costs.
#
#   benchmarks/run_python_load.sh [BUILD_DIR] [SOURCE_TRACE] [SIZE]
#   (CLI=, AMPLIFY=: another tracehound / th_amplify than the build's)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SRC=${2:-../shared/data/hta/tests/data/df_index_resolver/df_index_resolver.json.gz}
SIZE=${3:-1G}
REPS=${REPS:-5}
OUT=${BENCH_DIR:-$BUILD/bench-data}
PYTHON=${PYTHON:-/usr/bin/python3}
mkdir -p "$OUT"
[ -f "$SRC" ] || { echo "source trace $SRC not found (../shared/data absent?)" >&2; exit 2; }
json="$OUT/amplified.json"
CLI=${CLI:-$BUILD/cli/tracehound}
AMPLIFY=${AMPLIFY:-$BUILD/benchmarks/th_amplify}
[ -f "$json" ] || "$AMPLIFY" --in "$SRC" --out "$json" --size "$SIZE"

empty="$OUT/empty.json"
echo '{"traceEvents": []}' >"$empty"
/usr/bin/time -f "%M" -o "$OUT/base" "$CLI" info --json "$empty" >/dev/null
cli_base=$(cat "$OUT/base")
/usr/bin/time -f "%M" -o "$OUT/base" env PYTHONPATH="$BUILD/python" "$PYTHON" -c 'import tracehound'
py_base=$(cat "$OUT/base")

echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
echo "== $json: $(stat -c %s "$json") bytes; $REPS runs each (wall s, peak RSS KiB, import s)"
for i in $(seq "$REPS"); do
  /usr/bin/time -f "%e %M" -o "$OUT/time" "$CLI" info --json "$json" >"$OUT/info.json"
  echo "cli $(cat "$OUT/time") $("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["import_seconds"])' "$OUT/info.json")"
  /usr/bin/time -f "%e %M" -o "$OUT/time" env PYTHONPATH="$BUILD/python" "$PYTHON" - "$json" >"$OUT/py.txt" <<'PY'
import sys, time
import tracehound
t0 = time.perf_counter()
traces = tracehound.load(sys.argv[1])
seconds = time.perf_counter() - t0
trace = traces[0]
ev = trace.events                      # zero-copy frames over the graph
n = len(ev); busy = int(ev["dur"].sum()); names = ev["name"].cat.codes.max()
print(seconds)
PY
  echo "python $(cat "$OUT/time") $(cat "$OUT/py.txt")"
done | tee "$OUT/python-load.txt"
"$PYTHON" - "$OUT/python-load.txt" "$(stat -c %s "$json")" "$cli_base" "$py_base" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
size = int(sys.argv[2])
base = {"cli": int(sys.argv[3]), "python": int(sys.argv[4])}
def med(who, k): return statistics.median(float(r[k]) for r in rows if r[0] == who)
for who in ("cli", "python"):
    print(f"{who:7s} wall {med(who, 1):.2f} s  peak RSS {med(who, 2) / 1024:.0f} MiB "
          f"(baseline {base[who] / 1024:.0f} MiB, above it {(med(who, 2) - base[who]) / 1024:.0f} MiB)  "
          f"import {med(who, 3):.2f} s = {size / med(who, 3) / 1e6:.0f} MB/s")
above = {w: med(w, 2) - base[w] for w in base}
print(f"python/cli: import throughput {med('cli', 3) / med('python', 3):.2f}x, "
      f"wall {med('cli', 1) / med('python', 1):.2f}x, peak RSS {med('python', 2) / med('cli', 2):.3f}x, "
      f"peak RSS above baseline {above['python'] / above['cli']:.3f}x")
PY
