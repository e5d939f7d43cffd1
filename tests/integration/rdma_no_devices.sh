#!/usr/bin/env bash
# No RDMA devices: an empty /sys/class/infiniband (the stack without adapters), and this
# machine itself (ibv_get_device_list returns NULL with ENOSYS here). The probe says skipped
# with the reason, and the run does not fail for it.
source "$(dirname "$0")/lib.sh"
SUITE=$GA_SOURCE_DIR/tests/data/rdma/suite-rdma-verbs.yaml
ROOT=$GA_TMP/empty
mkdir -p "$ROOT/sys/class/infiniband"
GPUACCEPT_SYSFS_ROOT=$ROOT ga_mpirun 2 --suite "$SUITE" --out "$GA_TMP/empty-run" >"$GA_TMP/out1.log" 2>&1
rc=$?
R=$GA_TMP/empty-run/report.json
check "empty tree: exit 0, got $rc" test "$rc" -eq 0
check "empty tree: rdma skipped" test "$(jqr "$R" '.probes[] | select(.name=="rdma") | .status')" = skipped
check "empty tree: reason names the empty class" \
  grep -q "no RDMA devices" <<<"$(jqr "$R" '.probes[] | select(.name=="rdma") | .reason')"
check "empty tree: rdma verdicts only skipped" \
  test "$(jqr "$R" '[.verdicts[] | select(.criterion|startswith("rdma.")) | .status] | unique | join(",")')" = skipped

if [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
  log "this machine has RDMA devices: the real-machine case does not apply"
else
  (unset GPUACCEPT_SYSFS_ROOT; ga_mpirun 2 --suite "$SUITE" --out "$GA_TMP/real-run") >"$GA_TMP/out2.log" 2>&1
  rc=$?
  R=$GA_TMP/real-run/report.json
  reason=$(jqr "$R" '.probes[] | select(.name=="rdma") | .reason')
  check "this machine: exit 0, got $rc" test "$rc" -eq 0
  check "this machine: rdma skipped" test "$(jqr "$R" '.probes[] | select(.name=="rdma") | .status')" = skipped
  check "this machine: the reason says what verbs said: [$reason]" grep -Eq "ibv_get_device_list|libibverbs" <<<"$reason"
fi
finish
