#!/usr/bin/env bash
# bad-hosts.txt, report.prom, `gpuaccept drain` and `undrain` (issue 13 items 3, 4, 8) on a real run, with
# stand-ins for scontrol and sinfo on PATH that record what they were asked (the real
# slurmctld test is tests/slurm). Only node faults are drained, never tool errors or
# inconclusive hosts; the circuit breaker holds; undrain resumes only gpuaccept's drains.
source "$(dirname "$0")/lib.sh"
me=$(hostname -s)
out=$GA_TMP/run
ga_mpirun 2 run --suite quick --out "$out" >/dev/null 2>&1
check "the run wrote bad-hosts.txt" test -s "$out/bad-hosts.txt"
check "bad-hosts.txt judged this host" grep -q "^# judged: .*$me" "$out/bad-hosts.txt"
# report.prom (issue 13 item 8, issue 36 item 3): Prometheus' own checker has nothing to say
# about it, and it has one status series per criterion judged at this host (the run's one host),
# never a JSON label.
check "promtool is installed (scripts/install-deps.sh)" command -v promtool
check "promtool check metrics prints nothing on report.prom" \
  bash -c "promtool check metrics <'$out/report.prom' >'$GA_TMP/promtool.out' 2>&1 && test ! -s '$GA_TMP/promtool.out'"
check "one gpuaccept_status series per criterion judged at this host" \
  [ "$(grep -c "^gpuaccept_status{host=\"$me\"," "$out/report.prom")" = \
    "$(jq '[.verdicts[] | select(.status != "skipped" and .place != "cluster") | .criterion] | unique | length' "$out/report.json")" ]
check "no label of report.prom holds JSON" bash -c "! grep -v '^#' '$out/report.prom' | grep -q '=\"[{\\[]'"

# A contract this host cannot meet: it is a node fault, the one line of bad-hosts.txt.
cat >"$GA_TMP/strict.yaml" <<'YAML'
schema_version: 1
criteria:
  - name: contract.hostmem.floor
    metric: hostmem.triad_bw
    compare: ">="
    value: 1.0e15
YAML
# Other criteria make another report, written elsewhere (the run directory keeps its own).
run_dir=$out out=$GA_TMP/strict
"$GA_BIN" judge "$run_dir" --criteria "$GA_TMP/strict.yaml" --out "$out" >/dev/null 2>&1
check "strict judge: this host is a node fault on the contract" \
  grep -qP "^$me\tnode fault\tcontract.hostmem.floor\tcontract.hostmem.floor at $me/numa:" "$out/bad-hosts.txt"
check "... and its status series in report.prom says 1 (node fault)" \
  grep -qx "gpuaccept_status{host=\"$me\",criterion=\"contract.hostmem.floor\"} 1" "$out/report.prom"
# junitparser (Debian's python3-junitparser, as CI dashboards' readers do) reads the file, and
# its counts are the file's own.
check "... junitparser reads report.junit.xml: one failure, counts agree" \
  /usr/bin/python3 -c '
import sys
from junitparser import JUnitXml, Failure, Error, Skipped
x = JUnitXml.fromfile(sys.argv[1])
cases = [c for s in x for c in s]
kinds = [type(r) for c in cases for r in c.result]
assert x.tests == len(cases) and x.failures == kinds.count(Failure) == 1, (x.tests, x.failures, len(cases))
assert x.errors == kinds.count(Error) and x.skipped == kinds.count(Skipped)
' "$out/report.junit.xml"
check "... and report.junit.xml has one node_fault testcase naming its NUMA nodes" \
  grep -q "<testcase name=\"contract.hostmem.floor \[numa\] node fault\" classname=\"contract.hostmem.floor\">" "$out/report.junit.xml"

# Stand-ins: scontrol logs its argv, one line per call; sinfo prints $GA_TMP/sinfo.out.
mkdir -p "$GA_TMP/bin"
cat >"$GA_TMP/bin/scontrol" <<EOF2
#!/usr/bin/env bash
printf '%s|' "\$@" >>"$GA_TMP/scontrol.log"; echo >>"$GA_TMP/scontrol.log"
EOF2
cat >"$GA_TMP/bin/sinfo" <<EOF2
#!/usr/bin/env bash
cat "$GA_TMP/sinfo.out"
EOF2
chmod +x "$GA_TMP/bin/scontrol" "$GA_TMP/bin/sinfo"
export PATH=$GA_TMP/bin:$PATH

line=$("$GA_BIN" drain "$out" 2>/dev/null); rc=$?
check "drain: exit 1, lines printed" [ $rc -eq 1 ]
check "drain: the line drains this host with gpuaccept's reason" \
  bash -c "[[ '$line' == 'scontrol update nodename=$me state=drain reason=\"gpuaccept: contract.hostmem.floor ('* ]]"
check "drain without --apply runs nothing" test ! -e "$GA_TMP/scontrol.log"
"$GA_BIN" drain "$out" --apply >/dev/null 2>"$GA_TMP/breaker.err"; rc=$?
check "drain --apply of 1 host of 1: the circuit breaker refuses, exit 2" [ $rc -eq 2 ]
check "the refusal says why" grep -q "refusing to drain 1 of 1 hosts" "$GA_TMP/breaker.err"
check "the refusal ran nothing" test ! -e "$GA_TMP/scontrol.log"
"$GA_BIN" drain "$out" --apply --force >/dev/null 2>&1; rc=$?
check "drain --apply --force: exit 1" [ $rc -eq 1 ]
check "scontrol was asked to drain this host, once" \
  [ "$(grep -c "^update|nodename=$me|state=drain|reason=gpuaccept: contract.hostmem.floor" "$GA_TMP/scontrol.log")" = 1 ]

# Hand-written bad-hosts.txt files below name hosts a..d: drain holds a file to the run's own
# hosts (its journal's run_start), so each directory gets that one record.
journal_of() { mkdir -p "$1" && echo '{"type":"run_start","hosts":["a","b","c","d"]}' >"$1/samples.jsonl"; }
# Tool errors and inconclusive hosts are never drained.
journal_of "$GA_TMP/other"
printf '# gpuaccept bad hosts: one line per host that did not pass (2 of 4)\n# run: t\n# overall: INCONCLUSIVE\n# judged: a,b,c,d\nb\ttool error\tprobe.nccl\tprobe nccl broke\nc\tinconclusive\tp2p.link.bw\tnot re-tested\n' \
  >"$GA_TMP/other/bad-hosts.txt"
"$GA_BIN" drain "$GA_TMP/other" >"$GA_TMP/other.out" 2>/dev/null; rc=$?
check "drain of tool errors and inconclusive hosts only: exit 0, nothing printed" [ $rc -eq 0 -a ! -s "$GA_TMP/other.out" ]
# rerun-plan (issue 13 item 5, the plan): the inconclusive host again, with two that passed.
plan=$("$GA_BIN" rerun-plan "$GA_TMP/other" 2>/dev/null); rc=$?
check "rerun-plan: exit 1, a plan printed" [ $rc -eq 1 ]
check "  the inconclusive host c, not the tool error b, with a and d that passed" \
  [ "$(sed -n '/^# hostfile:/,/^#/p' <<<"$plan" | grep -v '^#' | tr '\n' ' ')" = "c a d " ]
check "  its mpirun line, built by the launchers, runs the campaign (run --rerun DIR)" \
  grep -qx "mpirun -np 3 --host c:1,a:1,d:1 --map-by ppr:1:node --bind-to numa gpuaccept run --rerun $GA_TMP/other" <<<"$plan"
check "  and its sbatch line" grep -qx "sbatch --nodes=3 --nodelist=c,a,d slurm/gpuaccept.sbatch --rerun $GA_TMP/other" <<<"$plan"
mkdir -p "$GA_TMP/xid"
printf '# gpuaccept bad hosts: one line per host that did not pass (0 of 2)\n# run: t\n# overall: PASS\n# judged: a,b\n' >"$GA_TMP/xid/bad-hosts.txt"
"$GA_BIN" rerun-plan "$GA_TMP/xid" >/dev/null 2>&1
check "rerun-plan with nothing to re-test: exit 0" [ $? -eq 0 ]

# The operator's action the evidence names (the Xid catalogue's) goes into the drain reason.
journal_of "$GA_TMP/xid"
printf '# gpuaccept bad hosts: one line per host that did not pass (1 of 4)\n# run: t\n# overall: FAIL\n# judged: a,b,c,d\nd\tnode fault\tgpu.xid.none\tgpu.xid.none at d/gpu:0: Xid 79\tRESTART_BM\n' \
  >"$GA_TMP/xid/bad-hosts.txt"
check "the drain reason carries the action" \
  [ "$("$GA_BIN" drain "$GA_TMP/xid" 2>/dev/null)" = 'scontrol update nodename=d state=drain reason="gpuaccept: gpu.xid.none [RESTART_BM] (t)"' ]
"$GA_BIN" drain "$GA_TMP" >/dev/null 2>"$GA_TMP/none.err"; rc=$?
check "drain of a directory without bad-hosts.txt: exit 2, saying so" [ $rc -eq 2 ]
check "  and naming the file" grep -q "no $GA_TMP/bad-hosts.txt" "$GA_TMP/none.err"

# The host passes again (a contract it meets): undrain resumes it only if gpuaccept drained it.
cat >"$GA_TMP/lenient.yaml" <<'YAML'
schema_version: 1
criteria:
  - name: contract.hostmem.any
    metric: hostmem.triad_bw
    compare: ">="
    value: 0
YAML
out=$GA_TMP/lenient
"$GA_BIN" judge "$run_dir" --criteria "$GA_TMP/lenient.yaml" --out "$out" >/dev/null 2>&1
check "lenient judge: no bad host" [ "$(grep -vc '^#' "$out/bad-hosts.txt")" = 0 ]
# Drained for the strict contract, which this judgement did not judge: it stays drained (a
# passing verdict of another criterion proves nothing about the one it failed).
printf '%s|drained|gpuaccept: contract.hostmem.floor (t)\n' "$me" >"$GA_TMP/sinfo.out"
: >"$GA_TMP/scontrol.log"
line=$("$GA_BIN" undrain "$out" 2>"$GA_TMP/other-criterion.err"); rc=$?
check "undrain after a judgement without its criterion: exit 0, nothing resumed" [ $rc -eq 0 -a -z "$line" ]
check "  and undrain names the criterion not re-judged" \
  grep -q "no passing verdict of contract.hostmem.floor at it" "$GA_TMP/other-criterion.err"
printf '%s|drained|gpuaccept: contract.hostmem.any (t)\nother|drained|gpuaccept: x (t)\n' "$me" >"$GA_TMP/sinfo.out"
line=$("$GA_BIN" undrain "$out" 2>/dev/null); rc=$?
check "undrain: exit 1, this host resumed (not 'other', which this run did not judge)" \
  [ $rc -eq 1 -a "$line" = "scontrol update nodename=$me state=resume" ]
"$GA_BIN" undrain "$out" --apply >/dev/null 2>&1
check "undrain --apply asked scontrol to resume this host" grep -q "^update|nodename=$me|state=resume|$" "$GA_TMP/scontrol.log"
printf '%s|drained|bad DIMM, ticket 99\n' "$me" >"$GA_TMP/sinfo.out"
line=$("$GA_BIN" undrain "$out" 2>"$GA_TMP/keep.err"); rc=$?
check "a host drained by a person for another reason stays drained: exit 0, nothing printed" [ $rc -eq 0 -a -z "$line" ]
check "  and undrain says why" grep -q "stays drained: its reason is not gpuaccept's" "$GA_TMP/keep.err"
finish
