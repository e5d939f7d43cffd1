#!/usr/bin/env bash
# report.html in headless Chromium at cluster scale (issue 14 item 4; not in CI): for 64, 512
# and 1024 hosts (or the counts given), bench/report_scale writes the synthetic run's report
# files (--keep) and tests/support/report_browser.py loads report.html, printing its size and
# the time from navigation to the load event, median of 3 loads.
# Usage: bench/report-render.sh [BUILD_DIR] [HOSTS...]
#   BUILD_DIR (default build-scale): configured with -DGPUACCEPT_BUILD_BENCH=ON, target report_scale.
# Needs chromium, chromium-driver and python3-selenium (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-scale}
shift || true
hosts=("$@")
[ ${#hosts[@]} -gt 0 ] || hosts=(64 512 1024)
bin=$build/bench/report_scale
[ -x "$bin" ] || { echo "report-render: no $bin; cmake -DGPUACCEPT_BUILD_BENCH=ON and build report_scale" >&2; exit 2; }
printf '%-6s %12s %10s\n' hosts html_MiB load_ms
for n in "${hosts[@]}"; do
  dir=$("$bin" --hosts "$n" --keep | sed -n 's/.* in \(\/[^ ]*\)$/\1/p' | tail -1)
  [ -f "$dir/report.html" ] || { echo "report-render: report_scale --hosts $n wrote no report.html" >&2; exit 1; }
  ms=$(/usr/bin/python3 tests/support/report_browser.py time "$dir/report.html" "$dir/report.html" "$dir/report.html" |
       awk '{ print $3 }' | sort -n | sed -n 2p)
  printf '%-6s %12.1f %10s\n' "$n" "$(echo "$(stat -c %s "$dir/report.html") / 1048576" | bc -l)" "$ms"
  rm -rf "$dir"
done
