#!/usr/bin/env bash
# gpuaccept under a real Slurm (slurmctld + slurmd on this host) launched by srun: the report
# records the job, and the resume probe kills and resumes its workers under srun as under
# mpirun; resume-gpu, on the fake libcuda and NCCL (ARGS: their paths), sees 4 tasks on a node
# with 2 GPUs and is skipped with that reason.
source "$(dirname "$0")/lib.sh"
fake_cuda=${1:?fake libcuda} fake_nccl=${2:?fake libnccl}
S=$GA_SOURCE_DIR/tests/slurm/slurm-localhost.sh
export SLURM_CONF=/run/gpuaccept-slurm/slurm.conf
"$S" up >"$GA_TMP/up.log" 2>&1 || { cat "$GA_TMP/up.log"; fail "slurm daemons did not start"; finish; }
trap '"$S" down >/dev/null 2>&1; cleanup_tmp' EXIT
# srun hands the environment to the tasks (--export=ALL is the default).
GPUACCEPT_SYSFS_ROOT=$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia GPUACCEPT_CUDA_LIBRARY=$fake_cuda \
  GPUACCEPT_NCCL_LIBRARY=$fake_nccl \
  timeout 240 srun --mpi=pmix -n 4 --overcommit "$GA_BIN" run --suite resume --out "$GA_TMP/run" >"$GA_TMP/out" 2>&1
rc=$?
r=$GA_TMP/run/report.json
check "srun run exits 0, got $rc" [ "$rc" -eq 0 ]
check "the report records the Slurm job" [ -n "$(jqr "$r" '.run.slurm.job_id // empty')" ]
check "four ranks" [ "$(jqr "$r" '.run.ranks | length')" = 4 ]
check "resume: final state bit-identical" [ "$(jqr "$r" '.metrics[] | select(.metric=="resume.identical") | .value')" = 1 ]
check "resume: the kill was a SIGKILL seen by waitpid" [ "$(jqr "$r" '.metrics[] | select(.metric=="resume.kill_signal") | .text')" = SIGKILL ]
check "resume: loss sequence identical after the resume point" [ "$(jqr "$r" '.metrics[] | select(.metric=="resume.loss_identical") | .value')" = 1 ]
# 4 tasks on one node with 2 (fake) GPUs: one GPU per rank is not possible, and resume-gpu says
# so (the GPU run under srun is in slurm_srun_fake_hosts.sh, one task per node).
check "resume-gpu: skipped, 4 ranks share 2 GPUs" \
  grep -q "4 ranks on this host share 2 GPU(s)" <<<"$(jqr "$r" '.probes[] | select(.name=="resume-gpu") | .status + ": " + (.reason // "")')"
finish
