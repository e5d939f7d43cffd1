#!/usr/bin/env bash
# Every test: install what is missing, build everything, run the unit and integration tests
# (ctest). CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd build
# Integration tests that share the fake hosts or load both cores hold a ctest resource lock,
# so -j2 never runs two of them at once.
ctest --output-on-failure -j2 --timeout 900 "$@"
