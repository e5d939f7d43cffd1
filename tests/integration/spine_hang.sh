#!/usr/bin/env bash
# A rank that hangs (SIGSTOP) ends the run within the deadline plus a few seconds, exit 3,
# and the report's `incomplete` names the probe and the stopped rank and host.
source "$(dirname "$0")/lib.sh"
victim=$1
deadline=6
out=$GA_TMP/run
# hostmem made long (it stops at its time budget) so the stop lands inside a probe.
ga_mpirun 4 run --suite quick --out "$out" --probe-timeout $deadline --set hostmem.iterations=1000000 \
  >"$GA_TMP/stdout" 2>"$GA_TMP/stderr" &
mpirun_pid=$!
wait_for "$out/samples.jsonl" '"probe_begin".*"hostmem"|"hostmem".*"probe_begin"' 60 || { fail "hostmem never began"; finish; }
sleep 0.5
pid=$(rank_pid "$out" "$victim")
kill -STOP "$pid"
stopped_at=$(date +%s.%N)
wait "$mpirun_pid"
rc=$?
took=$(echo "$(date +%s.%N) - $stopped_at" | bc)
kill -KILL "$pid" 2>/dev/null
r=$out/report.json
check "exit code 3 (incomplete), got $rc" [ "$rc" -eq 3 ]
# deadline, then the deputy's grace (4 s) and the ping wait (2 s), then teardown
check "ended ${took}s after the stop, within deadline + 10 s" [ "$(echo "$took < $deadline + 10" | bc)" = 1 ]
check "report.json exists" test -s "$r"
check "incomplete names exactly rank $victim" [ "$(jqr "$r" '[.incomplete.missing_ranks[].rank] | join(",")')" = "$victim" ]
check "incomplete names its host" [ "$(jqr "$r" '.incomplete.missing_ranks[0].host')" = "$(hostname -s)" ]
check "incomplete names a phase" [ -n "$(jqr "$r" '.incomplete.probe // empty')" ]
check "summary says INCOMPLETE with exit code 3" [ "$(jqr "$r" '.summary.overall + " " + (.summary.exit_code|tostring)')" = "INCOMPLETE 3" ]
check "report.md says INCOMPLETE first" [ "$(head -1 "$out/report.md")" = "# gpuaccept: INCOMPLETE" ]
finish
