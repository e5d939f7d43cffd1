#!/usr/bin/env bash
# A run directory written by an older gpuaccept (tests/data/rejudge/default-4ranks, see its
# README.md) re-judges to the verdicts that run wrote: `gpuaccept judge` reads old journals the
# way it always did (places, metrics, criteria embedded in the journal). Nothing the old run
# wrote is ignored: no verdict field is a timestamp (criterion, metric, place, params, value,
# text, unit, bounds, reference, status, severity, reason), and the judge derives all of them
# from the journal. One field is newer than the fixture: `outcome` (commit 442001f, after the
# fixture was written), a function of `status` (docs/report-format.md); it is not in
# expected-verdicts.json, so it is taken out of the comparison and checked against the status.
source "$(dirname "$0")/lib.sh"
src=${GA_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/data/rejudge/default-4ranks
out=$GA_TMP/default-4ranks
mkdir -p "$out"
cp "$src/samples.jsonl" "$out/"   # judge writes its reports beside the journal: never into the checkout
"$GA_BIN" judge "$out" >"$GA_TMP/judge.log" 2>&1
jrc=$?
check "judge exit code $jrc is 1, as the run's (clock.synchronized failed)" [ "$jrc" -eq 1 ]
check "judge wrote report.json" test -s "$out/report.json"
jq -S '.' "$src/expected-verdicts.json" >"$GA_TMP/expected.json"
jq -S '.verdicts | map(del(.outcome))' "$out/report.json" >"$GA_TMP/got.json" 2>/dev/null
check "same verdicts as the run that wrote the journal" cmp -s "$GA_TMP/expected.json" "$GA_TMP/got.json"
cmp -s "$GA_TMP/expected.json" "$GA_TMP/got.json" || diff -u "$GA_TMP/expected.json" "$GA_TMP/got.json" | head -60 >&2
wrong_outcome=$(jq -r '.verdicts[] | select(.outcome != (if .status == "fail" or .status == "missing" then "node_fault"
  elif .status == "tool_error" or .status == "inconclusive" then .status else "none" end))
  | "\(.criterion) at \(.place): \(.status) but outcome \(.outcome)"' "$out/report.json" 2>&1)
check "each verdict's outcome is the one its status implies" [ -z "$wrong_outcome" ]
[ -z "$wrong_outcome" ] || echo "$wrong_outcome" >&2
finish
