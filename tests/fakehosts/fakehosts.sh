#!/usr/bin/env bash
# Several "hosts" on one machine: a network namespace each, joined by veth pairs on a bridge,
# each with its own address and (through rsh.sh) its own hostname. mpirun reaches them with
# --mca plm_rsh_agent rsh.sh, so gpuaccept sees N hosts with one rank each.
#
#   fakehosts.sh up N [--rails R]   create ga-h1..ga-hN (10.231.0.1..N), bridge ga-br0 (10.231.0.254);
#                                with --rails R (1..4) each host has R interfaces, eth0..eth(R-1),
#                                rail k on its own bridge ga-brK and subnet 10.231.K.0/24 (host i
#                                is 10.231.K.i there), as a multi-rail GPU node has one NIC per rail
#   fakehosts.sh down            remove them and every fault
#   fakehosts.sh exec HOST CMD   run CMD on HOST (its network and hostname)
#   fakehosts.sh delay HOST MS [JITTER_MS [IF]]   hold every packet HOST sends (NFQUEUE + nfq_delay)
#   fakehosts.sh rate HOST RATE [IF]  limit what HOST sends (tc tbf), e.g. 100mbit
#   fakehosts.sh rate-pair A B RATE   limit only what A sends to B (tc htb + u32 filter)
#   fakehosts.sh loss HOST PCT [IF]   drop PCT% of what HOST sends (iptables statistic)
#   fakehosts.sh loss-in HOST PCT [IF]  drop PCT% of what HOST receives, and nothing it sends
#   fakehosts.sh flap HOST DOWN_S EVERY_S  the carrier of HOST's link lost for DOWN_S seconds every
#                                EVERY_S, from now until `down`: the bridge-side end of its veth set
#                                down and up (its address and routes stay, as with a cable fault)
#   fakehosts.sh hosts N         print ga-h1,...,ga-hN
# IF is the host's interface the fault sits on (default eth0, the only one without --rails):
# eth1 puts it on rail 1 alone.
# Only addresses of these namespaces are ever used (10.231.0.0/24 .. 10.231.3.0/24, made here,
# on this machine).
set -euo pipefail
PREFIX=ga-h
BR=ga-br0
SUBNET=10.231.0
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STATE=/run/gpuaccept-fakehosts
mkdir -p "$STATE"

die() { echo "fakehosts: $*" >&2; exit 2; }
ns() { echo "/run/netns/$1"; }
in_ns() { local h=$1; shift; nsenter --net="$(ns "$h")" "$@"; }
num() { local h=$1; echo "${h#$PREFIX}"; }
# The host-side ends of the veths: gav<i> (rail 0) and gav<i>r<k> (rail k).
VETHS='^gav[0-9]+(r[0-9]+)?$'
check_if() { in_ns "$1" ip link show "$2" >/dev/null 2>&1 || die "$1 has no interface $2"; }
check_host() { [ -e "$(ns "$1")" ] || die "no fake host $1 (run: fakehosts.sh up N)"; }

up() {
  local n=$1 rails=${2:-1} k
  down >/dev/null 2>&1 || true
  # A process still inside a namespace keeps its veth alive after the namespace is deleted;
  # such leftovers would make `ip link add` fail with "File exists".
  for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "$VETHS" || true); do
    ip link delete "$l" 2>/dev/null || true
  done
  ip link add "$BR" type bridge
  ip addr add "$SUBNET.254/24" dev "$BR"
  ip link set "$BR" up
  for ((i = 1; i <= n; i++)); do
    local h=$PREFIX$i
    ip netns add "$h"
    ip link add "gav$i" type veth peer name eth0 netns "$h"
    ip link set "gav$i" master "$BR" up
    in_ns "$h" ip addr add "$SUBNET.$i/24" dev eth0
    in_ns "$h" ip link set eth0 up
    in_ns "$h" ip link set lo up
    # Rail k > 0: its own veth (host side gav<i>r<k>, eth<k> inside) on its own bridge.
    for ((k = 1; k < rails; k++)); do
      if [ "$i" -eq 1 ]; then
        ip link add "ga-br$k" type bridge
        ip addr add "10.231.$k.254/24" dev "ga-br$k"
        ip link set "ga-br$k" up
      fi
      ip link add "gav${i}r$k" type veth peer name "eth$k" netns "$h"
      ip link set "gav${i}r$k" master "ga-br$k" up
      in_ns "$h" ip addr add "10.231.$k.$i/24" dev "eth$k"
      in_ns "$h" ip link set "eth$k" up
    done
    # So that every fake host can resolve every other one (ORTE looks names up).
    grep -q " $h\$" /etc/hosts || echo "$SUBNET.$i $h" >>/etc/hosts
  done
  echo "$n" >"$STATE/count"
  echo "$rails" >"$STATE/rails"
}

down() {
  for f in "$STATE"/flap-*.pid; do
    [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
  for f in "$STATE"/nfq-*.pid; do
    [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
  # Processes left in a namespace (a test killed mid-run) keep it and its veth alive.
  for h in $(ip netns list | awk '{print $1}' | grep "^$PREFIX" || true); do
    for pid in $(ip netns pids "$h" 2>/dev/null || true); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns delete "$h" || true
  done
  for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "$VETHS" || true); do
    ip link delete "$l" 2>/dev/null || true
  done
  for b in "$BR" ga-br1 ga-br2 ga-br3; do ip link delete "$b" 2>/dev/null || true; done
  sed -i "/ $PREFIX[0-9]*\$/d" /etc/hosts
  rm -f "$STATE/count" "$STATE/rails"
}

delay() {
  local h=$1 ms=$2 jitter=${3:-0} dev=${4:-eth0} q tag
  check_host "$h"
  check_if "$h" "$dev"
  # One queue per host and interface: eth0 keeps the host's number, eth<k> adds 100 k.
  q=$(( $(num "$h") + 100 * ${dev#eth} ))
  tag=$h
  [ "$dev" = eth0 ] || tag=$h-$dev
  local bin=${GA_NFQ_DELAY:-$HERE/nfq_delay}
  [ -x "$bin" ] || die "nfq_delay not built (set GA_NFQ_DELAY or build the nfq_delay target)"
  in_ns "$h" iptables -A OUTPUT -o "$dev" -j NFQUEUE --queue-num "$q"
  # nsenter execs the program, so $! is nfq_delay's own pid (a function in the background
  # would give a subshell's).
  nsenter --net="$(ns "$h")" "$bin" "$q" "$ms" "$jitter" >"$STATE/nfq-$tag.log" 2>&1 &
  echo $! >"$STATE/nfq-$tag.pid"
  # Wait until the queue is bound, or packets would be dropped meanwhile.
  for _ in $(seq 50); do grep -q bound "$STATE/nfq-$tag.log" 2>/dev/null && return 0; sleep 0.1; done
  die "nfq_delay did not start on $h ($dev): $(cat "$STATE/nfq-$tag.log")"
}

rate() {
  local dev=${3:-eth0}
  check_host "$1"
  check_if "$1" "$dev"
  in_ns "$1" tc qdisc replace dev "$dev" root tbf rate "$2" burst 32kbit latency 400ms
}

rate_pair() {
  local a=$1 b=$2 r=$3
  check_host "$a"; check_host "$b"
  # Only A -> B goes through the rate limit. HTB passes packets no filter classifies straight
  # through (its direct queue) when the default class does not exist, so everything else
  # leaves unshaped: a default class would cap it instead, and on a fast veth (25 Gbit/s
  # here) A would look slow to every host. (This kernel has no prio qdisc.)
  in_ns "$a" tc qdisc replace dev eth0 root handle 1: htb default 99
  in_ns "$a" tc class replace dev eth0 parent 1: classid 1:20 htb rate "$r" ceil "$r"
  in_ns "$a" tc filter replace dev eth0 protocol ip parent 1: prio 1 u32 match ip dst "$SUBNET.$(num "$b")/32" flowid 1:20
}

# drop HOST PCT CHAIN DIRFLAG IF: PCT% of HOST's packets through CHAIN on IF (iptables statistic).
drop() {
  local h=$1 pct=$2 chain=$3 flag=$4 dev=${5:-eth0} p
  check_host "$h"
  check_if "$h" "$dev"
  p=$(awk -v x="$pct" 'BEGIN { printf "%.4f", x / 100 }')
  in_ns "$h" iptables -A "$chain" "$flag" "$dev" -m statistic --mode random --probability "$p" -j DROP
}
loss() { drop "$1" "$2" OUTPUT -o "${3:-eth0}"; }
loss_in() { drop "$1" "$2" INPUT -i "${3:-eth0}"; }

flap() {
  local h=$1 down_s=$2 every_s=$3 veth
  check_host "$h"
  veth=gav$(num "$h")
  ip link show "$veth" >/dev/null 2>&1 || die "no veth $veth for $h"
  # In the background until `down` kills it; always left up when it stops.
  (
    trap 'ip link set "$veth" up 2>/dev/null; exit 0' TERM INT
    while :; do
      sleep "$(awk -v a="$every_s" -v b="$down_s" 'BEGIN { print a - b }')"
      ip link set "$veth" down
      sleep "$down_s"
      ip link set "$veth" up
    done
  ) >/dev/null 2>&1 9>&- &
  echo $! >"$STATE/flap-$h.pid"
}

hosts() {
  local n=$1 out="" i
  for ((i = 1; i <= n; i++)); do out+="${out:+,}$PREFIX$i"; done
  echo "$out"
}

cmd=${1:-}; shift || true
case "$cmd" in
  up)
    if [ $# -eq 1 ]; then up "$1"
    elif [ $# -eq 3 ] && [ "$2" = --rails ] && [[ "$3" =~ ^[1-4]$ ]]; then up "$1" "$3"
    else die "usage: up N [--rails 1..4]"; fi ;;
  down) down ;;
  exec) h=$1; shift; check_host "$h"; exec nsenter --net="$(ns "$h")" unshare --uts sh -c 'hostname "$0"; exec "$@"' "$h" "$@" ;;
  delay) delay "$@" ;;
  rate) rate "$@" ;;
  rate-pair) rate_pair "$@" ;;
  loss) loss "$@" ;;
  loss-in) loss_in "$@" ;;
  flap) flap "$@" ;;
  hosts) hosts "$1" ;;
  *) die "usage: fakehosts.sh up N [--rails R] | down | exec HOST CMD | delay HOST MS [JITTER [IF]] | rate HOST RATE [IF] | rate-pair A B RATE | loss HOST PCT [IF] | loss-in HOST PCT [IF] | flap HOST DOWN_S EVERY_S | hosts N" ;;
esac
