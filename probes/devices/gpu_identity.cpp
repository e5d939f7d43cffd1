#include "probes/devices/gpu_identity.hpp"

#include "probes/devices/gpu_presence.hpp"
#include "probes/vendor/nvml_api.hpp"
#include "topology/topology.hpp"

namespace ga::gpu {

void add_gpu_identities(topo::HostTopology& h, const std::string& sysfs_root, const std::vector<std::string>& nvml_candidates) {
  std::string source;
  const auto on_bus = nvidia_gpus_on_bus(h, sysfs_root, &source);
  if (on_bus.empty()) return;  // no load attempt on hosts without NVIDIA GPUs
  if (source == "sysfs") {
    for (const auto& p : on_bus) {
      topo::Gpu g;
      g.index = p.index;
      g.vendor = "nvidia";
      g.model = p.model;
      g.pci_bus_id = p.pci_bus_id;
      g.numa_node = p.numa_node;
      h.gpus.push_back(std::move(g));
    }
    topo::classify(h);  // the new GPUs' nearest NICs (by NUMA node: no PCI tree is known)
  }
  const Nvml nvml(nvml_candidates);
  if (!nvml.ok()) return;
  for (auto& g : h.gpus) {
    if (g.vendor != "nvidia" || !g.pci_bus_id) continue;
    const auto d = nvml.device_by_pci(*g.pci_bus_id, nullptr);
    if (!d) continue;
    if (!g.uuid)
      if (auto r = d->uuid(); r && !r.value->empty()) g.uuid = *r.value;
    if (auto r = d->serial(); r && !r.value->empty()) g.serial = *r.value;
  }
}

}  // namespace ga::gpu
