#!/usr/bin/env bash
# The operator's loop under a real Slurm (issue 13): slurmctld here, one slurmd in each of 3
# fake hosts. `sbatch slurm/gpuaccept.sbatch` end to end, its report carrying the job id and the
# three nodes; a faulty GPU on ga-h2 (the fake NVML: PCIe below its maximum generation) is the
# one line of bad-hosts.txt and of `gpuaccept drain`; `drain --apply` drains ga-h2 in slurmctld
# (sinfo shows gpuaccept's reason); a node drained by hand for another reason is left alone by
# undrain; a re-test of the three without the fault (mpirun: Slurm schedules nothing on drained
# nodes) passes, and `undrain --apply` resumes ga-h2.
# Args: fake libcuda, fake NVML, fake cuBLAS, fake NCCL.
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nvml=$2 fake_cublas=$3
S=$GA_SOURCE_DIR/tests/slurm/slurm-localhost.sh
export SLURM_CONF=/run/gpuaccept-slurm/slurm.conf
N=3
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
cat >"$GA_TMP/suite.yaml" <<'YAML'
schema_version: 1
name: gpu-small
description: the gpu probe with small buffers, for fake hosts
probes:
  - name: gpu
    params: {hbm_mib: 8, h2d_mib: 2, p2p_mib: 1, gemm_n: 64, iterations: 3, warmup: 1}
YAML
# The fake GPUs are far below every datasheet (they are host memory): judge what they can show.
cat >"$GA_TMP/criteria.yaml" <<'YAML'
schema_version: 1
criteria:
  - name: gpu.pcie.gen_at_max
    metric: gpu.pcie_gen_below_max
    compare: "<="
    value: 0
    scope: gpu
YAML
fake_up $N
"$S" up-fake $N >"$GA_TMP/up.log" 2>&1 || { cat "$GA_TMP/up.log"; fail "slurm daemons did not start on the fake hosts"; finish; }
trap '"$S" down >/dev/null 2>&1; fake_down; cleanup_tmp' EXIT
fakes=(GPUACCEPT="$GA_BIN" GPUACCEPT_SYSFS_ROOT="$tree" GPUACCEPT_CUDA_LIBRARY="$fake_cuda"
       GPUACCEPT_NVML_LIBRARY="$fake_nvml" GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas")
mpi_env=(OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=10.231.0.0/24 OMPI_MCA_mpi_yield_when_idle=1)

# sbatch from ga-h1 as from a login node, the submission directory $GA_TMP/submit. No GPU GRES
# here: the script asks for none, and GPUACCEPT_RANKS_PER_NODE=1 is its rank count without GPUs.
mkdir -p "$GA_TMP/submit"
start=$SECONDS
job=$(cd "$GA_TMP/submit" && timeout 300 "$GA_FAKEHOSTS" exec ga-h1 env SLURM_CONF="$SLURM_CONF" "${fakes[@]}" \
  "${mpi_env[@]}" GA_FAKE_GPU_FAULTS="ga-h2/gpu:0=pcie_gen_low" GPUACCEPT_RANKS_PER_NODE=1 \
  sbatch --parsable --wait -N $N "$GA_SOURCE_DIR/slurm/gpuaccept.sbatch" \
  --suite "$GA_TMP/suite.yaml" --criteria "$GA_TMP/criteria.yaml" --probe-timeout 120 2>"$GA_TMP/sbatch.err")
rc=$?
job=${job%%;*}
log "sbatch job $job exit $rc after $((SECONDS - start)) s"
dir=$GA_TMP/submit/gpuaccept-report-$job
run_output "$dir"
check "sbatch --wait: the job's exit code is gpuaccept's, 1 (a node fault), got $rc" [ "$rc" -eq 1 ]
check "the report is gpuaccept-report-<jobid> in the submission directory" test -s "$r"
check "report.json carries the job id" [ "$(jqr "$r" '.run.slurm.job_id // empty')" = "$job" ]
check "one rank on each of ga-h1..ga-h3" [ "$(jqr "$r" '[.run.ranks[].host] | sort | join(",")')" = "ga-h1,ga-h2,ga-h3" ]
check "the faulty GPU fails, alone: $(failing)" [ "$(failing)" = "gpu.pcie.gen_at_max@ga-h2/gpu:0" ]
check "bad-hosts.txt: ga-h2 alone, a node fault" \
  [ "$(grep -v '^#' "$dir/bad-hosts.txt" | cut -f1,2 | tr '\t' ' ')" = "ga-h2 node fault" ]

lines=$("$GA_BIN" drain "$dir"); rc=$?
check "drain prints one line, for ga-h2 (exit 1)" \
  bash -c "[ $rc -eq 1 ] && [ \"\$(wc -l <<<'$lines')\" = 1 ] && [[ '$lines' == 'scontrol update nodename=ga-h2 state=drain reason=\"gpuaccept: gpu.pcie.gen_at_max (slurm job $job)\"' ]]"
scontrol update nodename=ga-h3 state=drain reason="bad DIMM, ticket 99"
"$GA_BIN" drain "$dir" --apply >/dev/null 2>&1
check "drain --apply drained ga-h2 in slurmctld with gpuaccept's reason" \
  [ "$(sinfo -h -n ga-h2 -o '%T|%E' | head -1)" = "drained|gpuaccept: gpu.pcie.gen_at_max (slurm job $job)" ]

# The fault repaired; the re-test runs on all three with mpirun (drained nodes take no jobs).
# shellcheck disable=SC2046
env "${fakes[@]}" timeout 300 mpirun -np $N --host ga-h1,ga-h2,ga-h3 $(fake_mpirun_opts) \
  -x GPUACCEPT_SYSFS_ROOT -x GPUACCEPT_CUDA_LIBRARY -x GPUACCEPT_NVML_LIBRARY -x GPUACCEPT_CUBLAS_LIBRARY \
  "$GA_BIN" run --suite "$GA_TMP/suite.yaml" --criteria "$GA_TMP/criteria.yaml" --out "$GA_TMP/retest" \
  --probe-timeout 120 >"$GA_TMP/retest.log" 2>&1
rc=$?
check "the re-test passes (exit 0, got $rc)" [ "$rc" -eq 0 ]
lines=$("$GA_BIN" undrain "$GA_TMP/retest" 2>"$GA_TMP/undrain.err"); rc=$?
check "undrain prints the resume of ga-h2 alone (exit 1)" [ $rc -eq 1 -a "$lines" = "scontrol update nodename=ga-h2 state=resume" ]
check "  and says ga-h3 stays drained for its own reason" grep -q "ga-h3 passed but stays drained" "$GA_TMP/undrain.err"
"$GA_BIN" undrain "$GA_TMP/retest" --apply >/dev/null 2>&1
check "undrain --apply resumed ga-h2" bash -c "sinfo -h -n ga-h2 -o '%T' | head -1 | grep -qv drain"
check "ga-h3 keeps its state and reason" [ "$(sinfo -h -n ga-h3 -o '%T|%E' | head -1)" = "drained|bad DIMM, ticket 99" ]
finish
