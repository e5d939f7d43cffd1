#!/usr/bin/env bash
# resume-gpu end to end, without a GPU: the fake libcuda interprets the job's PTX and the fake
# NCCL reduces across the worker processes through shared memory (tests/fakes), so the run
# goes through every call a GPU run makes. Usage: resume_gpu.sh WHERE MODE FAKE_CUDA FAKE_NCCL
#   WHERE local: 2 ranks on this host (its recorded PCI bus has 2 GPUs: one rank per GPU);
#         fake: 3 fake hosts, one rank each
#   MODE  clean: every resume-gpu criterion passes; the kill is named (host, SIGKILL, step);
#                with damage=truncate the restart falls back one checkpoint
#         wrong: the NCCL flips a bit of every reduction (a miscomputing GPU stack): the run is
#                still repeatable (resume-gpu.identical passes), but resume-gpu.matches_reference
#                fails, and it is the only failing verdict
source "$(dirname "$0")/lib.sh"
where=${1:?local or fake}
mode=${2:?clean or wrong}
fake_cuda=${3:?fake libcuda} fake_nccl=${4:?fake libnccl}
need_fakes "$fake_cuda" "$fake_nccl"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"   # two NVIDIA GPUs on a recorded PCI bus

cat >"$GA_TMP/suite.yaml" <<'YAML'
schema_version: 1
name: resume-gpu-test
description: resume-gpu, small
probes:
  - name: resume-gpu
    params: {steps: 120, every: 20, state_kib: 16}
YAML
args=(--suite "$GA_TMP/suite.yaml" --probe-timeout 120
      --set "resume-gpu.cuda_library=$fake_cuda" --set "resume-gpu.nccl_library=$fake_nccl")
[ "$mode" = clean ] && args+=(--set resume-gpu.damage=truncate)

touch "$GA_TMP/.before-run"  # for what the run leaves in /dev/shm
if [ "$where" = fake ]; then
  N=3
  fake_up $N
  hosts=(ga-h1 ga-h2 ga-h3)
  # shellcheck disable=SC2046
  mpirun -np $N --host "$("$GA_FAKEHOSTS" hosts $N)" $(fake_mpirun_opts) -x "GPUACCEPT_SYSFS_ROOT=$tree" \
    "$GA_BIN" "${args[@]}" --out "$GA_TMP/run" >"$GA_TMP/mpirun.log" 2>&1
else
  N=2
  hosts=("$(hostname -s)")
  GPUACCEPT_SYSFS_ROOT=$tree ga_mpirun $N "${args[@]}" --out "$GA_TMP/run" >"$GA_TMP/mpirun.log" 2>&1
fi
rc=$?
log "mpirun exit code $rc"
run_output "$GA_TMP/run"
check "report written" test -s "$r"

check "resume-gpu ran on every rank" test "$(jqr "$r" '.probes[] | select(.name=="resume-gpu") | .status')" = ok
check "resume-gpu.identical passes" test "$(verdict resume-gpu.identical cluster)" = pass
check "resume-gpu.loss_identical passes" test "$(verdict resume-gpu.loss_identical cluster)" = pass
check "the kill was a SIGKILL seen by waitpid" test "$(verdict resume-gpu.killed_by_sigkill cluster)" = pass
killed=$(sample resume-gpu.killed_host cluster .text)
log "killed GPU worker on $killed at step $(sample resume-gpu.kill_step cluster .value)"
check "the killed process's host is recorded" test "$killed" = "${hosts[$((${#hosts[@]} - 1))]}"
bad=$(failing)
log "failing verdicts: ${bad:-none}"
if [ "$mode" = wrong ]; then
  check "resume-gpu.matches_reference fails" test "$(verdict resume-gpu.matches_reference cluster)" = fail
  check "every worker is named as differing" test "$(sample resume-gpu.matches_reference cluster '.params.differing_workers | length')" = $N
  check "only resume-gpu.matches_reference fails" test "$bad" = "resume-gpu.matches_reference@cluster"
  check "exit code 1" test "$rc" = 1
else
  check "resume-gpu.matches_reference passes (the PTX computed the host's job)" test "$(verdict resume-gpu.matches_reference cluster)" = pass
  from=$(sample resume-gpu.resumed_from_step cluster .value)
  check "falls back from the torn checkpoint to step 40" test "$from" = 40
  check "the torn shard is named" grep -q "torn or truncated" <<<"$(sample resume-gpu.resumed_from_step cluster '[.params.skipped[].why] | join("; ")')"
  if [ "$where" = fake ]; then
    check "resume-gpu.moved_to_other_host passes" test "$(verdict resume-gpu.moved_to_other_host cluster)" = pass
  fi
  check "no failing verdict" test -z "$bad"
  check "exit code 0" test "$rc" = 0
fi
if [ "$where" = local ]; then
  log "3 ranks on a host with 2 GPUs"
  GPUACCEPT_SYSFS_ROOT=$tree ga_mpirun 3 "${args[@]}" --out "$GA_TMP/three" >"$GA_TMP/three.log" 2>&1
  check "resume-gpu is skipped, saying why" \
    grep -q "3 ranks on this host share 2 GPU(s)" <<<"$(jqr "$GA_TMP/three/report.json" '.probes[] | select(.name=="resume-gpu") | .status + ": " + (.reason // "")')"
fi
# Nothing the runs made is left in /dev/shm (the fake NCCL uses none; Open MPI's vader
# segments and libfaketime's of a neighbouring test, still running, aside).
left=$(find /dev/shm -mindepth 1 -maxdepth 1 -newer "$GA_TMP/.before-run" ! -name 'vader_segment.*' ! -name 'faketime_shm_*' 2>/dev/null | head -3)
check "nothing left in /dev/shm by the runs (${left:-none})" test -z "$left"
finish
