// p2p_bench: (a) the p2p probe's exchanges against a bare MPI ping-pong and a bare osu_bw-style
// window, in one program on this machine, so the probe's own overhead is what differs;
// (b) the all-pairs schedule for 4096 hosts, and the fabric suite's expected wall time at 64,
// 512 and 4096 hosts from the per-pair cost measured here.
//   mpirun -np 2 --bind-to none --mca mpi_yield_when_idle 1 build/bench/p2p_bench [repeats]
// (yield_when_idle: on a shared 2-core machine a spinning rank otherwise waits a scheduler tick)
// The targets (issue 3): latency at 8 B and bandwidth at 4 MiB within 5% of the bare loop;
// the 4096-host schedule in under 1 s.
//   p2p_bench --exchanges [lat8,pp4m,bw4m]: one pass of the probe's exchanges at its default
// limits, as key=value lines, for scripts/bench-p2p-vs-imb.sh (against Intel MPI Benchmarks,
// issue 11): latency 8 B, ping-pong 4 MiB (IMB PingPong's bandwidth: bytes / half a round trip),
// window 4 MiB (the probe's p2p.bw, against IMB Uniband with the same window); all three unless
// the second argument names some.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "probes/harness/pair_schedule.hpp"
#include "probes/p2p/latency_stats.hpp"
#include "probes/p2p/pair_exchange.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// ---- the bare reference: blocking MPI, nothing else (about 30 lines) ----
// One round trip of IMB PingPong's loop: blocking sends and receives, nothing else.
void bare_round_trip(int rank, char (&buf)[8]) {
  const int peer = 1 - rank;
  if (rank == 0) {
    MPI_Send(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    MPI_Recv(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
  }
}
// Latency as IMB PingPong takes it: the whole loop between two clock reads, / iterations / 2.
double bare_latency_mean(int rank, int iters, int warmup) {
  char buf[8] = {};
  for (int i = 0; i < warmup; ++i) bare_round_trip(rank, buf);
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < iters; ++i) bare_round_trip(rank, buf);
  return since(t0) / std::max(1, iters) / 2;
}
// The same loop timed as the probe times its median: batches of `batch` round trips between
// two clock reads, the median batch's one-way time. Against the probe's p50 this is like with
// like (IMB's mean above also counts the round trips the scheduler stretched).
double bare_latency_p50(int rank, int iters, int warmup, int batch) {
  char buf[8] = {};
  batch = std::max(1, batch);
  for (int i = 0; i < warmup; ++i) bare_round_trip(rank, buf);
  std::vector<double> means;
  means.reserve(static_cast<std::size_t>(iters / batch) + 1);
  for (int done = 0; done + batch <= iters; done += batch) {
    const Clock::time_point t0 = Clock::now();
    for (int k = 0; k < batch; ++k) bare_round_trip(rank, buf);
    means.push_back(since(t0) / batch / 2);
  }
  if (means.empty()) return 0;
  std::sort(means.begin(), means.end());
  return means[means.size() / 2];
}
// one_buffer: every receive of the window into the same buffer, as osu_bw and IMB Uniband do
// (erroneous MPI, and a destination that stays in cache); else distinct buffers, as the probe.
double bare_bw(int rank, std::size_t size, int window, int windows, std::vector<char>& sbuf, std::vector<char>& rbuf,
               bool one_buffer = false) {
  std::vector<MPI_Request> req(window);
  const int peer = 1 - rank;
  char ack = 0;
  double secs = 0;
  for (int w = 0; w < windows + 1; ++w) {  // the first window warms up
    auto t0 = Clock::now();
    for (int k = 0; k < window; ++k) {
      if (rank == 0) MPI_Isend(sbuf.data(), int(size), MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[k]);
      else MPI_Irecv(rbuf.data() + (one_buffer ? 0 : size * k), int(size), MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[k]);
    }
    MPI_Waitall(window, req.data(), MPI_STATUSES_IGNORE);
    if (rank == 0) MPI_Recv(&ack, 1, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else MPI_Send(&ack, 1, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
    if (w > 0) secs += since(t0);
  }
  return double(size) * window * windows / secs;
}

// One pass of what the probe measures, at its defaults, for the comparison with IMB. MB/s is
// 1e6 B/s, as IMB prints it.
// IMB's statistic: the mean over every round trip (here the batches' mean, where there are
// batches: the clock read spread over a batch as IMB spreads it over all).
double mean_one_way(const ga::p2p::OneWaySamples& s) {
  const auto& v = s.batch_means.empty() ? static_cast<const std::vector<double>&>(s) : s.batch_means;
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / double(v.size());
}

// `which` names the measures to run (lat8, pp4m, bw4m; empty: all three). One measure alone keeps
// a run short, so the script can pair it tightly with IMB's run of the same measure: on this
// machine the memory bandwidth drifts by tens of percent over a minute, and only runs a few
// seconds apart see the same machine.
void exchanges(int rank, const std::string& which) {
  auto wanted = [&](const char* m) { return which.empty() || which.find(m) != std::string::npos; };
  const std::size_t big = std::size_t(4) << 20;
  MPI_Comm world = MPI_COMM_WORLD;
  ga::p2p::PairExchange ex(&world, big);
  const ga::p2p::ExchangeLimits lim;
  const int peer = 1 - rank;
  std::string why;
  std::optional<ga::p2p::LatencyResult> l, pp;
  std::optional<ga::p2p::BandwidthResult> b;
  double bare_p50 = 0, bare_mean = 0;
  if (wanted("lat8")) {
    MPI_Barrier(MPI_COMM_WORLD);
    l = ex.latency(peer, rank == 0, 8, 0, lim);
    if (!l->completed) why += l->why;
    // A control in the same process: the bare blocking loop, as many round trips, timed both
    // ways (the probe's batch median and IMB's mean). Where ours and IMB differ but the control
    // differs from IMB as much, the difference is between the programs, not in the probe's loop.
    double n_iters = rank == 0 ? ga::p2p::summarize_latency(l->one_way_s).count : 0;
    double batch = rank == 0 ? l->one_way_s.batch : 0;
    MPI_Bcast(&n_iters, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&batch, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    bare_p50 = bare_latency_p50(rank, static_cast<int>(n_iters), lim.warmup, std::max(1, static_cast<int>(batch)));
    MPI_Barrier(MPI_COMM_WORLD);
    bare_mean = bare_latency_mean(rank, static_cast<int>(n_iters), lim.warmup);
  }
  if (wanted("pp4m")) {
    MPI_Barrier(MPI_COMM_WORLD);
    pp = ex.latency(peer, rank == 0, big, 1, lim);
    if (!pp->completed) why += pp->why;
  }
  if (wanted("bw4m")) {
    MPI_Barrier(MPI_COMM_WORLD);
    b = ex.bandwidth(peer, rank == 0, big, 2, lim);
    if (!b->completed) why += b->why;
  }
  if (rank != 0) return;
  if (!why.empty()) {
    std::printf("error=%s\n", why.c_str());
    return;
  }
  std::printf("shares_cores=%d\n", ex.shares_cores() ? 1 : 0);
  if (l) {
    const auto s = ga::p2p::summarize_latency(l->one_way_s);
    std::printf("lat8_p50_us=%.4f\nlat8_p99_us=%.4f\nlat8_max_us=%.4f\nlat8_jitter_us=%.4f\n", s.p50 * 1e6,
                s.p99 * 1e6, s.max * 1e6, s.jitter * 1e6);
    std::printf("lat8_mean_us=%.4f\n", mean_one_way(l->one_way_s) * 1e6);
    std::printf("lat8_round_trips=%d\nlat8_batch=%d\nlat8_singles=%zu\n", s.count, l->one_way_s.batch,
                l->one_way_s.size());
    std::printf("lat8_bare_p50_us=%.4f\nlat8_bare_mean_us=%.4f\n", bare_p50 * 1e6, bare_mean * 1e6);
  }
  if (pp) {
    const auto sp = ga::p2p::summarize_latency(pp->one_way_s);
    std::printf("pp4m_p50_us=%.3f\npp4m_MBps=%.1f\npp4m_mean_MBps=%.1f\npp4m_round_trips=%d\n", sp.p50 * 1e6,
                double(big) / sp.p50 / 1e6, double(big) / mean_one_way(pp->one_way_s) / 1e6, sp.count);
  }
  if (b)
    std::printf("bw4m_MBps=%.1f\nbw4m_window=%d\nbw4m_windows=%d\n", b->bytes / b->seconds / 1e6,
                ga::p2p::PairExchange::window_for(big), b->windows);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void schedule_bench() {
  std::printf("\n(b) pair schedule, host mode, one rank per host\n");
  std::printf("%8s %8s %12s %14s %16s\n", "hosts", "rounds", "pairs", "plan+walk s", "written out s");
  for (int n : {64, 512, 4096}) {
    std::vector<std::string> rh;
    for (int h = 0; h < n; ++h) rh.push_back("node" + std::to_string(h));
    auto t0 = Clock::now();
    ga::pairs::PairPlan plan(rh);
    std::size_t pairs = 0;
    for (int r = 0; r < plan.inter_rounds(); ++r) pairs += plan.inter_round(r).pairs.size();
    const double walk = since(t0);
    t0 = Clock::now();
    auto s = ga::pairs::build_pair_schedule(rh);
    const double written = since(t0);
    std::printf("%8d %8d %12zu %14.4f %16.4f\n", n, plan.inter_rounds(), pairs, walk, written);
    if (s.pair_count() != pairs) std::printf("  MISMATCH: %zu pairs written out\n", s.pair_count());
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "p2p_bench: run with mpirun -np 2 (got %d ranks)\n", size);
    MPI_Finalize();
    return 2;
  }
  if (argc > 1 && std::string(argv[1]) == "--exchanges") {
    exchanges(rank, argc > 2 ? argv[2] : "");
    MPI_Finalize();
    return 0;
  }
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::size_t big = std::size_t(4) << 20;
  const int window = ga::p2p::PairExchange::window_for(big);
  std::vector<char> sbuf(big, 1), rbuf(big * window, 0);
  MPI_Comm world = MPI_COMM_WORLD;
  ga::p2p::PairExchange ex(&world, big);
  ga::p2p::ExchangeLimits lim;  // the probe's defaults: 0.2 s measured, 10 warm-up round trips
  const int peer = 1 - rank;

  std::vector<double> bare_lat, bare_lat50, probe_lat, bare_bws, bare1_bws, probe_bws, probe_pair_s;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto l = ex.latency(peer, rank == 0, 8, 4 * r, lim);
    double n_iters = ga::p2p::summarize_latency(l.one_way_s).count;
    MPI_Bcast(&n_iters, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);  // the bare loop does as many
    MPI_Barrier(MPI_COMM_WORLD);
    bare_lat.push_back(bare_latency_mean(rank, static_cast<int>(n_iters), lim.warmup));
    MPI_Barrier(MPI_COMM_WORLD);
    bare_lat50.push_back(bare_latency_p50(rank, static_cast<int>(n_iters), lim.warmup, 16));
    if (rank == 0) probe_lat.push_back(ga::p2p::summarize_latency(l.one_way_s).p50);

    MPI_Barrier(MPI_COMM_WORLD);
    auto b = ex.bandwidth(peer, rank == 0, big, 4 * r + 1, lim);
    double n_windows = b.windows;
    MPI_Bcast(&n_windows, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    bare_bws.push_back(bare_bw(rank, big, window, std::max(1, static_cast<int>(n_windows)), sbuf, rbuf));
    MPI_Barrier(MPI_COMM_WORLD);
    bare1_bws.push_back(bare_bw(rank, big, window, std::max(1, static_cast<int>(n_windows)), sbuf, rbuf, true));
    if (rank == 0) probe_bws.push_back(b.seconds > 0 ? b.bytes / b.seconds : 0);

    // What one pair costs in a round: both directions, latency then bandwidth, as the probe runs them.
    MPI_Barrier(MPI_COMM_WORLD);
    auto t0 = Clock::now();
    for (int dir = 0; dir < 2; ++dir) {
      ex.latency(peer, rank == dir, 8, 4 * r + 2, lim);
      ex.bandwidth(peer, rank == dir, big, 4 * r + 3, lim);
    }
    ex.barrier_politely(Clock::now() + std::chrono::seconds(30));
    probe_pair_s.push_back(since(t0));
  }

  if (rank == 0) {
    const double bl = median(bare_lat), pl = median(probe_lat), bb = median(bare_bws), pb = median(probe_bws);
    std::printf("(a) probe vs bare MPI, 2 ranks on this machine, median of %d repeats\n", repeats);
    std::printf("%-22s %14s %14s %10s\n", "measure", "bare", "probe", "probe/bare");
    // Ratios of back-to-back pairs cancel the machine's drift between repeats.
    std::vector<double> lr, br;
    for (std::size_t i = 0; i < bare_lat.size(); ++i) lr.push_back(probe_lat[i] / bare_lat[i]);
    for (std::size_t i = 0; i < bare_bws.size(); ++i) br.push_back(probe_bws[i] / bare_bws[i]);
    std::printf("%-22s %14s %14s %10s %16s\n", "", "", "", "", "median of ratios");
    std::printf("%-22s %11.3f us %11.3f us %10.3f %16.3f  (bare: mean, as IMB)\n", "latency p50, 8 B", bl * 1e6, pl * 1e6, pl / bl, median(lr));
    std::vector<double> l50r;
    for (std::size_t i = 0; i < bare_lat50.size(); ++i) l50r.push_back(probe_lat[i] / bare_lat50[i]);
    const double bl50 = median(bare_lat50);
    std::printf("%-22s %11.3f us %11.3f us %10.3f %16.3f  (bare: median of 16-round-trip batches, as the probe)\n",
                "latency p50, 8 B", bl50 * 1e6, pl * 1e6, pl / bl50, median(l50r));
    std::printf("%-22s %9.3f GB/s %9.3f GB/s %10.3f %16.3f\n", "bandwidth, 4 MiB", bb / 1e9, pb / 1e9, pb / bb, median(br));
    std::vector<double> b1r;
    for (std::size_t i = 0; i < bare1_bws.size(); ++i) b1r.push_back(probe_bws[i] / bare1_bws[i]);
    const double b1 = median(bare1_bws);
    std::printf("%-22s %9.3f GB/s %9.3f GB/s %10.3f %16.3f  (bare: one receive buffer, as osu_bw/IMB)\n",
                "bandwidth, 4 MiB", b1 / 1e9, pb / 1e9, pb / b1, median(b1r));
    schedule_bench();
    const double pair_s = median(probe_pair_s);
    std::printf("\n(c) expected wall time of the fabric suite (p2p, default params: measure_s 0.2)\n");
    std::printf("one pair, both directions, latency + bandwidth, measured here: %.3f s\n", pair_s);
    std::printf("%8s %8s %14s %20s\n", "hosts", "rounds", "p2p wall", "default 300 s limit");
    for (int n : {64, 512, 4096}) {
      const int rounds = ga::pairs::round_count(n) + 4;  // + up to 4 re-test rounds
      const double wall = rounds * pair_s;
      // Under --probe-timeout 300 the probe shrinks each measurement to fit (p2p_params.hpp).
      const double share = 0.6 * 300 / (rounds * 4.0);
      std::printf("%8d %8d %12.0f s %14s%.1f ms\n", n, rounds, wall, wall > 300 * 0.6 ? "shrinks to " : "fits, ",
                  wall > 300 * 0.6 ? std::min(lim.limit_s, share) * 1e3 : lim.target_s * 1e3);
    }
  }
  MPI_Finalize();
  return 0;
}
