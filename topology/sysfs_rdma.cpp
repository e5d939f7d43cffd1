// Live discovery: hwloc for CPUs, NUMA and PCI; sysfs for what hwloc does not say about RDMA
// devices (link layer, rate), and for RDMA devices hwloc missed.
#include <filesystem>
#include <regex>
#include <system_error>

#include "base/sysfs_read.hpp"
#include "topology/loaders_internal.hpp"
#include "topology/pci_path_internal.hpp"

namespace ga::topo {
namespace {

namespace fs = std::filesystem;

using sysfs::read_line;

struct SysfsRdma {
  std::string name;
  std::optional<std::string> bus;
  std::optional<int> numa;
  std::string kind = "unknown";
  std::optional<double> rate;
  std::vector<std::string> netdevs;
};

// /sys/class/infiniband/<dev>: device -> the PCI function, ports/N/{rate,link_layer}.
// Every read is optional: a half-populated tree (VFs, rxe, containers) must not stop discovery.
std::vector<SysfsRdma> read_rdma(const fs::path& root) {
  std::vector<SysfsRdma> out;
  std::error_code ec;
  fs::path cls = root / "sys/class/infiniband";
  if (!fs::is_directory(cls, ec)) return out;
  static const std::regex bdf(R"(^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$)");
  std::vector<fs::path> devs;
  for (const auto& e : fs::directory_iterator(cls, ec)) devs.push_back(e.path());
  std::sort(devs.begin(), devs.end());
  for (const auto& d : devs) {
    SysfsRdma r;
    r.name = d.filename().string();
    fs::path dev = d / "device";
    fs::path target = fs::canonical(dev, ec);
    if (!ec && std::regex_match(target.filename().string(), bdf)) {
      std::string b = target.filename().string();
      std::transform(b.begin(), b.end(), b.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      r.bus = b;
    }
    ec.clear();
    if (auto n = read_line(dev / "numa_node")) {
      try {
        int v = std::stoi(*n);
        if (v >= 0) r.numa = v;  // -1: the kernel does not know
      } catch (const std::exception&) {
      }
    }
    if (fs::is_directory(dev / "net", ec))
      for (const auto& n : fs::directory_iterator(dev / "net", ec)) r.netdevs.push_back(n.path().filename().string());
    std::sort(r.netdevs.begin(), r.netdevs.end());
    ec.clear();
    std::vector<fs::path> ports;
    if (fs::is_directory(d / "ports", ec))
      for (const auto& p : fs::directory_iterator(d / "ports", ec)) ports.push_back(p.path());
    std::sort(ports.begin(), ports.end());
    if (!ports.empty()) {  // port 1 speaks for the device
      if (auto ll = read_line(ports.front() / "link_layer")) {
        if (*ll == "InfiniBand") r.kind = "infiniband";
        else if (*ll == "Ethernet") r.kind = "roce";
      }
      if (auto rate = read_line(ports.front() / "rate")) {  // "200 Gb/sec (4X HDR)"
        try {
          double v = std::stod(*rate);
          if (v > 0) r.rate = v;
        } catch (const std::exception&) {
        }
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

HostTopology discover_local(const std::string& hostname, const std::string& sysfs_root) {
  detail::PciPaths paths;
  HostTopology h = detail::discover_hwloc_live(hostname, paths);
  for (auto& r : read_rdma(sysfs_root.empty() ? fs::path("/") : fs::path(sysfs_root))) {
    auto it = std::find_if(h.nics.begin(), h.nics.end(), [&](const Nic& n) {
      return n.name == r.name || (r.bus && n.pci_bus_id == r.bus && n.kind != "slingshot");
    });
    if (it == h.nics.end()) {
      // hwloc did not see it (filtered, or a test tree): its place in the PCI tree is unknown,
      // so classify() will relate it to GPUs by NUMA node only.
      h.nics.push_back({r.name, r.kind, r.netdevs, r.bus, r.numa, r.rate});
      continue;
    }
    if (it->name != r.name) {
      // Same PCI function, hwloc named it by a netdev: the RDMA device name is the stable one.
      if (auto p = paths.nics.extract(it->name)) {
        p.key() = r.name;
        paths.nics.insert(std::move(p));
      }
      it->name = r.name;
    }
    if (r.kind != "unknown" && it->kind != "efa") it->kind = r.kind;
    if (r.rate) it->rate_gbps = r.rate;
    if (!it->numa_node) it->numa_node = r.numa;
    for (const auto& nd : r.netdevs)
      if (std::find(it->netdevs.begin(), it->netdevs.end(), nd) == it->netdevs.end()) it->netdevs.push_back(nd);
  }
  detail::classify_pci(h, paths);
  classify(h);
  return h;
}

}  // namespace ga::topo
