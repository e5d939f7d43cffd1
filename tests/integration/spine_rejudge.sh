#!/usr/bin/env bash
# `gpuaccept judge DIR` with report.json deleted gives the same verdicts and exit code as the run,
# with the run's criteria and with another criteria file.
source "$(dirname "$0")/lib.sh"
out=$GA_TMP/run
ga_mpirun 2 run --suite quick --out "$out" >/dev/null 2>&1
rc=$?
jq -S '.verdicts' "$out/report.json" >"$GA_TMP/run-verdicts.json"
jq -S '.summary' "$out/report.json" >"$GA_TMP/run-summary.json"
rm "$out/report.json" "$out/report.md"
"$GA_BIN" judge "$out" >/dev/null 2>&1
jrc=$?
check "judge exit code $jrc equals the run's $rc" [ "$jrc" -eq "$rc" ]
check "judge rewrote report.json and report.md" test -s "$out/report.json" -a -s "$out/report.md"
check "same verdicts as the run" cmp -s "$GA_TMP/run-verdicts.json" <(jq -S '.verdicts' "$out/report.json")
check "same summary as the run" cmp -s "$GA_TMP/run-summary.json" <(jq -S '.summary' "$out/report.json")
# A buyer re-judges with their own contract: an impossible floor fails, exit 1.
cat >"$GA_TMP/strict.yaml" <<'YAML'
schema_version: 1
criteria:
  - name: contract.hostmem.floor
    metric: hostmem.triad_bw
    compare: ">="
    value: 1.0e15
YAML
"$GA_BIN" judge "$out" --criteria "$GA_TMP/strict.yaml" --out "$GA_TMP/strict" >/dev/null 2>&1
check "re-judged with a stricter contract (into --out): exit 1" [ $? -eq 1 ]
check "the failing verdict names NUMA 0 of this host" [ "$(jqr "$GA_TMP/strict/report.json" '[.verdicts[] | select(.status=="fail") | .place] | join(",")')" = "$(hostname -s)/numa:0" ]
finish
