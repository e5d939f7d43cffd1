#!/usr/bin/env bash
# The main job on this host: install what is missing, build, run the default suite under
# mpirun with 4 ranks, print where the report is and its verdict. Exit code: gpuaccept's
# (0 pass, 1 node fault, 2 bad input, 3 incomplete, 4 inconclusive, 5 tool error).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh --target gpuaccept >/dev/null
np=${GPUACCEPT_NP:-4}
out=${1:-gpuaccept-report-$(date +%Y%m%d-%H%M%S)}
# The mpirun line is gpuaccept's own (gpuaccept launch, launchers/launch.hpp): this host, $np
# ranks, no NUMA binding; more ranks than cores (CI, laptops) oversubscribe, and waiting ranks
# yield the core. `gpuaccept launch ... --dry-run` prints the line.
args=(--ranks-per-host "$np" --no-bind)
[ "$np" -gt "$(nproc)" ] && args+=(--oversubscribe)
set +e
build/app/gpuaccept launch "${args[@]}" -- --out "$out"
rc=$?
set -e
if [ -f "$out/report.json" ]; then
  echo "report: $(cd "$out" && pwd)/report.md (and report.json)"
  echo "verdict: $(jq -r .summary.overall "$out/report.json") (exit code $rc)"
fi
exit $rc
