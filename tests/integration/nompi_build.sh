#!/usr/bin/env bash
# gpuaccept builds without MPI (GPU hosts that have none, quick single-host checks) and runs
# one process on one host to a judged report; among them resume-gpu on the fake libcuda and
# NCCL (ARGS: their paths), the path scripts/gpu-host-check.sh takes on a GPU host without MPI.
source "$(dirname "$0")/lib.sh"
fake_cuda=${1:?fake libcuda} fake_nccl=${2:?fake libnccl}
b=$GA_BUILD_DIR/nompi
cmake -S "$GA_SOURCE_DIR" -B "$b" -DGPUACCEPT_WITH_MPI=OFF -DGPUACCEPT_BUILD_TESTS=OFF -DGPUACCEPT_BUILD_BENCH=OFF \
  >"$GA_TMP/configure.log" 2>&1
check "configures without MPI" [ $? -eq 0 ]
cmake --build "$b" -j2 --target gpuaccept >"$GA_TMP/build.log" 2>&1 || tail -30 "$GA_TMP/build.log" >&2
check "builds without MPI" test -x "$b/app/gpuaccept"
check "--version says no MPI" grep -q "MPI: no" <("$b/app/gpuaccept" --version)
"$b/app/gpuaccept" run --suite quick --out "$GA_TMP/run" >"$GA_TMP/out" 2>&1
rc=$?
check "the quick suite passes in one process, exit $rc" [ "$rc" -eq 0 ]
check "one rank in the report" [ "$(jqr "$GA_TMP/run/report.json" '.run.ranks | length')" = 1 ]
check "no MPI version recorded" [ "$(jqr "$GA_TMP/run/report.json" .run.versions.mpi)" = none ]
check "the probes that need MPI say so" grep -q "mpi" <(jqr "$GA_TMP/run/report.json" '.probes[].reason' ; "$b/app/gpuaccept" run --suite gpu --out "$GA_TMP/gpu" >/dev/null 2>&1; jqr "$GA_TMP/gpu/report.json" '.probes[] | select(.name=="mpi-coll") | .reason')
# gpuaccept health is one process in either build; here it checks this machine as it is (no
# NVIDIA GPU, so the GPU check is skipped; the clock is left out: no time daemon runs here).
"$b/app/gpuaccept" health --skip clock >"$GA_TMP/health.out" 2>&1
rc=$?
check "gpuaccept health without MPI: exit $rc, healthy ($(tail -1 "$GA_TMP/health.out"))" \
  bash -c "[ $rc -eq 0 ] && grep -q '^gpuaccept health: .* healthy (PASS: ' '$GA_TMP/health.out'"
GPUACCEPT_SYSFS_ROOT="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia" GPUACCEPT_CUDA_LIBRARY=$fake_cuda \
  GPUACCEPT_NCCL_LIBRARY=$fake_nccl "$b/app/gpuaccept" run --suite resume --out "$GA_TMP/resume" >"$GA_TMP/resume.log" 2>&1
rc=$?
run_output "$GA_TMP/resume"
check "the resume suite passes in one process, exit $rc" [ "$rc" -eq 0 ]
check "resume-gpu ran" [ "$(jqr "$r" '.probes[] | select(.name=="resume-gpu") | .status')" = ok ]
for c in identical loss_identical matches_reference killed_by_sigkill; do
  check "resume-gpu.$c passes with one worker" [ "$(verdict "resume-gpu.$c" cluster)" = pass ]
done
finish
