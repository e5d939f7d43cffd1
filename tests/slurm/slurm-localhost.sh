#!/usr/bin/env bash
# A real Slurm (slurmctld + slurmd, munge) on this machine, for running gpuaccept under srun.
#   slurm-localhost.sh up               one node: this host
#   slurm-localhost.sh up-fake N [G]    N nodes: the fake hosts ga-h1..ga-hN (made first with
#                                       tests/fakehosts/fakehosts.sh up N), one slurmd inside
#                                       each one's network namespace under its hostname; the
#                                       controller on this host at the bridge's 10.231.0.254;
#                                       with G, each node declares G GPUs as GRES (gres.conf over
#                                       fake device files: Slurm schedules --gpus-per-node on
#                                       them and sets SLURM_GPUS_ON_NODE, as on a GPU node)
#   slurm-localhost.sh down             stop them
# State in /run/gpuaccept-slurm; the configuration is $S/slurm.conf, not /etc/slurm: callers
# export SLURM_CONF=$S/slurm.conf. Settings from ../shared/docs/testing-without-hardware.md: no
# systemd, pmix for Open MPI, proctrack/linuxproc and task/none (no cgroups here), accounting
# off; per-node spool, pid, log and TmpFS (pmix collides otherwise).
set -euo pipefail
S=/run/gpuaccept-slurm
export SLURM_CONF=$S/slurm.conf
host=$(hostname -s)

start_munge() {
  mkdir -p "$S"/{state,log,tmp} /run/munge
  chown munge:munge /run/munge
  [ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
  pgrep -x munged >/dev/null || su -s /bin/sh munge -c "/usr/sbin/munged"
}

# write_conf CONTROLLER NODES [GRESTYPES]: CONTROLLER as SlurmctldHost takes it, NODES the node
# list line, GRESTYPES the GresTypes line's value when nodes declare GRES.
write_conf() {
  local nodes=$2 gres=${3:-}
  cat >"$SLURM_CONF" <<CONF
${gres:+GresTypes=$gres}
ClusterName=gpuaccept
SlurmctldHost=$1
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
SlurmdSpoolDir=$S/spool.%n
TmpFS=$S/tmp/%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.%n.log
$nodes
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
}

wait_idle() {  # wait_idle N: until N nodes are idle
  for _ in $(seq 60); do
    [ "$(sinfo -h -o '%D %T' 2>/dev/null | awk '$2 ~ /idle|mixed/ {n += $1} END {print n + 0}')" -ge "$1" ] && return 0
    sleep 0.5
  done
  echo "slurm did not come up with $1 node(s); see $S/log" >&2
  return 1
}

up() {
  start_munge
  mkdir -p "$S/tmp/$host"
  write_conf "$host" "NodeName=$host CPUs=$(nproc) State=UNKNOWN"
  slurmctld -i
  slurmd
  wait_idle 1
}

up_fake() {
  local n=${1:?how many fake hosts} gpus=${2:-0} i node_gres=""
  for ((i = 1; i <= n; i++)); do
    [ -e /run/netns/ga-h$i ] || { echo "no fake host ga-h$i: run tests/fakehosts/fakehosts.sh up $n first" >&2; exit 2; }
  done
  start_munge
  if [ "$gpus" -gt 0 ]; then
    # Fake device files, character devices like /dev/nvidiaK (the numbers of /dev/null): with
    # task/none and no cgroup device constraint Slurm only counts them and names them in
    # CUDA_VISIBLE_DEVICES; nothing opens them.
    mkdir -p "$S/dev"
    for ((i = 0; i < gpus; i++)); do [ -e "$S/dev/fakegpu$i" ] || mknod "$S/dev/fakegpu$i" c 1 3; done
    printf 'AutoDetect=off\nName=gpu File=%s/dev/fakegpu[0-%d]\n' "$S" $((gpus - 1)) >"$S/gres.conf"
    node_gres=" Gres=gpu:$gpus"
  else
    rm -f "$S/gres.conf"
  fi
  write_conf "$host(10.231.0.254)" "NodeName=ga-h[1-$n] NodeAddr=10.231.0.[1-$n] CPUs=$(nproc)$node_gres State=UNKNOWN" \
    "$([ "$gpus" -gt 0 ] && echo gpu)"
  slurmctld -i
  for ((i = 1; i <= n; i++)); do
    mkdir -p "$S/tmp/ga-h$i"
    # nsenter, not `ip netns exec` (which remounts /sys: slurmd then fails); its own UTS
    # namespace, so slurmd finds itself by the fake host's name. slurmd daemonises and keeps
    # both namespaces alive.
    nsenter --net=/run/netns/ga-h$i unshare --uts sh -c 'hostname "$0"; exec slurmd' "ga-h$i"
  done
  wait_idle "$n"
}

down() {
  for f in "$S"/slurmd*.pid "$S"/slurmctld.pid; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true; done
  sleep 1
  # The next `up` must not inherit nodes or jobs of this one (-i clears jobs, not the nodes' state).
  rm -rf "$S/state" "$S"/spool.* "$S/tmp"
}

case "${1:-}" in
  up) up ;;
  up-fake) up_fake "${2:-}" "${3:-0}" ;;
  down) down ;;
  *) echo "usage: $0 up | up-fake N [GPUS] | down" >&2; exit 2 ;;
esac
