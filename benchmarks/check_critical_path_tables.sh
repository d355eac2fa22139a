#!/usr/bin/env bash
# Compares what two builds of the critical-path plugin report (tables, checks,
# findings: the canonical JSON of build/benchmarks/critical_path_tables), byte
# for byte, on real traces of ../shared/data: the 8-rank DLRM capture, HTA's
# critical_path and df_index_resolver test traces, and (when present) the
# amplified trace of run_critical_path.sh; with the what-ifs on and off (HTA's
# critical_path traces: one window over the whole trace, annotation "").
#
#   benchmarks/check_critical_path_tables.sh BASELINE.so [BUILD_DIR]
# BASELINE.so: the plugin library to compare against (e.g. a copy of
# build/plugins/th_critical_path.so made before a change). Exit 1 on a difference.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:?usage: $0 BASELINE.so [BUILD_DIR]}
BUILD=${2:-build}
DATA=${DATA:-../shared/data}
[ -d "$DATA" ] || { echo "$DATA absent: no trace to compare on" >&2; exit 2; }
TOOL="$BUILD/benchmarks/critical_path_tables"
inputs=(
  "$DATA/param/et_replay/tests/data/dlrm_kineto.tar.gz"
  "$DATA/hta/tests/data/df_index_resolver/df_index_resolver.json.gz"
)
for f in "$DATA"/hta/tests/data/critical_path/*/*.json.gz; do inputs+=("$f"); done
big="${BENCH_DIR:-$BUILD/bench-data}/critical-path/amplified-1G.json"
[ -f "$big" ] && inputs+=("$big")
status=0
for input in "${inputs[@]}"; do
  for what_if in true false; do
    args=(--what-if $what_if)
    case "$input" in */critical_path/*) args+=(--annotation "") ;; esac
    a=$("$TOOL" --plugin "$BASE" "${args[@]}" "$input" | sha256sum | cut -c1-16)
    b=$("$TOOL" --plugin "$BUILD/plugins/th_critical_path.so" "${args[@]}" "$input" |
      sha256sum | cut -c1-16)
    verdict=same
    [ "$a" = "$b" ] || { verdict=DIFFERENT; status=1; }
    echo "$verdict what_if=$what_if $a $b $(basename "$input")"
  done
done
exit $status
