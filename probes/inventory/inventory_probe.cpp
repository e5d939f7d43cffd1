// inventory: what each host is and runs. One set of samples per host (its first rank);
// the judge compares hosts with the majority, so a host with another driver or a GPU
// fewer is named.
#include <dirent.h>
#include <sys/utsname.h>

#include <fstream>
#include <sstream>

#include "base/sysfs_read.hpp"
#include "base/units.hpp"
#include "probes/vendor/versions.hpp"
#include "probes/probe.hpp"
#include "topology/place.hpp"

namespace ga {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  }
  return "unknown";
}

std::optional<double> mem_total_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024.0;
  return std::nullopt;
}

int count_rdma_devices(const std::string& sysfs_root) {
  const std::string dir = (sysfs_root.empty() ? std::string() : sysfs_root) + "/sys/class/infiniband";
  DIR* d = opendir(dir.c_str());
  if (!d) return 0;
  int n = 0;
  while (auto* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

class InventoryProbe final : public Probe {
 public:
  ProbeInfo info() const override {
    ProbeInfo i;
    i.name = "inventory";
    i.summary = "hostname, kernel, CPU, cores, memory, stack versions, GPUs and RDMA devices per host";
    // One set per host, from its first rank; the judge holds each host against the majority.
    // Every sample at HOST, without params.
    using K = place::Kind;
    i.metrics = {
        MetricDecl{"inventory.kernel", unit::text, Better::none, "kernel release (uname -r)"}.at({K::host}).carries({}),
        MetricDecl{"inventory.cpu_model", unit::text, Better::none, "CPU model name from /proc/cpuinfo"}
            .at({K::host}).carries({}),
        MetricDecl{"inventory.cores", unit::count, Better::none, "CPU cores of the host, as the topology counts them"}
            .at({K::host}).carries({}),
        MetricDecl{"inventory.memory_bytes", unit::bytes, Better::none, "total memory of the host (MemTotal of /proc/meminfo)"}
            .at({K::host}).carries({}),
        MetricDecl{"inventory.gpu_count", unit::count, Better::none, "GPUs the topology found on the host"}
            .at({K::host}).carries({}),
        MetricDecl{"inventory.rdma_device_count", unit::count, Better::none, "RDMA devices in /sys/class/infiniband"}
            .at({K::host}).carries({}),
        MetricDecl{"inventory.boot_id", unit::text, Better::none,
         "the running kernel's boot id (/proc/sys/kernel/random/boot_id): hosts sharing one are not compared "
         "with each other against a cluster median"}
            .at({K::host}).carries({}),
        MetricDecl{"inventory.system_serial", unit::text, Better::none,
         "the chassis serial number (/sys/class/dmi/id/product_serial, root only): accepted hardware in a signed manifest"}
            .at({K::host}).carries({}),
        MetricDecl{"inventory.system_product", unit::text, Better::none, "the chassis product name (/sys/class/dmi/id/product_name)"}
            .at({K::host}).carries({}),
        MetricDecl{"inventory.version.*", unit::text, Better::none,
         "version of one part of the stack as found at run time, \"none\" when absent; suffix: mpi, hwloc, "
         "cuda_driver, cuda_runtime, nccl, libibverbs"}
            .at({K::host}).carries({}),
    };
    return i;  // no parameters
  }

  Outcome run(ProbeContext& ctx, SampleSink& out) override {
    if (ctx.local_rank != 0) return Outcome::ok();
    const auto host = place::host(ctx.hostname);
    utsname u{};
    uname(&u);
    out.text(host, "inventory.kernel", u.release);
    out.text(host, "inventory.cpu_model", cpu_model());
    out.value(host, "inventory.cores", ctx.host.cores, unit::count);
    if (auto m = mem_total_bytes()) out.value(host, "inventory.memory_bytes", *m, unit::bytes);
    out.value(host, "inventory.gpu_count", static_cast<double>(ctx.host.gpus.size()), unit::count);
    out.value(host, "inventory.rdma_device_count", count_rdma_devices(ctx.sysfs_root), unit::count);
    // Always the live kernel's, never a recorded tree's: it says which hosts this run's
    // processes really share a machine with.
    if (auto id = sysfs::boot_id()) out.text(host, "inventory.boot_id", *id);
    // The chassis, as a signed report's manifest names the accepted hardware (root can read it).
    for (const auto& [file, metric] : {std::pair{"product_serial", "inventory.system_serial"}, std::pair{"product_name", "inventory.system_product"}})
      if (auto v = sysfs::read_line(std::string("/sys/class/dmi/id/") + file); v && !v->empty()) out.text(host, metric, *v);
    const auto v = discover_versions();
    for (const auto& [key, ver] : v.version) out.text(host, "inventory.version." + key, ver);
    return Outcome::ok();
  }
};

}  // namespace

std::unique_ptr<Probe> make_inventory_probe() { return std::make_unique<InventoryProbe>(); }

}  // namespace ga
