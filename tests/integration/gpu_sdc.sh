#!/usr/bin/env bash
# The sdc probe (silent data corruption found by comparison) on the fake CUDA, whose PTX
# interpreter computes the probe's kernel on the host: one fake host x 2 ranks and 4 fake hosts
# x 2 ranks, each clean and with GA_FAKE_GPU_FAULTS=HOST/gpu:K=sdc (one bit of one element of
# that GPU's second repetition flipped, tests/fakes/fake_gpu_faults.h). The built-in criteria, as
# a user runs them (no --criteria).
#   clean   exit 0; sdc.reference and sdc.own_repetitions pass at every GPU, sdc.majority too
#   fault   exit 1; sdc.reference and sdc.own_repetitions fail at that GPU and nowhere else,
#           the evidence the second repetition, element n/3 and values one bit apart; that host
#           alone in bad-hosts.txt; sdc.majority passes everywhere (the GPU's most common
#           digest is still the right one)
# What the fake proves: the comparisons, the evidence and the place named. Not that a real GPU
# runs the PTX (docs/gpu.md). ~25 s here.
# Args: fake libcuda (built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_cuda=$1
need_fakes "$fake_cuda"
tree="$GA_SOURCE_DIR/tests/data/gpu/sysfs-two-nvidia"
suite="$GA_TMP/suite-sdc.yaml"
# 1 MiB per GPU: 131072 elements, the flipped one 43690.
cat > "$suite" <<'YAML'
schema_version: 1
name: sdc-small
description: the sdc probe on a small buffer, for tests
probes:
  - topology
  - name: sdc
    params: {duration_s: 1, mib: 1}
YAML
check "gpuaccept list shows sdc" sh -c "'$GA_BIN' list | grep -q '^  sdc '"
check "the burn-in suite runs sdc" sh -c "'$GA_BIN' list | grep -q '^  burn-in: .*sdc'"
check "list --metrics shows sdc.mismatched_repetitions" sh -c "'$GA_BIN' list --metrics | grep -q sdc.mismatched_repetitions"
sdc_run() {  # sdc_run OUT HOSTS FAULTS
  local out=$1 hosts=$2 faults=$3
  # shellcheck disable=SC2046
  timeout 120 mpirun -np $((2 * $(echo "$hosts" | tr ',' '\n' | wc -l))) --host "$(echo "$hosts" | sed 's/\([^,]*\)/\1:2/g')" \
    $(fake_mpirun_opts) -x GPUACCEPT_SYSFS_ROOT="$tree" -x GPUACCEPT_CUDA_LIBRARY="$fake_cuda" \
    -x GA_FAKE_GPU_FAULTS="$faults" "$GA_BIN" run --suite "$suite" --out "$out" --probe-timeout 60 >"$out.log" 2>&1
}
bad_hosts() { [ -f "$1/bad-hosts.txt" ] && grep -v '^#' "$1/bad-hosts.txt" | cut -f1 | sort -u | tr '\n' ' ' | sed 's/ $//'; }
fails() { jqr "$r" '[.verdicts[] | select(.status != "pass" and .status != "skipped") | "\(.criterion)@\(.place)"] | sort | join(" ")'; }
passes_of() { jqr "$r" "[.verdicts[] | select(.criterion==\"$1\" and .status==\"pass\")] | length"; }
param() { jqr "$r" ".verdicts[] | select(.criterion==\"sdc.reference\" and .place==\"$1\") | .params.$2"; }

fake_up 4
# An entry for a host not in the run: nothing is faulty.
for shape in "1 ga-h1 ga-h1/gpu:1" "4 ga-h1,ga-h2,ga-h3,ga-h4 ga-h3/gpu:0"; do
  read -r n hosts bad <<<"$shape"
  gpus=$((2 * n)) bad_host=${bad%/*}
  log "$n host(s) x 2 ranks, clean"
  sdc_run "$GA_TMP/clean$n" "$hosts" "ga-h9/gpu:0=sdc"
  rc=$?
  run_output "$GA_TMP/clean$n"
  check "$n clean: exit 0 (rc $rc; not passing: $(fails))" test "$rc" -eq 0
  check "$n clean: sdc ok on every rank" test "$(jq -r 'select(.type=="outcome" and .probe=="sdc") | .status' "$j" | sort -u)" = ok
  for c in sdc.reference sdc.own_repetitions sdc.majority; do
    check "$n clean: $c passes at the $gpus GPUs" test "$(passes_of $c)" -eq "$gpus"
  done
  check "$n clean: no host in bad-hosts.txt" test -z "$(bad_hosts "$GA_TMP/clean$n")"

  log "$n host(s) x 2 ranks, sdc on $bad"
  sdc_run "$GA_TMP/fault$n" "$hosts" "$bad=sdc"
  rc=$?
  run_output "$GA_TMP/fault$n"
  check "$n fault: exit 1 (rc $rc)" test "$rc" -eq 1
  check "$n fault: only $bad fails, on the reference and its own repetitions ($(fails))" \
    test "$(fails)" = "sdc.own_repetitions@$bad sdc.reference@$bad"
  check "$n fault: evidence, the second repetition" test "$(param "$bad" first_repetition)" = 2
  check "$n fault: evidence, element 43690 of 131072" test "$(param "$bad" first_element)" = 43690
  got=$(param "$bad" got) want=$(param "$bad" expected)
  check "$n fault: got $got and expected $want one bit (17) apart" test "$(( got ^ want ))" -eq $((1 << 17))
  check "$n fault: sdc.majority passes at the $gpus GPUs" test "$(passes_of sdc.majority)" -eq "$gpus"
  check "$n fault: $bad_host alone in bad-hosts.txt" test "$(bad_hosts "$GA_TMP/fault$n")" = "$bad_host"
done
finish
