#!/usr/bin/env bash
# Only the traffic from ga-h2 to ga-h3 limited: the report names the pair ga-h2~ga-h3 (with the
# direction) and neither host. Two bad hosts at once: both named, and nothing else.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"
p2p_baseline 4

p2p_reset 4
p2p_fault rate-pair ga-h2 ga-h3 "${tenth}bit"
rc=$(p2p_run pair)
places=$(failing_places "$GA_TMP/pair")
check "pair: the run fails (exit $rc)" [ "$rc" = 1 ]
check "pair: failing places are exactly ga-h2~ga-h3 (got: $places)" [ "$places" = "ga-h2~ga-h3" ]
check "pair: the reason says the direction ga-h2->ga-h3" \
  grep -q "suspect link ga-h2~ga-h3 (ga-h2->ga-h3, bw)" <(failing_reasons "$GA_TMP/pair" ga-h2~ga-h3)

p2p_reset 4
p2p_fault rate ga-h1 "${tenth}bit"
p2p_fault rate ga-h4 "${tenth}bit"
rc=$(p2p_run two)
places=$(failing_places "$GA_TMP/two")
check "two hosts: the run fails (exit $rc)" [ "$rc" = 1 ]
check "two hosts: failing places are exactly ga-h1 and ga-h4 (got: $places)" [ "$places" = "ga-h1,ga-h4" ]
finish
