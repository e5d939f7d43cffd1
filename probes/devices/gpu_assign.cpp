#include "probes/devices/gpu_assign.hpp"

#include <hwloc.h>

#include <string>

namespace ga::gpu {

std::vector<std::vector<std::size_t>> assign_gpus(const std::vector<PciGpu>& gpus,
                                                  const std::vector<std::optional<int>>& rank_numa) {
  std::vector<std::vector<std::size_t>> out(rank_numa.size());
  if (rank_numa.empty()) return out;
  std::vector<bool> taken(gpus.size(), false);
  std::size_t left = gpus.size();
  while (left > 0) {
    for (std::size_t r = 0; r < rank_numa.size() && left > 0; ++r) {
      std::optional<std::size_t> pick;
      for (std::size_t g = 0; g < gpus.size() && !pick; ++g)
        if (!taken[g] && rank_numa[r] && gpus[g].numa_node == rank_numa[r]) pick = g;
      for (std::size_t g = 0; g < gpus.size() && !pick; ++g)
        if (!taken[g]) pick = g;
      taken[*pick] = true;
      out[r].push_back(*pick);
      --left;
    }
  }
  return out;
}

std::optional<int> bound_numa_node() {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) return std::nullopt;
  std::optional<int> found;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (hwloc_topology_load(t) == 0 && hwloc_get_cpubind(t, set, HWLOC_CPUBIND_THREAD) == 0) {
    int hits = 0;
    hwloc_obj_t node = nullptr;
    while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node)))
      if (node->cpuset && hwloc_bitmap_intersects(node->cpuset, set)) {
        ++hits;
        found = static_cast<int>(node->os_index);
      }
    if (hits != 1) found.reset();  // unbound, or spread over several nodes
  }
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(t);
  return found;
}

std::vector<std::optional<int>> local_rank_numa(Comm& comm, const std::vector<std::string>& rank_hosts,
                                                const std::string& host) {
  const auto mine = bound_numa_node();
  const auto all = comm.allgather(mine ? std::to_string(*mine) : std::string("-"));
  std::vector<std::optional<int>> out;
  for (std::size_t r = 0; r < all.size() && r < rank_hosts.size(); ++r) {
    if (rank_hosts[r] != host) continue;
    out.push_back(all[r] == "-" ? std::nullopt : std::optional<int>(std::stoi(all[r])));
  }
  if (out.empty()) out.push_back(mine);  // a communicator without host names: this rank alone
  return out;
}

}  // namespace ga::gpu
