#!/usr/bin/env bash
# The command line (CLI11): each command's --help, usage errors that exit 2 and name the flag,
# --version, bare options meaning `run` (what mpirun and srun launch), and the hidden resume
# worker command that bypasses the parser.
source "$(dirname "$0")/lib.sh"

# expect_usage DESCRIPTION PATTERN ARGS...: exit 2, stderr matches PATTERN (grep -E) and gives
# the one-line hint, nothing on stdout.
expect_usage() {
  local what=$1 pattern=$2; shift 2
  "$GA_BIN" "$@" >"$GA_TMP/out" 2>"$GA_TMP/err"
  local rc=$?
  check "$what: exit 2 (got $rc)" [ "$rc" -eq 2 ]
  check "$what: the message says so" grep -qE -- "^gpuaccept: .*$pattern" "$GA_TMP/err"
  check "$what: the hint names a --help" grep -qE -- "^run 'gpuaccept ([a-z]+ )?--help'$" "$GA_TMP/err"
  check "$what: nothing on stdout" test ! -s "$GA_TMP/out"
}
# expect_help DESCRIPTION ARGS... -- WORD...: exit 0, stdout names every WORD
expect_help() {
  local what=$1; shift
  local args=()
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  "$GA_BIN" "${args[@]}" >"$GA_TMP/out" 2>"$GA_TMP/err"
  local rc=$? w
  check "$what: exit 0 (got $rc)" [ "$rc" -eq 0 ]
  for w in "$@"; do check "$what names $w" grep -qF -- "$w" "$GA_TMP/out"; done
}

# ---- help
for h in --help -h help; do
  expect_help "gpuaccept $h" "$h" -- run judge topo list --version
  check "gpuaccept $h hides the resume worker" bash -c '! grep -q resume-worker "$1"' _ "$GA_TMP/out"
done
expect_help "run --help" run --help -- --suite --criteria --expect-topology --out --shared-dir --probe-timeout --set --quiet --verbose
expect_help "judge --help" judge --help -- DIR --criteria
expect_help "topo --help" topo --help -- --input --json
expect_help "list --help" list --help -- "gpuaccept list" --metrics --params
expect_help "help judge" help judge -- DIR --criteria
expect_help "--suite x --help is run's" --suite quick --help -- --probe-timeout

# ---- usage errors
expect_usage "unknown flag to run" "--bogus" run --bogus
expect_usage "unknown flag, no command" "--bogus" --bogus
expect_usage "unknown flag to judge" "--bogus" judge "$GA_TMP" --bogus
expect_usage "unknown flag to topo" "--frob" topo --frob
expect_usage "unknown flag to list" "--bogus" list --bogus
expect_usage "an argument list does not take" "\"extra\"" list extra
expect_usage "unknown command" "frobnicate" frobnicate
expect_usage "missing value of --suite" "--suite needs a value" run --suite
expect_usage "missing value of --out, no command" "--out needs a value" --suite quick --out
expect_usage "missing value of --input" "--input needs a value" topo --input
expect_usage "missing value of judge --criteria" "--criteria needs a value" judge "$GA_TMP" --criteria
expect_usage "--probe-timeout -1" "--probe-timeout needs a positive number of seconds, not \"-1\"" run --probe-timeout -1
expect_usage "--probe-timeout abc" "--probe-timeout needs a positive number of seconds, not \"abc\"" run --probe-timeout abc
expect_usage "--probe-timeout 0" "--probe-timeout needs a positive number of seconds" --probe-timeout 0
expect_usage "judge without a directory" "judge needs the run directory" judge
expect_usage "judge with two directories" "\"b\"" judge a b
check "the hint names the command" grep -qx "run 'gpuaccept judge --help'" "$GA_TMP/err"

# ---- --version: version_text() as it was, and the word `version` prints the same
"$GA_BIN" --version >"$GA_TMP/v1" 2>"$GA_TMP/verr"; rc=$?
check "--version: exit 0" [ "$rc" -eq 0 ]
check "--version: nothing on stderr" test ! -s "$GA_TMP/verr"
want=$(sed -n 's/^project(gpuaccept VERSION \([0-9.]*\).*/\1/p' "$GA_SOURCE_DIR/CMakeLists.txt")
check "--version: first line is gpuaccept $want" [ "$(head -1 "$GA_TMP/v1")" = "gpuaccept $want" ]
check "--version: then MPI, hwloc, CUDA and RDMA, nothing else" \
  [ "$(tail -n +2 "$GA_TMP/v1" | sed 's/:.*//' | tr '\n' ' ')" = "  MPI   hwloc   CUDA   RDMA " ]
"$GA_BIN" version >"$GA_TMP/v2" 2>&1
check "version prints what --version prints" cmp -s "$GA_TMP/v1" "$GA_TMP/v2"

# ---- list
"$GA_BIN" list >"$GA_TMP/list" 2>"$GA_TMP/err"; rc=$?
check "list: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "list: probes and suites" bash -c 'grep -q "^probes:" "$1" && grep -q "^suites:" "$1"' _ "$GA_TMP/list"

# ---- options and no command mean run
"$GA_BIN" --suite no-such-suite >"$GA_TMP/o" 2>&1; rc=$?
check "--suite X without a command is run's: exit 2 for an unknown suite (got $rc)" [ "$rc" -eq 2 ]
check "run's message lists the built-in suites" grep -q "built-in: " "$GA_TMP/o"
# Under mpirun as the launchers and slurm/gpuaccept.sbatch start it: every option reaches the
# run, --set in order (the last hostmem.iterations wins), argv recorded as given (gpuaccept
# launch, which ga_mpirun uses, puts `run` before the options).
out=$GA_TMP/run
ga_mpirun 1 --suite quick --out "$out" --probe-timeout 77.5 --set hostmem.iterations=3 \
  --set hostmem.array_mib=4 --set hostmem.iterations=2 >"$GA_TMP/run.log" 2>&1; rc=$?
check "bare options under mpirun run the quick suite: exit 0 (got $rc)" [ "$rc" -eq 0 ]
start() { jq -c "select(.type==\"run_start\") | $1" "$out/samples.jsonl"; }
check "--probe-timeout reached the run" [ "$(start .probe_timeout_s)" = 77.5 ]
check "--set applied in order" [ "$(start '.suite.probes[] | select(.name=="hostmem") | .params | [.iterations, .array_mib]')" = "[2,4]" ]
check "argv recorded as given" [ "$(jqr "$out/report.json" '.run.argv[1:] | join(" ")')" = \
  "run --suite quick --out $out --probe-timeout 77.5 --set hostmem.iterations=3 --set hostmem.array_mib=4 --set hostmem.iterations=2" ]

# ---- the resume worker's hidden command goes to the worker, not to the parser
"$GA_BIN" resume-worker >"$GA_TMP/o" 2>&1; rc=$?
check "resume-worker without its arguments: the worker's own error (exit $rc)" grep -q "^gpuaccept resume-worker: " "$GA_TMP/o"
check "resume-worker is not an unknown command" bash -c '! grep -q "unknown command" "$1"' _ "$GA_TMP/o"
finish
