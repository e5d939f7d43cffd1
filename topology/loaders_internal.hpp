// Per-format loaders behind load_topology_text / discover_local. Each returns a classified
// host. `name` names the input in errors; `hostname` is used when the file records none.
#pragma once
#include <string>

#include "topology/topology.hpp"

namespace ga::topo::detail {

HostTopology load_hwloc_xml(const std::string& content, const std::string& name, const std::string& hostname);
HostTopology load_nccl_xml(const std::string& content, const std::string& name, const std::string& hostname);
HostTopology load_nvidia_smi(const std::string& content, const std::string& name, const std::string& hostname);

// Live hwloc topology of this machine, I/O kept, not yet classified; paths filled for classify_pci.
struct PciPaths;
HostTopology discover_hwloc_live(const std::string& hostname, PciPaths& paths);

// Marketing name for a known PCI vendor:device pair, else "PCI 10de:20b0" so models still compare.
std::string gpu_model_from_pci(unsigned vendor, unsigned device);
std::string vendor_name(unsigned pci_vendor);

}  // namespace ga::topo::detail
