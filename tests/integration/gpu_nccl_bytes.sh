#!/usr/bin/env bash
# The fake NCCL's ring all_reduce on the wire: on N fake hosts with one rank each, the bytes
# each host's interfaces send during one all_reduce of SIZE bytes must be the ring's
# 2(N-1)/N x SIZE plus the TCP/IP overhead (headers of the data segments, ACKs of what the
# host receives: 0.14-0.21% on these veths with 16 MiB on an idle machine, up to 1.02% under a
# loaded CI run, where segments coalesce less and more ACKs go out; the bound is 5%, still far
# from any other algorithm: at N=4 the ring sends 1.5 x SIZE, a tree 2 x, through a root 1 x
# or 3 x);
# with --rails 2 the same total splits in halves over eth0 and eth1. The counters are read inside each
# namespace (/proc/net/dev) by the helper itself, around the one collective.
# Args: fake libnccl, the nccl_ring_bytes helper (both built by gpu.cmake).
source "$(dirname "$0")/lib.sh"
fake_nccl=${1:?fake libnccl} helper=${2:?nccl_ring_bytes}
need_fakes "$fake_nccl" "$helper"
n=4 size=$((16 << 20))
expected=$((2 * (n - 1) * size / n))  # per rank

ring() {  # ring NAME: one all_reduce on ga-h1..ga-hN; each rank's line in $GA_TMP/NAME.R
  local name=$1 i pids=() rc=0
  rm -f "$GA_TMP/$name.id"
  for ((i = 0; i < n; i++)); do
    timeout 120 "$GA_FAKEHOSTS" exec "ga-h$((i + 1))" "$helper" "$fake_nccl" "$i" "$n" "$GA_TMP/$name.id" "$size" \
      >"$GA_TMP/$name.$i" 2>"$GA_TMP/$name.$i.err" 9>&- &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || rc=1; done
  return $rc
}
sent() { sed -n "s/.* $2:\([0-9]*\).*/\1/p" "$1"; }  # sent FILE IF -> bytes
within() {  # within BYTES WANT: WANT <= BYTES <= WANT x 1.05
  [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le $(($2 + $2 / 20)) ]
}

log "1. one rail: each host sends 2(n-1)/n x $size = $expected bytes on eth0"
fake_up "$n"
check "the all_reduce ran on $n fake hosts with the right data" ring one
for ((i = 0; i < n; i++)); do
  b=$(sent "$GA_TMP/one.$i" eth0)
  log "ga-h$((i + 1)) eth0 sent $b (overhead $(( (${b:-0} - expected) * 10000 / expected )) / 10000)"
  check "ga-h$((i + 1)) eth0 sent $expected + at most 5% ($b)" within "$b" "$expected"
done

log "2. two rails: half of it on each of eth0 and eth1, and NCCL's INFO lines say so"
"$GA_FAKEHOSTS" up "$n" --rails 2 9>&- || { echo "cannot re-create fake hosts" >&2; exit 1; }
export NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$GA_TMP/nccl.%h.%p.log"
check "the all_reduce ran over 2 rails with the right data" ring two
unset NCCL_DEBUG NCCL_DEBUG_FILE
info=$(cat "$GA_TMP"/nccl.ga-h2.*.log 2>/dev/null)
for want in "NET/Socket : Using \[0\]eth0:10.231.0.2<0> \[1\]eth1:10.231.1.2<0>" "Using network Socket" \
            "Channel 00/0 : 1\[1\] -> 2\[2\] \[send\] via NET/Socket/0" "Channel 01/0 : 1\[1\] -> 2\[2\] \[send\] via NET/Socket/1" \
            "comm 0x[0-9a-f]* rank 1 nranks 4 .* - Init COMPLETE"; do
  check "ga-h2's NCCL log (NCCL_DEBUG_FILE with %h.%p) has: $want" grep -q "^ga-h2:[0-9]*:[0-9]* \[0\] NCCL INFO $want" <<<"$info"
done
for ((i = 0; i < n; i++)); do
  for dev in eth0 eth1; do
    b=$(sent "$GA_TMP/two.$i" "$dev")
    check "ga-h$((i + 1)) $dev sent $((expected / 2)) + at most 5% ($b)" within "$b" $((expected / 2))
  done
done
finish
