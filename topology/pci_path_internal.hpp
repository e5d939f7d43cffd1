// Where each GPU and NIC sits in the I/O tree, as loaders that see a PCI tree (hwloc XML,
// live hwloc, NCCL XML) record it. Private to the topology module: the public model only
// keeps the resulting path classes (HostTopology::gpu_nic_paths).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "topology/model.hpp"

namespace ga::topo::detail {

enum class NodeKind {
  root,         // a non-PCI ancestor (machine, package, NUMA group, NCCL <cpu>)
  host_bridge,  // PCIe host bridge / root complex
  bridge,       // PCI-to-PCI bridge or a whole PCIe switch
};

struct PathNode {
  std::string id;  // unique within one host
  NodeKind kind = NodeKind::root;
};

// Ancestors of one device, outermost first, its direct parent last.
struct DeviceChain {
  std::vector<PathNode> ancestors;
  std::optional<int> numa;  // OS index of the device's NUMA node
};

struct PciPaths {
  std::map<int, DeviceChain> gpus;           // by logical GPU index
  std::map<std::string, DeviceChain> nics;   // by NIC name
  // How many bridges may sit between the common switch and a device on each side and
  // still count as "one switch" (PIX). hwloc shows a switch as an upstream-port bridge
  // with a bridge per downstream port (1); NCCL XML shows a switch as one <pci> node (0).
  int pix_bridges_below = 1;
};

PathClass path_between(const DeviceChain& a, const DeviceChain& b, int pix_bridges_below);
// Fills h.gpu_nic_paths for every GPU/NIC pair present in `paths`.
void classify_pci(HostTopology& h, const PciPaths& paths);

}  // namespace ga::topo::detail
