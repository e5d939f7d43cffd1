#!/usr/bin/env bash
# The clock probe on one host: every field reported, the synchronised verdict agrees with the
# kernel's own flag (read here independently through adjtimex), and a time daemon that never
# answers costs a bounded time instead of hanging the run. A fake chronyc stands in for the
# daemon (tests/data/clock/bin).
source "$(dirname "$0")/lib.sh"
FAKEBIN="$GA_SOURCE_DIR/tests/data/clock/bin"
export GA_FIXTURES

# The kernel's view, read without gpuaccept: STA_UNSYNC is 0x40.
kernel_unsync=$(python3 -c '
import ctypes
class T(ctypes.Structure):
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("pad", ctypes.c_char * 256)]
t = T(); state = ctypes.CDLL(None).adjtimex(ctypes.byref(t))
print(1 if (t.status & 0x40) or state == 5 else 0)')
log "kernel says unsynchronised: $kernel_unsync"

# 1. chrony present and synchronised (fake), real kernel.
out=$GA_TMP/synced
PATH="$FAKEBIN:$PATH" CLOCK_FAKE_CHRONY=synced ga_mpirun 3 --suite clock --out "$out" >"$GA_TMP/synced.log" 2>&1
r=$out/report.json
h=$(hostname -s)
check "report written" test -s "$r"
check "clock.offset passes on the only host" \
  test "$(jqr "$r" "[.verdicts[] | select(.criterion==\"clock.offset\" and .status==\"pass\")] | length")" = 1
off=$(jq -r 'select(.type=="sample" and .metric=="clock.offset") | .value' "$out/samples.jsonl")
check "one clock.offset sample, value 0 (one host is its own median): $off" test "$off" = 0
check "chrony's offset parsed with its sign (slow: negative)" \
  test "$(jq -r 'select(.type=="sample" and .metric=="clock.chrony_offset") | .value' "$out/samples.jsonl")" = "-6.523e-06"
check "daemon is chrony" \
  test "$(jq -r 'select(.type=="sample" and .metric=="clock.daemon") | .text' "$out/samples.jsonl")" = chrony
check "time zone reported" \
  test -n "$(jq -r 'select(.type=="sample" and .metric=="clock.timezone") | .text' "$out/samples.jsonl")"
sync_status=$(jqr "$r" '.verdicts[] | select(.criterion=="clock.synchronized") | .status')
reason=$(jqr "$r" '.metrics[] | select(.metric=="clock.synchronized") | .params.reason')
log "clock.synchronized: $sync_status ($reason)"
if [ "$kernel_unsync" = 1 ]; then
  check "clock.synchronized fails because the kernel says so" test "$sync_status" = fail
  check "the reason names STA_UNSYNC" grep -q STA_UNSYNC <<<"$reason"
  check "the run fails (exit code 1) on an unsynchronised host" grep -q '"overall": *"FAIL"' "$r"
else
  check "clock.synchronized passes with a synchronised kernel and chrony" test "$sync_status" = pass
fi
check "chrony's word is in the reason" grep -q "chrony synchronised to CB00710F" <<<"$reason"

# 2. A chronyc that never answers: bounded, noted, no hang.
out=$GA_TMP/hang
start=$(date +%s)
PATH="$FAKEBIN:$PATH" CLOCK_FAKE_CHRONY=hang timeout 60 \
  mpirun -np 2 --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none --mca btl self,vader,tcp \
  "$GA_BIN" --suite clock --out "$out" >"$GA_TMP/hang.log" 2>&1
took=$(( $(date +%s) - start ))
check "a hanging chronyc does not hang the run (took ${took}s)" test -s "$out/report.json"
reason=$(jqr "$out/report.json" '.metrics[] | select(.metric=="clock.synchronized") | .params.reason')
check "the reason says chronyc was killed: $reason" grep -q "chronyc -n tracking.*did not finish within" <<<"$reason"
check "clock.synchronized is not a pass without the daemon's word" \
  test "$(jqr "$out/report.json" '.verdicts[] | select(.criterion=="clock.synchronized") | .status')" = fail
finish
