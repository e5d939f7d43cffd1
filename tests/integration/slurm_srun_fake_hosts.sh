#!/usr/bin/env bash
# gpuaccept under a multi-node Slurm: one slurmd in each of 3 fake hosts (their own network
# namespace and hostname), slurmctld on this host, srun started from ga-h1 as from a login
# node. Both resume probes must kill a worker on ga-h3, restart every worker on another
# node and end bit-identical; resume-gpu on the fake libcuda and NCCL (ARGS: their paths).
source "$(dirname "$0")/lib.sh"
fake_cuda=${1:?fake libcuda} fake_nccl=${2:?fake libnccl}
S=$GA_SOURCE_DIR/tests/slurm/slurm-localhost.sh
export SLURM_CONF=/run/gpuaccept-slurm/slurm.conf
N=3
fake_up $N
"$S" up-fake $N >"$GA_TMP/up.log" 2>&1 || { cat "$GA_TMP/up.log"; fail "slurm daemons did not start on the fake hosts"; finish; }
trap '"$S" down >/dev/null 2>&1; fake_down; cleanup_tmp' EXIT
# Open MPI's TCP transport on the fake hosts' network only; srun passes the environment on.
timeout 240 "$GA_FAKEHOSTS" exec ga-h1 env SLURM_CONF="$SLURM_CONF" \
  OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=10.231.0.0/24 OMPI_MCA_mpi_yield_when_idle=1 \
  GPUACCEPT_SYSFS_ROOT="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia" \
  GPUACCEPT_CUDA_LIBRARY="$fake_cuda" GPUACCEPT_NCCL_LIBRARY="$fake_nccl" \
  srun --mpi=pmix -N $N -n $N "$GA_BIN" run --suite resume --out "$GA_TMP/run" --probe-timeout 120 >"$GA_TMP/out" 2>&1
rc=$?
run_output "$GA_TMP/run"
check "srun run exits 0, got $rc" [ "$rc" -eq 0 ]
check "the report records a Slurm job on 3 nodes" [ "$(jqr "$r" '.run.slurm.job_num_nodes // empty')" = 3 ]
check "one rank on each of ga-h1..ga-h3" [ "$(jqr "$r" '[.run.ranks[].host] | sort | join(",")')" = "ga-h1,ga-h2,ga-h3" ]
for p in resume resume-gpu; do
  for c in identical loss_identical matches_reference killed_by_sigkill moved_to_other_host; do
    check "$p.$c passes" [ "$(verdict "$p.$c" cluster)" = pass ]
  done
  check "$p: the killed worker's node is ga-h3" [ "$(sample "$p.killed_host" cluster .text)" = ga-h3 ]
done
bad=$(failing)
check "no failing verdict (${bad:-none})" [ -z "$bad" ]
finish
