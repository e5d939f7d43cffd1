#!/usr/bin/env bash
# No fault: the p2p suite on 4 fake hosts passes 5 times in a row, measures all 12 directions,
# and `gpuaccept judge` reproduces its verdicts offline.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"
fake_up 4
for i in 1 2 3 4 5; do
  rc=$(p2p_run "clean$i")
  dir=$GA_TMP/clean$i
  check "clean run $i passes (exit $rc, failing: $(failing_places "$dir" 2>/dev/null))" [ "$rc" = 0 ]
  check "clean run $i blames nobody" [ -z "$(failing_places "$dir")" ]
  n_lat=$(jq -s '[.[] | select(.type == "sample" and .metric == "p2p.latency_p50" and .params.pass == 1)] | length' "$dir/samples.jsonl")
  n_bw=$(jq -s '[.[] | select(.type == "sample" and .metric == "p2p.bw" and .params.pass == 1)] | length' "$dir/samples.jsonl")
  check "clean run $i measured 12 directions (latency $n_lat, bandwidth $n_bw)" [ "$n_lat" = 12 ] && [ "$n_bw" = 12 ]
  # The worst healthy ratios, for docs/measurements.md (how far the tolerances are from noise).
  log "run $i: $(jq -r '[.metrics[] | select(.metric | test("p2p.(host|link)_slowdown")) | .value] | max' "$dir/report.json")x worst slowdown;" \
      "median latency $(jq -r '[.metrics[] | select(.metric == "p2p.latency_median") | .value][0]' "$dir/report.json") s," \
      "bw $(jq -r '[.metrics[] | select(.metric == "p2p.bw_median") | .value][0]' "$dir/report.json") B/s"
done
check "offline judge gives the live verdicts" same_when_rejudged "$GA_TMP/clean1"
finish
