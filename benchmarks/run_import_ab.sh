#!/usr/bin/env bash
# Import time of two tracehound binaries (before / after a change) on the same
# traces: `tracehound info --threads 1` runs alternated N times (default 7),
# the median and fastest import_seconds of each, then (CACHEGRIND=1) the
# instructions of one whole `info` run of each under cachegrind, which the
# shared VM's load does not move.
#
#   benchmarks/run_import_ab.sh BEFORE_BIN AFTER_BIN TRACE...
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN TRACE..." >&2; exit 2; }
before=$1 after=$2
shift 2
N=${N:-7}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in "$@"; do
  for _ in $(seq "$N"); do
    for which in before after; do
      bin=$before
      [ "$which" = after ] && bin=$after
      s=$("$bin" info --threads 1 --json "$f" |
          python3 -c 'import json, sys; print(json.load(sys.stdin)["import_seconds"])')
      echo "$(basename "$f") $which $s" >>"$out"
    done
  done
done
python3 - "$out" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f, which, s = line.split()
    runs[(f, which)].append(float(s))
for (f, which), v in sorted(runs.items()):
    print(f"{f} {which}: median {statistics.median(v):.3f} s, fastest {min(v):.3f} s ({len(v)} runs)")
PY
if [ "${CACHEGRIND:-0}" = 1 ]; then
  for f in "$@"; do
    for which in before after; do
      bin=$before
      [ "$which" = after ] && bin=$after
      ir=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
             "$bin" info --threads 1 --json "$f" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p')
      echo "$(basename "$f") $which: $ir instructions"
    done
  done
fi
