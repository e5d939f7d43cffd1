// The identities of a host's NVIDIA GPUs in its topology, so that every report row of a GPU
// (whichever probe measured it) and every verdict at HOST/gpu:K names the card an operator
// pulls, not only its slot: the PCI bus id, the UUID and the board serial number (NVML).
// hwloc's NVML backend fills the UUID where hwloc was built with it; NVML fills what is left.
#pragma once
#include <string>
#include <vector>

#include "topology/model.hpp"

namespace ga::gpu {

// Called on the topology of this host when it is discovered:
//  - a topology with no NVIDIA GPU gets the ones on the PCI bus under sysfs_root, by the rule
//    every GPU probe uses (gpu_presence.hpp nvidia_gpus_on_bus), so that the report describes
//    the GPUs the probes measure (a recorded sysfs tree in tests; hwloc built without PCI);
//  - each NVIDIA GPU with a PCI bus id that NVML knows gets its uuid (when unset) and serial.
// NVML absent or not loadable (no driver, no GPU): identities stay unknown, nothing fails.
// `nvml` are the library candidates (library_paths(params).nvml).
void add_gpu_identities(topo::HostTopology& h, const std::string& sysfs_root, const std::vector<std::string>& nvml);

}  // namespace ga::gpu
