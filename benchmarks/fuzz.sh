#!/usr/bin/env bash
# Fuzzes tracehound's input readers with libFuzzer (ASan + UBSan, clang).
#
#   benchmarks/fuzz.sh [SECONDS] [TARGET...]
#
# Builds build-fuzz (clang, -DTRACEHOUND_FUZZ=ON) when needed, cuts seed
# corpora from ../shared/data (benchmarks/fuzz_corpus.py; kept in
# build-fuzz/fuzz-corpus, which grows run after run, never committed), then
# runs each target for SECONDS of wall-clock time (default 60) on one core,
# FUZZ_JOBS targets at a time (default: the number of cores). Prints per
# target: executions, exec/s, coverage (libFuzzer's cov: edges, ft: features),
# corpus size and the crash/leak/timeout/OOM files written. Exit status 1 when
# any target found something; the inputs are in build-fuzz/fuzz-artifacts.
#
# Targets: kineto_json xspace hlo archive pipeline_yaml (all by default).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(kineto_json xspace hlo archive pipeline_yaml)
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
JOBS=${FUZZ_JOBS:-$(nproc)}

declare -A DICT=([kineto_json]=kineto_json.dict [xspace]=protobuf.dict [hlo]=protobuf.dict
                 [archive]=archive.dict [pipeline_yaml]=pipeline_yaml.dict)
declare -A MAX_LEN=([kineto_json]=65536 [xspace]=400000 [hlo]=320000 [archive]=65536
                    [pipeline_yaml]=8192)

if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTRACEHOUND_FUZZ=ON -DTRACEHOUND_CUDA=OFF -DTRACEHOUND_HIP=OFF \
    -DTRACEHOUND_BUILD_BENCHMARKS=OFF >/dev/null
fi
ninja -C "$BUILD" $(printf 'th_fuzz_%s ' "${TARGETS[@]}") >/dev/null

CORPUS="$BUILD/fuzz-corpus"
ARTIFACTS="$BUILD/fuzz-artifacts"
LOGS="$BUILD/fuzz-logs"
mkdir -p "$ARTIFACTS" "$LOGS"
[ -d "$CORPUS/kineto_json" ] || python3 benchmarks/fuzz_corpus.py "$CORPUS" ../shared/data

run_target() {
  local t=$1
  local log="$LOGS/$t.log"
  # One process per target (no -jobs): SECONDS of wall-clock time on one core;
  # the CPU seconds it got are recorded beside the log.
  local TIMEFORMAT='%U %S'
  { time "$BUILD/tests/fuzz/th_fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 \
      -rss_limit_mb=2048 -max_len="${MAX_LEN[$t]}" -dict="tests/fuzz/dict/${DICT[$t]}" \
      -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$t-" "$CORPUS/$t" >"$log" 2>&1 || true
  } 2>"$LOGS/$t.cpu"
}

echo "fuzzing ${TARGETS[*]} for ${SECONDS_EACH} s each, $JOBS at a time ($(nproc) cores)"
running=0
for t in "${TARGETS[@]}"; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

found=0
printf '%-14s %8s %12s %9s %8s %8s %8s %s\n' target cpu_min execs exec/s cov ft corpus findings
for t in "${TARGETS[@]}"; do
  log="$LOGS/$t.log"
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || echo ?)
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || echo ?)
  corp=$(ls "$CORPUS/$t" | wc -l)
  findings=$(ls "$ARTIFACTS" | grep -E "^$t-(crash|leak|timeout|oom)-" || true)
  n=$(echo -n "$findings" | grep -c . || true)
  [ "$n" -gt 0 ] && found=1
  cpu=$(awk '{printf "%.1f", ($1 + $2) / 60}' "$LOGS/$t.cpu" 2>/dev/null || echo ?)
  printf '%-14s %8s %12s %9s %8s %8s %8s %s\n' "$t" "$cpu" "$execs" "$rate" "$cov" "$ft" "$corp" \
    "${n} ${findings//$'\n'/ }"
done
exit $found
