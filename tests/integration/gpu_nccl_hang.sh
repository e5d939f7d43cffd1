#!/usr/bin/env bash
# A hang or a death inside NCCL on 4 fake hosts x 2 ranks (mpirun -np 8, the fake libraries,
# the nccl probe's cluster scope), one scenario per call:
#   never_enter  rank 5 (ga-h3) never enters its 3rd collective (GA_FAKE_NCCL_NEVER_ENTER,
#                tests/fakes/fake_libnccl.c): the others' communicators are aborted before the
#                probe's deadline, the watchdog names rank 5 and ga-h3 alone, exit 3, within
#                the deadline plus the watchdog's grace, report.json written, /dev/shm clean;
#   kill_peer    rank 5 SIGKILLed mid-sweep: the report (rank 0's) names rank 5 and ga-h3;
#   kill_rank0   rank 0 SIGKILLed mid-sweep (as the OOM killer does): the deputy writes the
#                report, naming rank 0 and ga-h1 as lost.
# Args: MODE, fake libcuda, fake NVML, fake cuBLAS, fake NCCL (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
mode=$1 fake_cuda=$2 fake_nvml=$3 fake_cublas=$4 fake_nccl=$5
need_fakes "$fake_cuda" "$fake_nvml" "$fake_cublas" "$fake_nccl"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
suite="$GA_TMP/suite.yaml"
deadline=20
# Sizes up to 4 MiB with many iterations: the sweep runs for most of its time share, so a
# kill 3 s into the probe lands inside a collective.
cat >"$suite" <<'YAML'
schema_version: 1
name: nccl-hang
description: the nccl probe's cluster scope only, small lines, for 4 fake hosts x 2 ranks
probes:
  - name: nccl
    params: {scopes: [cluster], min_bytes: 1024, max_bytes: 4194304, step_factor: 4, warmup_iters: 1, max_iters: 400}
YAML
hook=""
[ "$mode" = never_enter ] && hook="rank:5@3"
out=$GA_TMP/run
fake_up 4
touch "$GA_TMP/.before-run"  # for what the run leaves in /dev/shm
# shellcheck disable=SC2046
timeout 120 mpirun -np 8 --host ga-h1:2,ga-h2:2,ga-h3:2,ga-h4:2 $(fake_mpirun_opts) \
  -x GPUACCEPT_SYSFS_ROOT="$tree" -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NVML_LIBRARY="$fake_nvml" \
  -x GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas" -x GPUACCEPT_NCCL_LIBRARY="$fake_nccl" -x GA_FAKE_NCCL_NEVER_ENTER="$hook" \
  "$GA_BIN" run --suite "$suite" --out "$out" --probe-timeout $deadline >"$GA_TMP/mpirun.log" 2>&1 &
mpirun_pid=$!
wait_for "$out/samples.jsonl" '"probe_begin".*"nccl"|"nccl".*"probe_begin"' 60 || { fail "nccl never began"; finish; }
began=$(date +%s.%N)
case $mode in
  never_enter) victim=5 host=ga-h3 ;;
  kill_peer) victim=5 host=ga-h3 ;;
  kill_rank0) victim=0 host=ga-h1 ;;
  *) echo "unknown mode $mode" >&2; exit 1 ;;
esac
if [ "$mode" != never_enter ]; then
  sleep 3
  kill -KILL "$(rank_pid "$out" "$victim")"
fi
wait "$mpirun_pid"
rc=$?
took=$(echo "$(date +%s.%N) - $began" | bc)
log "mpirun exit $rc, ${took}s after the nccl probe began"
r=$out/report.json
check "report.json exists" test -s "$r"
check "incomplete names exactly rank $victim ($(jqr "$r" '.incomplete.reason' 2>/dev/null))" \
  [ "$(jqr "$r" '[.incomplete.missing_ranks[].rank] | join(",")' 2>/dev/null)" = "$victim" ]
check "incomplete names its host $host" [ "$(jqr "$r" '[.incomplete.missing_ranks[].host] | join(",")' 2>/dev/null)" = "$host" ]
check "the probe in flight was nccl" [ "$(jqr "$r" .incomplete.probe 2>/dev/null)" = nccl ]
check "summary says INCOMPLETE, exit code 3" [ "$(jqr "$r" '.summary.overall + " " + (.summary.exit_code|tostring)' 2>/dev/null)" = "INCOMPLETE 3" ]
if [ "$mode" = never_enter ]; then
  check "exit code 3 (incomplete), got $rc" [ "$rc" -eq 3 ]
  # the deadline, then the ping wait (2 s) and the teardown
  check "ended ${took}s after the probe began, within the deadline ($deadline s) + 10 s" \
    [ "$(echo "$took < $deadline + 10" | bc)" = 1 ]
  check "the waiting ranks are the 7 others" [ "$(jqr "$r" '[.incomplete.waiting_ranks[].rank] | join(",")')" = "0,1,2,3,4,6,7" ]
else
  check "mpirun ends the job after the kill (137), got $rc" [ "$rc" -eq 137 ]
  if [ "$mode" = kill_rank0 ]; then
    check "the deputy (rank 2, ga-h2) announced the report" grep -q "report .*report.md" "$GA_TMP/mpirun.log"
  fi
fi
sleep 1  # mpirun's last processes
left=$(find /dev/shm -mindepth 1 -maxdepth 1 -newer "$GA_TMP/.before-run" ! -name 'vader_segment.*' ! -name 'faketime_shm_*' 2>/dev/null | head -3)
check "nothing left in /dev/shm by the run (${left:-none})" test -z "$left"
finish
