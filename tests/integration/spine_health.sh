#!/usr/bin/env bash
# gpuaccept health (issue 13 item 6) on the fake GPUs of tests/data/gpu/sysfs-two-nvidia, one
# process, no mpirun:
#   healthy fakes                  -> exit 0, one line (the summary), no file left anywhere
#   an XID on gpu:1                -> exit 1, gpu.xid named at HOST/gpu:1 and no other place;
#                                     --out keeps a journal that `gpuaccept judge` re-judges alike;
#                                     --drain asks scontrol (a stand-in) to drain this node;
#                                     healthy, --drain resumes a node only health itself drained
#   a pending row remap and a PCIe
#   link below its maximum on gpu:0 -> exit 1, both named at HOST/gpu:0 (the remap is an error here)
#   GPUs on the bus, no driver     -> exit 1, probe.gpu at HOST
#   no NVIDIA GPU on the bus       -> the GPU check is skipped, exit 0
#   --expect-topology              -> its own lstopo XML passes; a DGX A100's fails, naming the count
#   bad flags and files            -> exit 2; its own --timeout passed -> exit 2, nothing left;
#                                     SIGTERM -> 143, nothing left
#   the clock                      -> fails here exactly when the kernel says unsynchronised
#   slurm/gpuaccept-health.sh      -> prolog: a node fault exits 1, gpuaccept's own failure 0;
#                                     HealthCheckProgram: gpuaccept drains, the wrapper exits 0
# The clock is left out (--skip clock) wherever it is not the subject: this machine runs no
# time daemon, so clock.synchronized fails on it (README).
# Args: fake libcuda (working), fake NVML (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nvml=$2
need_fakes "$fake_cuda" "$fake_nvml"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
host=$(hostname -s)
wrapper="$GA_SOURCE_DIR/slurm/gpuaccept-health.sh"
# The fake NVML gives the process a fake kernel log at descriptor 1000 (tests/fakes/fake_libnvml.c).
kmsg=(--set gpu.kernel_log=/proc/self/fd/1000)
# Every health run below starts in an empty directory with an empty TMPDIR: "nothing written"
# is then both of them still empty.
cwd=$GA_TMP/cwd tmp=$GA_TMP/tmp
mkdir -p "$cwd" "$tmp"
health() {  # health NAME ARGS... -> $GA_TMP/NAME.out (stdout), .err, rc in $rc; env from the caller
  local name=$1; shift
  (cd "$cwd" && TMPDIR=$tmp GPUACCEPT_SYSFS_ROOT=${SYSFS:-$tree} GPUACCEPT_CUDA_LIBRARY=${CUDA:-$fake_cuda} \
    GPUACCEPT_NVML_LIBRARY=${NVML:-$fake_nvml} timeout 60 "$GA_BIN" health "$@" >"$GA_TMP/$name.out" 2>"$GA_TMP/$name.err")
  rc=$?
}
nothing_left() { [ -z "$(ls -A "$cwd")" ] && [ -z "$(ls -A "$tmp")" ]; }
lines_naming() { grep -c -- "$2" "$GA_TMP/$1.out"; }

log "1. healthy fake GPUs"
start=$(date +%s.%N)
health healthy --skip clock "${kmsg[@]}"
secs=$(echo "$(date +%s.%N) - $start" | bc)
check "exit 0 (rc $rc; $(tail -c 300 "$GA_TMP/healthy.err"))" [ "$rc" -eq 0 ]
check "one line, the summary: $(cat "$GA_TMP/healthy.out")" \
  bash -c "[ \$(wc -l <'$GA_TMP/healthy.out') = 1 ] && grep -q '^gpuaccept health: $host healthy (PASS: ' '$GA_TMP/healthy.out'"
check "nothing on stderr" test ! -s "$GA_TMP/healthy.err"
check "no file written without --out (working directory and TMPDIR empty)" nothing_left
check "well under Slurm's 60 s ($secs s)" [ "$(echo "$secs < 20" | bc)" = 1 ]

log "2. an XID on gpu:1"
GA_FAKE_GPU_FAULTS="$host/gpu:1=xid" health xid --skip clock "${kmsg[@]}"
check "exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "gpu.xid named at $host/gpu:1" grep -q "^gpuaccept health: node fault: gpu.xid at $host/gpu:1: " "$GA_TMP/xid.out"
check "no finding at $host/gpu:0" [ "$(lines_naming xid "$host/gpu:0")" = 0 ]
check "one finding and the summary" [ "$(wc -l <"$GA_TMP/xid.out")" = 2 ]
check "the summary says node fault" grep -q "^gpuaccept health: $host node fault (FAIL: " "$GA_TMP/xid.out"
check "no file written" nothing_left

log "2b. the same with --out: the journal and reports stay, and judge agrees"
GA_FAKE_GPU_FAULTS="$host/gpu:1=xid" health xid-out --skip clock "${kmsg[@]}" --out "$GA_TMP/kept"
check "exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "report.json and bad-hosts.txt written" test -s "$GA_TMP/kept/report.json" -a -s "$GA_TMP/kept/bad-hosts.txt"
check "the summary names the report" grep -q "; report $GA_TMP/kept/report.md" "$GA_TMP/xid-out.out"
"$GA_BIN" judge "$GA_TMP/kept" >/dev/null 2>&1
check "gpuaccept judge on it: exit 1 too" [ $? -eq 1 ]
failing_now=$(jqr "$GA_TMP/kept/report.json" '[.verdicts[] | select(.outcome != "none") | "\(.criterion)@\(.place)"] | join(" ")')
check "re-judged by the health criteria: gpu.xid@$host/gpu:1 alone ($failing_now)" [ "$failing_now" = "gpu.xid@$host/gpu:1" ]
check "no GEMM, HBM or bandwidth figure measured (checks: state)" \
  [ "$(jq -r 'select(.type=="sample" and (.metric|test("gemm|hbm_bw|h2d_bw|d2h_bw|p2p_bw"))) | .metric' "$GA_TMP/kept/samples.jsonl" | wc -l)" = 0 ]
check "the PCIe link was read (under the short copy)" \
  [ "$(jq -r 'select(.type=="sample" and .metric=="gpu.pcie_link_gen") | .place' "$GA_TMP/kept/samples.jsonl" | wc -l)" = 2 ]
check "nothing left in TMPDIR" test -z "$(ls -A "$tmp")"

log "2c. --drain, with stand-ins for scontrol (logs its argv) and sinfo (prints sinfo.out)"
mkdir -p "$GA_TMP/bin"
printf '#!/bin/sh\nprintf "%%s|" "$@" >>"%s"; echo >>"%s"\n' "$GA_TMP/scontrol.log" "$GA_TMP/scontrol.log" >"$GA_TMP/bin/scontrol"
# sinfo: the node's partitions (--format=%P) are "gpu", every other question gets sinfo.out.
cat >"$GA_TMP/bin/sinfo" <<EOF
#!/bin/sh
echo "\$*" >>"$GA_TMP/sinfo.log"
case "\$*" in *%P*) echo 'gpu*' ;; *) cat "$GA_TMP/sinfo.out" ;; esac
EOF
chmod +x "$GA_TMP/bin/scontrol" "$GA_TMP/bin/sinfo"
echo "$host|idle|none" >"$GA_TMP/sinfo.out"
PATH=$GA_TMP/bin:$PATH health healthy-drain --skip clock "${kmsg[@]}" --drain
check "healthy with --drain, an idle node: exit 0, scontrol not run" bash -c "[ $rc -eq 0 ] && [ ! -e '$GA_TMP/scontrol.log' ]"
check "sinfo asked about this node alone" grep -q -- "--nodes=$host" "$GA_TMP/sinfo.log"
check "one line, the summary" [ "$(wc -l <"$GA_TMP/healthy-drain.out")" = 1 ]
echo "$host|drained|gpuaccept: contract.hostmem.floor (gpuaccept-report-1)" >"$GA_TMP/sinfo.out"
PATH=$GA_TMP/bin:$PATH health healthy-other --skip clock "${kmsg[@]}" --drain
check "healthy, drained by gpuaccept drain (not health): stays drained" bash -c "[ $rc -eq 0 ] && [ ! -e '$GA_TMP/scontrol.log' ]"
echo "$host|drained|gpuaccept: health: gpu.xid@$host/gpu:1 [RESTART_BM]" >"$GA_TMP/sinfo.out"
PATH=$GA_TMP/bin:$PATH health healthy-own --skip clock "${kmsg[@]}" --drain
check "healthy, drained by an earlier health check: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
check "resumed, once ($(cat "$GA_TMP/scontrol.log" 2>/dev/null))" [ "$(cat "$GA_TMP/scontrol.log")" = "update|nodename=$host|state=resume|" ]
check "the resume is said" grep -q "^gpuaccept health: resumed $host, drained for \"gpuaccept: health: gpu.xid@" "$GA_TMP/healthy-own.out"
rm -f "$GA_TMP/scontrol.log"
GA_FAKE_GPU_FAULTS="$host/gpu:1=xid" PATH=$GA_TMP/bin:$PATH health xid-drain --skip clock "${kmsg[@]}" --drain
check "exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "scontrol drained this node once, with the finding and its Xid action as the reason ($(cat "$GA_TMP/scontrol.log" 2>/dev/null))" \
  [ "$(grep -c "^update|nodename=$host|state=drain|reason=gpuaccept: health: gpu.xid@$host/gpu:1 \[RESTART_BM\]|$" "$GA_TMP/scontrol.log")" = 1 ]
check "the drain is said" grep -q "^gpuaccept health: drained $host: scontrol update nodename=$host" "$GA_TMP/xid-drain.out"
rm -f "$GA_TMP/scontrol.log"
mkdir -p "$GA_TMP/hangbin"
printf '#!/bin/sh\nexec sleep 8 </dev/null >/dev/null 2>&1\n' >"$GA_TMP/hangbin/scontrol"
cp "$GA_TMP/bin/sinfo" "$GA_TMP/hangbin/sinfo"  # the fleet cap's question is answered; the drain hangs
chmod +x "$GA_TMP/hangbin/scontrol"
start=$SECONDS
GA_FAKE_GPU_FAULTS="$host/gpu:1=xid" PATH=$GA_TMP/hangbin:$PATH health xid-hang --skip clock "${kmsg[@]}" --drain --timeout 3
check "scontrol that never returns: still exit 1, the verdict (rc $rc)" [ "$rc" -eq 1 ]
check "within the deadline and a second ($((SECONDS - start)) s)" [ $((SECONDS - start)) -le 5 ]
check "it says scontrol did not return" grep -q "drain: scontrol or sinfo did not return within the --timeout of 3 s" "$GA_TMP/xid-hang.err"
check "no file left" nothing_left
echo "node017|idle|none" >"$GA_TMP/sinfo.out"  # the partition slurmd's node is in, none drained
SLURMD_NODENAME=node017 GA_FAKE_GPU_FAULTS="$host/gpu:1=xid" PATH=$GA_TMP/bin:$PATH health xid-drain2 --skip clock "${kmsg[@]}" --drain
check "the node drained is \$SLURMD_NODENAME when slurmd sets it" grep -q "^update|nodename=node017|state=drain|" "$GA_TMP/scontrol.log"
rm -f "$GA_TMP/scontrol.log"
GA_FAKE_GPU_FAULTS="$host/gpu:1=xid" PATH=$GA_TMP/bin:$PATH health bad-drain --skip clock "${kmsg[@]}" --drain --expect-topology /nonexistent.xml
check "its own failure (a bad file) with --drain: exit 2, scontrol not run" bash -c "[ $rc -eq 2 ] && [ ! -e '$GA_TMP/scontrol.log' ]"

log "3. a pending row remap and a PCIe link below its maximum on gpu:0"
GA_FAKE_GPU_FAULTS="$host/gpu:0=row_remap_pending+pcie_gen_low" health remap --skip clock "${kmsg[@]}"
check "exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "gpu.remap.pending at $host/gpu:0, a node fault here" grep -q "^gpuaccept health: node fault: gpu.remap.pending at $host/gpu:0" "$GA_TMP/remap.out"
check "gpu.pcie.gen_at_max at $host/gpu:0" grep -q "^gpuaccept health: node fault: gpu.pcie.gen_at_max at $host/gpu:0" "$GA_TMP/remap.out"
check "nothing at $host/gpu:1" [ "$(lines_naming remap "$host/gpu:1")" = 0 ]

log "4. NVIDIA GPUs on the PCI bus, no driver and no NVML"
CUDA=/nonexistent/libcuda.so.1 NVML=/nonexistent/libnvidia-ml.so.1 health nodriver --skip clock
check "exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "probe.gpu named at $host" grep -q "^gpuaccept health: node fault: probe.gpu at $host: " "$GA_TMP/nodriver.out"
check "the reason names the missing driver" grep -q "CUDA driver library cannot be loaded" "$GA_TMP/nodriver.out"
check "no file written" nothing_left

log "5. no NVIDIA GPU on the PCI bus"
SYSFS=/nonexistent-root health nogpu --skip clock
check "exit 0 (rc $rc; $(cat "$GA_TMP/nogpu.out"))" [ "$rc" -eq 0 ]

log "5b. --expect-topology: against this machine's own lstopo XML, and against a DGX A100"
lstopo-no-graphics --of xml >"$GA_TMP/self.xml" 2>/dev/null || lstopo --of xml >"$GA_TMP/self.xml"
SYSFS=/nonexistent-root health self --skip clock --expect-topology "$GA_TMP/self.xml"
check "its own topology: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
SYSFS=/nonexistent-root health dgx --skip clock --expect-topology "$GA_FIXTURES/nvidia-smi-topo/nvidia-dgx-a100-8xA100-nv12-12xmlx5-nps4.txt"
check "a DGX A100 expected: exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "topology.expected names the GPU count at $host" \
  grep -q "^gpuaccept health: node fault: topology.expected at $host: topology.gpu_count is 0, not the expected 8" "$GA_TMP/dgx.out"
check "no file written" nothing_left

log "6. bad flags and files: exit 2, nothing written"
for bad in "--nope" "--timeout 0" "--timeout x" "--skip bogus" "--expect-topology /nonexistent.xml" \
           "--set gpu.checks=some" "--set nope.x=1" "--skip inventory --skip topology --skip gpu --skip rdma --skip clock" "extra"; do
  # shellcheck disable=SC2086
  health bad $bad
  check "health $bad: exit 2 (rc $rc: $(head -c 200 "$GA_TMP/bad.err"))" [ "$rc" -eq 2 ]
  check "health $bad: nothing on stdout" test ! -s "$GA_TMP/bad.out"
  check "health $bad: no file" nothing_left
done

log "7. its own deadline: a time daemon that does not answer"
mkdir -p "$GA_TMP/slowbin"
printf '#!/bin/sh\nexec sleep 8 </dev/null >/dev/null 2>&1\n' >"$GA_TMP/slowbin/chronyc"
chmod +x "$GA_TMP/slowbin/chronyc"
start=$SECONDS
PATH=$GA_TMP/slowbin:$PATH health deadline --timeout 2 --set clock.command_timeout_s=6 "${kmsg[@]}"
check "exit 2 (rc $rc)" [ "$rc" -eq 2 ]
check "within the deadline and a second ($((SECONDS - start)) s)" [ $((SECONDS - start)) -le 4 ]
check "it says which phase passed --timeout" grep -q "tool error: clock did not finish within the health check's 2 s (--timeout)" "$GA_TMP/deadline.err"
check "no file left" nothing_left

log "7b. SIGTERM (Slurm ending a check): the temporary directory goes too"
(cd "$cwd" && TMPDIR=$tmp PATH=$GA_TMP/slowbin:$PATH GPUACCEPT_SYSFS_ROOT=$tree GPUACCEPT_CUDA_LIBRARY=$fake_cuda \
  GPUACCEPT_NVML_LIBRARY=$fake_nvml exec "$GA_BIN" health --set clock.command_timeout_s=6 "${kmsg[@]}" \
  >"$GA_TMP/term.out" 2>"$GA_TMP/term.err") &
pid=$!
for ((i = 0; i < 50; i++)); do [ -n "$(ls -A "$tmp")" ] && break; sleep 0.1; done
check "the temporary directory exists while it runs" test -n "$(ls -A "$tmp")"
kill -TERM "$pid"
wait "$pid"
rc=$?
check "exit 143 on SIGTERM (rc $rc)" [ "$rc" -eq 143 ]
check "it says so" grep -q "stopped by SIGTERM" "$GA_TMP/term.err"
check "no file left" nothing_left

log "8. the clock, judged as the kernel says"
kernel_unsync=$(python3 -c '
import ctypes
class T(ctypes.Structure):
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("pad", ctypes.c_char * 256)]
t = T(); state = ctypes.CDLL(None).adjtimex(ctypes.byref(t))
print(1 if (t.status & 0x40) or state == 5 else 0)')
health clock "${kmsg[@]}"
if [ "$kernel_unsync" = 1 ]; then
  check "unsynchronised kernel: exit 1 (rc $rc)" [ "$rc" -eq 1 ]
  check "clock.synchronized named at $host" grep -q "^gpuaccept health: node fault: clock.synchronized at $host: " "$GA_TMP/clock.out"
else
  log "the kernel says synchronised: the verdict depends on the daemon, not asserted (rc $rc)"
fi

log "9. slurm/gpuaccept-health.sh"
wrap() {  # wrap NAME ARGS... -> rc; env from the caller
  local name=$1; shift
  (cd "$cwd" && TMPDIR=$tmp GPUACCEPT="$GA_BIN" GPUACCEPT_HEALTH_CONF=/nonexistent GPUACCEPT_SYSFS_ROOT=$tree \
    GPUACCEPT_CUDA_LIBRARY=$fake_cuda GPUACCEPT_NVML_LIBRARY=$fake_nvml timeout 60 "$wrapper" "$@" \
    >"$GA_TMP/$name.out" 2>"$GA_TMP/$name.err")
  rc=$?
}
GPUACCEPT_HEALTH_ARGS="--skip clock ${kmsg[*]}" wrap w-ok --prolog
check "prolog, healthy: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
echo "$host|idle|none" >"$GA_TMP/sinfo.out"
GA_FAKE_GPU_FAULTS="$host/gpu:1=xid" GPUACCEPT_HEALTH_ARGS="--skip clock ${kmsg[*]}" PATH=$GA_TMP/bin:$PATH wrap w-fault --prolog
check "prolog, a node fault: exit 1 (rc $rc), slurmd drains and requeues" [ "$rc" -eq 1 ]
check "prolog: the finding is logged" grep -q "gpuaccept-health (prolog): gpuaccept health: node fault: gpu.xid at $host/gpu:1" "$GA_TMP/w-fault.err"
GPUACCEPT_HEALTH_ARGS="--nope" wrap w-bad --prolog
check "prolog, gpuaccept's own failure: exit 0 (rc $rc)" [ "$rc" -eq 0 ]
check "prolog: the failure is logged" grep -q "gpuaccept's own failure (exit 2), not the node's: the prolog passes" "$GA_TMP/w-bad.err"
SLURM_SCRIPT_CONTEXT=epilog_slurmd GPUACCEPT_HEALTH_ARGS="--nope" wrap w-epi
check "epilog (SLURM_SCRIPT_CONTEXT), own failure: exit 0 and logged as the epilog" \
  bash -c "[ $rc -eq 0 ] && grep -q 'gpuaccept-health (epilog): ' '$GA_TMP/w-epi.err'"
GA_FAKE_GPU_FAULTS="$host/gpu:1=xid" GPUACCEPT_HEALTH_ARGS="--skip clock ${kmsg[*]}" PATH=$GA_TMP/bin:$PATH wrap w-hc
check "HealthCheckProgram (no arguments), a node fault: exit 0, the drain says it (rc $rc)" [ "$rc" -eq 0 ]
check "HealthCheckProgram: gpuaccept drained the node itself" grep -q "^update|nodename=$host|state=drain|reason=gpuaccept: health: gpu.xid@$host/gpu:1 \[RESTART_BM\]|$" "$GA_TMP/scontrol.log"
check "the wrapper left no file" nothing_left
finish
