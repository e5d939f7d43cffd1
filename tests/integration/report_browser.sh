#!/usr/bin/env bash
# report.html in a real browser (issue 14 item 4): a run on 2 fake hosts (clock, p2p, storage,
# mpi-coll, small) is rendered by Debian's headless Chromium through chromedriver
# (tests/support/report_browser.py); the layout it reads: the verdict banner ends within the
# first 1000 px, every <svg data-plot> has a non-zero size. The screenshot is kept in
# $GA_BUILD_DIR/test-output/report-browser.png. Skipped (77) where Chromium, its driver or
# python3-selenium is missing; scripts/install-deps.sh installs them.
source "$(dirname "$0")/lib.sh"
browser="$GA_SOURCE_DIR/tests/support/report_browser.py"
/usr/bin/python3 -c 'import selenium' 2>/dev/null && command -v chromedriver >/dev/null ||
  { echo "skip: chromium-driver or python3-selenium missing (scripts/install-deps.sh installs them)"; GA_KEEP=0; exit 77; }
cat >"$GA_TMP/suite.yaml" <<'YAML'
schema_version: 1
name: browser-small
description: one plot of each kind the host side draws, small
probes:
  - name: clock
  - name: p2p
    params: {measure_s: 0.1, limit_s: 4}
  - name: mpi-coll
    params: {max_bytes: 65536, max_iters: 2}
  - name: storage
    params: {file_mib: 4, metadata_files: 50, visibility_wait_s: 2}
YAML
fake_up 2
fake_mpirun 2 --suite "$GA_TMP/suite.yaml" --out "$GA_TMP/run" --probe-timeout 60 >"$GA_TMP/run.log" 2>&1
log "mpirun exit code $?"
html=$GA_TMP/run/report.html
check "report.html written" test -s "$html"
for p in clock-offset collective-bandwidth storage pair-latency pair-bandwidth; do
  check "report.html has <svg data-plot=\"$p\">" grep -q "<svg data-plot=\"$p\"" "$html"
done
check "report.html fetches nothing (no http(s) src, href or url, no @import)" \
  bash -c "! grep -Eq '(src|href)=\"https?://|url\\(https?:|@import' '$html'"
mkdir -p "$GA_BUILD_DIR/test-output"
shot="$GA_BUILD_DIR/test-output/report-browser.png"
/usr/bin/python3 "$browser" check "$html" "$shot" >"$GA_TMP/browser.log" 2>&1
rc=$?
sed 's/^/[browser] /' "$GA_TMP/browser.log" >&2
[ $rc -eq 77 ] && { echo "skip: the browser did not start"; GA_KEEP=0; exit 77; }
check "Chromium drew the verdict within 1000 px and every plot with a size (rc $rc)" test "$rc" -eq 0
check "... it read all $(grep -o '<svg data-plot=' "$html" | wc -l) plots" \
  test "$(grep -c '^ok: plot ' "$GA_TMP/browser.log")" = "$(grep -o '<svg data-plot=' "$html" | wc -l)"
check "the screenshot is kept ($shot)" test -s "$shot"
finish
