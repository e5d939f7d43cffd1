// The topology of one host, as data. Discovered live (hwloc + sysfs, CUDA/NVML later)
// or loaded from a recorded file (hwloc XML v1/v2, NCCL topology XML, nvidia-smi topo -m).
// Logical ids (GPU index by ascending PCI bus id) are kept apart from OS ids.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ga::topo {

// PCIe path classes between two devices, as `nvidia-smi topo -m` defines them.
// Ordered from closest to farthest so that min() picks the nearest.
enum class PathClass { PIX, PXB, PHB, NODE, SYS, Unknown };
const char* to_string(PathClass);
std::optional<PathClass> path_class_from_string(const std::string&);

struct NumaNode {
  int os_index = 0;
  std::string cpuset;                   // hwloc bitmap string or cpulist as recorded
  std::optional<std::uint64_t> memory_bytes;
};

struct Gpu {
  int index = 0;                        // logical: order by ascending PCI bus id (nvidia-smi text: GPU number)
  std::string vendor;                   // "nvidia", "amd", "unknown"
  std::string model;                    // marketing name when known
  std::optional<std::string> pci_bus_id;  // "0000:4e:00.0", lower case
  std::optional<int> numa_node;         // OS index
  std::vector<std::string> os_names;    // OS device names seen (nvml0, rsmi3, cuda0, card1 ...)
  std::optional<std::string> uuid;      // "GPU-8f6e...": hwloc's NVML info, else NVML at discovery
  std::optional<std::string> serial;    // the board's serial number (NVML), so the right card is returned
  std::vector<std::string> nearest_nics;  // fabric NICs at the shortest PCIe path
  std::optional<PathClass> nic_path;    // the class of that path (nullopt when no NIC)
};

struct Nic {
  std::string name;                     // RDMA device (mlx5_0) else interface name (hsi0)
  std::string kind;                     // "infiniband", "roce", "ethernet-rdma", "efa", "slingshot", "unknown"
  std::vector<std::string> netdevs;     // associated interfaces (ib0, enp1s0f0np0)
  std::optional<std::string> pci_bus_id;
  std::optional<int> numa_node;
  std::optional<double> rate_gbps;      // link rate when recorded (Gb/s)
};

// A direct GPU-to-GPU connection (NVLink, NVSwitch-mediated NVLink, xGMI).
struct GpuLink {
  int a = 0, b = 0;                     // logical GPU indexes
  std::string type;                     // "nvlink", "nvswitch", "xgmi"
  int count = 1;                        // number of links when known (NV12 -> 12)
  std::optional<double> bandwidth_gbps; // when recorded
};

struct HostTopology {
  std::string hostname;                 // short hostname
  std::string source;                   // "live", "hwloc-xml", "nccl-xml", "nvidia-smi"
  int packages = 0;
  int cores = 0;
  int pus = 0;
  std::vector<NumaNode> numa_nodes;
  std::vector<Gpu> gpus;                // sorted by index
  std::vector<Nic> nics;                // fabric NICs only (not management Ethernet)
  std::vector<GpuLink> gpu_links;
  std::vector<std::vector<int>> gpu_link_islands;  // groups of GPU indexes joined by links
  bool gpu_link_all_to_all = false;
  // path class between GPU index and NIC name (all pairs known), for reports and criteria
  std::map<int, std::map<std::string, PathClass>> gpu_nic_paths;
};

// A cluster's topology: one entry per host, in rank order of first appearance.
struct ClusterTopology {
  std::vector<HostTopology> hosts;
  const HostTopology* find(const std::string& hostname) const;
};

}  // namespace ga::topo
