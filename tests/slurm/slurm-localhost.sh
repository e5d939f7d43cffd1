#!/usr/bin/env bash
# A real Slurm (slurmctld + slurmd, munge) on this host, for running gpuaccept under srun.
#   slurm-localhost.sh up          start the daemons (state in /run/gpuaccept-slurm)
#   slurm-localhost.sh down        stop them
# The configuration is $S/slurm.conf, not /etc/slurm: callers export SLURM_CONF=$S/slurm.conf.
# Settings from ../shared/docs/testing-without-hardware.md: no systemd, pmix for Open MPI,
# proctrack/linuxproc and task/none (no cgroups here), accounting off.
set -euo pipefail
S=/run/gpuaccept-slurm
host=$(hostname -s)
up() {
  local cpus=$(nproc)
  mkdir -p "$S"/{spool,state,log} /run/munge
  export SLURM_CONF=$S/slurm.conf
  chown munge:munge /run/munge
  [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
  pgrep -x munged >/dev/null || su -s /bin/sh munge -c "/usr/sbin/munged"
  cat >"$SLURM_CONF" <<CONF
ClusterName=gpuaccept
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
  slurmctld -i
  slurmd
  for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -qE "idle|mixed" && return 0; sleep 0.5; done
  echo "slurm did not come up; see $S/log" >&2
  return 1
}
down() {
  for f in "$S"/slurmd.pid "$S"/slurmctld.pid; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true; done
  sleep 1
}
case "${1:-}" in up) up ;; down) down ;; *) echo "usage: $0 up | down" >&2; exit 2 ;; esac
