#!/usr/bin/env bash
# gpu-host-check.sh: on one GPU host, in one go and in under 5 minutes, build gpuaccept, run
# the `gpu` suite on this host's GPUs, print a table, and measure a reference on the same GPUs
# in the same run (PyTorch copy and matmul when torch imports; nvbandwidth and nccl-tests'
# all_reduce_perf when they are on the PATH), so the two can be put side by side in
# docs/performance.md#on-a-real-gpu. The gpu suite includes resume-gpu: the first time the job's
# PTX is compiled by a real driver and its result held against the host reference.
#
# Needs: the CUDA toolkit (headers; libcuda from the driver; cuBLAS; NCCL where the host has
# one), cmake, a C++20 compiler and the Debian build packages of scripts/install-deps.sh minus
# MPI. MPI is used when present (one rank per GPU, so NCCL spans the GPUs); without it one
# process measures every GPU and NCCL runs on one GPU only (its multi-GPU lines: not measured).
#
# Usage: scripts/gpu-host-check.sh [OUT_DIR]       (env: NCCL_LIBRARY=/path/libnccl.so.2,
#                                                    CUBLAS_LIBRARY=..., JOBS=N, PROBE_TIMEOUT=s)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$PWD/gpu-host-check-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
log() { echo "[gpu-host-check] $*" >&2; }
t_start=$(date +%s)
probe_timeout=${PROBE_TIMEOUT:-75}
jobs=${JOBS:-$(nproc)}
[ -n "${NCCL_LIBRARY:-}" ] && export GPUACCEPT_NCCL_LIBRARY=$NCCL_LIBRARY
[ -n "${CUBLAS_LIBRARY:-}" ] && export GPUACCEPT_CUBLAS_LIBRARY=$CUBLAS_LIBRARY

# ---------------------------------------------------------------- the host
{
  echo "host: $(hostname)"
  echo "date: $(date -u +%FT%TZ)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max --format=csv
  command -v nvidia-smi >/dev/null && nvidia-smi topo -m
  ls /usr/local/cuda/version* 2>/dev/null && cat /usr/local/cuda/version.json 2>/dev/null | head -5
} > "$out/host.txt" 2>&1
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
ngpu=${ngpu:-0}
log "$ngpu GPU(s); details in $out/host.txt"

# ---------------------------------------------------------------- build
# Without MPI when mpicc is absent (the non-MPI build: one process, one host).
with_mpi=OFF
command -v mpicc >/dev/null && command -v mpirun >/dev/null && with_mpi=ON
build="$out/build"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  # The build packages only (no MPI, RDMA or test tools): a GPU host keeps its own stack.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    cmake pkg-config g++ libhwloc-dev nlohmann-json3-dev libyaml-cpp-dev libpugixml-dev >/dev/null 2>&1 ||
    log "apt-get could not install the build packages; trying with what is there"
fi
log "building (MPI $with_mpi) in $build"
if ! { cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUACCEPT_WITH_MPI=$with_mpi \
         -DGPUACCEPT_BUILD_TESTS=OFF -DGPUACCEPT_BUILD_BENCH=OFF > "$out/build.log" 2>&1 &&
       cmake --build "$build" -j "$jobs" --target gpuaccept >> "$out/build.log" 2>&1; }; then
  log "build failed; the end of $out/build.log:"
  tail -20 "$out/build.log" >&2
  exit 2
fi
bin="$build/app/gpuaccept"
"$bin" --version | tee "$out/version.txt" >&2

# ---------------------------------------------------------------- gpuaccept, suite gpu
# Sizes kept inside the 5-minute budget: NCCL up to 1 GiB (the busbw plateau of 8 GPUs is
# reached well before), the probes under a per-probe deadline.
run_dir="$out/run"
args=(run --suite gpu --out "$run_dir" --probe-timeout "$probe_timeout" --set nccl.max_bytes=1073741824)
log "running the gpu suite"
if [ "$with_mpi" = ON ] && [ "$ngpu" -gt 1 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpirun -np "$ngpu" --bind-to numa --map-by numa "$bin" "${args[@]}" > "$out/run.log" 2>&1
else
  "$bin" "${args[@]}" > "$out/run.log" 2>&1
fi
rc=$?
log "gpuaccept exit code $rc (0 pass, 1 node fault, 2 usage, 3 incomplete, 4 inconclusive, 5 tool error); report $run_dir/report.md"

# ---------------------------------------------------------------- reference, same GPUs, same run
ref="$out/reference.txt"
: > "$ref"
if command -v python3 >/dev/null && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  log "reference: PyTorch copy and matmul on every GPU"
  python3 - >> "$ref" 2>&1 <<'PY'
import torch
def timed(fn, iters):
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(iters): fn()
    e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) / 1e3 / iters
print(f"torch {torch.__version__} cuda {torch.version.cuda} nccl {'.'.join(map(str, torch.cuda.nccl.version()))}")
for d in range(torch.cuda.device_count()):
    torch.cuda.set_device(d)
    name = torch.cuda.get_device_name(d)
    n = 1 << 30
    a = torch.empty(n, dtype=torch.uint8, device=d); b = torch.empty_like(a)
    t = timed(lambda: b.copy_(a), 10)
    print(f"gpu{d} {name} torch.copy_ 1GiB device: {2*n/t/1e9:.1f} GB/s (read+write)")
    h = torch.empty(256 << 20, dtype=torch.uint8).pin_memory(); g = torch.empty(256 << 20, dtype=torch.uint8, device=d)
    t = timed(lambda: g.copy_(h, non_blocking=True), 10)
    print(f"gpu{d} {name} torch h2d pinned 256MiB: {h.numel()/t/1e9:.1f} GB/s")
    t = timed(lambda: h.copy_(g, non_blocking=True), 10)
    print(f"gpu{d} {name} torch d2h pinned 256MiB: {h.numel()/t/1e9:.1f} GB/s")
    for dt in (torch.bfloat16, torch.float16):
        m = 8192
        x = torch.ones(m, m, dtype=dt, device=d); y = torch.ones(m, m, dtype=dt, device=d)
        t = timed(lambda: x @ y, 10)
        print(f"gpu{d} {name} torch matmul {dt} n={m}: {2*m**3/t/1e12:.1f} TFLOP/s")
PY
else
  echo "PyTorch: not importable or no CUDA device (no reference from it)" >> "$ref"
fi
if command -v nvbandwidth >/dev/null; then
  log "reference: nvbandwidth"
  timeout 90 nvbandwidth -t device_local_copy host_to_device_memcpy_ce device_to_host_memcpy_ce \
    device_to_device_memcpy_read_ce >> "$ref" 2>&1 || echo "nvbandwidth: failed or timed out" >> "$ref"
else
  echo "nvbandwidth: not on the PATH" >> "$ref"
fi
if command -v all_reduce_perf >/dev/null && [ "$ngpu" -gt 1 ]; then
  log "reference: nccl-tests all_reduce_perf -g $ngpu"
  timeout 60 all_reduce_perf -b 8 -e 1G -f 2 -g "$ngpu" >> "$ref" 2>&1 || echo "all_reduce_perf: failed or timed out" >> "$ref"
else
  echo "nccl-tests all_reduce_perf: not on the PATH or a single GPU (multi-GPU NCCL reference: not measured)" >> "$ref"
fi

# ---------------------------------------------------------------- the table
if command -v python3 >/dev/null && [ -f "$run_dir/samples.jsonl" ]; then
  python3 - "$run_dir/samples.jsonl" > "$out/table.txt" <<'PY'
import json, statistics, sys
rows, facts, peak, outcomes = {}, {}, {}, []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "outcome" and r["probe"] in ("gpu", "nccl", "mpi-coll", "resume-gpu"):
        outcomes.append(f'{r["probe"]:8} rank {r["rank"]} ({r["host"]}): {r["status"]} {r.get("reason", "")}')
    if r.get("type") != "sample" or r.get("probe") not in ("gpu", "nccl", "resume-gpu"):
        continue
    p, m = r.get("params", {}), r["metric"]
    if r.get("text") is not None:
        facts[(r["place"], m)] = r["text"]
    elif m == "nccl.busbw":  # the largest line of each scope and collective, best placement
        k = (r["place"], p.get("scope"), p.get("collective"))
        size, best = peak.get(k, (0, 0.0))
        if p["size"] > size or (p["size"] == size and r["value"] > best):
            peak[k] = (p["size"], r["value"])
    elif m not in ("nccl.time", "nccl.algbw", "nccl.wrong"):
        key = m + (" " + p["dtype"] if "dtype" in p else "") + (" " + p["collective"] if "collective" in p else "")
        rows.setdefault((r["place"], key, r["unit"]), []).append(r["value"])
def fmt(v, u):
    for k, s in ((1e12, "T"), (1e9, "G"), (1e6, "M")):
        if abs(v) >= k and u in ("B/s", "FLOP/s", "B"):
            return f"{v/k:.2f} {s}{u}"
    return f"{v:.4g} {u}"
print("facts:")
for (pl, m), t in sorted(facts.items()):
    print(f"  {pl:26} {m:34} {t}")
print("measured (median over iterations):")
for (pl, k, u), vs in sorted(rows.items()):
    print(f"  {pl:26} {k:34} {fmt(statistics.median(vs), u)}")
for (pl, sc, c), (size, v) in sorted(peak.items()):
    print(f"  {pl:26} {'nccl.busbw ' + str(sc) + ' ' + str(c):34} {fmt(v, 'B/s')} at {size} B")
print("outcomes:")
for o in outcomes:
    print("  " + o)
PY
  cat "$out/table.txt"
else
  log "no python3 or no journal: see $run_dir/report.md"
  [ -f "$run_dir/report.md" ] && cat "$run_dir/report.md"
fi
echo "--- reference (same host, same GPUs, just after) ---"
cat "$ref"
log "done in $(( $(date +%s) - t_start )) s; everything is in $out"
exit $rc
