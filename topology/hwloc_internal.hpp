// RAII ownership of an hwloc topology, and the extraction shared by the XML loader and
// live discovery.
#pragma once
#include <string>

#include <hwloc.h>

#include "topology/model.hpp"
#include "topology/pci_path_internal.hpp"

namespace ga::topo::detail {

class HwlocTopology {
 public:
  HwlocTopology();
  ~HwlocTopology();
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  hwloc_topology_t get() const { return t_; }

 private:
  hwloc_topology_t t_ = nullptr;
};

// Reads a loaded topology into the model (not yet classified) and records where each
// device sits in the PCI tree.
HostTopology extract(hwloc_topology_t topo, const std::string& source, PciPaths& paths);

}  // namespace ga::topo::detail
