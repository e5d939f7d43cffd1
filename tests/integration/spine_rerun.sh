#!/usr/bin/env bash
# A re-test campaign (issue 13 item 5) on 4 fake hosts with the fake GPUs, as an operator runs it:
#   run 1      an Xid on ga-h2/gpu:1 and a PCIe link below its maximum on ga-h3/gpu:0: both hosts
#              are node faults in bad-hosts.txt
#   plan       `gpuaccept rerun-plan run1`: ga-h2 and ga-h3 with one host that passed, the mpirun
#              line running `gpuaccept run --rerun run1`
#   run 2      that line on those hosts, ga-h2 repaired (no fault), ga-h3 not: campaign.json says
#              ga-h2 cleared (the re-test's gpu.xid pass as evidence, which run it comes from),
#              ga-h3 confirmed, ga-h1 or ga-h4 not re-tested and still passing; bad-hosts.txt
#              lists ga-h3 alone over all 4 hosts; `gpuaccept judge run2` writes the same; run 2
#              signed and copied elsewhere, run 1 deleted, verifies (the journal recorded run 1's
#              id, manifest digest and non-passing verdicts); run 1's bad-hosts.txt edited is refused
#   run 3      `--rerun run2` with ga-h3 repaired: nothing left, rerun-plan run3 says so (exit 0),
#              and ga-h3's history has all three runs
# Args: fake libcuda, fake NVML, fake cuBLAS (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1 fake_nvml=$2 fake_cublas=$3
need_fakes "$fake_cuda" "$fake_nvml" "$fake_cublas"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
suite="$GA_TMP/suite.yaml"
cat >"$suite" <<'YAML'
schema_version: 1
name: rerun-gpu-small
description: the gpu probe with small buffers, for re-test campaigns on fake hosts
probes:
  - name: gpu
    params: {hbm_mib: 8, h2d_mib: 2, p2p_mib: 1, gemm_n: 64, iterations: 2, warmup: 1, kernel_log: /proc/self/fd/1000}
YAML
# The built-in criteria without the datasheet ones: a fake GPU is not an H100 (lib.sh).
criteria="$GA_TMP/criteria.yaml"
fake_gpu_criteria "$criteria"

run() {  # run NAME HOSTS FAULTS RUN-ARGS...: one rank per host
  local name=$1 hosts=$2 faults=$3 rc
  shift 3
  # shellcheck disable=SC2046
  timeout 200 mpirun -np "$(tr ',' '\n' <<<"$hosts" | wc -l)" --host "$hosts" $(fake_mpirun_opts) \
    -x GPUACCEPT_SYSFS_ROOT="$tree" -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" -x GPUACCEPT_NVML_LIBRARY="$fake_nvml" \
    -x GPUACCEPT_CUBLAS_LIBRARY="$fake_cublas" -x GA_FAKE_GPU_FAULTS="$faults" \
    "$GA_BIN" run "$@" --criteria "$criteria" --out "$GA_TMP/$name" --probe-timeout 120 >"$GA_TMP/$name.log" 2>&1
  rc=$?
  log "$name: mpirun exit $rc on $hosts"
}
listed() { grep -v '^#' "$GA_TMP/$1/bad-hosts.txt" | cut -f1,2 | tr '\t' ':' | tr '\n' ' ' | sed 's/ $//'; }
judged() { sed -n 's/^# judged: //p' "$GA_TMP/$1/bad-hosts.txt"; }
status() { jq -r ".hosts[] | select(.host==\"$2\") | \"\(.outcome)/\(.status)\"" "$GA_TMP/$1/campaign.json"; }

fake_up 4
run run1 ga-h1,ga-h2,ga-h3,ga-h4 "ga-h2/gpu:1=xid,ga-h3/gpu:0=pcie_gen_low" --suite "$suite"
check "run 1: ga-h2 and ga-h3 are node faults ($(listed run1))" test "$(listed run1)" = "ga-h2:node fault ga-h3:node fault"

plan=$("$GA_BIN" rerun-plan "$GA_TMP/run1" --partners 1 2>&1); rc=$?
log "plan: $plan"
check "rerun-plan: exit 1, a plan" [ $rc -eq 1 ]
hosts=$(sed -n '/^# hostfile:/,/^#/p' <<<"$plan" | grep -v '^#' | paste -sd,)
check "the plan re-tests ga-h2 and ga-h3 with one host that passed ($hosts)" \
  bash -c "[[ '$hosts' == ga-h2,ga-h3,ga-h[14] ]]"
check "its mpirun line runs the campaign" grep -q " gpuaccept run --rerun $GA_TMP/run1\$" <<<"$plan"
partner=${hosts##*,} other=ga-h1
[ "$partner" = ga-h1 ] && other=ga-h4

# The line the plan printed, on the fake hosts: the suite comes from run 1's journal.
run run2 "$hosts" "ga-h3/gpu:0=pcie_gen_low" --rerun "$GA_TMP/run1"
check "run 2 ran run 1's suite" test "$(jq -r 'select(.type=="run_start") | .suite.name' "$GA_TMP/run2/samples.jsonl")" = rerun-gpu-small
check "run 2's journal names the run it re-tests: its id and manifest digest, not only its path" \
  test "$(jq -r 'select(.type=="run_start") | .rerun_of | "\(.run) \(.manifest_sha256) \(.dir)"' "$GA_TMP/run2/samples.jsonl")" = \
       "$(sed -n 's/^# run: //p' "$GA_TMP/run1/bad-hosts.txt") $(sha256sum "$GA_TMP/run1/manifest.json" | cut -d' ' -f1) $GA_TMP/run1"
check "... and copies run 1's non-passing verdicts (ga-h2, ga-h3 node faults, with failed_at)" \
  test "$(jq -r 'select(.type=="run_start") | [.rerun_of.campaign.hosts[] | select(.outcome != "pass") | "\(.host):\(.failed_at | length > 0)"] | join(",")' "$GA_TMP/run2/samples.jsonl")" = "ga-h2:true,ga-h3:true"
check "campaign: ga-h2 cleared ($(status run2 ga-h2))" test "$(status run2 ga-h2)" = "pass/cleared"
check "campaign: ga-h3 confirmed ($(status run2 ga-h3))" test "$(status run2 ga-h3)" = "node fault/confirmed"
check "campaign: the partner $partner passed again ($(status run2 "$partner"))" test "$(status run2 "$partner")" = "pass/passed"
check "campaign: $other, not re-tested, keeps its pass ($(status run2 "$other"))" test "$(status run2 "$other")" = "pass/passed"
ev=$(jq -r '.hosts[] | select(.host=="ga-h2") | .evidence' "$GA_TMP/run2/campaign.json")
run2=$(jq -r '.runs[1].id' "$GA_TMP/run2/campaign.json") run1=$(jq -r '.runs[0].id' "$GA_TMP/run2/campaign.json")
log "ga-h2: $ev"
check "ga-h2's evidence is run 2's gpu.xid pass at ga-h2/gpu:1, and says run 1 had failed it" \
  bash -c "[[ \"\$0\" == '[$run2] passed the re-test: gpu.xid at ga-h2/gpu:1 passed'*'was node fault in $run1 (gpu.xid)' ]]" "$ev"
check "ga-h3's evidence comes from run 2" bash -c "[[ \"\$0\" == '[$run2] gpu.pcie.gen_at_max at ga-h3/gpu:0'* ]]" \
  "$(jq -r '.hosts[] | select(.host=="ga-h3") | .evidence' "$GA_TMP/run2/campaign.json")"
check "bad-hosts.txt of run 2 is the campaign's: ga-h3 alone ($(listed run2))" test "$(listed run2)" = "ga-h3:node fault"
check "... over every host of the campaign ($(judged run2))" test "$(judged run2)" = "ga-h1,ga-h2,ga-h3,ga-h4"
check "campaign.md names the cleared host" grep -q "| ga-h2 | pass | cleared | $run2 |" "$GA_TMP/run2/campaign.md"
cp "$GA_TMP/run2/bad-hosts.txt" "$GA_TMP/bad2.txt"
"$GA_BIN" judge "$GA_TMP/run2" >/dev/null 2>&1
check "gpuaccept judge run2 merges the same campaign" cmp -s "$GA_TMP/bad2.txt" "$GA_TMP/run2/bad-hosts.txt"

# The re-test stands alone (issue 34 item 3): signed, copied elsewhere, the run it re-tests gone.
"$GA_BIN" keygen --out "$GA_TMP/buyer" >/dev/null 2>&1
"$GA_BIN" sign "$GA_TMP/run2" --key "$GA_TMP/buyer.key" >/dev/null 2>&1
check "run 2 signed" test -s "$GA_TMP/run2/signature.dsse.json"
cp -r "$GA_TMP/run1" "$GA_TMP/run1.kept"
cp -r "$GA_TMP/run2" "$GA_TMP/elsewhere" && rm -rf "$GA_TMP/run1"
"$GA_BIN" verify "$GA_TMP/elsewhere" --pubkey "$GA_TMP/buyer.pub" >"$GA_TMP/elsewhere.log" 2>&1; v=$?
check "a copy of the signed re-test, run 1 deleted, verifies: exit 1 as run 2 failed ($v: $(tail -1 "$GA_TMP/elsewhere.log"))" [ "$v" -eq 1 ]
"$GA_BIN" judge "$GA_TMP/elsewhere" >/dev/null 2>&1
check "... and judge of the copy writes the same campaign" cmp -s "$GA_TMP/bad2.txt" "$GA_TMP/elsewhere/bad-hosts.txt"
mv "$GA_TMP/run1.kept" "$GA_TMP/run1"
# A re-test acts on what its run judged: run 1's bad-hosts.txt edited (ga-h3 taken out) is refused.
cp -r "$GA_TMP/run1" "$GA_TMP/run1.edited" && sed -i '/^ga-h3\t/d' "$GA_TMP/run1.edited/bad-hosts.txt"
"$GA_BIN" run --rerun "$GA_TMP/run1.edited" --out "$GA_TMP/never2" >"$GA_TMP/edited.log" 2>&1; rc=$?
check "run --rerun of a run whose bad-hosts.txt was edited: exit 2 ($rc) naming it, no run made" \
  bash -c "[ $rc -eq 2 ] && grep -q 'run1.edited/bad-hosts.txt: not the file its run wrote' '$GA_TMP/edited.log' && [ ! -e '$GA_TMP/never2' ]"

plan=$("$GA_BIN" rerun-plan "$GA_TMP/run2" --partners 1 2>&1)
hosts=$(sed -n '/^# hostfile:/,/^#/p' <<<"$plan" | grep -v '^#' | paste -sd,)
check "rerun-plan run2 re-tests ga-h3 alone, with a partner ($hosts)" bash -c "[[ '$hosts' == ga-h3,ga-h[124] ]]"
run run3 "$hosts" "" --rerun "$GA_TMP/run2"
check "campaign: ga-h3 cleared in run 3 ($(status run3 ga-h3))" test "$(status run3 ga-h3)" = "pass/cleared"
check "bad-hosts.txt of run 3 lists no host" test -z "$(listed run3)"
check "the campaign has 3 runs" test "$(jq '.runs | length' "$GA_TMP/run3/campaign.json")" = 3
check "ga-h3's history has all 3 (node fault, node fault, pass)" \
  test "$(jq -r '[.hosts[] | select(.host=="ga-h3") | .history[].outcome] | join(",")' "$GA_TMP/run3/campaign.json")" = "node fault,node fault,pass"
check "overall PASS" test "$(jq -r .overall "$GA_TMP/run3/campaign.json")" = PASS
"$GA_BIN" rerun-plan "$GA_TMP/run3" >/dev/null 2>&1
check "rerun-plan run3: nothing left to re-test, exit 0" [ $? -eq 0 ]
"$GA_BIN" run --rerun "$GA_TMP/absent" --out "$GA_TMP/never" >"$GA_TMP/absent.log" 2>&1; rc=$?
check "run --rerun of a directory without bad-hosts.txt: exit 2 ($rc), naming it, no run made" \
  bash -c "[ $rc -eq 2 ] && grep -q '$GA_TMP/absent/bad-hosts.txt' '$GA_TMP/absent.log' && [ ! -e '$GA_TMP/never' ]"
finish
