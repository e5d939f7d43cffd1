#!/usr/bin/env bash
# The GPU probes' decision table through the whole program, under mpirun:
#   this machine as it is (no NVIDIA GPU)            -> gpu and nccl skipped, run passes
#   fake NVIDIA GPUs on the PCI bus, no driver        -> both a tool error (no host of the run loads it)
#   fake GPUs + fake driver, faults asked on gpu:1     -> the ECC and PCIe criteria fail at
#   (GA_FAKE_GPU_FAULTS, tests/fakes/fake_gpu_faults.h)   HOST/gpu:1 and pass at HOST/gpu:0
# Args: fake libcuda (working), fake NVML, fake cuBLAS, fake NCCL (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nvml=$2 fake_cublas=$3 fake_nccl=$4
need_fakes "$fake_cuda" "$fake_nvml" "$fake_cublas" "$fake_nccl"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
host=$(hostname -s)
suite="$GA_TMP/suite-gpu-small.yaml"
cat > "$suite" <<'YAML'
schema_version: 1
name: gpu-small
description: the gpu and nccl probes with small buffers, for tests
probes:
  - name: gpu
    params: {hbm_mib: 4, h2d_mib: 4, p2p_mib: 2, gemm_n: 64, iterations: 2, warmup: 1, kernel_log: /nonexistent/kmsg}
  - name: nccl
    params: {min_bytes: 8, max_bytes: 4096, max_iters: 2}
YAML
status_of() { jqr "$1/report.json" ".probes[] | select(.name==\"$2\") | .status"; }
verdict_in() {  # verdict_in DIR CRITERION PLACE -> status
  jqr "$1/report.json" ".verdicts[] | select(.criterion==\"$2\" and .place==\"$3\") | .status" | head -1
}

log "1. no NVIDIA GPU on this machine"
d1="$GA_TMP/none"
GPUACCEPT_SYSFS_ROOT=/nonexistent-root ga_mpirun 2 run --suite "$suite" --out "$d1" --probe-timeout 60 > "$GA_TMP/1.log" 2>&1
rc=$?
check "exit 0 without GPUs (rc $rc)" [ "$rc" -eq 0 ]
check "gpu skipped" [ "$(status_of "$d1" gpu)" = skipped ]
check "nccl skipped" [ "$(status_of "$d1" nccl)" = skipped ]
check "skip reason names the PCI bus" grep -q "no NVIDIA GPU on the PCI bus" "$d1/report.json"

log "2. NVIDIA GPUs on the PCI bus, no driver"
d2="$GA_TMP/nodriver"
GPUACCEPT_SYSFS_ROOT=$tree GPUACCEPT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
  ga_mpirun 2 run --suite "$suite" --out "$d2" --probe-timeout 60 > "$GA_TMP/2.log" 2>&1
rc=$?
# The library loads on no host of the run: the run's environment (the path given, the image),
# a tool error, never every node's fault (issue 32); bad-hosts.txt names no host.
check "exit 5: a tool error (rc $rc)" [ "$rc" -eq 5 ]
check "gpu a tool error" [ "$(status_of "$d2" gpu)" = error ]
check "nccl a tool error" [ "$(status_of "$d2" nccl)" = error ]
check "probe.gpu a tool error at $host" [ "$(verdict_in "$d2" probe.gpu "$host")" = tool_error ]
check "the reason names the missing driver, on every host" \
  bash -c "jq -r '.verdicts[] | select(.criterion==\"probe.gpu\") | .reason' '$d2/report.json' | grep 'CUDA driver library cannot be loaded' | grep -q 'on every host'"
check "bad-hosts.txt names no host" bash -c "! grep -qv '^#' '$d2/bad-hosts.txt'"

log "3. a fake driver, faults asked on gpu:1"
d3="$GA_TMP/faults"
GA_FAKE_GPU_FAULTS="$(hostname)/gpu:1=ecc_uncorrected+pcie_gen_low+hw_slowdown" GPUACCEPT_SYSFS_ROOT=$tree GPUACCEPT_CUDA_LIBRARY=$fake_cuda GPUACCEPT_NVML_LIBRARY=$fake_nvml \
  GPUACCEPT_CUBLAS_LIBRARY=$fake_cublas GPUACCEPT_NCCL_LIBRARY=$fake_nccl \
  ga_mpirun 1 run --suite "$suite" --out "$d3" --probe-timeout 60 > "$GA_TMP/3.log" 2>&1
rc=$?
check "exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "gpu ok" [ "$(status_of "$d3" gpu)" = ok ]
check "ECC fails at $host/gpu:1" [ "$(verdict_in "$d3" gpu.ecc.uncorrected "$host/gpu:1")" = fail ]
check "ECC passes at $host/gpu:0" [ "$(verdict_in "$d3" gpu.ecc.uncorrected "$host/gpu:0")" = pass ]
check "PCIe gen fails at $host/gpu:1" [ "$(verdict_in "$d3" gpu.pcie.gen_at_max "$host/gpu:1")" = fail ]
check "PCIe gen passes at $host/gpu:0" [ "$(verdict_in "$d3" gpu.pcie.gen_at_max "$host/gpu:0")" = pass ]
check "HW throttling fails at $host/gpu:1" [ "$(verdict_in "$d3" gpu.throttle.hardware "$host/gpu:1")" = fail ]
check "P2P measured both ways" \
  [ "$(jq -r "select(.type==\"sample\" and .metric==\"gpu.p2p_bw\") | .place" "$d3/samples.jsonl" | sort -u | wc -l)" -eq 2 ]
# report.html's gpu plot: a bar per GPU and measure, each the *_of_theory value report.json has.
r=$d3/report.json
check "report.html draws the gpu plot, a bar per GPU and measure as report.json has it ($(plot_marks "$d3/report.html" gpu place | wc -l) bars)" \
  plot_matches "$d3/report.html" gpu '.metrics[] | select(.metric | test("^gpu[.](hbm_bw|h2d_bw|gemm)_of_theory$"))
    | "\(.place) \({"gpu.hbm_bw_of_theory": "HBM", "gpu.h2d_bw_of_theory": "host-to-device"}[.metric] // "GEMM/\(.params.dtype)") \(.value)"'
check "... and outlines $host/gpu:1, whose verdicts fail" \
  bash -c "grep -o '<rect class=\"mark\"[^>]*stroke=\"#cf222e\"[^>]*data-place=\"$host/gpu:1\"' '$d3/report.html' | grep -q ."
finish
