#!/usr/bin/env bash
# tracehound developer entry point: installs what the build needs (Debian 12,
# as root), configures, builds, and runs the demo or the tests.
#
#   scripts/dev.sh demo    install, build, generate the bundled example, run `tracehound info`
#                          and `tracehound analyze` (the default pipeline) on it
#   scripts/dev.sh test    install, build, run every test (ctest), then the sanitizer pass
#   scripts/dev.sh sanitize  the sanitizer pass alone: the tests that read hostile input
#                          (label `sanitize`) built with clang + ASan + UBSan, and a short
#                          libFuzzer run of every fuzz target (label `fuzz`)
#   scripts/dev.sh sanitize-build  the sanitizer pass's build only
#   scripts/dev.sh build   install and build only
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(cmake ninja-build g++ pkg-config git libcurl4-openssl-dev
  swift-proxy swift-object swift-container swift-account python3-swift
  libsimdjson-dev libisal-dev libdeflate-dev libtbb-dev libcli11-dev libarchive-dev
  libgtest-dev libgmock-dev libbenchmark-dev libboost-dev libboost-filesystem-dev libyaml-cpp-dev
  libprotobuf-dev protobuf-compiler libssl-dev openssl curl libre2-dev libcpp-httplib-dev
  chromium nodejs
  libsqlite3-dev libpq-dev postgresql postgresql-client libxxhash-dev xxhash
  openmpi-bin libopenmpi-dev
  hipcc librocprim-dev
  clang libclang-rt-14-dev llvm python3
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pandas python3-pytest
  python3-setuptools python3-pip python3-torch
  python3-nbconvert python3-nbformat python3-ipykernel python3-matplotlib)

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Azurite (npm): the Azure Blob server the remote-input tests start
# (tests/support/azurite_server.h looks for it under $BUILD_DIR/npm).
install_azurite() {
  [ -x "$BUILD_DIR/npm/node_modules/.bin/azurite-blob" ] && return 0
  mkdir -p "$BUILD_DIR/npm"
  npm install --no-audit --no-fund --silent --prefix "$BUILD_DIR/npm" azurite@3.37.0 >/dev/null ||
    echo "azurite could not be installed: the Azure input tests will skip" >&2
}

# build [TARGET...]: everything by default; the demo builds only the command
# and the plugins it loads. The libraries, plugins and command are optimised
# (Release); the tests' own code is compiled at -O0 (it is not what runs hot,
# and it halves the tests' share of the build).
build() {
  install_packages
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTRACEHOUND_WERROR=${TRACEHOUND_WERROR:-ON} \
    -DTRACEHOUND_TEST_CXX_FLAGS="${TRACEHOUND_TEST_CXX_FLAGS:--O0}" >/dev/null
  ninja -C "$BUILD_DIR" -j"$(nproc)" "$@"
}

# The sanitizer pass (build-sanitize): clang, ASan + UBSan (undefined behaviour
# aborts), libFuzzer coverage; the libraries at -O1, the tests' own code at
# -O0 and line tables only keep the build short. Built by sanitize_build, run
# by sanitize_run.
SANITIZE_DIR=${SANITIZE_BUILD_DIR:-build-sanitize}
sanitize_build() {
  install_packages
  CC=clang CXX=clang++ cmake -S . -B "$SANITIZE_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DTRACEHOUND_FUZZ=ON -DTRACEHOUND_CUDA=OFF -DTRACEHOUND_HIP=OFF \
    -DTRACEHOUND_BUILD_BENCHMARKS=OFF -DTRACEHOUND_TEST_CXX_FLAGS=-O0 \
    -DTRACEHOUND_FUZZ_SMOKE_SECONDS="${FUZZ_SMOKE_SECONDS:-10}" >/dev/null
  ninja -C "$SANITIZE_DIR" -j"$(nproc)" sanitize_tests
}
sanitize_run() {
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer || true) \
    ctest --test-dir "$SANITIZE_DIR" -L 'sanitize|fuzz' --output-on-failure -j"$(nproc)" --timeout 600
}

case "${1:-}" in
  build)
    build
    ;;
  demo)
    build tracehound_and_plugins
    example="$BUILD_DIR/example"
    rm -rf "$example"
    "$BUILD_DIR/cli/tracehound" generate --out "$example" --ranks 4 --steps 6 --gzip --straggler-rank 2
    "$BUILD_DIR/cli/tracehound" info "$example"
    echo
    mkdir -p "$BUILD_DIR/example-report"
    TRACEHOUND_REPORT_DIR="$BUILD_DIR/example-report" "$BUILD_DIR/cli/tracehound" analyze "$example"
    echo "reports: $BUILD_DIR/example-report/tracehound-report.md, $BUILD_DIR/example-report/tracehound-findings.json, $BUILD_DIR/example-report/tracehound-report.html"
    ;;
  test)
    install_packages
    # npm fetches Azurite while the build compiles; the sanitizer build then
    # compiles at the lowest CPU priority while the tests run (they wait on
    # servers, browsers and subprocesses about a quarter of the time), so it
    # takes only the cores the tests leave idle. Its output follows the tests'.
    mkdir -p "$BUILD_DIR"
    install_azurite > "$BUILD_DIR/azurite-install.log" 2>&1 &
    azurite=$!
    build
    wait "$azurite" || true
    cat "$BUILD_DIR/azurite-install.log" >&2
    nice -n 19 ./scripts/dev.sh sanitize-build > "$BUILD_DIR/sanitize-build.log" 2>&1 &
    sanitizer=$!
    tests=0
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" --timeout 600 || tests=$?
    built=0
    wait "$sanitizer" || built=$?
    tail -n 40 "$BUILD_DIR/sanitize-build.log"
    [ "$tests" -eq 0 ] || { echo "tests failed" >&2; exit "$tests"; }
    [ "$built" -eq 0 ] || { echo "sanitizer build failed ($BUILD_DIR/sanitize-build.log)" >&2; exit "$built"; }
    sanitize_run
    ;;
  sanitize-build)
    sanitize_build
    ;;
  sanitize)
    sanitize_build
    sanitize_run
    ;;
  *)
    echo "usage: $0 demo|test|sanitize|sanitize-build|build" >&2
    exit 2
    ;;
esac
