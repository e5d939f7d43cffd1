#!/usr/bin/env bash
# The clock probe on 4 fake hosts, one rank each. Usage: clock_fake_hosts.sh [SKEW HOST]
#   no arguments: no clock is wrong; clock.offset passes everywhere, with offsets and their
#                 uncertainty reported for every host.
#   SKEW HOST:    HOST's rank runs under faketime at SKEW (+5s, +0.005s; faketime reads "+5ms" as
#                 five MINUTES); clock.offset fails on
#                 HOST, with the measured offset, and on no other host. With HOST ga-h1 the
#                 wrong clock is the reference rank's own: the median must still blame ga-h1.
# ga-h3 runs with TZ=Asia/Tokyo whenever a skew is injected: the time zone warning names it.
# --uts first (or CLOCK_HOSTS=uts): the "hosts" are UTS namespaces only (own hostname, shared network and
# shared memory transport): the clock probe cares about host names, not the network, and
# this mode does not need the machine-wide network namespaces of tests/fakehosts.
source "$(dirname "$0")/lib.sh"
mode=${CLOCK_HOSTS:-netns}
if [ "${1:-}" = --uts ]; then mode=uts; shift; fi
skew=${1:-}
bad=${2:-}
N=4
[ "$mode" = netns ] && fake_up $N
ARGS=(--suite clock --out "$GA_TMP/run")

# One MPMD block per host, so each host can carry its own wrapper.
mpmd=()
for ((i = 1; i <= N; i++)); do
  h=ga-h$i
  [ $i -gt 1 ] && mpmd+=(:)
  if [ "$mode" = netns ]; then
    mpmd+=(-np 1 --host "$h")
  else
    mpmd+=(-np 1 unshare --uts sh -c 'hostname "$0"; exec "$@"' "$h")
  fi
  if [ -n "$skew" ] && [ "$h" = "$bad" ]; then
    mpmd+=(env FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f "$skew")
  elif [ -n "$skew" ] && [ "$h" = ga-h3 ]; then
    mpmd+=(env TZ=Asia/Tokyo)
  fi
  mpmd+=("$GA_BIN" "${ARGS[@]}")
done
if [ "$mode" = netns ]; then
  # shellcheck disable=SC2046
  timeout 120 mpirun $(fake_mpirun_opts) "${mpmd[@]}" >"$GA_TMP/mpirun.log" 2>&1
else
  timeout 120 mpirun --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none --mca btl self,vader,tcp \
    "${mpmd[@]}" >"$GA_TMP/mpirun.log" 2>&1
fi
rc=$?
log "mpirun exit code $rc"
run_output "$GA_TMP/run"
check "report written" test -s "$r"

for ((i = 1; i <= N; i++)); do
  h=ga-h$i
  off=$(sample clock.offset "$h" .value)
  unc=$(sample clock.offset "$h" .params.uncertainty)
  log "$h: offset $off s, uncertainty $unc s, clock.offset $(verdict clock.offset "$h")"
  check "$h: an offset and its uncertainty are reported" \
    awk -v o="$off" -v u="$unc" 'BEGIN { exit !(o != "" && u != "" && u + 0 > 0 && u + 0 < 1e-3) }'
  if [ -n "$skew" ] && [ "$h" = "$bad" ]; then
    check "$h: clock.offset fails" test "$(verdict clock.offset "$h")" = fail
    want=$(awk -v s="$skew" 'BEGIN { v = s; sub(/^\+/, "", v); if (v ~ /ms$/) { sub(/ms$/, "", v); v /= 1000 } else sub(/s$/, "", v); print v }')
    check "$h: measured offset $off s is the injected $want s (within 20%)" \
      awk -v o="$off" -v w="$want" 'BEGIN { exit !(o > 0.8 * w && o < 1.2 * w) }'
    val=$(jqr "$r" ".verdicts[] | select(.criterion==\"clock.offset\" and .place==\"$h\") | .value")
    check "$h: the verdict carries the offset (bound $val s)" \
      awk -v v="$val" -v w="$want" 'BEGIN { exit !(v > 0.8 * w && v < 1.2 * w) }'
  else
    check "$h: clock.offset passes" test "$(verdict clock.offset "$h")" = pass
  fi
done
check "clock.offset fails nowhere else" \
  test "$(jqr "$r" "[.verdicts[] | select(.criterion==\"clock.offset\" and .status!=\"pass\" and .place!=\"$bad\")] | length")" = 0
check "four clock.offset verdicts" \
  test "$(jqr "$r" '[.verdicts[] | select(.criterion=="clock.offset")] | length')" = $N

skewv=$(sample clock.max_skew cluster .value)
log "max skew $skewv s between $(sample clock.max_skew cluster .params.fast_host) and $(sample clock.max_skew cluster .params.slow_host)"
if [ -n "$skew" ]; then
  check "the fastest host is $bad" test "$(sample clock.max_skew cluster .params.fast_host)" = "$bad"
  check "clock.timezone warns about ga-h3" \
    test "$(jqr "$r" '[.verdicts[] | select(.criterion=="clock.timezone.majority" and .status=="fail") | .place] | join(",")')" = ga-h3
  check "the time zone warning is only a warning" \
    test "$(jqr "$r" '.verdicts[] | select(.criterion=="clock.timezone.majority" and .place=="ga-h3") | .severity')" = warning
else
  check "max skew under 1 ms without faketime" awk -v s="$skewv" 'BEGIN { exit !(s < 1e-3) }'
  check "one time zone everywhere" \
    test "$(jqr "$r" '[.verdicts[] | select(.criterion=="clock.timezone.majority" and .status!="pass")] | length')" = 0
fi
for ((i = 1; i <= N; i++)); do
  check "ga-h$i: drift reported" test -n "$(sample clock.drift_ppm "ga-h$i" .value)"
  check "ga-h$i: clock.synchronized judged" test -n "$(verdict clock.synchronized "ga-h$i")"
done
finish
