#include "probes/clock/ping_pong.hpp"

#include <time.h>

#include <algorithm>
#include <cstdint>

namespace ga::clock {
namespace {
constexpr int kTag = 7301;
constexpr std::int64_t kStop = -1;

double read(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

double now_real() { return read(CLOCK_REALTIME); }
double now_mono() { return read(CLOCK_MONOTONIC); }

std::vector<std::vector<Exchange>> measure_round(Comm& comm, const RoundPlan& plan) {
  const int me = comm.rank();
  std::vector<std::vector<Exchange>> out(me == plan.reference ? plan.leaders.size() : 0);
  // One host at a time, everyone else waiting in a barrier that sleeps between polls: a
  // rank spinning in a receive while it waits its turn would steal the CPU the measured pair
  // needs, and on a shared or oversubscribed host turn microseconds into scheduler ticks.
  for (std::size_t h = 0; h < plan.leaders.size(); ++h) {
    const int peer = plan.leaders[h];
    if (peer == plan.reference) continue;
    comm.barrier();
    if (me == plan.reference) {
      const double stop_at = now_mono() + plan.seconds_per_host;
      for (std::int64_t i = 0; i < plan.exchanges && (i < 4 || now_mono() < stop_at); ++i) {
        Exchange e;
        // Realtime readings nest inside the monotonic ones, so the monotonic round trip bounds both.
        e.send_mono = now_mono();
        e.send_real = now_real();
        comm.send(&i, sizeof i, peer, kTag);
        comm.recv(&e.remote_real, sizeof e.remote_real, peer, kTag);
        e.recv_real = now_real();
        e.recv_mono = now_mono();
        out[h].push_back(e);
      }
      comm.send(&kStop, sizeof kStop, peer, kTag);
    } else if (me == peer) {
      for (;;) {
        std::int64_t seq = 0;
        comm.recv(&seq, sizeof seq, plan.reference, kTag);
        if (seq == kStop) break;
        const double t = now_real();
        comm.send(&t, sizeof t, plan.reference, kTag);
      }
    }
  }
  comm.barrier();
  return out;
}

}  // namespace ga::clock
