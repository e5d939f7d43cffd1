#!/usr/bin/env bash
# No fault: the p2p suite on 4 fake hosts passes 5 times in a row, measures all 12 directions,
# and `gpuaccept judge` reproduces its verdicts offline.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"
fake_up 4
for i in 1 2 3 4 5; do
  rc=$(p2p_run "clean$i")
  say_why_not_clean "$GA_TMP/clean$i" "$rc"
  dir=$GA_TMP/clean$i
  check "clean run $i passes (exit $rc, failing: $(failing_places "$dir" 2>/dev/null))" [ "$rc" = 0 ]
  check "clean run $i blames nobody" [ -z "$(failing_places "$dir")" ]
  n_lat=$(jq -s '[.[] | select(.type == "sample" and .metric == "p2p.latency_p50" and .params.pass == 1)] | length' "$dir/samples.jsonl")
  n_bw=$(jq -s '[.[] | select(.type == "sample" and .metric == "p2p.bw" and .params.pass == 1)] | length' "$dir/samples.jsonl")
  check "clean run $i measured 12 directions (latency $n_lat, bandwidth $n_bw)" [ "$n_lat" = 12 ] && [ "$n_bw" = 12 ]
  # The worst healthy ratios, for docs/performance.md#p2p-probe-overhead-schedule-and-noise (how
  # far the tolerances are from noise).
  log "run $i: $(jq -r '[.metrics[] | select(.metric | test("p2p.(host|link)_slowdown")) | .value] | max' "$dir/report.json")x worst slowdown;" \
      "median latency $(jq -r '[.metrics[] | select(.metric == "p2p.latency_median") | .value][0]' "$dir/report.json") s," \
      "bw $(jq -r '[.metrics[] | select(.metric == "p2p.bw_median") | .value][0]' "$dir/report.json") B/s"
done
check "offline judge gives the live verdicts" same_when_rejudged "$GA_TMP/clean1"
# report.html's pair-latency heatmap (issue 14 item 3): one cell per direction, each the best
# p50 over the passes at the smallest size, as report.json has it.
html=$GA_TMP/clean1/report.html
grep -o '<svg data-plot="pair-latency".*' "$html" | sed 's/<svg data-plot="pair-bandwidth".*//' | grep -o 'data-direction="[^"]*" data-value="[^"]*"' |
  sed -E 's/data-direction="([^"]*)" data-value="([^"]*)"/\1 \2/; s/&gt;/>/g' | sort >"$GA_TMP/cells.txt"
jq -r '[.metrics[] | select(.metric == "p2p.latency_p50" and .params.path != "intra")] as $m
       | ($m | map(.params.size) | min) as $s
       | $m | map(select(.params.size == $s)) | group_by(.params.direction)[]
       | "\(.[0].params.direction) \(map(.value) | min)"' "$GA_TMP/clean1/report.json" | sort >"$GA_TMP/want.txt"
check "the pair-latency heatmap has a cell per direction ($(wc -l <"$GA_TMP/cells.txt"))" test "$(wc -l <"$GA_TMP/cells.txt")" = 12
check "... each cell the best p50 report.json gives that direction" \
  bash -c "paste -d' ' '$GA_TMP/cells.txt' '$GA_TMP/want.txt' | awk '\$1 != \$3 || \$2 + 0 != \$4 + 0 {bad = 1} END {exit bad}'"
check "report.html also draws the pair-bandwidth heatmap" grep -q '<svg data-plot="pair-bandwidth"' "$html"
# The TCP counters around the probe (issue 33, probes/net/): read on each of the 4 hosts, in its own
# network namespace, so each host's sent segments are its own and not the machine's.
check "net counters read on every host during p2p" \
  test "$(jq '[.metrics[] | select(.metric == "net.counters_read" and .params.during == "p2p" and .value == 1) | .place] | unique | length' \
          "$GA_TMP/clean1/report.json")" = 4
check "each host sent TCP segments of its own during p2p, and no two the same count" \
  test "$(jq '[.metrics[] | select(.metric == "net.tcp.out_segs" and .params.during == "p2p") | select(.value > 0) | .value] | unique | length' \
          "$GA_TMP/clean1/report.json")" = 4
check "tail events are recorded beside every latency measurement" \
  test "$(jq '([.metrics[] | select(.metric == "p2p.tail_events")] | length) > 0 and
              ([.metrics[] | select(.metric == "p2p.exchanges")] | length) == ([.metrics[] | select(.metric == "p2p.tail_events")] | length)' \
          "$GA_TMP/clean1/report.json")" = true
finish
