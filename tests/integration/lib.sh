# Shared by the integration tests: source it, then call the functions.
# Env (set by ctest): GA_BIN, GA_FIXTURES, GA_SOURCE_DIR, GA_BUILD_DIR.
set -uo pipefail
: "${GA_BIN:?run through ctest, or set GA_BIN to the gpuaccept binary}"
: "${GA_FIXTURES:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/recorded" && pwd)}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# No MCA settings from the caller's environment: each test says what it needs.
unset OMPI_MCA_btl OMPI_MCA_pml

GA_TMP=$(mktemp -d /tmp/ga-test.XXXXXX)
GA_FAILURES=0
cleanup_tmp() { [ "${GA_KEEP:-0}" = 1 ] || rm -rf "$GA_TMP"; }
trap cleanup_tmp EXIT

log() { echo "[test] $*" >&2; }
fail() { echo "FAIL: $*" >&2; GA_FAILURES=$((GA_FAILURES + 1)); }
pass() { echo "ok: $*" >&2; }
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}
finish() {
  if [ "$GA_FAILURES" -eq 0 ]; then echo "all checks passed" >&2; exit 0; fi
  echo "$GA_FAILURES check(s) failed (artifacts kept in $GA_TMP)" >&2
  GA_KEEP=1
  exit 1
}

# mpirun on this host, the line built by `gpuaccept launch` (launchers/) as a user's is:
# oversubscribed 2-core machine, ranks must yield (see ../shared/docs/testing-without-hardware.md),
# no binding, shared memory and TCP. launch execs mpirun, so exit codes and signals are
# mpirun's. Usage: ga_mpirun NP [run] run-args...
ga_mpirun() {
  local np=$1; shift
  "$GA_BIN" launch --ranks-per-host "$np" --oversubscribe --no-bind --mca btl=self,vader,tcp -- "$@"
}

# need_fakes FILE...: the fake GPU libraries a test was given exist, else it stops saying so
need_fakes() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || { echo "missing $f: build the target gpu_fakes" >&2; exit 1; }
  done
}

# jq on a report: jqr FILE FILTER -> prints result
jqr() { jq -r "$2" "$1"; }

# Waits until FILE contains PATTERN (grep -E), up to SECONDS. Returns 1 on timeout.
wait_for() {
  local file=$1 pattern=$2 secs=${3:-30} i
  for ((i = 0; i < secs * 10; i++)); do
    grep -qE "$pattern" "$file" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# pid of RANK from a run directory's journal
rank_pid() { jq -r "select(.type==\"run_start\") | .ranks[] | select(.rank==$2) | .pid" "$1/samples.jsonl"; }

# ---- fake hosts (tests/fakehosts/fakehosts.sh): N network namespaces, one rank each ----
GA_FAKEHOSTS="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fakehosts" && pwd)/fakehosts.sh"
GA_RSH="$(dirname "$GA_FAKEHOSTS")/rsh.sh"
# The delay helper is built by CMake into the build tree.
export GA_NFQ_DELAY="${GA_NFQ_DELAY:-${GA_BUILD_DIR:-}/tests/fakehosts/nfq_delay}"

fake_up() {  # fake_up N [--rails R]: creates ga-h1..ga-hN and removes them when the test exits
  # One set of fake hosts per machine: a second test (another ctest run, another checkout)
  # waits here instead of tearing down the first one's namespaces. The lock is held by a
  # helper process of its own (a descriptor in this shell would be inherited by mpirun's
  # daemons, which can outlive the test), and that helper ends when this shell ends, however
  # it ends (a ctest timeout's SIGKILL included). Calling fake_up again re-creates the hosts
  # under the lock already held.
  if [ -z "${GA_FAKE_LOCK_PID:-}" ]; then
    mkdir -p /run/gpuaccept-fakehosts
    local marker=$GA_TMP/.fakehosts-locked i
    flock -w 900 /run/gpuaccept-fakehosts/lock \
      sh -c 'touch "$0"; while kill -0 "$1" 2>/dev/null; do sleep 0.5; done' "$marker" "$$" \
      </dev/null >/dev/null 2>&1 &
    GA_FAKE_LOCK_PID=$!
    trap 'fake_down; cleanup_tmp' EXIT
    for ((i = 0; i < 9100; i++)); do
      [ -e "$marker" ] && break
      kill -0 "$GA_FAKE_LOCK_PID" 2>/dev/null || { echo "fake hosts busy for 15 minutes" >&2; exit 1; }
      sleep 0.1
    done
  fi
  "$GA_FAKEHOSTS" up "$@" || { echo "cannot create fake hosts" >&2; exit 1; }
}
fake_down() {
  "$GA_FAKEHOSTS" down >/dev/null 2>&1 || true
  if [ -n "${GA_FAKE_LOCK_PID:-}" ]; then
    pkill -P "$GA_FAKE_LOCK_PID" 2>/dev/null
    kill "$GA_FAKE_LOCK_PID" 2>/dev/null
    GA_FAKE_LOCK_PID=
  fi
}
fake() { "$GA_FAKEHOSTS" "$@"; }  # fake delay ga-h3 2 | fake rate ga-h2 100mbit | ...

# mpirun options that reach the fake hosts: their own addresses only, TCP between them, and
# --bind-to none (fake hosts share the real cores).
fake_mpirun_opts() {
  echo "--mca plm_rsh_agent $GA_RSH --mca btl tcp,self --mca btl_tcp_if_include 10.231.0.0/24" \
       "--mca oob_tcp_if_include 10.231.0.0/24 --bind-to none --oversubscribe --mca mpi_yield_when_idle 1"
}
# fake_mpirun N gpuaccept-args...: one rank on each of ga-h1..ga-hN
# (through `gpuaccept launch`, with fake_mpirun_opts' settings as its options)
fake_mpirun() {
  local n=$1; shift
  "$GA_BIN" launch --hosts "$("$GA_FAKEHOSTS" hosts "$n")" --ranks-per-host 1 --oversubscribe --no-bind \
    --mca plm_rsh_agent="$GA_RSH" --mca btl=tcp,self --mca btl_tcp_if_include=10.231.0.0/24 \
    --mca oob_tcp_if_include=10.231.0.0/24 -- "$@"
}
# For per-host wrappers (faketime on one host): build an MPMD command line yourself, e.g.
#   mpirun $(fake_mpirun_opts) -np 3 --host ga-h1,ga-h2,ga-h3 "$GA_BIN" ARGS : \
#          -np 1 --host ga-h4 env FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f +5s "$GA_BIN" ARGS

# Reading one run's output: `run_output DIR` points r at DIR/report.json and j at
# DIR/samples.jsonl; then
#   verdict CRITERION PLACE -> the status of its verdict there ("none" when there is none)
#   sample METRIC PLACE JQ  -> JQ applied to every such sample in the journal
#   failing                 -> "criterion@place" of every fail, missing or error verdict
run_output() { r=$1/report.json; j=$1/samples.jsonl; }
verdict() { jqr "$r" "[.verdicts[] | select(.criterion==\"$1\" and .place==\"$2\") | .status] | first // \"none\""; }
sample() { jq -r "select(.type==\"sample\" and .metric==\"$1\" and .place==\"$2\") | $3" "$j"; }
failing() { jqr "$r" '[.verdicts[] | select(.outcome != "none") | "\(.criterion)@\(.place)"] | join(" ")'; }

# plot_marks HTML PLOT ATTR...: one line per mark (an element with data-place) of
# <svg data-plot="PLOT">, the values of data-ATTR for each ATTR, space-separated; the same
# held against report.json: plot_matches HTML PLOT JQ says whether the marks' "place series
# value" lines equal those JQ prints from report.json (values compared as numbers).
plot_marks() {
  python3 - "$@" <<'PY'
import html.parser, sys
path, plot, attrs = sys.argv[1], sys.argv[2], sys.argv[3:]
class P(html.parser.HTMLParser):
    depth = 0
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "svg" and a.get("data-plot") == plot: self.depth = 1; return
        if self.depth:
            if tag == "svg": self.depth += 1
            if "data-place" in a: print(" ".join(a.get("data-" + k, "-") for k in attrs))
    def handle_endtag(self, tag):
        if self.depth and tag == "svg": self.depth -= 1
P().feed(open(path, encoding="utf-8").read())
PY
}
plot_matches() {
  paste -d' ' <(plot_marks "$1" "$2" place series value | sort) <(jq -r "$3" "$r" | sort) |
    awk 'NF != 6 || $1 != $4 || $2 != $5 || $3 + 0 != $6 + 0 {bad = 1} END {exit bad || NR == 0}'
}

# fake_gpu_criteria OUT: the built-in criteria without the four that hold a GPU against its
# datasheet (gpu.hbm/h2d/d2h/gemm.of_theory): a fake GPU's "HBM" is host memory and its GEMM a
# loop on the shared cores, so against an H100's spec they fail everywhere and say nothing.
fake_gpu_criteria() {
  "$GA_BIN" list --criteria | awk '
    /^  - name: / { drop = $0 ~ /- name: gpu\.(hbm|h2d|d2h|gemm)\.of_theory$/ }
    !drop { print }' >"$1"
}
