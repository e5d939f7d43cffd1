#!/usr/bin/env bash
# The soak (burn-in suite) on 2 fake hosts x 2 ranks, the fake GPU libraries behind it
# (tests/fakes: a GEMM modelled at 900 TFLOP/s, NCCL over TCP between the namespaces). Fakes
# prove the logic only: which GPU the verdicts name, never a real rate.
#   clean        `--suite burn-in --set soak.duration_s=10`: a soak verdict per GPU for every
#                per-GPU gate, all pass, nothing fails anywhere, no straggler named;
#   faults       one run, three faults each on its own GPU (GA_FAKE_GPU_FAULTS):
#                  slow      ga-h1/gpu:1 (its GEMMs 3x longer): named the straggler, with its
#                            evidence; its compute and throughput gates fail; no other GPU fails
#                  mem_creep ga-h2/gpu:0: the memory gates fail there alone
#                  throttle  ga-h2/gpu:1: soak.throttle fails there alone
#                and every failing verdict of the run is one of these, at its GPU;
#   interrupted  a 60 s soak stopped by SIGINT to mpirun after two intervals (mpirun ends the
#                ranks with SIGTERM): the journal keeps the intervals, rank 0 writes report.json,
#                INCOMPLETE (3) in the soak, its soak gates judged from the journaled intervals;
#   ^C twice     the same, SIGINT twice: Open MPI's mpirun then exits at once ("hit ctrl-c again
#                within 5 seconds to forcibly terminate") while its daemons still end the ranks
#                (SIGCONT, 1 s, SIGTERM, 1 s, SIGKILL); rank 0 writes report.json all the same,
#                within seconds of mpirun's exit.
# The signal goes to mpirun alone, as a terminal's ^C does (the daemons and ranks run in
# process groups of their own). Not through `timeout`: GNU timeout passes a signal on to its
# child and then to its whole process group, so mpirun would get it twice, as in a double ^C.
# The burn-in's sdc probe runs too, on 1 MiB for 1 s a GPU (gpu_sdc.sh tests it).
# The whole test: 38-56 s here (4 runs: a clean 10 s soak, the faults, two interrupted).
# Args: fake libcuda, fake NVML, fake cuBLAS, fake NCCL (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nvml=$2 fake_cublas=$3 fake_nccl=$4
need_fakes "$fake_cuda" "$fake_nvml" "$fake_cublas" "$fake_nccl"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
gpus="ga-h1/gpu:0 ga-h1/gpu:1 ga-h2/gpu:0 ga-h2/gpu:1"
# The fake NVML gives each process its host's fake kernel log at descriptor 1000 (XIDs).
small=(--set soak.kernel_log=/proc/self/fd/1000 --set soak.interval_s=2 --set soak.allreduce_mib=1
       --set soak.h2d_mib=1 --set soak.gemms_per_step=16)
soak_run() {  # soak_run OUT FAULTS TIMEOUT gpuaccept-run-args...
  local out=$1 faults=$2 limit=$3; shift 3
  # shellcheck disable=SC2046
  timeout "$limit" mpirun -np 4 --host ga-h1:2,ga-h2:2 $(fake_mpirun_opts) \
    -x GPUACCEPT_SYSFS_ROOT="$tree" -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NVML_LIBRARY="$fake_nvml" \
    -x GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas" -x GPUACCEPT_NCCL_LIBRARY="$fake_nccl" -x GA_FAKE_GPU_FAULTS="$faults" \
    "$GA_BIN" run --suite burn-in --criteria "$criteria" --out "$out" --set sdc.mib=1 --set sdc.duration_s=1 "$@" \
    >"$out.log" 2>&1
}
# The built-in criteria without the two step-time gates (soak.step.tail, soak.step.drift): on
# the fakes a step is mostly the fake NCCL's TCP between 4 processes on 2 shared cores, whose
# tail (p99 1.3-3x the median, seen here) is this machine's scheduler, not a GPU's; their
# samples are still asserted below.
criteria="$GA_TMP/criteria.yaml"
"$GA_BIN" list --criteria | awk '
  /^  - name: / { drop = $0 ~ /- name: soak\.step\.(tail|drift)$/ }
  !drop { print }' >"$criteria"
# An entry for a host that is not in the run: the fake NVML then writes every host's (empty)
# fake kernel log at descriptor 1000, so the XID rise is read, and nothing is faulty.
no_fault="ga-h9/gpu:0=slow"
fails_of() { jqr "$r" "[.verdicts[] | select(.criterion==\"$1\" and .status==\"fail\") | .place] | sort | join(\" \")"; }
passes_of() { jqr "$r" "[.verdicts[] | select(.criterion==\"$1\" and .status==\"pass\")] | length"; }
per_gpu="soak.throughput soak.memory.vs_median soak.memory.steady soak.compute.vs_median soak.straggler soak.throttle
         soak.ecc.uncorrected soak.temperature soak.xid soak.nvlink.errors"

fake_up 2
log "clean: --suite burn-in --set soak.duration_s=10"
t0=$SECONDS
soak_run "$GA_TMP/clean" "$no_fault" 150 --probe-timeout 60 --set soak.duration_s=10 --set soak.kernel_log=/proc/self/fd/1000
rc=$?
log "clean run: exit $rc after $((SECONDS - t0)) s"
run_output "$GA_TMP/clean"
check "clean: exit 0 (failing: $(failing))" test "$rc" -eq 0
check "clean: soak probe ok on every rank" test "$(jq -r 'select(.type=="outcome" and .probe=="soak") | .status' "$j" | sort -u)" = ok
for c in $per_gpu; do
  check "clean: $c passes at the 4 GPUs" test "$(passes_of "$c")" -eq 4
done
check "clean: no straggler" test "$(sample soak.straggler cluster .text)" = none
check "clean: nothing fails ($(failing))" test -z "$(failing)"
check "clean: the step-time tail is stated per interval" test -n "$(sample soak.step_p99_over_p50 cluster .value)"

log "faults: slow ga-h1/gpu:1, mem_creep ga-h2/gpu:0, throttle ga-h2/gpu:1"
t0=$SECONDS
soak_run "$GA_TMP/faults" "ga-h1/gpu:1=slow,ga-h2/gpu:0=mem_creep,ga-h2/gpu:1=throttle" 150 \
  --probe-timeout 60 --set soak.duration_s=10 "${small[@]}"
rc=$?
log "faults run: exit $rc after $((SECONDS - t0)) s"
run_output "$GA_TMP/faults"
check "faults: exit 1 (a node fault)" test "$rc" -eq 1
check "faults: journaled intervals ($(sample soak.intervals cluster .value | tail -1))" \
  test "$(sample soak.intervals cluster .value | tail -1)" -ge 3
check "faults: the drift is stated from the third interval on" test "$(sample soak.step_drift cluster .iter | head -1)" = 3
check "faults: the straggler is ga-h1/gpu:1 ($(sample soak.straggler cluster .text))" \
  test "$(sample soak.straggler cluster .text)" = ga-h1/gpu:1
for c in soak.straggler soak.compute.vs_median soak.throughput; do
  check "faults: $c fails at ga-h1/gpu:1 alone ($(fails_of $c))" test "$(fails_of $c)" = ga-h1/gpu:1
done
why=$(jqr "$r" '[.verdicts[] | select(.criterion=="soak.straggler" and .status=="fail") | .reason] | first // ""')
log "straggler: $why"
check "faults: the straggler's verdict carries its evidence (rank, compute against the median, intervals, the others' wait)" \
  sh -c 'case "$0" in *"ga-h1/gpu:1 (rank "*"x the median GPU"*" intervals; the other ranks waited for it"*) exit 0;; *) exit 1;; esac' "$why"
for c in soak.memory.vs_median soak.memory.steady; do
  check "faults: $c fails at ga-h2/gpu:0 alone ($(fails_of $c))" test "$(fails_of $c)" = ga-h2/gpu:0
done
check "faults: soak.throttle fails at ga-h2/gpu:1 alone ($(fails_of soak.throttle))" test "$(fails_of soak.throttle)" = ga-h2/gpu:1
want="soak.compute.vs_median@ga-h1/gpu:1 soak.memory.steady@ga-h2/gpu:0 soak.memory.vs_median@ga-h2/gpu:0"
want+=" soak.straggler@ga-h1/gpu:1 soak.throttle@ga-h2/gpu:1 soak.throughput@ga-h1/gpu:1"
got=$(jqr "$r" '[.verdicts[] | select(.outcome != "none") | "\(.criterion)@\(.place)"] | sort | join(" ")')
check "faults: nothing else fails ($got)" test "$got" = "$want"
check "faults: rank 0's live line names the slowest GPU" grep -q "soak: interval .*slowest ga-h1/gpu:1 (compute" "$GA_TMP/faults.log"

# soak_two_intervals OUT: a 60 s soak started in the background (its subshell's pid in $pid),
# back once two intervals are journaled; mpirun_pid PID: the mpirun under that subshell's timeout.
soak_two_intervals() {
  soak_run "$1" "$no_fault" 150 --probe-timeout 120 --set soak.duration_s=60 "${small[@]}" &
  pid=$!
  wait_for "$1/samples.jsonl" '"soak.intervals".*"iter":2|"iter":2.*"soak.intervals"' 90 || fail "no second interval journaled"
}
mpirun_pid() { pgrep -P "$(pgrep -P "$1" -x timeout)" -x mpirun; }

log "interrupted: a 60 s soak, SIGINT to mpirun after 2 intervals"
t0=$SECONDS
out="$GA_TMP/int"
soak_two_intervals "$out"
kill -INT "$(mpirun_pid "$pid")"
wait "$pid"
rc=$?
log "interrupted run: exit $rc after $((SECONDS - t0)) s"
run_output "$out"
check "interrupted: report.json written" test -s "$r"
check "interrupted: the soak did not run its 60 s ($((SECONDS - t0)) s)" test $((SECONDS - t0)) -lt 60
n=$(jq -s '[.[] | select(.type=="sample" and .metric=="soak.intervals")] | length' "$j")
check "interrupted: intervals journaled before the signal ($n)" test "$n" -ge 2
check "interrupted: the report says the run is incomplete, in the soak" test "$(jqr "$r" '.incomplete.probe')" = soak
check "interrupted: the report's exit code is 3 (INCOMPLETE) ($(jqr "$r" .summary.exit_code))" test "$(jqr "$r" .summary.exit_code)" = 3
check "interrupted: nothing fails ($(failing))" test -z "$(failing)"
check "interrupted: soak.throughput judged at the 4 GPUs from the journaled intervals" test "$(passes_of soak.throughput)" -eq 4
check "interrupted: soak.memory.steady judged at the 4 GPUs" test "$(passes_of soak.memory.steady)" -eq 4

log "^C twice: the same soak, SIGINT twice to mpirun after 2 intervals"
t0=$SECONDS
out="$GA_TMP/int2"
soak_two_intervals "$out"
m=$(mpirun_pid "$pid")
kill -INT "$m"
sleep 0.2
kill -INT "$m"
wait "$pid"
rc=$?
log "^C twice: mpirun exit $rc after $((SECONDS - t0)) s"
run_output "$out"
# mpirun is gone; its daemons end the ranks within 2 s, rank 0 writes the report in the first.
check "^C twice: report.json written within 10 s of mpirun's exit" wait_for "$out/manifest.json" . 10
check "^C twice: the report says the run is incomplete, in the soak" test "$(jqr "$r" '.incomplete.probe')" = soak
check "^C twice: nothing fails ($(failing))" test -z "$(failing)"
check "^C twice: soak.throughput judged at the 4 GPUs" test "$(passes_of soak.throughput)" -eq 4
log "gpu_soak: $SECONDS s in all"
finish
