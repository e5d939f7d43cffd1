#!/usr/bin/env bash
# Progress lines (issue 13 item 7): rank 0 says on stderr where a long probe is. One short suite
# (mpi-coll: about a hundred small lines; p2p: the pair of two ranks of this host), three times
# with mpirun -np 2:
#   default:   the per-probe lines, and in-probe lines "... (k of K lines), ... left ..." from the
#              sweep and the pair rounds, rate-limited;
#   --verbose: one line per step, so more in-probe lines than the default;
#   --quiet:   no [gpuaccept] line at all on stderr, and the same report and exit code.
source "$(dirname "$0")/lib.sh"
cat >"$GA_TMP/suite.yaml" <<'YAML'
schema_version: 1
name: progress
description: two stepping probes, seconds long
probes:
  - name: mpi-coll
    params:
      min_bytes: 8
      max_bytes: 65536
      step_factor: 4
      iters: 3
      warmup_iters: 1
  - name: p2p
    params:
      measure_s: 0.05
      limit_s: 2
YAML
declare -A rc
for mode in default verbose quiet; do
  flag=()
  [ "$mode" != default ] && flag=("--$mode")
  start=$SECONDS
  ga_mpirun 2 run --suite "$GA_TMP/suite.yaml" --out "$GA_TMP/$mode" --probe-timeout 60 "${flag[@]}" \
    >"$GA_TMP/$mode.stdout" 2>"$GA_TMP/$mode.stderr"
  rc[$mode]=$?
  log "$mode: exit ${rc[$mode]} in $((SECONDS - start)) s, $(grep -c '^\[gpuaccept\]' "$GA_TMP/$mode.stderr") [gpuaccept] line(s)"
done
# In-probe lines: "[gpuaccept] PROBE: WHAT (K of N UNIT), ..." as opposed to the run's and the
# probes' own lines ("[gpuaccept] run DIR: ...", "[gpuaccept] probe NAME (i/N)", "... done in").
in_probe() { grep -E '^\[gpuaccept\] [a-z0-9-]+: .* \([0-9]+ of [0-9]+ [a-z -]+\), .*left' "$1"; }
for mode in default verbose quiet; do
  check "$mode: exit code 0 (got ${rc[$mode]})" [ "${rc[$mode]}" = 0 ]
  check "$mode: report.json and report.md written" test -s "$GA_TMP/$mode/report.json" -a -s "$GA_TMP/$mode/report.md"
  check "$mode: both probes ok" \
    [ "$(jqr "$GA_TMP/$mode/report.json" '[.probes[] | select(.status == "ok")] | length')" = 2 ]
  check "$mode: stdout names the report" grep -q "report $GA_TMP/$mode/report.md" "$GA_TMP/$mode.stdout"
done
nd=$(in_probe "$GA_TMP/default.stderr" | wc -l)
nv=$(in_probe "$GA_TMP/verbose.stderr" | wc -l)
check "default: the per-probe lines still print" grep -q '^\[gpuaccept\] probe mpi-coll (1/2)$' "$GA_TMP/default.stderr"
check "default: an in-probe line of the sweep with k of K and the time left" \
  grep -qE '^\[gpuaccept\] mpi-coll: all_reduce 8 B out of place \(1 of [0-9]+ lines\), [0-9.]+ s left to the probe.s deadline$' \
  "$GA_TMP/default.stderr"
check "default: an in-probe line of the pair rounds" \
  grep -qE '^\[gpuaccept\] p2p: intra-host pairs \(1 of 1 rounds\), .*left' "$GA_TMP/default.stderr"
check "verbose: more in-probe lines ($nv) than default ($nd)" [ "$nv" -gt "$nd" ]
# Two ranks with a core each time their latency in one turn (fabric_8x2 holds the other side).
if [ "$(nproc)" -ge 2 ]; then
  check "default: 2 ranks on $(nproc) CPUs, p2p latency not timed in turns" bash -c '! grep -q "at a time" <(jq -r "$1" "$2")' _ \
    '.probes[] | select(.name == "p2p") | .hosts[].ranks[] | .reason' "$GA_TMP/default/report.json"
fi
# Every step of the sweep: one line per line measured (report.json has 4 metrics a line:
# time, algbw, busbw, wrong).
lines=$(jqr "$GA_TMP/verbose/report.json" '[.metrics[] | select(.metric == "mpi-coll.time")] | length')
check "verbose: one sweep line per line measured ($lines)" \
  [ "$(grep -cE '^\[gpuaccept\] mpi-coll: .* of [0-9]+ lines\)' "$GA_TMP/verbose.stderr")" = "$lines" ]
check "verbose: estimates say what they are (steps left at their mean so far)" \
  grep -qE '^\[gpuaccept\] mpi-coll: .*, about [0-9.]+ [mu]?s left at [0-9.]+ [mu]?s each so far, [0-9.]+ s to the probe.s deadline$' \
  "$GA_TMP/verbose.stderr"
check "quiet: no [gpuaccept] line on stderr" bash -c '! grep -q "\[gpuaccept\]" "$1"' _ "$GA_TMP/quiet.stderr"
check "quiet: the same verdicts as the default run" \
  [ "$(jqr "$GA_TMP/quiet/report.json" '.summary.overall')" = "$(jqr "$GA_TMP/default/report.json" '.summary.overall')" ]
# The two flags contradict each other: a usage error, before any run.
ga_mpirun 1 run --quiet --verbose --suite "$GA_TMP/suite.yaml" --out "$GA_TMP/both" >"$GA_TMP/both.out" 2>&1
both=$?
check "--quiet --verbose: exit 2 naming both (got $both)" \
  bash -c '[ "$0" = 2 ] && grep -q -- "--quiet excludes --verbose" "$1"' "$both" "$GA_TMP/both.out"
check "--quiet --verbose: no run directory" test ! -e "$GA_TMP/both"
# launch hands both flags to the run as given.
line=$("$GA_BIN" launch --ranks-per-host 2 --oversubscribe --dry-run -- --suite quick --verbose)
check "launch -- --verbose: the run gets --verbose ($line)" bash -c '[[ "$0" == *" run --suite quick --verbose" ]]' "$line"
line=$("$GA_BIN" launch --ranks-per-host 2 --oversubscribe --dry-run -- --quiet)
check "launch -- --quiet: the run gets --quiet ($line)" bash -c '[[ "$0" == *" run --quiet" ]]' "$line"
finish
