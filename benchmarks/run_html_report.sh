#!/usr/bin/env bash
# HTML report size on ~1 GB traces (issue 8.3: a 1 GB trace gives a report
# under 10 MB). Amplifies a real Kineto trace from ../shared/data to SIZE
# (scratch, under the build folder, never committed), runs the default
# pipeline with the HTML output, and a pipeline without steps (the swimlane
# then shows the whole capture: the event cap and pixel buckets are used);
# prints the page size, the blob size, what was reduced, wall time and peak
# RSS (median of RUNS), and the time the HTML output adds (same pipeline with
# the terminal output only). With XSPACE set to a big .xplane.pb, also that.
# With chromium installed, opens each report with tests/browser (no console
# error, no request, charts drawn).
#
#   benchmarks/run_html_report.sh [BUILD_DIR] [SOURCE_TRACE] [SIZE]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
SRC=${2:-../shared/data/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz}
SIZE=${3:-1G}
RUNS=${RUNS:-3}
OUT=${BENCH_DIR:-$BUILD/bench-data}/html
mkdir -p "$OUT"
BIN=$(realpath "$BUILD/cli/tracehound")
[ -f "$SRC" ] || { echo "source trace $SRC not found (../shared/data absent?)" >&2; exit 2; }
trace="$OUT/amplified.json"
[ -f "$trace" ] || "$BUILD/benchmarks/th_amplify" --in "$SRC" --out "$trace" --size "$SIZE" | tail -3

config=$(realpath configs/default.yaml)
cat >"$OUT/default-html.yaml" <<EOF
version: 1
include: $config
outputs: [{type: html, path: report.html}]
fail_on: null
EOF
cat >"$OUT/default-terminal.yaml" <<EOF
version: 1
include: $config
outputs: [{type: terminal}]
fail_on: null
EOF
cat >"$OUT/nosteps-html.yaml" <<EOF
version: 1
plugins: {kernel-stats: {}, op-stats: {}, oom-risk: {}}
outputs: [{type: html, path: report-nosteps.html}]
EOF
cat >"$OUT/nosteps-terminal.yaml" <<EOF
version: 1
plugins: {kernel-stats: {}, op-stats: {}, oom-risk: {}}
outputs: [{type: terminal}]
EOF

# median wall seconds and peak RSS of RUNS runs: "seconds MiB"
timed() {
  local pipeline=$1 input=$2
  for _ in $(seq "$RUNS"); do
    (cd "$OUT" && /usr/bin/time -f "%e %M" -o time.txt "$BIN" run "$pipeline" "$input" \
      >/dev/null 2>&1 || true)
    cat "$OUT/time.txt"
  done | sort -n | awk -v n="$RUNS" '{t[NR]=$1; m[NR]=$2} END {printf "%.2f %.0f", t[int((n+1)/2)], m[int((n+1)/2)]/1024}'
}

report() {
  local name=$1 html=$2 input=$3 with_html=$4 terminal=$5
  read -r t_html rss_html <<<"$(timed "$with_html" "$input")"
  read -r t_term rss_term <<<"$(timed "$terminal" "$input")"
  python3 - "$OUT/$html" "$input" "$name" "$t_html" "$rss_html" "$t_term" "$rss_term" <<'PY'
import json, os, sys
page_path, trace, name, t_html, rss_html, t_term, rss_term = sys.argv[1:]
page = open(page_path, encoding="utf-8").read()
mark = '<script id="th-data" type="application/json">'
a = page.index(mark) + len(mark)
blob = json.loads(page[a:page.index("</script>", a)])
sw = blob["swimlane"]
print(f"== {name}: {os.path.getsize(trace)/1e9:.3f} GB trace -> {os.path.getsize(page_path)/1e6:.2f} MB report "
      f"(data blob {(page.index('</script>', a) - a)/1e6:.2f} MB)")
print(f"   pipeline with html {t_html} s, peak RSS {rss_html} MiB; terminal only {t_term} s, {rss_term} MiB "
      f"(html output adds {float(t_html) - float(t_term):+.2f} s)")
print(f"   swimlane: {sw.get('choice')}; {sw.get('kept_events')} of {sw.get('total_events')} events, "
      f"{len(sw.get('lanes', []))} lanes")
for r in blob["reductions"]:
    print("   reduced:", r)
PY
  if command -v chromium >/dev/null && command -v node >/dev/null; then
    node tests/browser/report_browser_test.js --report "$OUT/$html" --work "$OUT/browser-$name" \
      --artefacts "$OUT/artefacts" --case "bench-$name" | grep -E "^(FAIL|PASS|network|console)" | sed 's/^/   browser: /'
  fi
}

echo "== machine"; nproc; grep -m1 'model name' /proc/cpuinfo
report kineto-default report.html "$(realpath "$trace")" default-html.yaml default-terminal.yaml
report kineto-nosteps report-nosteps.html "$(realpath "$trace")" nosteps-html.yaml nosteps-terminal.yaml
if [ -n "${XSPACE:-}" ] && [ -f "$XSPACE" ]; then
  sed 's/report.html/report-xspace.html/' "$OUT/default-html.yaml" >"$OUT/xspace-html.yaml"
  RUNS=1 report xspace-default report-xspace.html "$(realpath "$XSPACE")" xspace-html.yaml default-terminal.yaml
fi
