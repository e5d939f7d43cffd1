// One measurement round: the reference rank exchanges small messages with one rank per
// host, in turn, and records the four timestamps of each exchange. Collective over `comm`;
// every rank takes part (a barrier per host; the others wait in it, asleep).
#pragma once
#include <vector>

#include "probes/clock/offset_math.hpp"
#include "probes/comm.hpp"

namespace ga::clock {

struct RoundPlan {
  int reference = 0;                 // rank that asks
  std::vector<int> leaders;          // one rank per host, in host order (may include the reference)
  int exchanges = 64;                // per host
  double seconds_per_host = 1.0;     // stop a host's exchanges early after this long
};

// On the reference: for each entry of plan.leaders, that host's exchanges (empty for the
// reference's own host). Elsewhere: empty.
std::vector<std::vector<Exchange>> measure_round(Comm& comm, const RoundPlan& plan);

double now_real();  // CLOCK_REALTIME, s
double now_mono();  // CLOCK_MONOTONIC, s

}  // namespace ga::clock
