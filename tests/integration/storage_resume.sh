#!/usr/bin/env bash
# The storage and resume probes end to end. Usage: storage_resume.sh WHERE MODE
#   WHERE local: 4 ranks on this host under mpirun; fake: 3 fake hosts, one rank each, so that
#         "another host" really is another hostname (same kernel, same filesystem and page
#         cache: this proves the bookkeeping, not a network filesystem's coherence).
#   MODE  clean:   both probes pass; every host reads another host's file; the kill is
#                  recorded (host, SIGKILL, step) and the restart moved every worker;
#         blind:   (fake) ga-h2 is made to look in the wrong place (test hook): storage.visible
#                  fails on ga-h2 and nowhere else;
#         torn:    the newest checkpoint is truncated before the restart: the resume falls
#                  back to the one before, says so, and is still bit-identical;
#         corrupt: one byte flips in the newest checkpoint: same;
#         both:    truncate the newest and flip a byte in the one before: falls back two.
source "$(dirname "$0")/lib.sh"
where=${1:?local or fake}
mode=${2:?clean, blind, torn, corrupt or both}

cat >"$GA_TMP/suite.yaml" <<'YAML'
schema_version: 1
name: storage-resume-test
description: storage and resume, small
probes:
  - name: storage
    params: {file_mib: 8, metadata_files: 100, visibility_wait_s: 2}
  - name: resume
    params: {steps: 120, every: 20, state_kib: 16}
YAML
args=(--suite "$GA_TMP/suite.yaml" --out "$GA_TMP/run" --probe-timeout 120)
case $mode in
  blind) args+=(--set storage.blind_host=ga-h2 --set storage.visibility_wait_s=0.5) ;;
  torn) args+=(--set resume.damage=truncate) ;;
  corrupt) args+=(--set resume.damage=flip) ;;
  both) args+=(--set resume.damage=both) ;;
esac

if [ "$where" = fake ]; then
  N=3
  fake_up $N
  hosts=(ga-h1 ga-h2 ga-h3)
  fake_mpirun $N "${args[@]}" >"$GA_TMP/mpirun.log" 2>&1
else
  N=4
  hosts=("$(hostname -s)")
  ga_mpirun $N "${args[@]}" >"$GA_TMP/mpirun.log" 2>&1
fi
rc=$?
log "mpirun exit code $rc"
run_output "$GA_TMP/run"
check "report written" test -s "$r"

# ---- storage
for h in "${hosts[@]}"; do
  if [ "$mode" = blind ] && [ "$h" = ga-h2 ]; then
    check "$h: storage.visible fails" test "$(verdict storage.visible "$h")" = fail
    check "$h: the reason names the file it could not open" \
      grep -q "cannot open .*blind-test-hook/ckpt-rank" <<<"$(sample storage.visible "$h" '.params.problems[]')"
  else
    check "$h: storage.visible passes" test "$(verdict storage.visible "$h")" = pass
  fi
  for m in storage.write_bw storage.metadata_rate storage.free_space_ratio; do
    check "$h: $m reported" test -n "$(sample "$m" "$h" .value)"
  done
  if [ "$where" = fake ]; then
    check "$h: reads a file written on another host" \
      test "$(sample storage.visible "$h" '.params.reads[0].read_from_host')" != "$h"
  fi
done
check "cluster write throughput reported" test -n "$(sample storage.write_bw cluster .value)"
# report.html's storage plot: a write and a read bar per host, each the value report.json has.
check "report.html draws the storage plot, write and read per host as report.json has them" \
  plot_matches "$GA_TMP/run/report.html" storage '.metrics[] | select((.metric == "storage.write_bw" or .metric == "storage.read_bw") and (.place | contains("/") | not) and .place != "cluster")
    | "\(.place) \(.metric | ltrimstr("storage.") | rtrimstr("_bw")) \(.value)"'

check "storage removed its files" bash -c 'test -d "$1" && test -z "$(ls -d "$1"/gpuaccept-storage-* 2>/dev/null)"' _ "$GA_TMP/run"

# ---- resume
check "resume.identical passes" test "$(verdict resume.identical cluster)" = pass
check "resume.loss_identical passes" test "$(verdict resume.loss_identical cluster)" = pass
check "the kill was a SIGKILL seen by waitpid" test "$(verdict resume.killed_by_sigkill cluster)" = pass
killed=$(sample resume.killed_host cluster .text)
kstep=$(sample resume.kill_step cluster .value)
log "killed worker on $killed at step $kstep; pid $(sample resume.killed_host cluster .params.pid)"
check "the killed process's host is recorded" test "$killed" = "${hosts[$((${#hosts[@]} - 1))]}"
check "the kill step is recorded (default 66 of 120)" test "$kstep" = 66
from=$(sample resume.resumed_from_step cluster .value)
skipped=$(sample resume.resumed_from_step cluster '.params.skipped | length')
why=$(sample resume.resumed_from_step cluster '[.params.skipped[].why] | join("; ")')
log "resumed from step $from; skipped $skipped: $why"
case $mode in
  torn)
    check "falls back one checkpoint" test "$from" = 40
    check "the torn shard is named" grep -q "torn or truncated" <<<"$why"
    check "resume.fallback is 1" test "$(sample resume.fallback cluster .value)" = 1 ;;
  corrupt)
    check "falls back one checkpoint" test "$from" = 40
    check "the corrupted shard is named" grep -q "corrupted" <<<"$why"
    check "resume.fallback is 1" test "$(sample resume.fallback cluster .value)" = 1 ;;
  both)
    check "falls back two checkpoints" test "$from" = 20
    check "both damages are named" bash -c 'grep -q "torn or truncated" <<<"$1" && grep -q corrupted <<<"$1"' _ "$why"
    check "resume.fallback is 1" test "$(sample resume.fallback cluster .value)" = 1 ;;
  *)
    check "resumes from the newest complete checkpoint" test "$from" = 60
    check "resume.fallback is 0" test "$(sample resume.fallback cluster .value)" = 0 ;;
esac
if [ "$where" = fake ]; then
  check "resume.moved_to_other_host passes" test "$(verdict resume.moved_to_other_host cluster)" = pass
  check "every worker resumed on another host" \
    test "$(sample resume.moved_to_other_host cluster '[.params.moves[] | select((.before|split(" ")[0]) == (.after|split(" ")[0]))] | length')" = 0
fi
check "resume removed its files after a clean comparison" bash -c 'test -d "$1" && test -z "$(ls -d "$1"/gpuaccept-resume-* 2>/dev/null)"' _ "$GA_TMP/run"

# ---- the whole run
bad=$(failing)
log "failing verdicts: ${bad:-none}"
if [ "$mode" = blind ]; then
  check "exit code 1" test "$rc" = 1
  check "only ga-h2 fails, only on visibility" test "$bad" = "storage.visible@ga-h2"
else
  check "exit code 0" test "$rc" = 0
  check "no failing verdict" test -z "$bad"
fi
finish
