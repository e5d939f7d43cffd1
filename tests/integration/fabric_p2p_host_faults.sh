#!/usr/bin/env bash
# One bad host at a time (a 2 ms +- 1 ms delay, a tenth of the bandwidth, 10% packet loss): the
# report fails and names that host, and no other host or pair.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"
p2p_baseline 4

expect_host() {  # expect_host NAME HOST: the run failed and blamed exactly HOST
  local dir=$GA_TMP/$1 rc=$2 host=$3 places
  places=$(failing_places "$dir")
  check "$1: the run fails (exit $rc)" [ "$rc" = 1 ]
  check "$1: failing places are exactly $host (got: $places)" [ "$places" = "$host" ]
  check "$1: the reason names the suspect with evidence" \
    grep -q "suspect $host .*evidence against the cluster median" <(failing_reasons "$dir" "$host")
}

p2p_reset 4
p2p_fault delay ga-h2 2 1
rc=$(p2p_run delay)
expect_host delay "$rc" ga-h2
check "delay: offline judge gives the live verdicts" same_when_rejudged "$GA_TMP/delay"

p2p_reset 4
p2p_fault rate ga-h3 "${tenth}bit"
rc=$(p2p_run rate)
expect_host rate "$rc" ga-h3
check "rate: the bandwidth verdict says sending" grep -q "suspect ga-h3 (bw, sending)" <(failing_reasons "$GA_TMP/rate" ga-h3)

p2p_reset 4
# 10%, not 5%: at 5% the drops sometimes missed every p99 window of ga-h4 (its tail 1.9 x, under
# the 10 x ceiling) and a single slow pair was blamed on the link instead, about one full-suite run
# in five; 10% passed 6 of 6 alone. Telling a lossy host from a lossy link without re-testing the
# link is issue 11's work.
p2p_fault loss ga-h4 10
rc=$(p2p_run loss)
expect_host loss "$rc" ga-h4

# A host so slow that its bandwidth windows never complete: at 50 Mbit/s a window of 4 x 4 MiB
# takes 2.7 s, a warm-up window and a measured one 5.4 s, past the measurement's limit (at most
# limit_s, 4 s). Slower rates leave so much abandoned data queued that the whole probe runs out
# of time instead. The report says the host did not complete and invents no figure for it.
p2p_reset 4
p2p_fault rate ga-h2 50mbit
rc=$(p2p_run stall)
expect_host stall "$rc" ga-h2
check "stall: report.md says the bandwidth did not complete" \
  grep -q "p2p.host_slowdown did not complete" "$GA_TMP/stall/report.md"
check "stall: report.html says it did not complete" grep -q "did not complete" "$GA_TMP/stall/report.html"
check "stall: report.json has no value for the stalled host's bandwidth slowdown" \
  test "$(jq -r '[.verdicts[] | select(.place == "ga-h2" and .metric == "p2p.host_slowdown" and .not_completed != null)
                  | .value] | length > 0 and all(. == null)' "$GA_TMP/stall/report.json")" = true
check "stall: no writer prints a stand-in number" \
  bash -c '! grep -lE "1000000 x|1e\+06|33333233" "$0"/report.md "$0"/report.html "$0"/report.junit.xml' "$GA_TMP/stall"
finish
