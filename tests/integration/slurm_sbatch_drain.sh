#!/usr/bin/env bash
# The operator's loop under a real Slurm (issues 13 and 31): slurmctld here, one slurmd in each
# of 3 fake hosts, each declaring 2 GPUs as GRES (gres.conf over fake device files), and the
# whole loop through the product's own commands, as an operator runs it:
#   sbatch --gpus-per-node=2 --exclusive gpuaccept.sbatch   a faulty GPU on ga-h2 (the fake NVML: PCIe
#        below its maximum generation): 2 ranks per node (SLURM_GPUS_ON_NODE), the job's exit
#        code 1, ga-h2 the one line of bad-hosts.txt and of `gpuaccept drain`
#   drain --apply        ga-h2 drained in slurmctld with gpuaccept's reason (scontrol show node);
#                        ga-h3, drained by hand for another reason, is left alone throughout
#   rerun-plan           its mpirun line run as printed (the fake hosts' settings through
#                        Open MPI's environment), the fault repaired: the campaign clears ga-h2
#                        on the criteria the first run recorded (no --criteria given again)
#   undrain --apply      resumes ga-h2 alone; ga-h3 keeps its state and reason
#   sbatch -n 3          the -n path (`gpuaccept launch --slurm --job-tasks`), on the nodes
#                        Slurm still schedules: passes
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
"$S" up-fake $N 2 >"$GA_TMP/up.log" 2>&1 || { cat "$GA_TMP/up.log"; fail "slurm daemons did not start on the fake hosts"; finish; }
trap '"$S" down >/dev/null 2>&1; fake_down; cleanup_tmp' EXIT
fakes=(GPUACCEPT="$GA_BIN" GPUACCEPT_SYSFS_ROOT="$tree" GPUACCEPT_CUDA_LIBRARY="$fake_cuda"
       GPUACCEPT_NVML_LIBRARY="$fake_nvml" GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas")
mpi_env=(OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=10.231.0.0/24 OMPI_MCA_mpi_yield_when_idle=1)

# sbatch from ga-h1 as from a login node, the submission directory $GA_TMP/submit, asking for
# the nodes' GPUs as a user does: the script then runs one rank per GPU Slurm gave each node.
mkdir -p "$GA_TMP/submit"
node_state() { scontrol show node "$1" | tr ' ' '\n' | sed -n 's/^State=//p' | head -1; }
node_reason() { scontrol show node "$1" | sed -n 's/^ *Reason=\(.*\) \[.*$/\1/p' | head -1; }
start=$SECONDS
job=$(cd "$GA_TMP/submit" && timeout 300 "$GA_FAKEHOSTS" exec ga-h1 env SLURM_CONF="$SLURM_CONF" "${fakes[@]}" \
  "${mpi_env[@]}" GA_FAKE_GPU_FAULTS="ga-h2/gpu:0=pcie_gen_low" \
  sbatch --parsable --wait -N $N --gpus-per-node=2 --exclusive "$GA_SOURCE_DIR/slurm/gpuaccept.sbatch" \
  --suite "$GA_TMP/suite.yaml" --criteria "$GA_TMP/criteria.yaml" --probe-timeout 120 2>"$GA_TMP/sbatch.err")
rc=$?
job=${job%%;*}
log "sbatch job $job exit $rc after $((SECONDS - start)) s"
dir=$GA_TMP/submit/gpuaccept-report-$job
run_output "$dir"
check "sbatch --wait: the job's exit code is gpuaccept's, 1 (a node fault), got $rc" [ "$rc" -eq 1 ]
check "the report is gpuaccept-report-<jobid> in the submission directory" test -s "$r"
check "report.json carries the job id" [ "$(jqr "$r" '.run.slurm.job_id // empty')" = "$job" ]
check "two ranks (one per GRES GPU) on each of ga-h1..ga-h3: $(jqr "$r" '[.run.ranks[].host] | sort | join(",")')" \
  [ "$(jqr "$r" '[.run.ranks[].host] | sort | join(",")')" = "ga-h1,ga-h1,ga-h2,ga-h2,ga-h3,ga-h3" ]
check "the faulty GPU fails, alone: $(failing)" [ "$(failing)" = "gpu.pcie.gen_at_max@ga-h2/gpu:0" ]
check "bad-hosts.txt: ga-h2 alone, a node fault" \
  [ "$(grep -v '^#' "$dir/bad-hosts.txt" | cut -f1,2 | tr '\t' ' ')" = "ga-h2 node fault" ]

lines=$("$GA_BIN" drain "$dir"); rc=$?
check "drain prints one line, for ga-h2 (exit 1)" \
  bash -c "[ $rc -eq 1 ] && [ \"\$(wc -l <<<'$lines')\" = 1 ] && [[ '$lines' == 'scontrol update nodename=ga-h2 state=drain reason=\"gpuaccept: gpu.pcie.gen_at_max (slurm job $job)\"' ]]"
scontrol update nodename=ga-h3 state=drain reason="bad DIMM, ticket 99"
"$GA_BIN" drain "$dir" --apply >/dev/null 2>&1
check "drain --apply drained ga-h2 in slurmctld with gpuaccept's reason ($(node_state ga-h2): $(node_reason ga-h2))" \
  bash -c "[[ '$(node_state ga-h2)' == *DRAIN* ]] && [ '$(node_reason ga-h2)' = 'gpuaccept: gpu.pcie.gen_at_max (slurm job $job)' ]"
check "ga-h1 still schedules ($(node_state ga-h1))" bash -c "[[ '$(node_state ga-h1)' != *DRAIN* ]]"

# health's fleet cap on the real slurmctld: with ga-h2 drained by gpuaccept (1 of the 3 nodes,
# above the 0.1 default), a health check on ga-h1 that finds a fault drains nothing and says so.
timeout 60 "$GA_FAKEHOSTS" exec ga-h1 env SLURM_CONF="$SLURM_CONF" "${fakes[@]}" GA_FAKE_GPU_FAULTS="ga-h1/gpu:1=xid" \
  "$GA_BIN" health --drain --skip clock --set gpu.kernel_log=/proc/self/fd/1000 >"$GA_TMP/cap.out" 2>&1
rc=$?
check "health --drain on ga-h1 over the fleet cap: exit 1 ($rc), the fault named, not drained" \
  bash -c "[ $rc -eq 1 ] && grep -q 'node fault: gpu.xid at ga-h1/gpu:1' '$GA_TMP/cap.out' && grep -q 'not drained: 1 of the 3 nodes of partition debug already drained by gpuaccept' '$GA_TMP/cap.out'"
check "... ga-h1 still schedules ($(node_state ga-h1))" bash -c "[[ '$(node_state ga-h1)' != *DRAIN* ]]"

# The fault repaired, the re-test rerun-plan prints, run as printed. Drained nodes take no jobs,
# so it is its mpirun line; the fake hosts' own settings (rsh agent, TCP on their bridge, the
# fake libraries) reach it through Open MPI's environment, not by editing the line.
plan=$("$GA_BIN" rerun-plan "$dir" --partners 1 2>&1); rc=$?
log "plan: $plan"
check "rerun-plan: exit 1, a plan" [ $rc -eq 1 ]
line=$(grep '^mpirun ' <<<"$plan")
check "its mpirun line re-tests ga-h2 with one host that passed ($line)" \
  bash -c "[[ '$line' == 'mpirun '*'--host ga-h2:1,ga-h1:1 '*' gpuaccept run --rerun $dir' ]]"
mkdir -p "$GA_TMP/path" && ln -sf "$GA_BIN" "$GA_TMP/path/gpuaccept"
env "${fakes[@]}" PATH="$GA_TMP/path:$PATH" OMPI_MCA_plm_rsh_agent="$GA_RSH" OMPI_MCA_btl=tcp,self \
  OMPI_MCA_btl_tcp_if_include=10.231.0.0/24 OMPI_MCA_oob_tcp_if_include=10.231.0.0/24 OMPI_MCA_mpi_yield_when_idle=1 \
  OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none \
  OMPI_MCA_mca_base_env_list="PATH;GPUACCEPT_SYSFS_ROOT;GPUACCEPT_CUDA_LIBRARY;GPUACCEPT_NVML_LIBRARY;GPUACCEPT_CUBLAS_LIBRARY" \
  timeout 300 bash -c "$line --out $GA_TMP/retest" >"$GA_TMP/retest.log" 2>&1
rc=$?
check "the re-test passes (exit 0, got $rc; $(tail -c 300 "$GA_TMP/retest.log"))" [ "$rc" -eq 0 ]
check "the re-test judged by the first run's criteria (recorded, not given again)" \
  test "$(jq -r 'select(.type=="run_start") | .criteria.text' "$GA_TMP/retest/samples.jsonl")" = "$(cat "$GA_TMP/criteria.yaml")"
check "the campaign clears ga-h2" \
  test "$(jq -r '.hosts[] | select(.host=="ga-h2") | .status' "$GA_TMP/retest/campaign.json")" = cleared
lines=$("$GA_BIN" undrain "$GA_TMP/retest" 2>"$GA_TMP/undrain.err"); rc=$?
check "undrain prints the resume of ga-h2 alone (exit 1)" [ $rc -eq 1 -a "$lines" = "scontrol update nodename=ga-h2 state=resume" ]
check "  and says ga-h3 stays drained for its own reason" grep -q "ga-h3 passed but stays drained" "$GA_TMP/undrain.err"
"$GA_BIN" undrain "$GA_TMP/retest" --apply >/dev/null 2>&1
check "undrain --apply resumed ga-h2 ($(node_state ga-h2))" bash -c "[[ '$(node_state ga-h2)' != *DRAIN* ]]"
check "ga-h3 keeps its state and reason ($(node_state ga-h3): $(node_reason ga-h3))" \
  bash -c "[[ '$(node_state ga-h3)' == *DRAIN* ]] && [ '$(node_reason ga-h3)' = 'bad DIMM, ticket 99' ]"

# The -n path of the script: the job's own tasks through gpuaccept launch --slurm --job-tasks,
# on the two nodes Slurm schedules (ga-h3 stays drained).
job2=$(cd "$GA_TMP/submit" && timeout 300 "$GA_FAKEHOSTS" exec ga-h1 env SLURM_CONF="$SLURM_CONF" "${fakes[@]}" \
  "${mpi_env[@]}" sbatch --parsable --wait -N 2 -n 4 --gpus-per-node=2 --exclusive "$GA_SOURCE_DIR/slurm/gpuaccept.sbatch" \
  --suite "$GA_TMP/suite.yaml" --criteria "$GA_TMP/criteria.yaml" --probe-timeout 120 2>>"$GA_TMP/sbatch.err")
rc=$?
job2=${job2%%;*}
run_output "$GA_TMP/submit/gpuaccept-report-$job2"
check "sbatch -n 4: exit 0 ($rc), 4 ranks on ga-h1 and ga-h2 ($(jqr "$r" '[.run.ranks[].host] | sort | join(",")'))" \
  bash -c "[ $rc -eq 0 ] && [ '$(jqr "$r" '[.run.ranks[].host] | sort | join(",")')' = 'ga-h1,ga-h1,ga-h2,ga-h2' ]"
check "... its srun line built by gpuaccept launch" grep -q '^\[gpuaccept\] srun --mpi=pmix --cpu-bind=' "$GA_TMP/submit/gpuaccept-$job2.out"
finish
