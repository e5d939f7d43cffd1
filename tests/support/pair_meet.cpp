// Test support, not part of the product: two MPI ranks run the p2p probe's exchanges
// (probes/p2p/pair_exchange.hpp) with rank 1 arriving LAG seconds late, as a rank does when
// the barrier before a phase releases it a TCP retransmission after its peer. Rank 0 prints one
// line per case: "NAME completed=0|1 why=...". tests/integration/fabric_pair_meet.sh reads them.
//
//   late-latency, late-bw:  the lag is shorter than the meeting's wait (arrive_s) and longer
//                           than the measurement's limit: the measurement must complete, its
//                           limit counting from the meeting, not from each end's arrival;
//   absent-latency, absent-bw: the lag is longer than the meeting's wait: not completed, and
//                           the reason says the peer did not arrive (no measurement started).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "probes/p2p/pair_exchange.hpp"

namespace {

constexpr double kLag = 1.5;

void late(int rank) {
  if (rank == 1) std::this_thread::sleep_for(std::chrono::duration<double>(kLag));
}

void say(int rank, const char* name, bool completed, const std::string& why) {
  if (rank == 0) std::printf("%s completed=%d why=%s\n", name, completed ? 1 : 0, why.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "pair_meet: run with exactly 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  {
    MPI_Comm world = MPI_COMM_WORLD;
    ga::p2p::PairExchange ex(&world, std::size_t(1) << 20);
    const int peer = 1 - rank;
    ga::p2p::ExchangeLimits lim;
    lim.target_s = 0.05;
    lim.limit_s = 1.0;  // shorter than the lag: timed from each end's arrival, nothing completes
    lim.polling = ga::p2p::Polling::nap;

    lim.arrive_s = 5;
    late(rank);
    auto l = ex.latency(peer, rank == 0, 8, 0, lim);
    say(rank, "late-latency", l.completed, l.why);
    MPI_Barrier(MPI_COMM_WORLD);
    late(rank);
    auto b = ex.bandwidth(peer, rank == 0, std::size_t(1) << 20, 1, lim);
    say(rank, "late-bw", b.completed, b.why);
    MPI_Barrier(MPI_COMM_WORLD);

    lim.arrive_s = 0.5;
    late(rank);
    l = ex.latency(peer, rank == 0, 8, 2, lim);
    say(rank, "absent-latency", l.completed, l.why);
    MPI_Barrier(MPI_COMM_WORLD);
    late(rank);
    b = ex.bandwidth(peer, rank == 0, std::size_t(1) << 20, 3, lim);
    say(rank, "absent-bw", b.completed, b.why);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
