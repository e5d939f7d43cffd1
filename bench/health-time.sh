#!/usr/bin/env bash
# Wall time of `gpuaccept health` on the fake GPUs (tests/data/gpu/sysfs-two-nvidia, the fake
# libcuda and NVML), median of N runs (default 10), each a fresh process as Slurm starts it.
# The clock is left out (--skip clock): this machine runs no time daemon, so the check would
# fail there, and a failing run is not the time of a healthy one.
# Usage: bench/health-time.sh [BUILD_DIR] [N]   (BUILD_DIR default build; targets gpuaccept, gpu_fakes)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} n=${2:-10}
bin=$build/app/gpuaccept
for f in "$bin" "$build/tests/libfake_cuda_ok.so" "$build/tests/libfake_nvml.so"; do
  [ -e "$f" ] || { echo "health-time: no $f; build gpuaccept and gpu_fakes" >&2; exit 2; }
done
export GPUACCEPT_SYSFS_ROOT=$PWD/tests/data/gpu/sysfs-two-nvidia
export GPUACCEPT_CUDA_LIBRARY=$PWD/$build/tests/libfake_cuda_ok.so GPUACCEPT_NVML_LIBRARY=$PWD/$build/tests/libfake_nvml.so
times=()
for ((i = 0; i < n; i++)); do
  t0=$(date +%s.%N)
  "$bin" health --skip clock --set gpu.kernel_log=/proc/self/fd/1000 >/dev/null || { echo "health-time: run $i exited $?" >&2; exit 1; }
  times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
done
printf '%s\n' "${times[@]}" | sort -n | awk -v n="$n" '
  { v[NR] = $1 }
  END { m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        printf "gpuaccept health on the fakes, %d runs: median %.2f s (min %.2f, max %.2f)\n", n, m, v[1], v[n] }'
