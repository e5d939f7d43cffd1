#!/usr/bin/env bash
# The p2p probe's two ends meet before a measurement's clock starts (probes/p2p/pair_exchange.hpp,
# ExchangeLimits::arrive_s). Two ranks on this host, rank 1 arriving 1.5 s late to each
# exchange (tests/support/pair_meet.cpp), each measurement limited to 1 s:
#   - waited for (meeting wait 5 s): latency and bandwidth both complete. Timed from each end's
#     arrival, as before, both did not: a lag that belongs to the barrier before the phase (on
#     fake hosts, a lossy host's retransmissions) failed pairs the lossy host was not in;
#   - not waited for (meeting wait 0.5 s): neither completes, and the reason says the peer did
#     not arrive, so a peer that never comes is still a pair that did not complete.
# What this proves: the meeting and the limits' order on real MPI (shared memory). What it
# cannot: how late ranks leave a barrier on a real fabric.
source "$(dirname "$0")/lib.sh"

prog=$GA_BUILD_DIR/tests/pair_meet
[ -x "$prog" ] || { echo "missing $prog: build the target pair_meet" >&2; exit 1; }
out=$GA_TMP/meet.txt
# mpirun as `gpuaccept launch` builds it (ga_mpirun), with this program in place of gpuaccept run.
mpirun -np 2 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 --mca btl self,vader,tcp "$prog" \
  >"$out" 2>"$GA_TMP/meet.err"
rc=$?
check "two late-peer runs exit 0 (got $rc; $(tail -3 "$GA_TMP/meet.err" | tr '\n' ' '))" [ "$rc" = 0 ]
cat "$out" >&2
for m in latency bw; do
  check "late peer, $m: measured from the meeting, completed" grep -q "^late-$m completed=1 " "$out"
  check "absent peer, $m: not completed" grep -q "^absent-$m completed=0 " "$out"
  check "absent peer, $m: the reason says the peer did not arrive" \
    grep -q "^absent-$m completed=0 why=peer did not arrive within 0.5" "$out"
done
finish
