#include "probes/devices/gpu_presence.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "base/sysfs_read.hpp"

namespace ga::gpu {

namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path& p) { return sysfs::read_line(p).value_or(""); }

std::string join_ids(const std::vector<PciGpu>& g) {
  std::string s;
  for (std::size_t i = 0; i < g.size() && i < 4; ++i) s += (i ? ", " : "") + g[i].pci_bus_id;
  if (g.size() > 4) s += ", ...";
  return s;
}

}  // namespace

std::vector<PciGpu> nvidia_gpus_in_sysfs(const std::string& sysfs_root) {
  std::vector<PciGpu> out;
  const fs::path dir = fs::path(sysfs_root.empty() ? "/" : sysfs_root) / "sys/bus/pci/devices";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (first_line(e.path() / "vendor") != "0x10de") continue;
    const std::string cls = first_line(e.path() / "class");  // "0x030200"
    if (cls.rfind("0x03", 0) != 0) continue;                  // NVSwitches are 0x0680
    PciGpu g;
    g.pci_bus_id = normalize_pci_bus_id(e.path().filename().string());
    try {
      const int n = std::stoi(first_line(e.path() / "numa_node"));
      if (n >= 0) g.numa_node = n;
    } catch (const std::exception&) {
    }
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const PciGpu& a, const PciGpu& b) { return a.pci_bus_id < b.pci_bus_id; });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].index = static_cast<int>(i);
  return out;
}

std::vector<PciGpu> nvidia_gpus_on_bus(const topo::HostTopology& host, const std::string& sysfs_root,
                                       std::string* source) {
  std::vector<PciGpu> out;
  for (const auto& g : host.gpus) {
    if (g.vendor != "nvidia" || !g.pci_bus_id) continue;
    out.push_back({g.index, normalize_pci_bus_id(*g.pci_bus_id), g.numa_node, g.model});
  }
  if (!out.empty()) {
    if (source) *source = "topology";
    return out;
  }
  if (source) *source = "sysfs";
  return nvidia_gpus_in_sysfs(sysfs_root);
}

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

GpuAccess open_gpus(const std::vector<PciGpu>& on_bus, const LibraryPaths& paths, const AccessOptions& opt) {
  GpuAccess a;
  if (on_bus.empty()) {
    a.stop = Outcome::skipped("no NVIDIA GPU on the PCI bus");
    return a;
  }
  const std::string have = std::to_string(on_bus.size()) + " NVIDIA GPU(s) on the PCI bus (" + join_ids(on_bus) + ")";
  a.driver = std::make_unique<CudaDriver>(paths.cuda);
  CudaDriver& d = *a.driver;
  if (!d.loaded()) {
    a.stop = Outcome::missing_library(have + " but the CUDA driver library cannot be loaded: " + d.load_error());
    return a;
  }
  if (!d.missing_symbols().empty()) {
    std::string m;
    for (const auto& s : d.missing_symbols()) m += (m.empty() ? "" : ", ") + s;
    a.stop = Outcome::failed(have + " but " + d.path() + " lacks " + m + " (a driver older than 525, or not libcuda)");
    return a;
  }
  try {
    a.driver_version = d.driver_version();
  } catch (const CudaError& e) {
    a.stop = Outcome::failed(have + " but " + e.what());
    return a;
  }
  if (a.driver_version < opt.min_driver_version) {
    a.stop = Outcome::failed(have + " but the driver supports CUDA " + cuda_version_text(a.driver_version) +
                             ", older than the CUDA " + cuda_version_text(opt.min_driver_version) +
                             " needed (NVIDIA driver 525 or newer)");
    return a;
  }
  try {
    d.init();
  } catch (const CudaError& e) {
    a.stop = Outcome::failed(have + " but the driver does not initialise: " + std::string(e.what()));
    return a;
  }
  int count = 0;
  try {
    count = d.device_count();
  } catch (const CudaError& e) {
    a.stop = Outcome::failed(have + " but " + e.what());
    return a;
  }
  std::map<std::string, CudaDeviceInfo> by_bus;
  std::vector<std::string> broken;
  for (int o = 0; o < count; ++o) {
    try {
      auto info = d.device_info(o);
      by_bus[info.pci_bus_id] = info;
    } catch (const CudaError& e) {
      broken.push_back("CUDA device " + std::to_string(o) + ": " + e.what());
    }
  }
  std::vector<std::string> unseen;
  for (const auto& g : on_bus) {
    auto it = by_bus.find(g.pci_bus_id);
    if (it == by_bus.end()) {
      unseen.push_back("gpu:" + std::to_string(g.index) + " (" + g.pci_bus_id + ")");
      continue;
    }
    a.gpus.push_back({g, it->second});
  }
  std::string why;
  for (const auto& b : broken) why += (why.empty() ? "" : "; ") + b;
  if (!unseen.empty()) {
    std::string list;
    for (const auto& u : unseen) list += (list.empty() ? "" : ", ") + u;
    if (opt.cuda_visible_devices_set && broken.empty())
      a.notes.push_back("not visible to this process (CUDA_VISIBLE_DEVICES): " + list);
    else
      why += (why.empty() ? "" : "; ") + std::string("on the PCI bus but not seen by CUDA: ") + list;
  }
  if (!why.empty()) a.failure = have + ", but " + why;
  // The GPUs that work are still measured; the broken ones fail the probe on this host.
  if (a.gpus.empty()) a.stop = Outcome::failed(why.empty() ? have + " but CUDA sees none of them" : a.failure);
  return a;
}

}  // namespace ga::gpu
