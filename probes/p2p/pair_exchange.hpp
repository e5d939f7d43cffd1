// The two measurements a pair makes, over MPI point-to-point, each under a time budget:
//   latency: ping-pong of `size` bytes; one-way latency = half the round trip; round trips
//     timed in batches (the median) and singly (the tail), see OneWaySamples;
//   bandwidth: a window of non-blocking sends (as osu_bw does), acknowledged by the receiver.
// The initiating side decides how many iterations fit (warm-up, then as many as fit in
// target_s); both sides stop at limit_s whatever happens, so a dead or hopeless peer is a
// result ("did not complete"), never a hang. The limit counts from the moment the two ends
// met (ExchangeLimits::arrive_s), not from each end's arrival.
//
// What an abandoned exchange leaves behind: its receives are cancelled and freed, its sends
// freed while in flight (MPI cannot reliably cancel a send). Messages that arrive late carry
// tags no later exchange uses, on a communicator private to this object, so they never match
// anything. The buffers are kept until the object dies and leaked then if anything was
// abandoned, because MPI may still write into them. See docs/fabric.md.
//
// No MPI type crosses this header: the communicator travels as the void* of Comm::native().
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "probes/p2p/latency_stats.hpp"

namespace ga::p2p {

using Clock = std::chrono::steady_clock;

// How a bandwidth window's waits poll. Spinning measures what the link does; napping leaves
// the core to other ranks, which is what ranks that share cores need (fake hosts: 16 ranks on
// 2 cores), at some cost to the figure (-14% at 4 MiB against spinning, on 2 ranks here).
enum class Polling {
  automatic,  // spin where every rank on this kernel has a core of its own, else nap (shares_cores())
  spin,
  nap,
};

struct ExchangeLimits {
  double target_s = 0.2;     // keep iterating until this much measured time has passed
  double limit_s = 5;        // hard stop for the whole measurement, warm-up included (a bandwidth
                             // window that timed out then drains for up to limit_s more)
  // Before either clock starts, the two ends meet (a hello answered): this long at most. The
  // ends leave the barrier before a phase at different moments, a TCP retransmission (200 ms
  // and up) apart where a lossy host elsewhere took part in it, and that lag is not the pair's.
  double arrive_s = 5;
  int warmup = 10;           // latency iterations (bandwidth: windows / 10, at least 1) not recorded
  int max_iters = 100000;    // latency round trips; bandwidth windows use max_iters / 100, at least 3
  // A re-test sized from an event rate (RetestLength): latency keeps timing round trips
  // past target_s until it has made min_round_trips (batches included, as p2p.exchanges counts them), or stretch_s of measured time has passed
  // (then it stops as completed, with what it has). limit_s must leave room past stretch_s.
  int min_round_trips = 0;
  double stretch_s = 0;
  Polling polling = Polling::automatic;
};

struct LatencyResult {
  bool completed = false;
  OneWaySamples one_way_s;   // initiator only: the measured round trips (singles, batch means)
  std::string why;           // when not completed
};

struct BandwidthResult {
  bool completed = false;
  double bytes = 0, seconds = 0;   // sender only: measured windows, start of the first to the last ack
  int windows = 0;
  std::string why;
};

class PairExchange {
 public:
  // Duplicates the communicator and finds shares_cores() (collective over it). max_size: the
  // largest message.
  PairExchange(void* native_comm, std::size_t max_size);
  ~PairExchange();
  PairExchange(const PairExchange&) = delete;
  PairExchange& operator=(const PairExchange&) = delete;

  // Both ranks of the pair call with the same `slot` (a counter they advance together);
  // `initiator` on the side that sends the pings / the data.
  LatencyResult latency(int peer, bool initiator, std::size_t size, int slot, const ExchangeLimits&);
  BandwidthResult bandwidth(int peer, bool sender, std::size_t size, int slot, const ExchangeLimits&);

  // Every rank of the communicator: returns when all arrived (true) or at `deadline` (false).
  // Sleeps between polls, so ranks with nothing to do leave the cores to those measuring.
  // `stalled_s`, when given, gets the longest gap between two of the wait's polls beyond
  // what it meant to sleep: seconds this process did not run (stopped, frozen, swapped out),
  // which makes it the late one of a barrier that timed out.
  bool barrier_politely(Clock::time_point deadline, double* stalled_s = nullptr);

  static int window_for(std::size_t size);   // messages in flight per bandwidth window
  int abandoned() const { return abandoned_; }
  // More ranks of this communicator run on this kernel (same boot_id) than there are CPUs in
  // their affinity masks together: found by the constructor, it makes Polling::automatic nap.
  bool shares_cores() const { return shares_cores_; }
  // How many pairs may time round trips at once without timing the run queue instead: where
  // ranks share cores, the CPUs of the most crowded kernel over two (at least 1); elsewhere
  // unlimited. A round of `pairs` pairs runs its latency phases in turns(pairs) turns, pair
  // i of the round in turn i / spin_lanes(). Found by the constructor (collective).
  int spin_lanes() const { return spin_lanes_; }
  int turns(int pairs) const { return pairs <= spin_lanes_ ? 1 : (pairs + spin_lanes_ - 1) / spin_lanes_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int abandoned_ = 0;
  bool shares_cores_ = true;
  int spin_lanes_ = 1;
};

}  // namespace ga::p2p
