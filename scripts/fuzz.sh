#!/usr/bin/env bash
# Fuzzes gpuaccept's loaders at length (issue 35): each target for SECONDS on all cores, under a
# memory limit and a time limit per input, keeping what it finds.
#   scripts/fuzz.sh SECONDS [TARGET...]     # default: all eleven (tests/fuzz/README.md)
#   GA_FUZZ_CORES=1 scripts/fuzz.sh SECONDS TARGET   # one process for this target
# The build is tests/fuzz/run-fuzz.sh's (clang, ASan + UBSan + libFuzzer, -O1 -g so stacks name
# lines) in build-fuzz/, kept between runs: the corpus grows under build-fuzz/corpus/TARGET/ and
# a crashing input lands in build-fuzz/artifacts/TARGET/; copy it to
# tests/fuzz/regressions/TARGET/ with a name that says what it was, and fix the loader.
# Exit: 0 nothing found, 1 a finding, 2 usage, 77 no clang.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-}
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: scripts/fuzz.sh SECONDS [TARGET...]" >&2; exit 2; }
shift
# GA_FUZZ_CORES: fewer processes per target than cores, to fuzz two targets side by side.
cores=${GA_FUZZ_CORES:-$(nproc)}
# libFuzzer's own limits: an input over 1 GiB of memory or 10 s is a finding, not patience;
# -fork runs one fuzzing process per core, all feeding the one corpus.
limits=(-rss_limit_mb=1024 -timeout=10 -fork="$cores" -ignore_crashes=0)
if [ $# -eq 0 ]; then
  exec bash "$src/tests/fuzz/run-fuzz.sh" --all --seconds "$seconds" --jobs "$cores" --flags "-O1 -g" -- "${limits[@]}"
fi
status=0
for t in "$@"; do
  bash "$src/tests/fuzz/run-fuzz.sh" --only "$t" --seconds "$seconds" --jobs "$cores" --flags "-O1 -g" -- "${limits[@]}"
  rc=$?
  [ $rc -eq 77 ] && exit 77
  [ $rc -ne 0 ] && status=1
done
exit $status
