# Shared by the fabric fake-host tests: run the p2p-only suite on N fake hosts and read the
# report. Source after lib.sh.
GA_P2P_SUITE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/fabric" && pwd)/suite-p2p-only.yaml"

# p2p_run NAME [N [PPN [SUITE [ARGS...]]]]: runs SUITE (default: p2p only) on ga-h1..ga-hN
# (default 4) with PPN ranks on each (default 1); the report lands in $GA_TMP/NAME.
# Prints the exit code (0 PASS, 1 FAIL, 3 INCOMPLETE, 4 INCONCLUSIVE).
p2p_run() {
  local name=$1 n=${2:-4} ppn=${3:-1} suite=${4:-$GA_P2P_SUITE} rc hosts i
  shift $(($# < 4 ? $# : 4))
  hosts=$(for ((i = 1; i <= n; i++)); do printf "ga-h%d:%d," "$i" "$ppn"; done)
  # shellcheck disable=SC2046
  timeout 400 mpirun -np $((n * ppn)) --host "${hosts%,}" $(fake_mpirun_opts) "$GA_BIN" \
    --suite "$suite" --out "$GA_TMP/$name" --probe-timeout 120 "$@" >"$GA_TMP/$name.log" 2>&1
  rc=$?
  echo "$rc"
}

# say_why_not_clean DIR RC: where a run meant to be clean did not exit 0, log the verdicts that
# kept it from passing, with their reasons, so that a failure on CI's machine (whose artifacts
# nobody can open) says which criterion and place and what the evidence was.
say_why_not_clean() {
  [ "$2" = 0 ] && return 0
  log "$1 exit $2; its verdicts that are not passes:"
  jq -r '.verdicts[] | select(.outcome != "none" and .severity == "error")
         | "  \(.status) \(.criterion) \(.place): \(.reason[0:600])"' "$1/report.json" >&2 ||
    log "  (no report.json)"
}

# The places of every verdict that fails the run, sorted, one line, comma-separated.
failing_places() {
  jq -r '[.verdicts[] | select(.severity == "error" and .outcome != "none")
          | .place] | unique | join(",")' "$1/report.json"
}

# The reasons of the failing verdicts at PLACE, one per line.
failing_reasons() {
  jq -r --arg p "$2" '.verdicts[] | select(.place == $p and .severity == "error" and .status == "fail") | .reason' \
    "$1/report.json"
}

# `gpuaccept judge DIR` must give the live run's verdicts (the analysis is a pure function).
same_when_rejudged() {
  local dir=$1
  cp -r "$dir" "$dir.rejudged"
  "$GA_BIN" judge "$dir.rejudged" >/dev/null 2>&1
  diff <(jq -c '.verdicts' "$dir/report.json") <(jq -c '.verdicts' "$dir.rejudged/report.json") >/dev/null
}

# The cluster's median bandwidth at 4 MiB in bits per second, from a report (for "a tenth of it").
median_bw_bits() {
  jq -r '[.metrics[] | select(.metric == "p2p.bw_median" and .params.size == 4194304) | .value][0] * 8 | floor' \
    "$1/report.json"
}

# Between scenarios of one test: fresh hosts without faults. fake_up takes the machine-wide
# lock once per test; calling it again would reopen the lock file and queue behind ourselves.
# The lock's descriptor (9) is closed for fakehosts.sh so a fault helper it leaves running
# (nfq_delay) does not hold the lock after the test.
p2p_reset() { "$GA_FAKEHOSTS" up "${1:-4}" 9>&- || { echo "cannot re-create fake hosts" >&2; exit 1; }; }
p2p_fault() { "$GA_FAKEHOSTS" "$@" 9>&- || { echo "cannot inject fault: $*" >&2; exit 1; }; }

# p2p_baseline N: brings up ga-h1..ga-hN and checks that a clean run passes and measures a
# bandwidth; sets `bits` (its median, bit/s) and `tenth` (a tenth of it, for rate limits).
p2p_baseline() {
  local rc
  fake_up "$1"
  rc=$(p2p_run base "$1")
  bits=$(median_bw_bits "$GA_TMP/base")
  check "baseline run passes (exit $rc) and measured a bandwidth ($bits bit/s)" test "$rc" = 0 -a "${bits:-0}" -gt 0
  tenth=$((bits / 10))
}
