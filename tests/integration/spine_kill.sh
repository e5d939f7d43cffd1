#!/usr/bin/env bash
# A rank that dies (SIGKILL) makes mpirun end the job (137); the journal survives, the
# survivors write report.json, and `gpuaccept judge DIR` afterwards exits 3 naming the lost rank.
source "$(dirname "$0")/lib.sh"
victim=$1
out=$GA_TMP/run
ga_mpirun 4 run --suite quick --out "$out" --probe-timeout 30 --set hostmem.iterations=1000000 \
  >"$GA_TMP/stdout" 2>"$GA_TMP/stderr" &
mpirun_pid=$!
wait_for "$out/samples.jsonl" '"probe_begin".*"hostmem"|"hostmem".*"probe_begin"' 60 || { fail "hostmem never began"; finish; }
sleep 0.5
kill -KILL "$(rank_pid "$out" "$victim")"
wait "$mpirun_pid"
rc=$?
host=$(hostname -s)
check "mpirun exits 137 (Open MPI's answer to a killed rank), got $rc" [ "$rc" -eq 137 ]
check "the journal kept the probes that finished" [ "$(jq -r 'select(.type=="probe_end") | .probe' "$out/samples.jsonl" | tr '\n' ,)" = "inventory,topology," ]
check "the survivors journaled their SIGTERM" [ "$(jq -r 'select(.type=="signal") | .rank' "$out/samples.jsonl" | sort | tr '\n' ,)" = "$(seq 0 3 | grep -vx "$victim" | tr '\n' ,)" ]
if [ "$victim" -ne 0 ]; then
  # Rank 0 survives and writes the report before mpirun's SIGKILL.
  check "rank 0 wrote report.json naming rank $victim" [ "$(jqr "$out/report.json" '[.incomplete.missing_ranks[].rank] | join(",")' 2>/dev/null)" = "$victim" ]
fi
rm -f "$out/report.json" "$out/report.md"
"$GA_BIN" judge "$out" >"$GA_TMP/judge.out" 2>&1
jrc=$?
check "judge exits 3, got $jrc" [ "$jrc" -eq 3 ]
check "judge names lost rank $victim" [ "$(jqr "$out/report.json" '[.incomplete.missing_ranks[].rank] | join(",")')" = "$victim" ]
check "judge names its host" [ "$(jqr "$out/report.json" '.incomplete.missing_ranks[0].host')" = "$host" ]
check "the probe in flight was hostmem" [ "$(jqr "$out/report.json" .incomplete.probe)" = hostmem ]
check "judge's summary line says INCOMPLETE" grep -q "INCOMPLETE" "$GA_TMP/judge.out"
finish
