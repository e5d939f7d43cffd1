#!/usr/bin/env bash
# mpirun with NP ranks on this host: a complete, judged report whose parts agree.
source "$(dirname "$0")/lib.sh"
np=$1
out=$GA_TMP/run
ga_mpirun "$np" run --suite quick --out "$out" >"$GA_TMP/stdout" 2>"$GA_TMP/stderr"
rc=$?
r=$out/report.json
check "exit code is 0 (quick suite passes on a clean host), got $rc" [ "$rc" -eq 0 ]
check "report.json, report.md and the journal exist" test -s "$r" -a -s "$out/report.md" -a -s "$out/samples.jsonl"
check "schema_version 1" [ "$(jqr "$r" .schema_version)" = 1 ]
check "run.ranks lists $np ranks" [ "$(jqr "$r" '.run.ranks | length')" = "$np" ]
check "summary exit code equals the process exit code" [ "$(jqr "$r" .summary.exit_code)" = "$rc" ]
check "summary says PASS" [ "$(jqr "$r" .summary.overall)" = PASS ]
check "every probe ok" [ "$(jqr "$r" '[.probes[] | select(.status != "ok")] | length')" = 0 ]
check "probes are inventory, topology, hostmem" [ "$(jqr "$r" '[.probes[].name] | join(",")')" = "inventory,topology,hostmem" ]
host=$(hostname -s)
check "verdicts are keyed to this host's places" [ "$(jqr "$r" "[.verdicts[] | select(.place | startswith(\"$host\"))] | length")" -gt 5 ]
check "every verdict has the required keys" [ "$(jqr "$r" '[.verdicts[] | select((has("criterion") and has("place") and has("status") and has("value") and has("unit") and has("bounds") and has("reference") and has("reason")) | not)] | length')" = 0 ]
check "hostmem measured a triad bandwidth for NUMA 0" [ "$(jqr "$r" "[.metrics[] | select(.metric == \"hostmem.triad_bw\" and .place == \"$host/numa:0\")] | length")" = 1 ]
check "versions name the MPI library" grep -q "Open MPI" <(jqr "$r" .run.versions.mpi)
check "report.md starts with the overall status" [ "$(head -1 "$out/report.md")" = "# gpuaccept: PASS" ]
check "report.md has a table for host $host" grep -q "^### $host" "$out/report.md"
check "the journal ends with run_end" [ "$(tail -1 "$out/samples.jsonl" | jq -r .type)" = run_end ]
check "stdout prints the report path and verdict" grep -q "report $out/report.md" "$GA_TMP/stdout"
finish
