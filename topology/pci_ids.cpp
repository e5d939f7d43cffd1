// A short table of datacenter GPU device ids, so that files which record only PCI ids (NCCL
// XML, hwloc XML without OS devices) still give a readable and comparable model.
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "topology/loaders_internal.hpp"

namespace ga::topo::detail {

std::string vendor_name(unsigned v) {
  if (v == 0x10de) return "nvidia";
  if (v == 0x1002) return "amd";
  return "unknown";
}

std::string gpu_model_from_pci(unsigned vendor, unsigned device) {
  static const std::map<std::pair<unsigned, unsigned>, const char*> known = {
      {{0x10de, 0x06d2}, "Tesla M2070"},
      {{0x10de, 0x1db1}, "Tesla V100-SXM2-16GB"},
      {{0x10de, 0x1db4}, "Tesla V100-PCIE-16GB"},
      {{0x10de, 0x1db5}, "Tesla V100-SXM2-32GB"},
      {{0x10de, 0x1db6}, "Tesla V100-PCIE-32GB"},
      {{0x10de, 0x1db8}, "Tesla V100-SXM3-32GB"},
      {{0x10de, 0x20b0}, "A100-SXM4-40GB"},
      {{0x10de, 0x20b2}, "A100-SXM4-80GB"},
      {{0x10de, 0x20b5}, "A100 80GB PCIe"},
      {{0x10de, 0x20f1}, "A100-PCIE-40GB"},
      {{0x10de, 0x2330}, "H100 80GB HBM3"},
      {{0x10de, 0x2331}, "H100 PCIe"},
      {{0x10de, 0x2335}, "H200"},
      {{0x1002, 0x66a1}, "Radeon Instinct MI50"},
      {{0x1002, 0x740c}, "Instinct MI250X/MI250"},
      {{0x1002, 0x74a0}, "Instinct MI300A"},
      {{0x1002, 0x74a1}, "Instinct MI300X"},
  };
  auto it = known.find({vendor, device});
  if (it != known.end()) return it->second;
  char buf[32];
  std::snprintf(buf, sizeof buf, "PCI %04x:%04x", vendor & 0xffffu, device & 0xffffu);
  return buf;
}

}  // namespace ga::topo::detail
