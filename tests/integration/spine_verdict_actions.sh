#!/usr/bin/env bash
# Acting on verdicts (issue 31): one table of cases, each the way an operator meets it, each
# asserting the outcome, the exit code, bad-hosts.txt and the Slurm lines (stand-ins for sinfo
# and scontrol log what they are asked; nothing here talks to a real Slurm):
#   health, one process on the fake GPUs:
#     Xid 13, Xid 43 (application buckets)  -> exit 0, a warning naming the Xid, no drain
#     Xid 79, Xid 48 (node buckets)         -> exit 1 naming the GPU
#     --drain, partition at the fleet cap   -> drains nothing, says so, exit 1; --prolog: exit 0
#     --drain, Slurm unreachable            -> drains nothing, exit 2
#   drain on an edited bad-hosts.txt: node[1-4], a,b, a host not in the run -> exit 2 naming the line, nothing run
#   a re-test campaign on 4 fake hosts, no --criteria where an operator gives none:
#     run 1 (a contract's --criteria), an Xid 79 on ga-h2/gpu:1 -> `drain` drains ga-h2 alone
#     re-test with a suite that lacks the gpu probe -> ga-h2 `not re-tested`, still in
#       bad-hosts.txt, `undrain` resumes nothing
#     re-test inheriting run 1's suite and criteria, ga-h2 repaired -> `cleared`, `undrain`
#       resumes ga-h2 alone
# Args: fake libcuda, fake NVML, fake cuBLAS (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nvml=$2 fake_cublas=$3
need_fakes "$fake_cuda" "$fake_nvml" "$fake_cublas"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
host=$(hostname -s)
kmsg=(--set gpu.kernel_log=/proc/self/fd/1000)

# Stand-ins: scontrol logs its argv; sinfo answers the partition question with "gpu" and every
# other with $GA_TMP/sinfo.out ("unreachable" there: exit 1, as sinfo does without slurmctld).
mkdir -p "$GA_TMP/bin"
cat >"$GA_TMP/bin/scontrol" <<EOF
#!/bin/sh
printf '%s|' "\$@" >>"$GA_TMP/scontrol.log"; echo >>"$GA_TMP/scontrol.log"
EOF
cat >"$GA_TMP/bin/sinfo" <<EOF
#!/bin/sh
grep -q '^unreachable' "$GA_TMP/sinfo.out" && { echo 'sinfo: error: Unable to contact slurm controller' >&2; exit 1; }
case "\$*" in *%P*) echo 'gpu*' ;; *) cat "$GA_TMP/sinfo.out" ;; esac
EOF
chmod +x "$GA_TMP/bin/scontrol" "$GA_TMP/bin/sinfo"
export PATH=$GA_TMP/bin:$PATH
scontrol_lines() { [ -e "$GA_TMP/scontrol.log" ] && cat "$GA_TMP/scontrol.log"; }

health() {  # health NAME FAULTS ARGS... -> $GA_TMP/NAME.out, rc
  local name=$1 faults=$2; shift 2
  rm -f "$GA_TMP/scontrol.log"
  GA_FAKE_GPU_FAULTS=$faults GPUACCEPT_SYSFS_ROOT=$tree GPUACCEPT_CUDA_LIBRARY=$fake_cuda GPUACCEPT_NVML_LIBRARY=$fake_nvml \
    timeout 60 "$GA_BIN" health --skip clock "${kmsg[@]}" "$@" >"$GA_TMP/$name.out" 2>"$GA_TMP/$name.err"
  rc=$?
}

log "1. Xids by what the catalogue says they mean"
echo "$host|idle|none" >"$GA_TMP/sinfo.out"
for x in 13 43; do
  health "xid$x" "$host/gpu:1=xid:$x" --drain
  check "Xid $x (an application's): exit 0 (rc $rc)" [ "$rc" -eq 0 ]
  check "Xid $x: a warning at $host/gpu:1 naming it" grep -q "^gpuaccept health: warning: gpu.xid_app at $host/gpu:1: .*Xid $x" "$GA_TMP/xid$x.out"
  check "Xid $x: no node fault" bash -c "! grep -q 'node fault' '$GA_TMP/xid$x.out'"
  check "Xid $x: nothing drained ($(scontrol_lines))" test ! -e "$GA_TMP/scontrol.log"
done
for x in 79 48; do
  health "xid$x" "$host/gpu:1=xid:$x"
  check "Xid $x (the hardware's): exit 1 (rc $rc)" [ "$rc" -eq 1 ]
  check "Xid $x: the node fault names $host/gpu:1 and Xid $x" grep -q "^gpuaccept health: node fault: gpu.xid at $host/gpu:1: .*Xid $x" "$GA_TMP/xid$x.out"
  check "Xid $x: nothing at $host/gpu:0" bash -c "! grep -q '$host/gpu:0' '$GA_TMP/xid$x.out'"
done

log "2. health's fleet cap"
{ echo "$host|idle|none"; for i in 1 2 3 4 5 6 7 8 9; do echo "peer$i|idle|none"; done; } >"$GA_TMP/sinfo.out"
health cap-under "$host/gpu:1=xid" --drain
check "0 of 10 drained: drained, exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "... one drain line for this node ($(scontrol_lines))" \
  [ "$(grep -c "^update|nodename=$host|state=drain|reason=gpuaccept: health: gpu.xid@$host/gpu:1 \[RESTART_BM\]|$" "$GA_TMP/scontrol.log")" = 1 ]
{ echo "$host|idle|none"; echo "peer1|drained|gpuaccept: health: gpu.xid@peer1/gpu:0 [RESTART_BM]";
  for i in 2 3 4 5 6 7 8 9; do echo "peer$i|idle|none"; done; } >"$GA_TMP/sinfo.out"
health cap-over "$host/gpu:1=xid" --drain
check "1 of 10 already drained by gpuaccept (the 0.1 cap): exit 1 (rc $rc)" [ "$rc" -eq 1 ]
check "... nothing drained ($(scontrol_lines))" test ! -e "$GA_TMP/scontrol.log"
check "... and it says why" grep -q "^gpuaccept health: not drained: 1 of the 10 nodes of partition gpu already drained by gpuaccept" "$GA_TMP/cap-over.out"
check "... the fault still named" grep -q "^gpuaccept health: node fault: gpu.xid at $host/gpu:1" "$GA_TMP/cap-over.out"
health cap-prolog "$host/gpu:1=xid" --prolog
check "--prolog over the cap: exit 0, so slurmd drains nothing (rc $rc)" [ "$rc" -eq 0 ]
check "... saying so" grep -q "not drained: .*--prolog: exit 0" "$GA_TMP/cap-prolog.out"
health cap-share "$host/gpu:1=xid" --drain --max-share 0.2
check "--max-share 0.2, 1 of 10 drained: drains (rc $rc)" bash -c "[ $rc -eq 1 ] && grep -q 'state=drain' '$GA_TMP/scontrol.log'"
echo unreachable >"$GA_TMP/sinfo.out"
health cap-down "$host/gpu:1=xid" --drain
check "Slurm unreachable: exit 2 (rc $rc)" [ "$rc" -eq 2 ]
check "... nothing drained ($(scontrol_lines))" test ! -e "$GA_TMP/scontrol.log"
check "... saying why" grep -q "tool error: not drained, Slurm could not say" "$GA_TMP/cap-down.out"

log "3. a re-test campaign on 4 fake hosts"
suite="$GA_TMP/suite.yaml"
cat >"$suite" <<'YAML'
schema_version: 1
name: actions-gpu-small
description: the gpu probe with small buffers, for re-tests on fake hosts
probes:
  - name: gpu
    params: {hbm_mib: 8, h2d_mib: 2, p2p_mib: 1, gemm_n: 64, iterations: 2, warmup: 1, kernel_log: /proc/self/fd/1000}
YAML
narrow="$GA_TMP/narrow.yaml"
cat >"$narrow" <<'YAML'
schema_version: 1
name: actions-no-gpu
description: a re-test suite without the gpu probe
probes:
  - inventory
YAML
# The buyer's contract: the built-in criteria without the datasheet ones (a fake GPU is no H100).
contract="$GA_TMP/contract.yaml"
fake_gpu_criteria "$contract"
mrun() {  # mrun NAME HOSTS FAULTS RUN-ARGS...: one rank per host, the args as a user gives them
  local name=$1 hosts=$2 faults=$3
  shift 3
  # shellcheck disable=SC2046
  timeout 200 mpirun -np "$(tr ',' '\n' <<<"$hosts" | wc -l)" --host "$hosts" $(fake_mpirun_opts) \
    -x GPUACCEPT_SYSFS_ROOT="$tree" -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NVML_LIBRARY="$fake_nvml" \
    -x GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas" -x GA_FAKE_GPU_FAULTS="$faults" \
    "$GA_BIN" run "$@" --out "$GA_TMP/$name" --probe-timeout 120 >"$GA_TMP/$name.log" 2>&1
  rc=$?
  log "$name: mpirun exit $rc on $hosts"
}
listed() { grep -v '^#' "$GA_TMP/$1/bad-hosts.txt" | cut -f1,2 | tr '\t' ':' | tr '\n' ' ' | sed 's/ $//'; }
status() { jq -r ".hosts[] | select(.host==\"$2\") | \"\(.outcome)/\(.status)\"" "$GA_TMP/$1/campaign.json"; }

fake_up 4
mrun run1 ga-h1,ga-h2,ga-h3,ga-h4 "ga-h2/gpu:1=xid" --suite "$suite" --criteria "$contract"
check "run 1: exit 1 ($rc), ga-h2 alone a node fault ($(listed run1))" bash -c "[ $rc -eq 1 ] && [ '$(listed run1)' = 'ga-h2:node fault' ]"
check "run 1: bad-hosts.txt says where ga-h2 failed (failed_at)" \
  test "$(grep '^ga-h2' "$GA_TMP/run1/bad-hosts.txt" | cut -f6)" = "gpu.xid@ga-h2/gpu:1"
rm -f "$GA_TMP/scontrol.log"
"$GA_BIN" drain "$GA_TMP/run1" --apply >"$GA_TMP/drain1.out" 2>&1; rc=$?
check "drain run1 --apply: exit 1, one line, ga-h2's ($(scontrol_lines))" \
  bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$GA_TMP/scontrol.log') = 1 ] && grep -q '^update|nodename=ga-h2|state=drain|reason=gpuaccept: gpu.xid \[RESTART_BM\] (' '$GA_TMP/scontrol.log'"
reason=$(sed -n 's/^update|nodename=ga-h2|state=drain|reason=\(.*\)|$/\1/p' "$GA_TMP/scontrol.log")
{ echo "ga-h1|idle|none"; echo "ga-h2|drained|$reason"; echo "ga-h3|idle|none"; echo "ga-h4|idle|none"; } >"$GA_TMP/sinfo.out"

log "3a. drain checks what it is handed"
for bad in 'node[1-4]' 'ga-h1,ga-h3' 'ga-h9' 'ga-h*'; do
  d="$GA_TMP/edited-$(tr -c 'a-z0-9' _ <<<"$bad")"
  mkdir -p "$d" && cp "$GA_TMP/run1/samples.jsonl" "$d/"
  sed "s/^ga-h2\t/$bad\t/" "$GA_TMP/run1/bad-hosts.txt" >"$d/bad-hosts.txt"
  line=$(grep -vn '^#' "$d/bad-hosts.txt" | head -1 | cut -d: -f1)
  rm -f "$GA_TMP/scontrol.log"
  "$GA_BIN" drain "$d" --apply >"$d.out" 2>&1; rc=$?
  check "drain with host '$bad': exit 2 ($rc), naming bad-hosts.txt:$line" \
    bash -c "[ $rc -eq 2 ] && grep -qF 'bad-hosts.txt:$line: host \"$bad\"' '$d.out'"
  check "... nothing run ($(scontrol_lines))" test ! -e "$GA_TMP/scontrol.log"
done

log "3b. a re-test whose suite lacks the criterion ga-h2 failed"
mrun run2a ga-h2,ga-h1 "" --rerun "$GA_TMP/run1" --suite "$narrow"
check "run 2a inherits run 1's criteria (no --criteria given)" \
  test "$(jq -r 'select(.type=="run_start") | .criteria.text' "$GA_TMP/run2a/samples.jsonl")" = "$(cat "$contract")"
check "campaign: ga-h2 not re-tested ($(status run2a ga-h2))" test "$(status run2a ga-h2)" = "node fault/not re-tested"
check "... its evidence names gpu.xid at ga-h2/gpu:1" \
  grep -q 'no passing verdict of gpu.xid@ga-h2/gpu:1' <(jq -r '.hosts[] | select(.host=="ga-h2") | .evidence' "$GA_TMP/run2a/campaign.json")
check "ga-h2 stays in bad-hosts.txt ($(listed run2a))" test "$(listed run2a)" = "ga-h2:node fault"
rm -f "$GA_TMP/scontrol.log"
"$GA_BIN" undrain "$GA_TMP/run2a" --apply >"$GA_TMP/undrain2a.out" 2>&1; rc=$?
check "undrain run2a: exit 0, resumes nothing (rc $rc; $(scontrol_lines))" bash -c "[ $rc -eq 0 ] && [ ! -e '$GA_TMP/scontrol.log' ]"

log "3c. a re-test inheriting run 1's suite and criteria, ga-h2 repaired"
# The fake NVML writes a host's kernel log only when GA_FAKE_GPU_FAULTS is set; a fault on a
# host outside the run gives ga-h1 and ga-h2 a log without an Xid, so gpu.xid is judged (with
# no log at all the Xids are not read and ga-h2 rightly stays not re-tested, as in 3b).
mrun run2b ga-h2,ga-h1 "ga-h4/gpu:0=xid" --rerun "$GA_TMP/run1"
check "run 2b ran run 1's suite" test "$(jq -r 'select(.type=="run_start") | .suite.name' "$GA_TMP/run2b/samples.jsonl")" = actions-gpu-small
check "run 2b judged by run 1's criteria" \
  test "$(jq -r 'select(.type=="run_start") | .criteria.text' "$GA_TMP/run2b/samples.jsonl")" = "$(cat "$contract")"
check "campaign: ga-h2 cleared ($(status run2b ga-h2))" test "$(status run2b ga-h2)" = "pass/cleared"
check "bad-hosts.txt of run 2b lists no host ($(listed run2b))" test -z "$(listed run2b)"
rm -f "$GA_TMP/scontrol.log"
"$GA_BIN" undrain "$GA_TMP/run2b" --apply >"$GA_TMP/undrain2b.out" 2>&1; rc=$?
check "undrain run2b: exit 1, one line, ga-h2 resumed (rc $rc; $(scontrol_lines))" \
  bash -c "[ $rc -eq 1 ] && [ \"\$(cat '$GA_TMP/scontrol.log')\" = 'update|nodename=ga-h2|state=resume|' ]"
{ echo "ga-h1|drained|someone: fan replaced"; echo "ga-h2|idle|none"; } >"$GA_TMP/sinfo.out"
rm -f "$GA_TMP/scontrol.log"
"$GA_BIN" undrain "$GA_TMP/run2b" --apply >"$GA_TMP/undrain-other.out" 2>&1; rc=$?
check "a drain someone else wrote is never touched (rc $rc)" bash -c "[ $rc -eq 0 ] && [ ! -e '$GA_TMP/scontrol.log' ]"
finish
