#include "probes/devices/numa_binding.hpp"

#include <hwloc.h>

namespace ga::gpu {

struct NumaBinding::Handles {
  hwloc_topology_t t = nullptr;
  hwloc_bitmap_t old_cpu = nullptr, old_mem = nullptr;
  hwloc_membind_policy_t old_policy = HWLOC_MEMBIND_DEFAULT;
};

NumaBinding::NumaBinding(std::optional<int> node) {
  if (!node) {
    why_ = "no NUMA node to bind to";
    return;
  }
  h_ = new Handles;
  if (hwloc_topology_init(&h_->t) != 0 || hwloc_topology_load(h_->t) != 0) {
    why_ = "hwloc could not load this machine's topology";
    return;
  }
  hwloc_obj_t n = hwloc_get_numanode_obj_by_os_index(h_->t, static_cast<unsigned>(*node));
  if (!n) {
    why_ = "this machine has no NUMA node " + std::to_string(*node);
    return;
  }
  h_->old_cpu = hwloc_bitmap_alloc();
  h_->old_mem = hwloc_bitmap_alloc();
  hwloc_get_cpubind(h_->t, h_->old_cpu, HWLOC_CPUBIND_PROCESS);
  hwloc_get_membind(h_->t, h_->old_mem, &h_->old_policy, HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET);
  bound_ = hwloc_set_cpubind(h_->t, n->cpuset, HWLOC_CPUBIND_PROCESS) == 0;
  if (!bound_) why_ = "hwloc_set_cpubind to NUMA node " + std::to_string(*node) + " refused (a cgroup's cpuset?)";
  hwloc_set_membind(h_->t, n->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET);
}

NumaBinding::~NumaBinding() {
  if (!h_) return;
  if (h_->old_cpu) {
    hwloc_set_cpubind(h_->t, h_->old_cpu, HWLOC_CPUBIND_PROCESS);
    hwloc_set_membind(h_->t, h_->old_mem, h_->old_policy, HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET);
    hwloc_bitmap_free(h_->old_cpu);
    hwloc_bitmap_free(h_->old_mem);
  }
  if (h_->t) hwloc_topology_destroy(h_->t);
  delete h_;
}

std::optional<int> gpu_numa_node(const topo::HostTopology& host, int local_rank, std::string* why) {
  auto say = [&](const std::string& s) -> std::optional<int> {
    if (why) *why = s;
    return std::nullopt;
  };
  if (host.gpus.empty()) return say("no GPU on this host");
  if (host.numa_nodes.size() < 2) return say("one NUMA node: nothing to choose");
  // host.gpus is in logical order (ascending PCI bus id), as the probes number them.
  const auto& g = host.gpus[static_cast<std::size_t>(local_rank) % host.gpus.size()];
  if (!g.numa_node) return say("the NUMA node of GPU " + std::to_string(g.index) + " is unknown");
  return g.numa_node;
}

}  // namespace ga::gpu
