#include <unistd.h>

#include <iostream>

#include "app/commands.hpp"
#include "app/host_identity.hpp"
#include "topology/topology.hpp"

namespace ga::app {

namespace {
void print_text(const topo::HostTopology& h) {
  std::cout << h.hostname << " (" << h.source << "): " << h.packages << " packages, " << h.numa_nodes.size()
            << " NUMA nodes, " << h.cores << " cores, " << h.pus << " PUs\n";
  for (const auto& g : h.gpus) {
    std::cout << "  GPU " << g.index << "  " << (g.model.empty() ? g.vendor : g.model) << "  PCI "
              << g.pci_bus_id.value_or("?") << "  NUMA " << (g.numa_node ? std::to_string(*g.numa_node) : "?");
    if (!g.nearest_nics.empty()) {
      std::cout << "  nearest NIC";
      for (const auto& n : g.nearest_nics) std::cout << " " << n;
      if (g.nic_path) std::cout << " (" << topo::to_string(*g.nic_path) << ")";
    }
    std::cout << "\n";
  }
  for (const auto& n : h.nics)
    std::cout << "  NIC " << n.name << "  " << n.kind << "  PCI " << n.pci_bus_id.value_or("?") << "  NUMA "
              << (n.numa_node ? std::to_string(*n.numa_node) : "?") << "\n";
  if (!h.gpu_link_islands.empty()) {
    std::cout << "  GPU link islands:";
    for (const auto& isl : h.gpu_link_islands) {
      std::cout << " [";
      for (std::size_t i = 0; i < isl.size(); ++i) std::cout << (i ? "," : "") << isl[i];
      std::cout << "]";
    }
    std::cout << (h.gpu_link_all_to_all ? " all-to-all\n" : " not all-to-all\n");
  }
}
}  // namespace

int topo_command(const TopoOptions& o) {
  try {
    topo::HostTopology h = o.input.empty() ? topo::discover_local(short_hostname(), sysfs_root_from_env())
                                           : topo::load_topology_file(o.input);
    if (o.json) {
      topo::ClusterTopology c;
      c.hosts.push_back(std::move(h));
      std::cout << topo::to_json(c).dump(2) << "\n";
    } else {
      print_text(h);
    }
    return kExitPass;
  } catch (const std::exception& e) {
    std::cerr << "gpuaccept: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace ga::app
