// NCCL / RCCL topology XML (NCCL_TOPO_FILE, NCCL_TOPO_DUMP_FILE): <system><cpu><pci>...
// A <pci> of class 0x0604xx is a whole PCIe switch; devices nest inside it.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <pugixml.hpp>

#include "base/text.hpp"
#include "topology/loaders_internal.hpp"
#include "topology/pci_path_internal.hpp"

namespace ga::topo::detail {
namespace {

unsigned hex_attr(const pugi::xml_node& n, const char* attr) {
  const char* s = n.attribute(attr).value();
  try {
    return *s ? unsigned(std::stoul(s, nullptr, 16)) : 0u;
  } catch (const std::exception&) {
    return 0;
  }
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

struct PendingGpu {
  Gpu gpu;
  DeviceChain chain;
  std::vector<std::tuple<std::string, std::string, int>> links;  // type, target bus id, count
};
struct PendingNic {
  Nic nic;
  DeviceChain chain;
};

class Walker {
 public:
  Walker(const std::string& content, const std::string& name) : content_(content), name_(name) {}

  void cpu(const pugi::xml_node& c, int ordinal) {
    std::optional<int> numa;
    std::string numaid = c.attribute("numaid").value();
    if (!numaid.empty()) {
      try {
        numa = std::stoi(numaid);
      } catch (const std::exception&) {
        throw TopologyError(name_, line(c), "cpu numaid '" + numaid + "' is not a number");
      }
      numa_nodes.push_back({*numa, c.attribute("affinity").value(), std::nullopt});
    }
    // NCCL calls any path through a CPU "PHB" and cannot tell host bridges apart, so each
    // <cpu> is one root with one host bridge under it.
    std::string id = "cpu#" + std::to_string(ordinal);
    DeviceChain base{{{id, NodeKind::root}, {id + "/hb", NodeKind::host_bridge}}, numa};
    children(c, base);
  }

  std::vector<NumaNode> numa_nodes;
  std::vector<PendingGpu> gpus;
  std::vector<PendingNic> nics;

 private:
  int line(const pugi::xml_node& n) const { return base::line_of_offset(content_, std::size_t(n.offset_debug())); }

  void children(const pugi::xml_node& parent, const DeviceChain& chain) {
    for (auto n : parent.children()) {
      std::string tag = n.name();
      if (tag == "pci") pci(n, chain);
      else if (tag == "nic") nic(n, chain, std::nullopt, 0, 0, 0);
    }
  }

  void pci(const pugi::xml_node& p, const DeviceChain& chain) {
    unsigned cls = hex_attr(p, "class");
    std::string bus = lower(p.attribute("busid").value());
    if (bus.empty()) throw TopologyError(name_, line(p), "<pci> without busid");
    unsigned vendor = hex_attr(p, "vendor"), device = hex_attr(p, "device");
    if ((cls >> 8) == 0x0604) {
      DeviceChain below = chain;
      below.ancestors.push_back({bus, NodeKind::bridge});
      children(p, below);
      return;
    }
    auto gpu_child = p.child("gpu");
    unsigned base = cls >> 16;
    if (gpu_child || base == 0x03 || base == 0x12) {
      PendingGpu g;
      g.gpu.pci_bus_id = bus;
      g.gpu.numa_node = chain.numa;
      // PCI-only files (Azure) omit vendor; a <gpu gcn=> child is RCCL's mark of an AMD GPU.
      g.gpu.vendor = vendor ? vendor_name(vendor) : (gpu_child.attribute("gcn") ? "amd" : "unknown");
      g.gpu.model = vendor ? gpu_model_from_pci(vendor, device) : std::string{};
      g.chain = chain;
      for (auto l : gpu_child.children()) {
        std::string t = l.name();
        if (t != "nvlink" && t != "xgmi") continue;
        int count = l.attribute("count").as_int(1);
        g.links.emplace_back(t, lower(l.attribute("target").value()), count);
      }
      gpus.push_back(std::move(g));
      return;
    }
    if (p.child("nic") || base == 0x02 || (cls >> 8) == 0x0c06) {
      nic(p.child("nic"), chain, bus, cls, vendor, device);
      return;
    }
    children(p, chain);  // anything else may still hold devices
  }

  // One NIC per <net> (a multi-port card lists several); a bare PCI NIC is named from its bus id.
  void nic(const pugi::xml_node& n, const DeviceChain& chain, std::optional<std::string> bus, unsigned cls,
           unsigned vendor, unsigned device) {
    std::string kind = "unknown";
    if (vendor == 0x1d0f) kind = "efa";
    else if ((cls >> 8) == 0x0207 || (cls >> 8) == 0x0c06) kind = "infiniband";
    else if ((cls >> 8) == 0x0200 && vendor == 0x15b3) kind = "roce";
    std::vector<pugi::xml_node> nets;
    if (n)
      for (auto net : n.children("net")) nets.push_back(net);
    if (nets.empty()) {
      if (!bus) throw TopologyError(name_, line(n), "<nic> with neither <net name=> nor a PCI bus id");
      PendingNic x{{"pci-" + *bus, kind, {}, bus, chain.numa, std::nullopt}, chain};
      nics.push_back(std::move(x));
      return;
    }
    for (const auto& net : nets) {
      std::string nm = net.attribute("name").value();
      if (nm.empty()) nm = bus ? "pci-" + *bus : std::string{};
      if (nm.empty()) throw TopologyError(name_, line(net), "<net> without name and without a PCI parent");
      std::optional<double> rate;
      if (double mbps = net.attribute("speed").as_double(0); mbps > 0) rate = mbps / 1000.0;  // NCCL records Mb/s
      nics.push_back({{nm, kind, {}, bus, chain.numa, rate}, chain});
    }
  }

  const std::string& content_;
  const std::string& name_;
};

}  // namespace

HostTopology load_nccl_xml(const std::string& content, const std::string& name, const std::string& hostname) {
  // pugixml's defaults skip a DOCTYPE and expand no entities, but the file is refused the same
  // way as an hwloc one: what is not read safely is not read at all.
  reject_unsafe_xml(content, name, false);
  require_utf8(content, name);
  pugi::xml_document doc;
  auto res = doc.load_buffer(content.data(), content.size());
  if (!res)
    throw TopologyError(name, base::line_of_offset(content, std::size_t(std::max<std::ptrdiff_t>(res.offset, 0))),
                        std::string("XML: ") + res.description());
  auto sys = doc.document_element();
  std::string root = sys.name();
  if (root == "graphs" || root == "graph") throw TopologyError(name, 1, "NCCL graph dump, not a topology");
  if (root != "system") throw TopologyError(name, 1, "NCCL XML root is <" + root + ">, expected <system>");

  Walker w(content, name);
  int ordinal = 0;
  for (auto c : sys.children("cpu")) w.cpu(c, ordinal++);

  HostTopology h;
  h.hostname = hostname;
  h.source = "nccl-xml";
  h.numa_nodes = w.numa_nodes;
  std::sort(h.numa_nodes.begin(), h.numa_nodes.end(), [](auto& a, auto& b) { return a.os_index < b.os_index; });
  std::sort(w.gpus.begin(), w.gpus.end(), [](auto& a, auto& b) { return *a.gpu.pci_bus_id < *b.gpu.pci_bus_id; });
  PciPaths paths;
  paths.pix_bridges_below = 0;
  std::map<std::string, int> by_bus;
  for (std::size_t i = 0; i < w.gpus.size(); ++i) {
    w.gpus[i].gpu.index = int(i);
    if (!by_bus.emplace(*w.gpus[i].gpu.pci_bus_id, int(i)).second)
      throw TopologyError(name, 0, "GPU bus id " + *w.gpus[i].gpu.pci_bus_id + " appears twice");
    paths.gpus[int(i)] = w.gpus[i].chain;
    h.gpus.push_back(w.gpus[i].gpu);
  }
  for (auto& n : w.nics) {
    if (paths.nics.count(n.nic.name)) throw TopologyError(name, 0, "NIC " + n.nic.name + " appears twice");
    paths.nics[n.nic.name] = n.chain;
    h.nics.push_back(n.nic);
  }

  // Links to another GPU are direct; links to anything else (an NVSwitch) join every GPU
  // that links to the same target.
  std::map<std::pair<int, int>, GpuLink> links;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<int, int>>> via;  // (type, target) -> (gpu, count)
  for (const auto& g : w.gpus)
    for (const auto& [type, target, count] : g.links) {
      auto t = by_bus.find(target);
      if (t == by_bus.end()) {
        via[{type, target}].push_back({g.gpu.index, count});
        continue;
      }
      if (t->second == g.gpu.index) continue;  // azure ncv4 records an nvlink to itself
      auto key = std::minmax(g.gpu.index, t->second);
      auto& l = links[{key.first, key.second}];
      l = {key.first, key.second, type, std::max(l.count, count), std::nullopt};
    }
  for (const auto& [tt, members] : via)
    for (std::size_t i = 0; i < members.size(); ++i)
      for (std::size_t k = i + 1; k < members.size(); ++k) {
        auto key = std::minmax(members[i].first, members[k].first);
        if (key.first == key.second || links.count({key.first, key.second})) continue;
        std::string type = tt.first == "nvlink" ? "nvswitch" : tt.first;
        links[{key.first, key.second}] = {key.first, key.second, type, std::min(members[i].second, members[k].second),
                                          std::nullopt};
      }
  for (auto& [k, l] : links) h.gpu_links.push_back(l);

  classify_pci(h, paths);
  classify(h);
  return h;
}

}  // namespace ga::topo::detail
