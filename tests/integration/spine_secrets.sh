#!/usr/bin/env bash
# No secret in any file of a run directory (issue 14 item 7): secret-looking variables exported
# into a real mpirun run (-x, as a user's job environment would carry them), one of them NCCL_*
# (the nccl probe records NCCL_* variables), and a secret-looking run option value; then every
# file of the run directory (journal, reports, NCCL debug logs) is searched for their values,
# and the NCCL_* variable that looks harmless is there (the recording path itself works).
# Args: fake libcuda, fake NVML, fake cuBLAS, fake NCCL (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nvml=$2 fake_cublas=$3 fake_nccl=$4
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
suite="$GA_TMP/suite.yaml"
cat >"$suite" <<'YAML'
schema_version: 1
name: secrets-small
description: inventory, topology and the nccl probe with tiny lines, for the secrets test
probes:
  - inventory
  - topology
  - name: nccl
    params: {min_bytes: 8, max_bytes: 1024, max_iters: 1, warmup_iters: 1}
YAML
out="$GA_TMP/run"
GA_TEST_TOKEN=tok-7f3a9c1e MY_PASSWORD=pw-55ab09 AWS_SECRET_ACCESS_KEY=awsk-0021f7 NCCL_TEST_SECRET=nccls-91d2e4 \
  NCCL_TEST_VISIBLE=seen-4242 \
  mpirun -np 2 --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none --mca btl self,vader,tcp \
  -x GA_TEST_TOKEN -x MY_PASSWORD -x AWS_SECRET_ACCESS_KEY -x NCCL_TEST_SECRET -x NCCL_TEST_VISIBLE \
  -x GPUACCEPT_SYSFS_ROOT="$tree" -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NVML_LIBRARY="$fake_nvml" \
  -x GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas" -x GPUACCEPT_NCCL_LIBRARY="$fake_nccl" \
  "$GA_BIN" run --suite "$suite" --out "$out" --probe-timeout 60 >"$GA_TMP/run.log" 2>&1
log "mpirun exit $?"
check "the run wrote its report" test -s "$out/report.json"
check "the nccl probe recorded the NCCL_* environment" \
  test "$(jq -r 'select(.type=="sample" and .metric=="nccl.env") | .params.vars.NCCL_TEST_VISIBLE' "$out/samples.jsonl" | head -1)" = seen-4242
for v in tok-7f3a9c1e pw-55ab09 awsk-0021f7 nccls-91d2e4; do
  check "no file of the run directory holds $v ($(grep -rl -- "$v" "$out" | tr '\n' ' '))" test -z "$(grep -rl -- "$v" "$out")"
  check "nor the run's terminal output" test -z "$(grep -l -- "$v" "$GA_TMP/run.log")"
done
# A secret-looking value in the command line: gpuaccept launch prints and records the line
# with the value redacted (the run itself never sees it: launch builds the line).
line=$("$GA_BIN" launch --dry-run -- --suite quick --set storage.api_token=tok-argv-31 2>&1)
check "launch's line hides a secret-looking KEY=VALUE ($line)" \
  bash -c "[[ \"\$0\" == *storage.api_token=*redacted* && \"\$0\" != *tok-argv-31* ]]" "$line"
finish
