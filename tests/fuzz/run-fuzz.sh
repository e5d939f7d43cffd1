#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in a build tree of their own and fuzzes each one for a
# bounded time, starting from a seed corpus of the repository's own fixtures plus every input
# that once crashed a loader (tests/fuzz/regressions/TARGET/). Exits 1 when a target finds a
# crash (the input is kept under BUILD/artifacts/TARGET/), 77 when clang or libFuzzer is
# missing (ctest's SKIP_RETURN_CODE; scripts/install-deps.sh installs both).
#
#   tests/fuzz/run-fuzz.sh [--seconds N] [--build DIR] [--only TARGET | --all | --more] [--jobs J] [--flags "CXXFLAGS"]
#                          [-- libFuzzer flags]
# --flags: the optimisation of the fuzz build, "-O0" by default, for CI (cold, on 2 cores: 69 s of
# compile against 85 s with -g1 and about 250 s at -O1 -g; a finding's stack still names the
# functions); "-O1 -g" for long local runs (several times the inputs per second, file:line in
# stacks).
#   tests/fuzz/run-fuzz.sh --replay BIN TARGET   # one pass over seeds and regressions (gcc build)
#   tests/fuzz/run-fuzz.sh --seeds TARGET        # the seed files of TARGET
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
targets=(journal criteria suite hwloc_xml nccl_xml nvidia_smi)
# The loaders in ga_reports and ga_probes (tests/fuzz/CMakeLists.txt): fuzzed with --all, --more
# (these five alone: ctest's fuzz.libfuzzer.loaders) or --only.
more_targets=(bad_hosts campaign manifest dsse switch_map)

# The seed corpus of each target: the fixtures it was written to read.
seeds_of() {
  case $1 in
    journal) ls "$src"/tests/data/rejudge/*/samples.jsonl "$src"/tests/data/suites/*.jsonl "$src"/tests/fuzz/seeds/journal/*.jsonl ;;
    criteria) ls "$src"/suites/data/criteria-*.yaml "$src"/tests/data/*/criteria-*.yaml ;;
    suite) ls "$src"/suites/data/suite-*.yaml "$src"/tests/data/*/suite-*.yaml ;;
    hwloc_xml) ls "$src"/tests/data/recorded/hwloc/*.xml ;;
    nccl_xml) ls "$src"/tests/data/recorded/nccl-topo/*.xml ;;
    nvidia_smi) ls "$src"/tests/data/recorded/nvidia-smi-topo/*.txt ;;
    bad_hosts|campaign|manifest|dsse|switch_map) find "$src/tests/fuzz/seeds/$1" -type f ! -name '*.md' | sort ;;
    *) echo "run-fuzz.sh: unknown target $1 (${targets[*]} ${more_targets[*]})" >&2; return 2 ;;
  esac
}

# The seed files of TARGET, one per line (tests/fuzz/make-dicts.py reads them).
if [ "${1:-}" = "--seeds" ]; then seeds_of "$2"; exit; fi

if [ "${1:-}" = "--replay" ]; then
  # The gcc build's check: every seed and every regression input goes through the target's body
  # once, so a fixed crash stays fixed even where clang is absent.
  bin=$2 t=$3
  files=$(seeds_of "$t") || exit 2
  [ -d "$src/tests/fuzz/regressions/$t" ] && files+=$'\n'$(find "$src/tests/fuzz/regressions/$t" -type f ! -name '*.md')
  # shellcheck disable=SC2086
  exec "$bin" $files
fi

seconds=10 build="$src/build-fuzz" only="" jobs=2 flags="-O0" extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --all) targets+=("${more_targets[@]}"); shift ;;
    --more) targets=("${more_targets[@]}"); shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --flags) flags=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run-fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$only" ] && { seeds_of "$only" >/dev/null || exit 2; targets=("$only"); }

cxx=$(command -v clang++ || command -v clang++-14 || true)
cc=$(command -v clang || command -v clang-14 || true)
if [ -z "$cxx" ] || [ -z "$cc" ]; then
  echo "SKIP: no clang++ (scripts/install-deps.sh installs clang and libclang-rt-14-dev)"; exit 77
fi
# libFuzzer's runtime ships apart from the compiler (Debian: libclang-rt-14-dev).
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
     "$cxx" -x c++ -fsanitize=fuzzer,address -o /dev/null - 2>/dev/null; then
  echo "SKIP: $cxx cannot link -fsanitize=fuzzer (libFuzzer runtime missing: libclang-rt-14-dev)"; exit 77
fi

t0=$(date +%s)
# Only the libraries the targets link are built (tests/fuzz/CMakeLists.txt), with a build type of
# their own so that no Release flags creep in, and as a unity build: each library's sources in
# one or two translation units parse nlohmann::json and yaml-cpp once, not per file (measured
# on 2 cores, cold: 115 s of CPU against 158 s).
mkdir -p "$build"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_CXX_FLAGS_FUZZ="$flags" -DCMAKE_C_FLAGS_FUZZ="$flags" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" -DGPUACCEPT_BUILD_FUZZ=ON \
  -DGPUACCEPT_WITH_MPI=OFF -DGPUACCEPT_BUILD_TESTS=OFF -DGPUACCEPT_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; echo "run-fuzz.sh: configure failed"; exit 1; }
fuzzers=()
for t in "${targets[@]}"; do fuzzers+=("fuzz_$t"); done
cmake --build "$build" -j"$jobs" --target "${fuzzers[@]}" >"$build/build.log" 2>&1 ||
  { tail -50 "$build/build.log"; echo "run-fuzz.sh: build failed"; exit 1; }
t1=$(date +%s)
echo "built ${fuzzers[*]} in $((t1 - t0)) s"

status=0
export LSAN_OPTIONS="suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0"
for t in "${targets[@]}"; do
  work=$build/corpus/$t seeds=$build/seeds/$t art=$build/artifacts/$t/
  mkdir -p "$work" "$seeds" "$art"
  rm -f "$seeds"/*
  seeds_of "$t" | while read -r f; do cp "$f" "$seeds/"; done
  dirs=("$work" "$seeds")
  # The format's keys and keywords (tests/fuzz/make-dicts.py): spelt whole, not found byte by byte.
  dict=()
  [ -f "$src/tests/fuzz/dicts/$t.dict" ] && dict=(-dict="$src/tests/fuzz/dicts/$t.dict")
  [ -d "$src/tests/fuzz/regressions/$t" ] && dirs+=("$src/tests/fuzz/regressions/$t")
  # -timeout: one input taking seconds is a finding (exponential parsing), not patience;
  # -rss_limit_mb: so is one that takes gigabytes.
  s=$(date +%s)
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
    -artifact_prefix="$art" -print_final_stats=1 "${dict[@]}" "${extra[@]}" "${dirs[@]}" >"$build/fuzz_$t.log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/fuzz_$t.log" | grep -o '[0-9]*$')
  # With -fork (scripts/fuzz.sh) the final stats are the last "#INPUTS: cov: N ft: M" line's.
  [ -z "$execs" ] && execs=$(grep -oE '^#[0-9]+: cov: [0-9]+ ft: [0-9]+' "$build/fuzz_$t.log" | tail -1 |
    sed -E 's/^#([0-9]+): cov: ([0-9]+) ft: ([0-9]+)/\1 (cov \2, ft \3)/')
  if [ $rc -ne 0 ]; then
    status=1
    echo "FAIL fuzz_$t (exit $rc after $(($(date +%s) - s)) s): crashing input under $art"
    grep -E 'ERROR|SUMMARY|does not name|terminate|what\(\)' "$build/fuzz_$t.log" | head -20
  else
    echo "ok   fuzz_$t: ${execs:-?} inputs in $(($(date +%s) - s)) s"
  fi
done
echo "total $(($(date +%s) - t0)) s"
exit $status
