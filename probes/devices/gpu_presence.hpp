// The decision table of every GPU probe, in one place:
//   no NVIDIA GPU on the PCI bus                          -> skipped "no NVIDIA GPU on the PCI bus"
//   NVIDIA GPUs there, but libcuda missing or incomplete,
//   a driver older than needed, cuInit failing, a GPU that
//   CUDA does not see or cannot open                      -> failed, with the reason
// The PCI bus is read from the host's topology (live discovery) and, when that lists no NVIDIA
// GPU, from sysfs (vendor 0x10de, class 0x03xx) under the probe's sysfs root, so a recorded
// tree can stand in for a GPU host in tests.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "probes/vendor/cuda_driver.hpp"
#include "probes/vendor/gpu_libraries.hpp"
#include "probes/outcome.hpp"
#include "topology/model.hpp"

namespace ga::gpu {

struct PciGpu {
  int index = 0;                        // logical index: the topology's, else order by bus id
  std::string pci_bus_id;               // "0000:4e:00.0"
  std::optional<int> numa_node;
  std::string model;                    // from the topology when known
};

// NVIDIA display/3D controllers under ROOT/sys/bus/pci/devices, ordered by bus id.
std::vector<PciGpu> nvidia_gpus_in_sysfs(const std::string& sysfs_root);
// The topology's NVIDIA GPUs with a bus id; else the sysfs ones. `source` says which.
std::vector<PciGpu> nvidia_gpus_on_bus(const topo::HostTopology& host, const std::string& sysfs_root,
                                       std::string* source = nullptr);

// CUDA 12.0 is what drivers 525+ report: the first branch with H100 support and the oldest
// the field notes say clusters run.
inline constexpr int kMinCudaDriverVersion = 12000;
std::string cuda_version_text(int v);  // 12040 -> "12.4"

struct MatchedGpu {
  PciGpu pci;
  CudaDeviceInfo cuda;
};

struct GpuAccess {
  std::optional<Outcome> stop;          // set: the probe ends with this outcome
  std::unique_ptr<CudaDriver> driver;   // loaded and initialised when !stop
  int driver_version = 0;
  std::vector<MatchedGpu> gpus;         // the PCI GPUs CUDA sees, by logical index
  std::string failure;                  // GPUs on the bus that CUDA cannot see or open
  std::vector<std::string> notes;       // facts worth a line in the outcome (hidden GPUs ...)
};

struct AccessOptions {
  int min_driver_version = kMinCudaDriverVersion;
  bool cuda_visible_devices_set = false;  // then GPUs CUDA does not see are out of scope, not broken
};

GpuAccess open_gpus(const std::vector<PciGpu>& on_bus, const LibraryPaths& paths, const AccessOptions& opt);

}  // namespace ga::gpu
