#!/usr/bin/env bash
# The rdma probe on the mixed-faults tree, two ranks on one host: the report fails on exactly
# the bad ports (down, VF among PFs, RoCE without a v2 GID, NDR trained down to HDR, error
# counters rising while it runs) and passes the good ones; the two ranks' ports exchange
# traffic through the loopback fake (the pair schedule and the data path around verbs).
source "$(dirname "$0")/lib.sh"
SUITE=$GA_SOURCE_DIR/tests/data/rdma/suite-rdma-loopback.yaml
ROOT=$GA_TMP/sysfs
cp -a "$GA_SOURCE_DIR/tests/data/rdma/mixed-faults" "$ROOT"
CNT=$ROOT/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error
# A sick cable: mlx5_0's symbol errors keep rising for the whole run (atomic rewrites, so
# the probe never reads a half-written file).
( n=0; while :; do n=$((n + 1)); echo $n >"$CNT.tmp" && mv "$CNT.tmp" "$CNT"; sleep 0.05; done ) &
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
want="$H/nic:mlx5_0 $H/nic:mlx5_4 $H/nic:mlx5_5 $H/nic:mlx5_7 $H/nic:mlx5_8"
check "failing rdma places are exactly the bad ports: got [$fails]" test "$fails" = "$want"
at() { jqr "$R" "[.verdicts[] | select(.criterion==\"$1\" and .place==\"$2\") | .status] | join(\",\")"; }
check "mlx5_8 down" test "$(at rdma.port.active "$H/nic:mlx5_8")" = fail
check "mlx5_4 VF" test "$(at rdma.vf.majority "$H/nic:mlx5_4")" = fail
check "mlx5_5 no RoCE v2 GID" test "$(at rdma.roce.v2_gid "$H/nic:mlx5_5")" = fail
check "mlx5_7 below the InfiniBand median" test "$(at rdma.rate.infiniband_median "$H/nic:mlx5_7")" = fail
rising=$(jqr "$R" "[.verdicts[] | select(.criterion==\"rdma.errors.rising\" and .status==\"fail\") | .place + \" \" + .metric] | join(\",\")")
check "mlx5_0 symbol errors rising: got [$rising]" test "$rising" = "$H/nic:mlx5_0 rdma.errors_delta.symbol_error"
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
