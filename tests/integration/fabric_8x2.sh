#!/usr/bin/env bash
# The user's own line, `mpirun -np 16 gpuaccept`, on 8 fake hosts of 2 ranks each: the fabric
# and default suites pass clean (exit 0, no inconclusive verdict), and one slow host, one slow
# link and one lossy host are each named alone, confirmed by re-tests (exit 1, a node fault).
# The pairs inside each host (rank 0 ~ rank 1 over shared memory) run beside the inter-host
# pairs and must not be blamed for, or blame, anything between hosts.
#
# What this proves: the schedule, the re-test pass and the judge at 16 ranks on 8 network
# stacks with real TCP between them. What it cannot: the fake hosts share one kernel, two
# cores and one memory bus, so host-resource comparisons between them are skipped (their
# shared boot_id, suites/judge.cpp), and their clock is this machine's: its lack of a time
# daemon is a true fault of this machine, so the clean default run is judged without
# clock.synchronized (taken from `gpuaccept list --criteria`, nothing else changed).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fake_up 8
t0=$(date +%s)
rc=$(p2p_run fabric 8 2 fabric)
say_why_not_clean "$GA_TMP/fabric" "$rc"
check "fabric suite, 8 x 2 clean: exit 0 (got $rc)" [ "$rc" = 0 ]
check "fabric suite: no inconclusive verdict" \
  test "$(jq '[.verdicts[] | select(.status == "inconclusive")] | length' "$GA_TMP/fabric/report.json")" = 0
check "fabric suite: 16 ranks measured pairs inside the 8 hosts" \
  test "$(jq '[.metrics[] | select(.metric == "p2p.intra_slowdown")] | length > 0' "$GA_TMP/fabric/report.json")" = true
# 16 ranks on this machine's cores: the latency phases run in turns, and the probe says so.
check "fabric suite: latency timed in turns where ranks share cores (rank 0's note)" \
  grep -q "pair(s) at a time: more ranks than CPUs" \
  <(jq -r '.probes[] | select(.name == "p2p") | .hosts[].ranks[] | select(.rank == 0) | .reason' "$GA_TMP/fabric/report.json")
bits=$(median_bw_bits "$GA_TMP/fabric")
tenth=$((bits / 10))
t1=$(date +%s)

"$GA_BIN" list --criteria |
  awk '/^  - name: /{skip = ($3 == "clock.synchronized")} !skip' >"$GA_TMP/no-clock-sync.yaml"
check "criteria without clock.synchronized still parse and hold the rest" \
  grep -q "name: hostmem.triad.uniform" "$GA_TMP/no-clock-sync.yaml"
rc=$(p2p_run default 8 2 default --criteria "$GA_TMP/no-clock-sync.yaml")
say_why_not_clean "$GA_TMP/default" "$rc"
check "default suite, 8 x 2 clean: exit 0 (got $rc; failing: $(failing_places "$GA_TMP/default"))" [ "$rc" = 0 ]
check "default suite: hosts on one kernel are not compared (skipped, with that reason)" \
  grep -q "shares one kernel" <(jq -r '.verdicts[] | select(.criterion == "hostmem.triad.uniform") | .reason' \
                                  "$GA_TMP/default/report.json")
# gpuaccept show (issue 36 item 4): one host's whole story from a default run, its NUMA nodes'
# hostmem verdicts among the rest, and a place the run does not have is exit 2 with names.
"$GA_BIN" show "$GA_TMP/default" ga-h3 >"$GA_TMP/show.txt" 2>&1
check "show ga-h3: exit 0, the host's hostmem verdicts at its NUMA nodes" \
  grep -qE "^pass\*? +ga-h3/numa:[0-9]+ +hostmem\.triad" "$GA_TMP/show.txt"
check "show ga-h3: its links' p2p verdicts too, and no other host's own" \
  sh -c "grep -qE ' ga-h[0-9]~ga-h3 | ga-h3~ga-h[0-9] ' '$GA_TMP/show.txt' && ! grep -qE '^[a-z_*]+ +ga-h[124-8](/| )' '$GA_TMP/show.txt'"
"$GA_BIN" show "$GA_TMP/default" --json ga-h3/numa:0 >"$GA_TMP/show.json" 2>&1
check "show --json ga-h3/numa:0: only that NUMA node, verdicts and samples" \
  [ "$(jq -r '[.verdicts[].place, .samples[].place] | unique | join(",")' "$GA_TMP/show.json")" = ga-h3/numa:0 ]
"$GA_BIN" show "$GA_TMP/default" nohost 2>"$GA_TMP/show.err" >/dev/null
rc_show=$?
check "show nohost: exit 2 (got $rc_show), naming the nearest places" \
  sh -c "[ $rc_show = 2 ] && grep -q 'no place nohost in .*; nearest: ' '$GA_TMP/show.err'"
t2=$(date +%s)

# expect_alone NAME RC PLACE: the run failed on a node fault at PLACE, confirmed, and nothing else.
expect_alone() {
  local dir=$GA_TMP/$1 places
  places=$(failing_places "$dir")
  check "$1: the run fails on a node fault (exit $2)" [ "$2" = 1 ]
  check "$1: failing places are exactly $3 (got: $places)" [ "$places" = "$3" ]
  check "$1: confirmed by re-tests" grep -q "sure: high" <(failing_reasons "$dir" "$3")
}
p2p_reset 8
p2p_fault rate ga-h3 "${tenth}bit"
expect_alone slow-host "$(p2p_run slow-host 8 2)" ga-h3
p2p_reset 8
p2p_fault rate-pair ga-h2 ga-h6 "${tenth}bit"
expect_alone slow-link "$(p2p_run slow-link 8 2)" ga-h2~ga-h6
p2p_reset 8
p2p_fault loss ga-h7 10
expect_alone lossy-host "$(p2p_run lossy-host 8 2)" ga-h7
check "lossy host: offline judge gives the live verdicts" same_when_rejudged "$GA_TMP/lossy-host"
t3=$(date +%s)
log "wall: fabric clean $((t1 - t0)) s, default clean $((t2 - t1)) s, three faults $((t3 - t2)) s"
finish
