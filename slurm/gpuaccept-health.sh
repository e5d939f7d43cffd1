#!/usr/bin/env bash
# gpuaccept health for Slurm (docs/slurm.md has the slurm.conf lines). Slurm runs
# HealthCheckProgram, Prolog and Epilog without arguments, so the mode comes from how it is
# called, the first that applies:
#   --health | --prolog | --epilog as the first argument (by hand, or a wrapper of your own);
#   SLURM_SCRIPT_CONTEXT, which slurmd sets for its Prolog (prolog_slurmd) and Epilog
#   (epilog_slurmd) since Slurm 21.08;
#   this script's name containing "prolog" or "epilog" (a symlink);
#   else the health check.
# What each mode does with gpuaccept health's exit code (0 healthy, 1 a node fault, 2 its own
# failure):
#   health   --drain: gpuaccept drains the node itself with the reason, as NHC does: slurmd
#            acts on nothing a health check says. Exits 0 whatever gpuaccept said (logged):
#            some Slurm releases run HealthCheckProgram at slurmd's start until it exits 0
#            before slurmd registers, and a node that never registers is not drained with a
#            reason but goes DOWN without one.
#   prolog   a node fault exits 1: slurmd drains the node and requeues the job, unless gpuaccept
#   epilog   health --prolog found the partition at its fleet cap (it then exits 0, logged).
#            gpuaccept's own failure (Slurm unreachable for the cap included) is logged and exits
#            0: a tool that breaks must not drain the cluster.
# Every line gpuaccept prints goes to syslog (logger -t gpuaccept-health) when there is one, and
# to stderr.
# Settings, from the environment or the file $GPUACCEPT_HEALTH_CONF (default
# /etc/default/gpuaccept-health, sourced when it exists):
#   GPUACCEPT              the gpuaccept binary (default: gpuaccept on PATH, then /usr/local/bin/gpuaccept)
#   GPUACCEPT_HEALTH_ARGS  more options for gpuaccept health, e.g.
#                          "--expect-topology /etc/gpuaccept/node-topology.xml --timeout 40"
set -u
mode=
case "${1:-}" in
  --health | --prolog | --epilog) mode=${1#--}; shift ;;
esac
if [ -z "$mode" ]; then
  case "${SLURM_SCRIPT_CONTEXT:-}" in
    prolog_slurmd) mode=prolog ;;
    epilog_slurmd) mode=epilog ;;
  esac
fi
if [ -z "$mode" ]; then
  case "$(basename "$0")" in
    *prolog*) mode=prolog ;;
    *epilog*) mode=epilog ;;
    *) mode=health ;;
  esac
fi

conf=${GPUACCEPT_HEALTH_CONF:-/etc/default/gpuaccept-health}
# shellcheck disable=SC1090
[ -r "$conf" ] && . "$conf"
bin=${GPUACCEPT:-$(command -v gpuaccept || echo /usr/local/bin/gpuaccept)}

log() {  # one line to stderr, and to syslog when it listens
  echo "gpuaccept-health ($mode): $*" >&2
  if [ -S /dev/log ] && command -v logger >/dev/null; then logger -t gpuaccept-health -- "($mode) $*"; fi
}

args=()
# Both drain paths hold the fleet cap (health --max-share, 0.1 of the partition by default):
# --drain checks it before it drains; --prolog makes health exit 0 over it, so slurmd, which
# drains on a failed Prolog or Epilog, does not either.
if [ "$mode" = health ]; then args+=(--drain); else args+=(--prolog); fi
# shellcheck disable=SC2206
args+=(${GPUACCEPT_HEALTH_ARGS:-} "$@")

if [ ! -x "$bin" ]; then
  log "cannot run gpuaccept: $bin is not an executable file (set GPUACCEPT)"
  rc=2
else
  out=$("$bin" health "${args[@]}" 2>&1)
  rc=$?
  while IFS= read -r line; do [ -n "$line" ] && log "$line"; done <<<"$out"
fi

case "$rc" in
  0) exit 0 ;;
  1) [ "$mode" = health ] && exit 0; exit 1 ;;
  *)
    log "gpuaccept's own failure (exit $rc), not the node's: the $mode passes"
    exit 0
    ;;
esac
