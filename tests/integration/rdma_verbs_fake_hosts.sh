#!/usr/bin/env bash
# The probe's real verbs code (probes/rdma/verbs_transport.cpp) end to end on three fake hosts,
# through the fake libibverbs (tests/fakes/fake_libibverbs.c: RC QPs whose RDMA writes travel
# over TCP between the namespaces into the peer's registered memory). Each host reads its own
# copy of a recorded sysfs tree (dell-8cx7-ndr400). Three runs:
#   clean:     every pair connects, writes and checks its data both ways; bandwidth and latency > 0
#   faults:    ga-h1's mlx5_0 DOWN in its tree (fails that port on that host, its traffic moves to
#              the next port) and ga-h2's QPs cannot reach RTS (FAKE_VERBS_FAIL_RTS): exactly
#              ga-h1/nic:mlx5_0, ga-h2/nic:mlx5_0 (rdma.port.qp_ready) and the pairs with ga-h2
#              fail, not a skip
#   throttled: ga-h3 sends at 200 Mbit/s: exactly the pairs with ga-h3 fail the bandwidth rule
# Judged with tests/data/rdma/criteria-rdma-fake-verbs.yaml (bandwidth against the median
# direction: no TCP fake reaches a port's line rate). The probe's defaults otherwise: on this
# oversubscribed 2-core machine the fake's round trips are bimodal (~20 us, or a 4 ms scheduler
# tick), and the latency phase is bounded by time (chunks sized from the round trips before),
# so a run of slow ones cannot stretch it past its timeout. Usage: rdma_verbs_fake_hosts.sh FAKE_LIBIBVERBS
source "$(dirname "$0")/lib.sh"
FAKE_VERBS=${1:?usage: rdma_verbs_fake_hosts.sh path/to/libfake_ibverbs.so}
SUITE=$GA_SOURCE_DIR/tests/data/rdma/suite-rdma-verbs.yaml
CRIT=$GA_SOURCE_DIR/tests/data/rdma/criteria-rdma-fake-verbs.yaml
TREE=$GA_SOURCE_DIR/tests/data/rdma/dell-8cx7-ndr400
HOSTS=(ga-h1 ga-h2 ga-h3)
for h in "${HOSTS[@]}"; do cp -a "$TREE" "$GA_TMP/sysfs-$h"; done
T0=$(date +%s)
fake_up 3

# run_hosts NAME [VAR=VALUE ...]: one rank on each fake host, each with its own sysfs tree and
# the fake library by path (never LD_LIBRARY_PATH: Open MPI's verbs components would load it).
run_hosts() {
  local name=$1; shift
  local args=() sep=() h
  for h in "${HOSTS[@]}"; do
    args+=("${sep[@]}" -np 1 --host "$h" env GPUACCEPT_SYSFS_ROOT="$GA_TMP/sysfs-$h" GPUACCEPT_VERBS_LIBRARY="$FAKE_VERBS"
           "$@" "$GA_BIN" run --suite "$SUITE" --criteria "$CRIT" --out "$GA_TMP/$name")
    sep=(:)
  done
  # shellcheck disable=SC2046
  timeout 120 mpirun $(fake_mpirun_opts) "${args[@]}" >"$GA_TMP/$name.log" 2>&1
  echo $?
}
pairs_with() {  # the pair places that contain HOST, sorted
  jqr "$r" "[.verdicts[] | select(.criterion==\"rdma.pair.ok\") | .place | select(contains(\"$1/\"))] | unique | join(\" \")"
}
# every failing place of the rdma criteria (probe verdicts included), sorted and unique
failing_places() { jqr "$r" '[.verdicts[] | select(.outcome != "none") | .place] | unique | join(" ")'; }

# ---- clean
rc=$(run_hosts clean)
run_output "$GA_TMP/clean"
check "clean: report written (rc $rc)" test -s "$r"
check "clean: exit 0, got $rc" test "$rc" = 0
check "clean: probe ok" test "$(jqr "$r" '.probes[] | select(.name=="rdma") | .status')" = ok
check "clean: nothing fails (got [$(failing)])" test -z "$(failing)"
npairs=$(jqr "$r" '[.verdicts[] | select(.criterion=="rdma.pair.ok" and .status=="pass")] | length')
check "clean: 3 pairs x 2 directions connected and checked their data, got $npairs" test "$npairs" = 6
bw=$(jq -r 'select(.type=="sample" and .metric=="rdma.write_bw") | "\(.params.transport) \(.value)"' "$j")
check "clean: 6 bandwidths through verbs, each > 0: [$(echo $bw)]" \
  test "$(awk '$1=="verbs" && $2>0' <<<"$bw" | wc -l)" = 6
lat=$(jq -r 'select(.type=="sample" and .metric=="rdma.write_lat") | "\(.params.transport) \(.value)"' "$j")
check "clean: 6 latencies through verbs, each > 0: [$(echo $lat)]" \
  test "$(awk '$1=="verbs" && $2>0' <<<"$lat" | wc -l)" = 6
check "clean: the data path says it is the verbs path with its caveat" \
  grep -q "not been validated on RDMA hardware" <<<"$(jqr "$r" '[.metrics[] | select(.metric=="rdma.data_path") | .text] | join(" ")')"
# For docs/performance.md#rdma-through-the-fake-libibverbs (the fake's numbers, not hardware's).
log "fake bandwidth (B/s): $(awk '{print $2}' <<<"$bw" | sort -g | tr '\n' ' ')"
log "fake latency (s): $(awk '{print $2}' <<<"$lat" | sort -g | tr '\n' ' ')"

# ---- faults: a port DOWN on ga-h1, QPs that cannot reach RTS on ga-h2
P=$GA_TMP/sysfs-ga-h1/sys/class/infiniband/mlx5_0/ports/1
echo "1: DOWN" >"$P/state"
echo "5: LinkUp" >"$P/phys_state"
rc=$(run_hosts faults FAKE_VERBS_FAIL_RTS=ga-h2)
run_output "$GA_TMP/faults"
check "faults: exit 1, got $rc" test "$rc" = 1
check "faults: probe ok (a failure, not a skip)" test "$(jqr "$r" '.probes[] | select(.name=="rdma") | .status')" = ok
check "faults: ga-h1's mlx5_0 fails rdma.port.active" test "$(verdict rdma.port.active ga-h1/nic:mlx5_0)" = fail
want=$(printf '%s\n' ga-h1/nic:mlx5_0 ga-h2/nic:mlx5_0 $(pairs_with ga-h2) | LC_ALL=C sort -u | paste -sd' ')
got=$(failing_places)
check "faults: failing places are exactly ga-h1/nic:mlx5_0, ga-h2/nic:mlx5_0 and the pairs with ga-h2: got [$got] want [$want]" \
  test "$got" = "$want"
qp=$(jqr "$r" '[.verdicts[] | select(.criterion=="rdma.port.qp_ready" and .status!="pass") | .place] | join(" ")')
check "faults: the QPs that cannot reach RTS fail ga-h2's port alone (rdma.port.qp_ready): got [$qp]" \
  test "$qp" = ga-h2/nic:mlx5_0
check "faults: ... the other hosts' ports connected (2 passes)" \
  test "$(jqr "$r" '[.verdicts[] | select(.criterion=="rdma.port.qp_ready" and .status=="pass")] | length')" = 2
check "faults: ... with the reason" grep -q "modify QP to RTS" <<<"$(jqr "$r" '[.verdicts[] | select(.criterion=="rdma.port.qp_ready" and .status=="fail") | .reason] | join(" ")')"
check "faults: two pairs with ga-h2 ([$(pairs_with ga-h2)])" test "$(wc -w <<<"$(pairs_with ga-h2)")" = 2
check "faults: ga-h1's traffic moved to its next active port" grep -q "ga-h1/nic:mlx5_3" <<<"$(pairs_with ga-h2)"
errs=$(jqr "$r" '[.metrics[] | select(.metric=="rdma.pair_ok" and .value==0) | .params.error] | join(" | ")')
check "faults: the pair errors say the QP did not reach RTS: [$errs]" grep -q "modify QP to RTS" <<<"$errs"
check "faults: every pair error names ga-h2's port: [$errs]" \
  test "$(jqr "$r" '[.metrics[] | select(.metric=="rdma.pair_ok" and .value==0) | .params.error | select(contains("ga-h2/nic:mlx5_0") | not)] | length')" = 0
check "faults: every failed pair_ok is a pair with ga-h2" \
  test "$(jqr "$r" '[.verdicts[] | select(.criterion=="rdma.pair.ok" and .status=="fail") | .place | select(contains("ga-h2/") | not)] | length')" = 0

# ---- throttled: ga-h3 sends slowly (restore the tree first)
cp "$TREE/sys/class/infiniband/mlx5_0/ports/1/state" "$P/state"
cp "$TREE/sys/class/infiniband/mlx5_0/ports/1/phys_state" "$P/phys_state"
fake rate ga-h3 200mbit
rc=$(run_hosts throttled)
run_output "$GA_TMP/throttled"
check "throttled: exit 1, got $rc" test "$rc" = 1
got=$(failing_places)
want=$(pairs_with ga-h3)
check "throttled: failing places are exactly the pairs with ga-h3: got [$got] want [$want]" test "$got" = "$want"
check "throttled: they fail the bandwidth rule, sending from ga-h3" \
  test "$(jqr "$r" '[.verdicts[] | select(.outcome != "none") | "\(.criterion) \(.params.direction)"] | unique | join(",")')" \
       = "rdma.write_bw.vs_median ga-h3->ga-h1,rdma.write_bw.vs_median ga-h3->ga-h2"
common=$(jqr "$r" '[.verdicts[] | select(.outcome != "none") | .place | split("~") | map(split("/")[0])] | reduce .[] as $p (null; if . == null then $p else map(select(. as $h | $p | index($h))) end) | join(" ")')
check "throttled: the one host every failing pair has in common is ga-h3: got [$common]" test "$common" = ga-h3
check "throttled: every pair still connected and checked its data" \
  test "$(jqr "$r" '[.verdicts[] | select(.criterion=="rdma.pair.ok") | .status] | unique | join(",")')" = pass
log "throttled bandwidth (B/s): $(jq -r 'select(.type=="sample" and .metric=="rdma.write_bw") | "\(.params.direction)=\(.value)"' "$j" | tr '\n' ' ')"
log "wall time: $(($(date +%s) - T0)) s"
finish
