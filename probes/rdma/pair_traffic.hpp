// RC RDMA-write latency and bandwidth between the ranks of the pair schedule
// (probes/harness/pair_schedule.hpp), through any Transport. Each rank brings at most one
// port (its rail); a pair whose two ranks both have one measures a->b, then b->a. Every
// step has a deadline, and a pair that breaks is a finding for that pair (rdma.pair_ok 0 with
// the error in params), never a hang or an exception out of the probe.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "probes/harness/pair_schedule.hpp"
#include "probes/probe.hpp"
#include "probes/rdma/transport.hpp"

namespace ga::rdma {

struct TrafficConfig {
  std::size_t bw_bytes = 4u << 20;     // per write (ib_write_bw's plateau starts well below)
  std::size_t lat_bytes = 8;
  int max_bw_iters = 200;
  int max_lat_iters = 2000;
  double budget_s = 10;                // for the whole schedule; split evenly over pair directions
  bool gpu_memory = false;
  std::string gpu_pci_bus_id;
};

struct TrafficStats {
  int pairs_measured = 0;              // directions measured by this rank as initiator
  int pairs_failed = 0;
};

// Collective over ctx.comm: every rank walks the same schedule. `mine` is this rank's port
// (nullopt: it sits out, and its partners record nothing for the pair).
TrafficStats run_pair_traffic(ProbeContext& ctx, const pairs::PairSchedule& sched, Transport& t,
                              const std::optional<PortInfo>& mine, const TrafficConfig& cfg, SampleSink& out);

// The byte pattern a direction writes; the target checks it (a lost or misplaced write shows).
std::byte pattern_byte(std::size_t i, unsigned seed);

}  // namespace ga::rdma
