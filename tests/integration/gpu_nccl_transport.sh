#!/usr/bin/env bash
# The transport audit on fake hosts: the fake NCCL runs over TCP sockets and says so in its
# INFO lines (NET/Socket, as real NCCL does when it falls back). 2 fake hosts x 2 ranks; ga-h1's
# sysfs tree has ACTIVE RDMA ports (the Azure A100 tree of tests/data/rdma), ga-h2's has none.
# The nccl probe has NCCL write its debug log per rank under the run directory and reads it,
# whatever the environment's NCCL_DEBUG says (the first run has NCCL_DEBUG=WARN):
#   ga-h1's GPUs: nccl.transport.rdma fails (sockets although RDMA ports are there), the reason
#                 names the host, its ports and NET/Socket;
#   ga-h2's GPUs: it passes (sockets are all that host has).
# The same for MPI in the same run (the p2p probe): mpirun here uses --mca btl tcp,self, so Open
# MPI's transport between the hosts is TCP: p2p.mpi.rdma warns at ga-h1 alone.
# A second run, both hosts with RDMA ports and the fake NCCL's log saying IB
# (GA_FAKE_NCCL_LOG_NET: the lines only, the data still go over TCP): ga-h1 with GPUDirect RDMA,
# ga-h2 without: nccl.transport.rdma passes everywhere, nccl.transport.gdr warns at ga-h2 alone.
# A third, both hosts with RDMA ports, the fake's log saying IB at ga-h2 and sockets at ga-h1:
# nccl.transport.rdma fails at ga-h1 alone, a node fault.
# Args: fake libcuda, fake NCCL (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nccl=$2
need_fakes "$fake_cuda" "$fake_nccl"
plain="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
rdma="$GA_TMP/tree-rdma"
mkdir -p "$rdma"
cp -r "$plain/." "$rdma/"
cp -r "$GA_SOURCE_DIR/tests/data/rdma/azure-a100-8hdr-1qdr/sys/." "$rdma/sys/"
# Each rank picks its host's tree: the fake hosts differ only in what their sysfs shows.
wrap="$GA_TMP/by-host.sh"
cat >"$wrap" <<SH
#!/bin/sh
root="$plain"; [ "\$(hostname)" = ga-h1 ] && root="$rdma"
GPUACCEPT_SYSFS_ROOT="\$root" exec "\$@"
SH
chmod +x "$wrap"
suite="$GA_TMP/suite.yaml"
cat >"$suite" <<'YAML'
schema_version: 1
name: nccl-transport-small
description: the nccl and p2p probes, short, for the transport audit on fake hosts
probes:
  - name: p2p
    params: {measure_s: 0.05, limit_s: 2}
  - name: mpi-coll
    params: {min_bytes: 8, max_bytes: 64, step_factor: 8, iters: 2, warmup_iters: 1}
  - name: nccl
    params: {min_bytes: 1024, max_bytes: 4096, step_factor: 4, warmup_iters: 1, max_iters: 1, scopes: [inter-host, cluster]}
YAML

fake_up 2
start=$SECONDS
# shellcheck disable=SC2046
# The user's own NCCL_DEBUG=WARN does not switch the audit off: the probe sets its own for its
# process and records the user's.
timeout 200 mpirun -np 4 --host ga-h1:2,ga-h2:2 $(fake_mpirun_opts) \
  -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NCCL_LIBRARY="$fake_nccl" -x NCCL_DEBUG=WARN \
  "$wrap" "$GA_BIN" run --suite "$suite" --out "$GA_TMP/run" --probe-timeout 120 >"$GA_TMP/mpirun.log" 2>&1
rc=$?
log "mpirun exit $rc after $((SECONDS - start)) s"
run_output "$GA_TMP/run"
check "report written" test -s "$r"
check "exit 1: an error verdict failed (exit $rc)" test "$rc" -eq 1
check "nccl probe ok ($(jqr "$r" '.probes[] | select(.name=="nccl") | .reason' | head -c 300))" \
  test "$(jqr "$r" '.probes[] | select(.name=="nccl") | .status')" = ok
for k in 0 1 2 3; do
  check "rank $k's NCCL debug log under the run directory" grep -q "NCCL INFO Using network Socket" "$GA_TMP/run/nccl-debug/rank$k.log"
done
places_of() {  # the places where CRITERION's verdict is STATUS, distinct, sorted
  jqr "$r" "[.verdicts[] | select(.criterion==\"$1\" and .status==\"$2\") | .place] | unique | join(\" \")"
}
check "NCCL_DEBUG=WARN in the environment: every GPU still has its nccl.socket_fallback samples" \
  test "$(jq -r 'select(.type=="sample" and .metric=="nccl.socket_fallback") | .place' "$j" | sort -u | tr '\n' ' ')" = "ga-h1/gpu:0 ga-h1/gpu:1 ga-h2/gpu:0 ga-h2/gpu:1 "
check "... with the user's NCCL_DEBUG=WARN recorded" \
  test "$(jq -r 'select(.type=="sample" and .metric=="nccl.transport") | .params.user_settings' "$j" | sort -u)" = "NCCL_DEBUG=WARN"
check "every GPU's communicators said Socket" \
  test "$(jq -r 'select(.type=="sample" and .metric=="nccl.transport") | .text' "$j" | sort -u)" = Socket
check "nccl.transport.rdma fails at ga-h1's GPUs alone ($(places_of nccl.transport.rdma fail))" \
  test "$(places_of nccl.transport.rdma fail)" = "ga-h1/gpu:0 ga-h1/gpu:1"
check "nccl.transport.rdma passes at ga-h2's GPUs ($(places_of nccl.transport.rdma pass))" \
  test "$(places_of nccl.transport.rdma pass)" = "ga-h2/gpu:0 ga-h2/gpu:1"
reason=$(jqr "$r" '[.verdicts[] | select(.criterion=="nccl.transport.rdma" and .status=="fail") | .reason] | first // ""')
log "reason: $reason"
check "the reason names the sockets, the host and its RDMA ports" \
  sh -c 'case "$0" in *NET/Socket*ga-h1*mlx5_0*) exit 0;; *) exit 1;; esac' "$reason"
check "ga-h2's samples record no RDMA port" \
  test "$(jq -c 'select(.type=="sample" and .metric=="nccl.socket_fallback" and (.place|startswith("ga-h2"))) | .params.rdma_ports' "$j" | sort -u)" = "[]"
check "no gdr verdict: no communicator ran over IB" test "$(places_of nccl.transport.gdr fail)$(places_of nccl.transport.gdr pass)" = ""

log "MPI: Open MPI's own transport"
check "p2p.mpi_transport is TCP on both hosts" \
  test "$(jq -r 'select(.type=="sample" and .metric=="p2p.mpi_transport") | "\(.place)=\(.text)"' "$j" | sort | tr '\n' ' ')" = "ga-h1=TCP ga-h2=TCP "
check "p2p.mpi.rdma fails at ga-h1 alone ($(places_of p2p.mpi.rdma fail))" test "$(places_of p2p.mpi.rdma fail)" = ga-h1
check "p2p.mpi.rdma passes at ga-h2 ($(places_of p2p.mpi.rdma pass))" test "$(places_of p2p.mpi.rdma pass)" = ga-h2
check "p2p.mpi.rdma's verdict at ga-h1 is a warning" \
  test "$(jqr "$r" '[.verdicts[] | select(.criterion=="p2p.mpi.rdma" and .place=="ga-h1") | .severity] | first // ""')" = warning
check "mpi-coll says the same: mpi-coll.mpi.rdma fails at ga-h1 alone, a warning ($(places_of mpi-coll.mpi.rdma fail))" \
  bash -c "[ '$(places_of mpi-coll.mpi.rdma fail)' = ga-h1 ] && [ '$(places_of mpi-coll.mpi.rdma pass)' = ga-h2 ] &&
           [ \"\$0\" = warning ]" "$(jqr "$r" '[.verdicts[] | select(.criterion=="mpi-coll.mpi.rdma" and .place=="ga-h1") | .severity] | first // ""')"
check "... naming the run's own --mca btl (OMPI_MCA_btl), which chose TCP" \
  grep -q "chosen by this run's own OMPI_MCA_btl=tcp,self" <<<"$(jqr "$r" '[.verdicts[] | select(.criterion=="p2p.mpi.rdma" and .place=="ga-h1") | .reason] | first // ""')"

log "IB in the log: GPUDirect RDMA on ga-h1, off on ga-h2"
cat >"$wrap" <<SH
#!/bin/sh
net=IB; [ "\$(hostname)" = ga-h2 ] && net=IB-nogdr
GA_FAKE_NCCL_LOG_NET="\$net" GPUACCEPT_SYSFS_ROOT="$rdma" exec "\$@"
SH
sed -i '/name: p2p/,+1d; /name: mpi-coll/,+1d' "$suite"
# shellcheck disable=SC2046
timeout 200 mpirun -np 4 --host ga-h1:2,ga-h2:2 $(fake_mpirun_opts) \
  -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NCCL_LIBRARY="$fake_nccl" \
  "$wrap" "$GA_BIN" run --suite "$suite" --out "$GA_TMP/run2" --probe-timeout 120 >"$GA_TMP/mpirun2.log" 2>&1
rc=$?
log "mpirun exit $rc"
run_output "$GA_TMP/run2"
check "report written" test -s "$r"
# The fake hosts' topology now lists their GPUs with the nearest NICs of the recorded tree
# (probes/devices/gpu_identity.cpp): gpu:1's are mlx5_4..7, and the fake NCCL's log says every rank
# used mlx5_0, so the NIC check fails there (an error: exit 1), and only there.
check "exit 1: NCCL used a NIC off gpu:1's switch (exit $rc)" test "$rc" -eq 1
check "nccl.transport.nic_near_gpu fails at gpu:1 of both hosts alone ($(places_of nccl.transport.nic_near_gpu fail))" \
  test "$(places_of nccl.transport.nic_near_gpu fail)" = "ga-h1/gpu:1 ga-h2/gpu:1"
check "nccl.transport.nic_near_gpu passes at gpu:0 of both hosts ($(places_of nccl.transport.nic_near_gpu pass))" \
  test "$(places_of nccl.transport.nic_near_gpu pass)" = "ga-h1/gpu:0 ga-h2/gpu:0"
check "the GDR verdicts are warnings" \
  test "$(jqr "$r" '[.verdicts[] | select(.criterion=="nccl.transport.gdr") | .severity] | unique | join(",")')" = warning
check "every GPU's communicators said IB" \
  test "$(jq -r 'select(.type=="sample" and .metric=="nccl.transport") | .text' "$j" | sort -u)" = IB
check "nccl.transport.rdma passes at all 4 GPUs, fails nowhere" \
  test "$(places_of nccl.transport.rdma pass)|$(places_of nccl.transport.rdma fail)" = "ga-h1/gpu:0 ga-h1/gpu:1 ga-h2/gpu:0 ga-h2/gpu:1|"
check "nccl.transport.gdr fails at ga-h2's GPUs alone ($(places_of nccl.transport.gdr fail))" \
  test "$(places_of nccl.transport.gdr fail)" = "ga-h2/gpu:0 ga-h2/gpu:1"
check "nccl.transport.gdr passes at ga-h1's GPUs ($(places_of nccl.transport.gdr pass))" \
  test "$(places_of nccl.transport.gdr pass)" = "ga-h1/gpu:0 ga-h1/gpu:1"
gdr_reason=$(jqr "$r" '[.verdicts[] | select(.criterion=="nccl.transport.gdr" and .status=="fail") | .reason] | first // ""')
log "gdr: $gdr_reason"
check "the gdr reason names the HCA NCCL disabled it for" \
  sh -c 'case "$0" in *"GPU Direct RDMA disabled for mlx5_0"*) exit 0;; *) exit 1;; esac' "$gdr_reason"
check "the NICs used are named (rail 0: mlx5_0)" \
  test "$(jq -c 'select(.type=="sample" and .metric=="nccl.transport" and .params.scope=="inter-host" and .params.rail==0) | .params.nics' "$j" | sort -u)" = '["mlx5_0"]'
log "both hosts with RDMA ports up, NCCL on sockets at ga-h1 alone (the fake's log says IB at ga-h2)"
cat >"$wrap" <<SH
#!/bin/sh
[ "\$(hostname)" = ga-h2 ] && export GA_FAKE_NCCL_LOG_NET=IB
GPUACCEPT_SYSFS_ROOT="$rdma" exec "\$@"
SH
# shellcheck disable=SC2046
timeout 200 mpirun -np 4 --host ga-h1:2,ga-h2:2 $(fake_mpirun_opts) \
  -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NCCL_LIBRARY="$fake_nccl" \
  "$wrap" "$GA_BIN" run --suite "$suite" --out "$GA_TMP/run3" --probe-timeout 120 >"$GA_TMP/mpirun3.log" 2>&1
run_output "$GA_TMP/run3"
check "nccl.transport.rdma fails at ga-h1's GPUs alone, a node fault ($(places_of nccl.transport.rdma fail))" \
  test "$(places_of nccl.transport.rdma fail)" = "ga-h1/gpu:0 ga-h1/gpu:1"
check "... and passes at ga-h2's ($(places_of nccl.transport.rdma pass))" test "$(places_of nccl.transport.rdma pass)" = "ga-h2/gpu:0 ga-h2/gpu:1"
check "... those verdicts are node faults (not the environment's: ga-h2 used RDMA)" \
  test "$(jqr "$r" '[.verdicts[] | select(.criterion=="nccl.transport.rdma" and .outcome=="node_fault") | .place] | unique | join(" ")')" = "ga-h1/gpu:0 ga-h1/gpu:1"
r="$GA_TMP/run2/report.json" j="$GA_TMP/run2/samples.jsonl"
log "nic_off_switch samples: $(jq -c 'select(.type=="sample" and .metric=="nccl.nic_off_switch") | [.place, .value, .params.nearest_nics]' "$j" | sort -u | tr '\n' ' ')"
finish
