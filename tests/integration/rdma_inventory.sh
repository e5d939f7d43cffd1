#!/usr/bin/env bash
# The rdma probe on the mixed-faults tree, two ranks on one host: the report fails on exactly
# the bad ports (down, VF among PFs, RoCE without a v2 GID, NDR trained down to HDR, error
# counters that move between the run's start and end readings) and passes the good ones; the two ranks' ports exchange
# traffic through the loopback fake (the pair schedule and the data path around verbs).
source "$(dirname "$0")/lib.sh"
SUITE=$GA_SOURCE_DIR/tests/data/rdma/suite-rdma-loopback.yaml
ROOT=$GA_TMP/sysfs
cp -a "$GA_SOURCE_DIR/tests/data/rdma/mixed-faults" "$ROOT"
C=$ROOT/sys/class/infiniband
# A sick cable and a flapping link while the run goes on: once the run's start reading of the
# port counters is in the journal, mlx5_0 takes 100000 symbol errors (far above 1e-12 of
# 400 Gb/s over the run), mlx5_1 one (below it: the run lasts seconds, 1e-12 allows 0.4 a
# second), mlx5_2's link goes down and up once, and traffic counters move (never judged).
# The end reading comes after the probe and its settle_s (4 s): the interval is at least that.
J=$GA_TMP/run/samples.jsonl
put() { echo "$2" >"$1.tmp" && mv "$1.tmp" "$1"; }  # atomic: never read half-written
( for _ in $(seq 1 400); do
    grep -q '"metric":"rdma.counters_read_at"' "$J" 2>/dev/null && break
    sleep 0.05
  done
  put "$C/mlx5_0/ports/1/counters/symbol_error" 100000
  put "$C/mlx5_1/ports/1/counters/symbol_error" 1
  put "$C/mlx5_2/ports/1/counters/link_downed" 1
  put "$C/mlx5_3/ports/1/counters/port_xmit_data" 987654321 ) &
BUMPER=$!
trap 'kill $BUMPER 2>/dev/null; cleanup_tmp' EXIT

GPUACCEPT_SYSFS_ROOT=$ROOT ga_mpirun 2 --suite "$SUITE" --out "$GA_TMP/run" >"$GA_TMP/out.log" 2>&1
rc=$?
kill $BUMPER 2>/dev/null
R=$GA_TMP/run/report.json
H=$(hostname -s)
check "report written" test -s "$R"
check "exit code 1 (FAIL), got $rc" test "$rc" -eq 1

fails=$(jqr "$R" '[.verdicts[] | select((.criterion|startswith("rdma.")) and .outcome != "none") | .place] | unique | join(" ")')
want="$H/nic:mlx5_0 $H/nic:mlx5_2 $H/nic:mlx5_4 $H/nic:mlx5_5 $H/nic:mlx5_7 $H/nic:mlx5_8"
check "failing rdma places are exactly the bad ports: got [$fails]" test "$fails" = "$want"
at() { jqr "$R" "[.verdicts[] | select(.criterion==\"$1\" and .place==\"$2\") | .status] | join(\",\")"; }
check "mlx5_8 down" test "$(at rdma.port.active "$H/nic:mlx5_8")" = fail
check "mlx5_4 VF" test "$(at rdma.vf.majority "$H/nic:mlx5_4")" = fail
check "mlx5_5 no RoCE v2 GID" test "$(at rdma.roce.v2_gid "$H/nic:mlx5_5")" = fail
check "mlx5_7 below the InfiniBand median" test "$(at rdma.rate.infiniband_median "$H/nic:mlx5_7")" = fail
check "the start reading was journaled before the counters moved" \
  test "$(jq -r 'select(.type=="sample" and .metric=="rdma.counter.link_downed" and .place=="'"$H"'/nic:mlx5_2") | "\(.params.read)=\(.value)"' "$GA_TMP/run/samples.jsonl" | sort | tr '\n' ' ')" = "end=1 start=0 "
check "mlx5_0's symbol errors fail the bit error rate" test "$(at rdma.link.symbol_ber "$H/nic:mlx5_0")" = fail
check "mlx5_1's one symbol error is within it" test "$(at rdma.link.symbol_ber "$H/nic:mlx5_1")" = pass
check "mlx5_2's link went down: fails rdma.link.downed alone" test "$(at rdma.link.downed "$H/nic:mlx5_2")" = fail
downed=$(jqr "$R" '[.verdicts[] | select(.criterion=="rdma.link.downed" and .status=="fail") | .place] | join(" ")')
check "rdma.link.downed fails exactly mlx5_2: got [$downed]" test "$downed" = "$H/nic:mlx5_2"
iv=$(jqr "$R" "[.metrics[] | select(.metric==\"rdma.counter_interval\" and .place==\"$H/nic:mlx5_1\") | .value] | first")
check "the counters' interval is the run's (>= 4 s: the settle_s alone), got $iv s" awk -v v="$iv" 'BEGIN { exit !(v >= 4) }'
links() { jq -c '[.verdicts[] | select(.criterion|startswith("rdma.link.")) | [.criterion, .place, .status, .value]]' "$1"; }
links "$R" >"$GA_TMP/links-live.json"
"$GA_BIN" judge "$GA_TMP/run" >"$GA_TMP/rejudge.log" 2>&1  # rewrites the reports from the journal alone
check "gpuaccept judge derives the same rates offline" test "$(links "$R")" = "$(cat "$GA_TMP/links-live.json")"
check "... and judged them ($(jq length "$GA_TMP/links-live.json") link verdicts)" test "$(jq length "$GA_TMP/links-live.json")" -gt 50
for good in mlx5_1 mlx5_2 mlx5_3 mlx5_6 mlx5_9 mlx5_9:2; do
  check "$good active and passing" test "$(at rdma.port.active "$H/nic:$good")" = pass
done
pair="$H/nic:mlx5_0~$H/nic:mlx5_1"
check "the pair of the two ranks' ports measured both ways" test "$(at rdma.pair.ok "$pair")" = "pass,pass"
check "loopback bandwidth is not held against the port rate" \
  test "$(jqr "$R" '[.verdicts[] | select(.criterion=="rdma.write_bw.line_rate") | .status] | join(",")')" = skipped
check "write_bw samples say transport loopback" \
  test "$(jqr "$R" '[.metrics[] | select(.metric=="rdma.write_bw") | .params.transport] | unique | join(",")')" = loopback
check "probe ok" test "$(jqr "$R" '.probes[] | select(.name=="rdma") | .status')" = ok
"$GA_BIN" list >"$GA_TMP/list.txt" 2>&1
check "list says the verbs data path is not validated" grep -q "not been validated on RDMA hardware" "$GA_TMP/list.txt"
finish
