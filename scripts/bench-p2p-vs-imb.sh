#!/usr/bin/env bash
# The p2p probe's exchanges against Intel MPI Benchmarks, 2 ranks on this machine (issue 11).
# Each repetition runs ONE invocation of ours (bench/p2p_bench --exchanges: the probe's code at
# its default limits) and ONE of IMB-MPI1 (PingPong and Uniband), alternating, with the same
# mpirun flags; the table gives the median over repetitions of each figure, the median of the
# repetitions' ratios (back-to-back pairs, so the machine's drift cancels), and the best of each
# side over the repetitions (on a shared machine the best is what each reaches when left alone).
#
# What is compared with what (like with like):
#   latency 8 B     our p50 one-way latency (the probe's p2p.latency_p50), and our mean over
#                   all round trips (IMB's statistic)  vs  IMB PingPong t[usec] (half a round trip, a mean)
#                   control: a bare blocking MPI_Send/MPI_Recv loop in our process right after
#                   the probe's (timed as the probe's median and as IMB's mean): what our binary
#                   gets with IMB's own loop
#   ping-pong 4 MiB 4 MiB / our p50 one-way, and / our mean  vs  IMB PingPong Mbytes/sec (bytes / half
#                   a round trip)
#   window 4 MiB    our p2p.bw (windowed)     vs  IMB Uniband Mbytes/sec, -window_size = our window
# (IMB's PingPong bandwidth is a ping-pong, not a window; osu_bw and Uniband are windowed.)
#
# Usage: scripts/bench-p2p-vs-imb.sh [IMB-MPI1]     (or IMB_MPI1=PATH)
#   REPS=7  P2P_BENCH=build/bench/p2p_bench (configure with -DGPUACCEPT_BUILD_BENCH=ON)
#   MEASURE=all | lat8 | pp4m: one measure alone makes each side's run ~3 s (mostly mpirun's
#   start), so many repetitions fit (REPS=60 at lat8, 120 at pp4m: ~6 and ~12 minutes). On this
#   VM one process's 4 MiB figure differs from the next one's by ~10% whatever the program (its
#   buffers' pages), so one pair says little and the interval below needs many.
#   BETWEEN='dd if=/dev/zero of=/dev/null bs=256M count=1' (the default; BETWEEN= for none): run
#   before every run of either side, so neither inherits the other's leftovers. Without it, at
#   4 MiB ours ran 16.8 GB/s right after IMB and 19.7 right after itself (median of 60 each),
#   while IMB ran 17.0-17.7 either way: which program went before moved ours by 17%, far more
#   than the 2% compared. Touching and freeing 256 MiB first, the two sides agreed (0.99).
# The table gives a 95% interval for the median of the ratios (bootstrap over repetitions), and
# that median separately for the repetitions where ours ran first and where IMB did. Turns
# alternate, so the first of a pair follows its own run in the previous pair: "ours 1st" is ours
# after ours against IMB after ours, "IMB 1st" ours after IMB against IMB after IMB.
# Nothing is built or fetched here. To build IMB outside the repository:
#   git clone https://github.com/intel/mpi-benchmarks /tmp/imb && cd /tmp/imb
#   sed -i 's/-g -O0/-g -O2/; s/ -Werror//' src_cpp/Makefile
#   make IMB-MPI1 CC=mpicc CXX=mpicxx CPPFLAGS=-DOMPI_SKIP_MPICXX=1      # -> /tmp/imb/IMB-MPI1
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
imb=${1:-${IMB_MPI1:-}}
ours=${P2P_BENCH:-$root/build/bench/p2p_bench}
reps=${REPS:-7}
measure=${MEASURE:-all}
case $measure in
  all) ours_args=(--exchanges); keys='lat8_p50_us|pp4m_MBps|bw4m_MBps' ;;
  lat8) ours_args=(--exchanges lat8); keys='lat8_p50_us' ;;
  pp4m) ours_args=(--exchanges pp4m); keys='pp4m_MBps' ;;
  *) echo "bench-p2p-vs-imb: MEASURE=$measure: use all, lat8 or pp4m" >&2; exit 2 ;;
esac

how_imb="build it outside the repository: git clone https://github.com/intel/mpi-benchmarks /tmp/imb && cd /tmp/imb && sed -i 's/-g -O0/-g -O2/; s/ -Werror//' src_cpp/Makefile && make IMB-MPI1 CC=mpicc CXX=mpicxx CPPFLAGS=-DOMPI_SKIP_MPICXX=1; then pass /tmp/imb/IMB-MPI1 (argument or IMB_MPI1)"
if [[ -z $imb ]]; then
  echo "bench-p2p-vs-imb: no IMB-MPI1 given; $how_imb" >&2
  exit 2
fi
if [[ ! -x $imb ]]; then
  echo "bench-p2p-vs-imb: $imb is not an executable; $how_imb" >&2
  exit 2
fi
if [[ ! -x $ours ]]; then
  echo "bench-p2p-vs-imb: $ours missing; build it: cmake -B build -DGPUACCEPT_BUILD_BENCH=ON && cmake --build build --target p2p_bench (or set P2P_BENCH)" >&2
  exit 2
fi
command -v mpirun >/dev/null || { echo "bench-p2p-vs-imb: mpirun not found" >&2; exit 2; }

if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# The flags of tests/integration/lib.sh ga_mpirun, both ways.
mpi=(mpirun -np 2 --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none --mca btl self,vader,tcp)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# IMB near the probe's limits: up to 100,000 round trips at 8 B (the probe's max_iters), a
# volume cap of 1000 MiB (250 round trips at 4 MiB, ~0.15 s, near the probe's measure_s 0.2),
# and -time 1, IMB's cap per size (it holds Uniband at 4 MiB to ~1 s).
limits=(-iter 100000,1000 -time 1)
case $measure in
  all)
    printf '8\n4194304\n' >"$work/lengths"
    # Our window at 4 MiB, so Uniband keeps as much in flight.
    window=$("${mpi[@]}" "$ours" --exchanges | tee "$work/warm" | sed -n 's/^bw4m_window=//p')
    [[ -n $window ]] || { echo "bench-p2p-vs-imb: $ours --exchanges printed no window:" >&2; cat "$work/warm" >&2; exit 1; }
    imb_args=(PingPong Uniband -msglen "$work/lengths" -window_size "$window" "${limits[@]}") ;;
  lat8) window=0; printf '8\n' >"$work/lengths"; imb_args=(PingPong -msglen "$work/lengths" "${limits[@]}") ;;
  pp4m) window=0; printf '4194304\n' >"$work/lengths"; imb_args=(PingPong -msglen "$work/lengths" "${limits[@]}") ;;
esac

load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
# Odd repetitions run ours first, even ones IMB first: whatever the first of a pair gains or
# loses (a core's clock, the page cache, the other's leftovers) falls on each side equally.
between=${BETWEEN-dd if=/dev/zero of=/dev/null bs=256M count=1}
settle() { [[ -z $between ]] || bash -c "$between" >/dev/null 2>&1 || { echo "bench-p2p-vs-imb: BETWEEN failed: $between" >&2; exit 1; }; }
run_ours() { settle; "${mpi[@]}" "$ours" "${ours_args[@]}" >"$work/ours.$1"; }
run_imb() { settle; "${mpi[@]}" "$imb" "${imb_args[@]}" >"$work/imb.$1" 2>&1; }
for ((r = 1; r <= reps; r++)); do
  if ((r % 2)); then run_ours "$r"; run_imb "$r"; else run_imb "$r"; run_ours "$r"; fi
  grep -Eq "^($keys)=" "$work/ours.$r" || { echo "bench-p2p-vs-imb: our run $r failed:" >&2; cat "$work/ours.$r" >&2; exit 1; }
  # PingPong rows: bytes reps t[usec] Mbytes/sec; Uniband rows: bytes reps Mbytes/sec Msg/sec.
  awk '/Benchmarking PingPong/ {b = "pp"} /Benchmarking Uniband/ {b = "uni"}
       /^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ *$/ {
         if (b == "pp" && $1 == 8) print "lat8_p50_us=" $3
         if (b == "pp" && $1 == 4194304) print "pp4m_MBps=" $4
         if (b == "uni" && $1 == 4194304) print "bw4m_MBps=" $3 }' "$work/imb.$r" >"$work/imbv.$r"
  [[ $(grep -Ec "^($keys)=" "$work/imbv.$r") == $(tr -cd '|' <<<"$keys" | wc -c | awk '{print $1 + 1}') ]] || { echo "bench-p2p-vs-imb: IMB run $r printed no figures:" >&2; tail -20 "$work/imb.$r" >&2; exit 1; }
  echo "repetition $r/$reps ($( ((r % 2)) && echo "ours first" || echo "IMB first")): ours $(tr '\n' ' ' <"$work/ours.$r")" >&2
  echo "                IMB  $(tr '\n' ' ' <"$work/imbv.$r")" >&2
done

load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
python3 - "$work" "$reps" "$window" "$load0" "$load1" "$between" <<'EOF'
import random, statistics, sys
work, reps, window, load0, load1, between = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
def read(path):
    return {k: float(v) for k, v in (l.strip().split("=", 1) for l in open(path) if "=" in l)}
ours = [read(f"{work}/ours.{r}") for r in range(1, reps + 1)]
imb = [read(f"{work}/imbv.{r}") for r in range(1, reps + 1)]
med = statistics.median
# A 95% interval for the median of the ratios: resample the repetitions (pairs) with
# replacement; a fixed seed, so the same runs print the same interval.
def interval(ratios, draws=4000):
    rng = random.Random(1)
    meds = sorted(med(rng.choices(ratios, k=len(ratios))) for _ in range(draws))
    return meds[int(0.025 * draws)], meds[int(0.975 * draws) - 1]
print(f"p2p probe (bench/p2p_bench --exchanges) vs IMB-MPI1, 2 ranks, {reps} interleaved repetitions; load average {load0} before, {load1} after")
print(f"before every run: {between or 'nothing'}")
print(f"ours: shares_cores={int(ours[0]['shares_cores'])} (0: its bandwidth waits spin)" +
      (f", latency batch {int(ours[0]['lat8_batch'])} round trips" if "lat8_batch" in ours[0] else ""))
print(f"{'measure':<38} {'ours':>10} {'IMB':>10} {'ours/IMB':>9} {'med. ratio':>11} {'95% interval':>14} {'ours 1st':>9} {'IMB 1st':>8} {'best/best':>10}")
rows = [("latency 8 B p50, us (PingPong t)", "lat8_p50_us", "lat8_p50_us"),
        ("latency 8 B mean, us (PingPong t)", "lat8_mean_us", "lat8_p50_us"),
        ("control: bare loop p50, us", "lat8_bare_p50_us", "lat8_p50_us"),
        ("control: bare loop mean, us", "lat8_bare_mean_us", "lat8_p50_us"),
        ("ping-pong 4 MiB p50, MB/s (PingPong)", "pp4m_MBps", "pp4m_MBps"),
        ("ping-pong 4 MiB mean, MB/s (PingPong)", "pp4m_mean_MBps", "pp4m_MBps"),
        (f"window 4 MiB x{window}, MB/s (Uniband)", "bw4m_MBps", "bw4m_MBps")]
for name, key, ikey in rows:
    if key not in ours[0] or ikey not in imb[0]:
        continue
    o, i = med(x[key] for x in ours), med(x[ikey] for x in imb)
    ratios = [a[key] / b[ikey] for a, b in zip(ours, imb)]
    lo, hi = interval(ratios)
    first = med(ratios[0::2])  # odd repetitions (index 0, 2, ...) ran ours first
    second = med(ratios[1::2]) if len(ratios) > 1 else float("nan")
    best = min if key.endswith("_us") else max
    bo, bi = best(x[key] for x in ours), best(x[ikey] for x in imb)
    print(f"{name:<38} {o:>10.4g} {i:>10.4g} {o / i:>9.3f} {med(ratios):>11.3f} {lo:>6.3f}-{hi:<7.3f} {first:>9.3f} {second:>8.3f} {bo / bi:>10.3f}")
if "lat8_p99_us" in ours[0]:
    print("ours only (IMB reports none): latency 8 B p99 %.3f us, max %.3f us, jitter %.3f us" %
          tuple(med(x[k] for x in ours) for k in ("lat8_p99_us", "lat8_max_us", "lat8_jitter_us")))
EOF
