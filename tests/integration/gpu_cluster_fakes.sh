#!/usr/bin/env bash
# The gpu and nccl probes at cluster shape on the fakes: 4 fake hosts x 2 ranks (mpirun -np 8),
# two fake GPUs each, the fake NCCL moving data over TCP between the namespaces, and six GPU
# faults asked through GA_FAKE_GPU_FAULTS (tests/fakes/fake_gpu_faults.h), each on a
# different GPU. One run, a small suite:
#   nccl  every collective of the sweep ran in every scope (intra-host, inter-host, cluster)
#         with its data check, and every line's data were right;
#   gpu   each fault is reported at HOST/gpu:K where it was put and at no other GPU:
#           pcie_gen_low, pcie_width_low, xid, row_remap_pending: their criterion fails there
#           alone (the remap one is a warning);
#           nvlink_down, slow_hbm: no criterion can single them out on the fakes (the topology
#           of a fake host expects no NVLink; every fake GPU is far below the HBM datasheet),
#           so the samples are asserted: 17 of 18 NVLinks there and 18 elsewhere; an HBM copy
#           there at most a fifth of the slowest other GPU's;
#           nvlink_crc: the NVLink CRC counters read at the run's start and end rise there alone,
#           so gpu.nvlink.crc_flit_rate fails there alone, and the report's description of that
#           GPU (report.json places) carries the UUID and serial its gpu.uuid / gpu.serial say;
#         (the isolation pass is off here: integration.gpu.nccl_isolation tests it)
#   init  with ranks_per_unique_id 4, the cluster communicator (8 ranks) is made from 2 unique
#         ids by ncclCommInitRankScalable, the 2-rank ones by ncclCommInitRank; both phases
#         (unique ids, init) are timed on every GPU and the slowest init's host is named;
#         a second, short run (the cluster scope alone) on an NCCL without
#         ncclCommInitRankScalable (fake_nccl_old) falls back to one id and ncclCommInitRank.
# Args: fake libcuda, fake NVML, fake cuBLAS, fake NCCL, fake NCCL without the scalable init
# (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nvml=$2 fake_cublas=$3 fake_nccl=$4 fake_nccl_old=$5
need_fakes "$fake_cuda" "$fake_nvml" "$fake_cublas" "$fake_nccl" "$fake_nccl_old"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
suite="$GA_TMP/suite.yaml"
# kernel_log: the fake NVML gives each process its host's fake kernel log at descriptor 1000.
cat >"$suite" <<'YAML'
schema_version: 1
name: gpu-cluster-small
description: the gpu and nccl probes with small buffers, for 4 fake hosts x 2 ranks
probes:
  - name: gpu
    params: {hbm_mib: 8, h2d_mib: 2, p2p_mib: 1, gemm_n: 64, iterations: 3, warmup: 1, kernel_log: /proc/self/fd/1000}
  - name: nccl
    params: {min_bytes: 1024, max_bytes: 262144, step_factor: 16, warmup_iters: 1, max_iters: 2, ranks_per_unique_id: 4,
             isolate: never}
YAML
faults="ga-h1/gpu:0=slow_hbm,ga-h1/gpu:1=xid,ga-h2/gpu:0=pcie_gen_low,ga-h2/gpu:1=pcie_width_low"
faults+=",ga-h3/gpu:0=row_remap_pending,ga-h3/gpu:1=nvlink_crc,ga-h4/gpu:1=nvlink_down"
gpus="ga-h1/gpu:0 ga-h1/gpu:1 ga-h2/gpu:0 ga-h2/gpu:1 ga-h3/gpu:0 ga-h3/gpu:1 ga-h4/gpu:0 ga-h4/gpu:1"

fake_up 4
start=$SECONDS
# shellcheck disable=SC2046
timeout 400 mpirun -np 8 --host ga-h1:2,ga-h2:2,ga-h3:2,ga-h4:2 $(fake_mpirun_opts) \
  -x GPUACCEPT_SYSFS_ROOT="$tree" -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NVML_LIBRARY="$fake_nvml" \
  -x GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas" -x GPUACCEPT_NCCL_LIBRARY="$fake_nccl" -x GA_FAKE_GPU_FAULTS="$faults" \
  "$GA_BIN" run --suite "$suite" --out "$GA_TMP/run" --probe-timeout 150 >"$GA_TMP/mpirun.log" 2>&1
rc=$?
log "mpirun exit $rc after $((SECONDS - start)) s"
run_output "$GA_TMP/run"
check "report written" test -s "$r"
status_of() { jqr "$r" ".probes[] | select(.name==\"$1\") | .status"; }
check "gpu probe ok" test "$(status_of gpu)" = ok
check "nccl probe ok ($(jqr "$r" '.probes[] | select(.name=="nccl") | .reason' | head -c 300))" test "$(status_of nccl)" = ok

log "nccl: every collective in every scope, data checked"
for scope in intra-host inter-host cluster; do
  for coll in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
    lines=$(jq -r "select(.type==\"sample\" and .metric==\"nccl.wrong\" and .params.scope==\"$scope\" and .params.collective==\"$coll\") | .value" "$j" | wc -l)
    check "$scope $coll: lines with a data check ($lines)" test "$lines" -gt 0
  done
done
wrong=$(jq -s '[.[] | select(.type=="sample" and .metric=="nccl.wrong") | .value] | add // -1' "$j")
check "no wrong element in any line (total $wrong)" test "$wrong" = 0
check "nccl.data.correct passes" test "$(jqr "$r" '[.verdicts[] | select(.criterion=="nccl.data.correct") | .status] | unique | join(",")')" = pass
ranks=$(jq -r 'select(.type=="sample" and .metric=="nccl.init_time" and .params.scope=="cluster") | .place' "$j" | sort -u | wc -l)
check "the cluster communicator has all 8 GPUs ($ranks)" test "$ranks" -eq 8

log "nccl: communicator set-up, per phase and scope"
init_of() { jq -r "select(.type==\"sample\" and .metric==\"nccl.init_time\" and .params.scope==\"$1\") | \"\(.params.init)/\(.params.unique_ids)\"" "$j" | sort -u | tr '\n' ' '; }
check "cluster scope: ncclCommInitRankScalable with 2 unique ids ($(init_of cluster))" test "$(init_of cluster)" = "ncclCommInitRankScalable/2 "
check "intra-host scope: ncclCommInitRank with 1 id ($(init_of intra-host))" test "$(init_of intra-host)" = "ncclCommInitRank/1 "
ids=$(jq -r 'select(.type=="sample" and .metric=="nccl.unique_id_time" and .params.scope=="cluster") | .place' "$j" | sort -u | wc -l)
check "the unique-id phase timed on all 8 GPUs ($ids)" test "$ids" -eq 8
slow=$(jq -r 'select(.type=="sample" and .metric=="nccl.init_slowest_host" and .params.scope=="cluster") | .text' "$j")
slow_place=$(jq -r 'select(.type=="sample" and .metric=="nccl.init_time_slowest" and .params.scope=="cluster") | .params.slowest_place' "$j")
check "the slowest init's host is named ($slow, at $slow_place)" test -n "$slow" -a "${slow_place%%/*}" = "$slow"
slowest=$(jq -r 'select(.type=="sample" and .metric=="nccl.init_time_slowest" and .params.scope=="cluster") | .value' "$j")
at_place=$(jq -r "select(.type==\"sample\" and .metric==\"nccl.init_time\" and .params.scope==\"cluster\" and .place==\"$slow_place\") | .value" "$j")
check "... and it is that GPU's own init time ($at_place = $slowest)" test "$at_place" = "$slowest"

log "gpu: each fault at its GPU and nowhere else"
fails_of() {  # the places where CRITERION's verdict is fail, sorted, space-separated
  jqr "$r" "[.verdicts[] | select(.criterion==\"$1\" and .status==\"fail\") | .place] | sort | join(\" \")"
}
passes_of() { jqr "$r" "[.verdicts[] | select(.criterion==\"$1\" and .status==\"pass\")] | length"; }
for pair in gpu.pcie.gen_at_max=ga-h2/gpu:0 gpu.pcie.width_at_max=ga-h2/gpu:1 gpu.xid=ga-h1/gpu:1 \
            gpu.remap.pending=ga-h3/gpu:0; do
  crit=${pair%%=*} place=${pair#*=}
  check "$crit fails at $place alone (fails: $(fails_of "$crit"))" test "$(fails_of "$crit")" = "$place"
  check "$crit passes at the 7 other GPUs" test "$(passes_of "$crit")" -eq 7
done
xid_reason=$(jqr "$r" '[.verdicts[] | select(.criterion=="gpu.xid" and .status=="fail") | .reason] | first // ""')
log "gpu.xid: $xid_reason"
check "gpu.xid's reason carries the catalogue's action for the fake's Xid 79" \
  sh -c 'case "$0" in *"Xid 79 (GPU has fallen off the bus): reboot the node, then inspect the hardware"*) exit 0;; *) exit 1;; esac' "$xid_reason"
crit=gpu.nvlink.crc_flit_rate
check "$crit fails at ga-h3/gpu:1 alone (fails: $(fails_of "$crit"))" test "$(fails_of "$crit")" = ga-h3/gpu:1
check "$crit passes at the 7 other GPUs" test "$(passes_of "$crit")" -eq 7
uuid=$(sample gpu.uuid ga-h3/gpu:1 .text) serial=$(sample gpu.serial ga-h3/gpu:1 .text)
where=$(jqr "$r" '.places["ga-h3/gpu:1"]')
check "ga-h3/gpu:1 has a UUID and serial of its own ($uuid, $serial)" \
  test -n "$uuid" -a -n "$serial" -a "$uuid" != "$(sample gpu.uuid ga-h2/gpu:1 .text)"
check "the report describes ga-h3/gpu:1 with them ($where)" grep -qF -e "$uuid" <<<"$where"
check "... serial included" grep -qF -e "serial $serial" <<<"$where"
for crit in gpu.ecc.uncorrected gpu.throttle.hardware gpu.remap.failure gpu.nvlink.replay gpu.nvlink.recovery; do
  check "$crit fails nowhere ($(fails_of "$crit"))" test -z "$(fails_of "$crit")"
done
for g in $gpus; do
  want=18; [ "$g" = ga-h4/gpu:1 ] && want=17
  check "$g: $want NVLinks active" test "$(sample gpu.nvlink_active "$g" .value)" = "$want"
done
hbm() { sample gpu.hbm_bw "$1" .value | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }  # median
slow=$(hbm ga-h1/gpu:0)
slowest_other=$(for g in $gpus; do [ "$g" = ga-h1/gpu:0 ] || hbm "$g"; done | sort -g | head -1)
log "HBM copy: ga-h1/gpu:0 $slow B/s, the slowest other GPU $slowest_other B/s"
check "slow HBM: ga-h1/gpu:0 at most a fifth of every other GPU" \
  awk -v s="$slow" -v o="$slowest_other" 'BEGIN { exit !(s > 0 && s * 5 <= o) }'
log "nccl without ncclCommInitRankScalable: one id, ncclCommInitRank"
cat >"$GA_TMP/old.yaml" <<'YAML'
schema_version: 1
name: nccl-old-init
description: the cluster communicator on an NCCL before 2.23
probes:
  - name: nccl
    params: {scopes: [cluster], min_bytes: 1024, max_bytes: 1024, warmup_iters: 1, max_iters: 1, ranks_per_unique_id: 4}
YAML
# shellcheck disable=SC2046
timeout 120 mpirun -np 8 --host ga-h1:2,ga-h2:2,ga-h3:2,ga-h4:2 $(fake_mpirun_opts) \
  -x GPUACCEPT_SYSFS_ROOT="$tree" -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NVML_LIBRARY="$fake_nvml" \
  -x GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas" -x GPUACCEPT_NCCL_LIBRARY="$fake_nccl_old" \
  "$GA_BIN" run --suite "$GA_TMP/old.yaml" --out "$GA_TMP/old" --probe-timeout 60 >"$GA_TMP/old.log" 2>&1
log "mpirun exit $? (old NCCL)"
run_output "$GA_TMP/old"
check "old NCCL: nccl probe ok" test "$(status_of nccl)" = ok
check "old NCCL: the 8-rank communicator by ncclCommInitRank from 1 id ($(init_of cluster))" \
  test "$(init_of cluster)" = "ncclCommInitRank/1 "
finish
