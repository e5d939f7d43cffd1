#!/usr/bin/env bash
# Installs every Debian package gpuaccept needs to build, run and test.
# Idempotent: packages already present are skipped, so a second run costs ~1 s.
set -euo pipefail
pkgs=(
  build-essential cmake pkg-config
  openmpi-bin libopenmpi-dev
  libhwloc-dev hwloc
  libibverbs-dev ibverbs-utils rdma-core
  nlohmann-json3-dev libyaml-cpp-dev libpugixml-dev libcli11-dev libsodium-dev openssl libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libgoogle-perftools-dev  # tcmalloc_minimal, linked statically (CMakeLists.txt: the allocator)
  clang libclang-rt-14-dev  # the fuzz targets: clang with libFuzzer's runtime (tests/fuzz/)
  faketime iproute2 iptables libnetfilter-queue-dev
  procps util-linux ccache bc jq python3
  slurm-wlm munge
  prometheus
  chromium chromium-driver python3-selenium python3-junitparser
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "gpuaccept: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
