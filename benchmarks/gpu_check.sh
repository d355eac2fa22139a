#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU, build tracehound with CUDA
# (Release, -DTRACEHOUND_CUDA=ON), run the CUDA differential tests (every primitive against the CPU
# engine) and the CUDA kernel benchmarks, and print a summary: the device, the
# tests passed/failed/skipped, and the median time of each benchmark.
#
#   benchmarks/gpu_check.sh [--skip-build] [--no-bench] [--quick]
#
#   --skip-build  reuse an existing build in $BUILD_DIR
#   --no-bench    tests only
#   --quick       one repetition, short minimum time (a smoke run)
#
# Environment (defaults in brackets):
#   BUILD_DIR [build-gpu]  CUDA_ARCHS [the device's, else "80;90"]
#   NVCC [/usr/local/cuda/bin/nvcc]  JOBS [nproc]
#   TEST_TARGET [kernels_gpu_engine_test]  BENCH_TARGET [kernels_benchmark]
#   BENCH_FILTER [[Cc][Uu][Dd][Aa]]  BENCH_REPETITIONS [3]  BENCH_MIN_TIME [0.2 s]
#   TEST_TIMEOUT [600 s]  BENCH_TIMEOUT [1800 s]
#   TRACEHOUND_BENCH_MAX_ROWS [10^7; 100000000 adds the 10^8-row runs]
# Logs, the benchmark JSON and the summary go to $BUILD_DIR/gpu_check/.
# Exit status: 0 when the build worked, every CUDA test passed (none skipped:
# on a GPU machine a skip means the engine found no device) and the benchmarks
# ran; 1 otherwise.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-gpu}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
JOBS=${JOBS:-$(nproc)}
TEST_TARGET=${TEST_TARGET:-kernels_gpu_engine_test}
BENCH_TARGET=${BENCH_TARGET:-kernels_benchmark}
BENCH_FILTER=${BENCH_FILTER:-'[Cc][Uu][Dd][Aa]'}
BENCH_REPETITIONS=${BENCH_REPETITIONS:-3}
BENCH_MIN_TIME=${BENCH_MIN_TIME:-0.2}
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-1800}

skip_build=0 bench=1
for arg in "$@"; do
  case "$arg" in
    --skip-build) skip_build=1 ;;
    --no-bench) bench=0 ;;
    --quick) BENCH_REPETITIONS=1 BENCH_MIN_TIME=0.05 ;;
    -h|--help) sed -n "2,/^set -uo/p" "$0" | sed "$ d"; exit 0 ;;
    *) echo "gpu_check: unknown argument $arg" >&2; exit 2 ;;
  esac
done

OUT_DIR=$BUILD_DIR/gpu_check
mkdir -p "$OUT_DIR"
SUMMARY=$OUT_DIR/summary.txt
status=0
step() { printf '\n=== %s\n' "$*"; }

# ---- device
step "device"
device="unknown (nvidia-smi not found)"
if command -v nvidia-smi >/dev/null 2>&1; then
  device=$(nvidia-smi --query-gpu=name,memory.total,compute_cap,driver_version --format=csv,noheader 2>&1 | head -n 4 |
           paste -sd ';' -)
  nvidia-smi -L 2>&1 | head -n 8
fi
echo "device: $device"
if [[ -z "${CUDA_ARCHS:-}" ]]; then
  # The device's own architecture builds fastest; "80;90" (A100, H100/H200) otherwise.
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
  [[ "$cap" =~ ^[0-9]+$ ]] || cap=$("$(dirname "$NVCC")/__nvcc_device_query" 2>/dev/null | tr -cd '0-9')
  if [[ "$cap" =~ ^[0-9]+$ ]]; then CUDA_ARCHS=$cap; else CUDA_ARCHS="80;90"; fi
fi
echo "CUDA architectures: $CUDA_ARCHS"

# ---- build
build_result="skipped"
if (( ! skip_build )); then
  step "configure + build ($BUILD_DIR, -j$JOBS)"
  t0=$SECONDS
  targets=("$TEST_TARGET")
  ((bench)) && targets+=("$BENCH_TARGET")
  if cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRACEHOUND_CUDA=ON \
       -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS" \
       -DTRACEHOUND_BUILD_TESTS=ON -DTRACEHOUND_BUILD_BENCHMARKS=ON >"$OUT_DIR/configure.log" 2>&1 &&
     cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}" \
       >"$OUT_DIR/build.log" 2>&1; then
    build_result="ok ($((SECONDS - t0)) s)"
  else
    build_result="FAILED ($((SECONDS - t0)) s; see $OUT_DIR/configure.log, build.log)"
    tail -n 40 "$OUT_DIR/configure.log" "$OUT_DIR/build.log" 2>/dev/null
    status=1
  fi
  echo "build: $build_result"
fi

find_bin() { find "$BUILD_DIR" -type f -name "$1" -perm -u+x 2>/dev/null | head -n 1; }

# ---- tests
tests_result="not run"
test_bin=$(find_bin "$TEST_TARGET")
if [[ -n "$test_bin" ]]; then
  step "CUDA differential tests ($test_bin)"
  timeout "$TEST_TIMEOUT" "$test_bin" --gtest_color=no --gtest_filter="*/cuda" 2>&1 | tee "$OUT_DIR/tests.log"
  rc=${PIPESTATUS[0]}
  passed=$(grep -oE '^\[  PASSED  \] [0-9]+' "$OUT_DIR/tests.log" | grep -oE '[0-9]+$' || true)
  failed=$(grep -oE '^\[  FAILED  \] [0-9]+ test' "$OUT_DIR/tests.log" | grep -oE '[0-9]+' || true)
  skipped=$(grep -oE '^\[  SKIPPED \] [0-9]+' "$OUT_DIR/tests.log" | grep -oE '[0-9]+$' || true)
  tests_result="${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped (exit $rc)"
  reason=$(grep -m1 -oE 'cuda engine unavailable: .*' "$OUT_DIR/tests.log" || true)
  [[ -n "$reason" ]] && tests_result+="; $reason"
  if (( rc != 0 )) || [[ "${skipped:-0}" != 0 ]]; then status=1; fi
  grep -E '^cuda device: ' "$OUT_DIR/tests.log" | head -n 4
else
  tests_result="not run: no $TEST_TARGET binary under $BUILD_DIR"
  status=1
fi

# ---- benchmarks
bench_result="not run"
if (( bench )); then
  bench_bin=$(find_bin "$BENCH_TARGET")
  if [[ -n "$bench_bin" ]]; then
    step "benchmarks ($bench_bin --benchmark_filter='$BENCH_FILTER')"
    timeout "$BENCH_TIMEOUT" "$bench_bin" --benchmark_filter="$BENCH_FILTER" \
      --benchmark_repetitions="$BENCH_REPETITIONS" --benchmark_report_aggregates_only=true \
      --benchmark_min_time="$BENCH_MIN_TIME" --benchmark_out="$OUT_DIR/bench.json" \
      --benchmark_out_format=json 2>&1 | tee "$OUT_DIR/bench.log"
    rc=${PIPESTATUS[0]}
    ran=$(grep -c '"run_name"' "$OUT_DIR/bench.json" 2>/dev/null || true)
    bench_result="exit $rc, ${ran:-0} results"
    if (( rc != 0 )) || [[ "${ran:-0}" == 0 ]]; then
      bench_result+=" (none means no CUDA engine: benchmarks register only the backends found)"
      status=1
    fi
  else
    bench_result="not run: no $BENCH_TARGET binary under $BUILD_DIR"
    status=1
  fi
fi

# Medians (of the repetitions) per benchmark, from the JSON.
medians() {
  local json=$OUT_DIR/bench.json
  [[ -s "$json" ]] || { echo "  (no benchmark results)"; return; }
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$json" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
benchmarks = data.get("benchmarks", [])
# Medians of the repetitions; a single repetition has no aggregates.
rows = [b for b in benchmarks if b.get("aggregate_name") == "median"]
rows = rows or [b for b in benchmarks if b.get("run_type", "iteration") == "iteration"]
seen = set()
for b in rows:
    name = b.get("run_name", b["name"])
    if name in seen:
        continue
    seen.add(name)
    line = f"  {name:<48} {b['real_time']:>12.3f} {b.get('time_unit', 'ns')}"
    if "items_per_second" in b:
        line += f"  {b['items_per_second'] / 1e6:>10.1f} M items/s"
    if "bytes_per_second" in b:
        line += f"  {b['bytes_per_second'] / 2**30:>8.2f} GiB/s"
    print(line)
if not seen:
    print("  (no benchmarks matched the filter)")
EOF
  else
    grep -E '_median|^BM_' "$OUT_DIR/bench.log" | sed 's/^/  /'
  fi
}

{
  echo "tracehound GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "device:      $device"
  echo "archs:       $CUDA_ARCHS"
  echo "build:       $build_result"
  echo "cuda tests:  $tests_result"
  echo "benchmarks:  $bench_result (filter '$BENCH_FILTER', $BENCH_REPETITIONS repetitions, min time $BENCH_MIN_TIME s)"
  if (( bench )); then
    echo "medians (real time per iteration):"
    medians
  fi
  echo "result:      $([[ $status == 0 ]] && echo PASS || echo FAIL)"
} >"$SUMMARY"
step "summary ($SUMMARY)"
cat "$SUMMARY"
exit "$status"
