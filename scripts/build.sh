#!/usr/bin/env bash
# Configures and builds gpuaccept into ./build (Release; ccache when present). Used by the
# two README commands; a plain `cmake -S . -B build && cmake --build build` does the same.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
cmake --build build -j"$(nproc)" "$@"
