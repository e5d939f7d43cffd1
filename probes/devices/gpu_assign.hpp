// Which GPUs each rank of a host measures. Each rank takes, in local-rank order, the lowest
// free GPU on its own NUMA node, else the lowest free one; with fewer ranks than GPUs the
// ranks go round again, so one process on an 8-GPU host (the non-MPI build) measures all 8.
#pragma once
#include <optional>
#include <vector>

#include "probes/devices/gpu_presence.hpp"
#include "probes/comm.hpp"

namespace ga::gpu {

// rank_numa[r]: the NUMA node local rank r is bound to (nullopt: not bound to one node).
// Returns, per local rank, positions into `gpus` (not logical indexes).
std::vector<std::vector<std::size_t>> assign_gpus(const std::vector<PciGpu>& gpus,
                                                  const std::vector<std::optional<int>>& rank_numa);

// The NUMA node this thread's CPU binding lies in, when it lies in exactly one.
std::optional<int> bound_numa_node();

// Collective over `comm`: every rank's bound NUMA node, for the ranks of `host` in local-rank
// order (rank_hosts: host of every rank of comm).
std::vector<std::optional<int>> local_rank_numa(Comm& comm, const std::vector<std::string>& rank_hosts,
                                                const std::string& host);

}  // namespace ga::gpu
