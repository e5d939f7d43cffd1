#!/usr/bin/env bash
# Intermittent faults (issue 33) at rates a short re-test misses, on 8 fake hosts x 2 ranks (the
# user's `mpirun -np 16`):
#   clean       no fault: exit 0, nothing inconclusive
#   send-loss   ga-h5 drops 1% of what it sends (iptables statistic)
#   recv-loss   ga-h5 drops 1% of what it receives, nothing it sends
#   flap        ga-h5's link loses carrier 0.3 s in every 3 s (its veth's bridge end down/up)
# Each fault must fail the run on ga-h5 alone (its host or its interface), no peer and no link,
# and ga-h5 must be the only host in bad-hosts.txt (what an operator drains).
# GA_RUNS=N repeats every scenario N times and prints how often each was named alone (the
# campaign quoted in docs/performance.md: GA_RUNS=10 bash tests/integration/fabric_intermittent.sh).
#
# What this proves: the tail-event count of the p2p probe, the judge's test of it against the
# rest of the cluster, and the carrier counter, on 8 network stacks with real TCP retransmits
# and a real carrier loss. What it cannot: an InfiniBand link's own retries and its
# link_downed counter (no HCA here); the fake hosts' healthy noise is one machine's scheduler.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

runs=${GA_RUNS:-1}
fake_up 8
declare -A alone=()
declare -a sized=()  # per round: loss runs whose re-tests of ga-h5 were sized

# hosts_of PLACES: the hosts of comma-separated places (ga-h5/eth0 -> ga-h5), sorted, unique.
hosts_of() { tr ',' '\n' <<<"$1" | sed 's|/.*||' | sort -u | paste -sd, -; }

for ((i = 1; i <= runs; i++)); do
  p2p_reset 8
  rc=$(p2p_run "clean-$i" 8 2)
  say_why_not_clean "$GA_TMP/clean-$i" "$rc"
  check "clean $i: exit 0 (got $rc; failing: $(failing_places "$GA_TMP/clean-$i"))" [ "$rc" = 0 ]
  check "clean $i: no net.* verdict fails or warns" \
    test "$(jq '[.verdicts[] | select((.metric // "" | startswith("net.")) and .status != "pass" and .status != "skipped")] | length' \
              "$GA_TMP/clean-$i/report.json")" = 0
  check "clean $i: carrier changes were counted and none seen" \
    test "$(jq '[.metrics[] | select(.metric == "net.iface.carrier_changes") | .value] | (length > 0) and all(. == 0)' \
              "$GA_TMP/clean-$i/report.json")" = true

  for fault in send-loss recv-loss flap; do
    p2p_reset 8
    case $fault in
      send-loss) p2p_fault loss ga-h5 1 ;;
      recv-loss) p2p_fault loss-in ga-h5 1 ;;
      flap) p2p_fault flap ga-h5 0.3 3 ;;
    esac
    name=$fault-$i
    rc=$(p2p_run "$name" 8 2)
    places=$(failing_places "$GA_TMP/$name")
    check "$name: the run fails on a node fault (exit $rc)" [ "$rc" = 1 ]
    check "$name: every failing place is ga-h5's (got: $places)" [ "$(hosts_of "$places")" = ga-h5 ]
    check "$name: no link is blamed (got: $places)" bash -c '! grep -q "~" <<<"$0"' "$places"
    bad=$(grep -v '^#' "$GA_TMP/$name/bad-hosts.txt" 2>/dev/null | awk '{print $1}' | sort -u | paste -sd, -)
    check "$name: bad-hosts.txt holds ga-h5 alone (got: $bad)" [ "$bad" = ga-h5 ]
    [ "$rc" = 1 ] && [ "$(hosts_of "$places")" = ga-h5 ] && [ "$bad" = ga-h5 ] && alone[$fault]=$((${alone[$fault]:-0} + 1))
    # The runs that did not name it alone: how (the issue allows inconclusive at ga-h5 only).
    [ "$rc" != 1 ] && log "$name: exit $rc, failing or inconclusive: $places"
    case $fault in
      *loss) check "$name: the reason counts tail events" \
               grep -q "intermittent: tail events" <(failing_reasons "$GA_TMP/$name" ga-h5)
             check "$name: its evidence carries its TCP counters" \
               grep -q "its TCP counters during p2p: [0-9]* segments retransmitted" <(failing_reasons "$GA_TMP/$name" ga-h5)
             # Item 3: its re-tests were as long as its rate asks for, and the re-run's will be.
             # A re-test round goes to the suspects the planner ranks first: a host the first pass
             # alone already named (p ~1e-22 on CI once) may get none ("re-tests 0 in 0"). Its
             # re-tests are then not sized, and that is said; at least one loss run of each
             # round must have been re-tested and sized (checked after the faults).
             reasons=$(failing_reasons "$GA_TMP/$name" ga-h5)
             if grep -q "re-tests sized from its first-pass rate" <<<"$reasons"; then
               sized[$i]=$((${sized[$i]:-0} + 1))
               pass "$name: its re-tests were sized from its first-pass rate"
             elif grep -q "re-tests 0 in 0" <<<"$reasons"; then
               log "$name: ga-h5 named by the first pass alone, not re-tested (its round went to other suspects)"
             else
               fail "$name: its re-tests were sized from its first-pass rate"
             fi
             "$GA_BIN" rerun-plan "$GA_TMP/$name" >"$GA_TMP/$name.plan" 2>&1
             check "$name: rerun-plan sizes ga-h5's re-run from its tail events" \
               bash -c 'grep -q "^# ga-h5: [0-9]* tail event(s) in" "$0" && grep -q -- "--set p2p.min_exchanges=[0-9]" "$0"' \
               "$GA_TMP/$name.plan" ;;
      flap) check "$name: the carrier changes fail" \
              grep -qx net.iface.carrier <(jq -r '.verdicts[] | select(.severity == "error" and .status == "fail") | .criterion' \
                                              "$GA_TMP/$name/report.json") ;;
    esac
  done
  check "round $i: a loss run's re-tests of ga-h5 were sized from its first-pass rate (${sized[$i]:-0} of 2)" \
    [ "${sized[$i]:-0}" -ge 1 ]
  check "send-loss $i: offline judge gives the live verdicts" same_when_rejudged "$GA_TMP/send-loss-$i"
done
for fault in send-loss recv-loss flap; do log "$fault: ga-h5 named alone in ${alone[$fault]:-0} of $runs runs"; done
finish
