// hwloc: live topologies and recorded XML (v1 and v2), through libhwloc itself.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string_view>

#include <pugixml.hpp>

#include "base/child.hpp"
#include "base/text.hpp"
#include "topology/hwloc_internal.hpp"
#include "topology/loaders_internal.hpp"
#include "topology/topology.hpp"

namespace ga::topo::detail {

namespace {
// hwloc's XML import stores an enum attribute as the file spells it, unchecked: bridge_type="2-1"
// gives upstream_type 2, outside hwloc_obj_bridge_type_t, and reading that as the enum is
// undefined behaviour (UBSan, found by fuzz_hwloc_xml). Read as its integer, compared as one.
template <class E>
std::underlying_type_t<E> raw_enum(const E& e) {
  std::underlying_type_t<E> v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}
}  // namespace

HwlocTopology::HwlocTopology() {
  if (hwloc_topology_init(&t_) != 0) throw std::runtime_error("hwloc_topology_init failed");
}
HwlocTopology::~HwlocTopology() {
  if (t_) hwloc_topology_destroy(t_);
}

namespace {

using bitmap_text = std::unique_ptr<char, decltype(&std::free)>;

std::string cpuset_text(hwloc_const_bitmap_t b) {
  if (!b) return {};
  char* s = nullptr;
  if (hwloc_bitmap_asprintf(&s, b) < 0 || !s) return {};
  bitmap_text owned(s, &std::free);
  return owned.get();
}

std::string bus_id(const hwloc_obj_t pci) {
  char buf[32];
  const auto& a = pci->attr->pcidev;
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", unsigned(a.domain), unsigned(a.bus), unsigned(a.dev),
                unsigned(a.func));
  return buf;
}

bool is_gpu(const hwloc_obj_t pci) {
  const auto& a = pci->attr->pcidev;
  if (a.vendor_id != 0x10de && a.vendor_id != 0x1002) return false;
  // ATI ES1000 / Rage XL: the console VGA soldered on older server boards (HP SL390s), not a GPU.
  if (a.vendor_id == 0x1002 && (a.device_id == 0x515e || a.device_id == 0x5159 || a.device_id == 0x4752)) return false;
  unsigned c = a.class_id;
  return c == 0x0300 || c == 0x0302 || c == 0x0380 || c == 0x1200;
}

// hwloc's NVML backend marks switches with subtype "NVSwitch"; the DGX-2 file has one whose
// PCI ids read 0000:0000, so the subtype counts as much as the ids.
bool is_nvswitch(const hwloc_obj_t o) {
  if (!o || o->type != HWLOC_OBJ_PCI_DEVICE) return false;
  if (o->subtype && std::string(o->subtype) == "NVSwitch") return true;
  return o->attr->pcidev.vendor_id == 0x10de && o->attr->pcidev.class_id == 0x0680;
}

// MI300A in SPX mode reports AMDUUID 0000000000000000 for every APU: no identity at all.
bool all_zero(const std::string& s) { return s.find_first_not_of("0-") == std::string::npos; }

const char* info(const hwloc_obj_t o, const char* key) {
  const char* v = hwloc_obj_get_info_by_name(o, key);
  return v && *v ? v : nullptr;
}

// The PCI device an object belongs to (itself, or an OS device's parent).
hwloc_obj_t pci_of(hwloc_obj_t o) {
  while (o && o->type == HWLOC_OBJ_OS_DEVICE) o = o->parent;
  return o && o->type == HWLOC_OBJ_PCI_DEVICE ? o : nullptr;
}

std::vector<hwloc_obj_t> os_children(hwloc_obj_t pci) {
  std::vector<hwloc_obj_t> out;
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
    if (c->type == HWLOC_OBJ_OS_DEVICE) out.push_back(c);
  return out;
}

class Extractor {
 public:
  Extractor(hwloc_topology_t t, PciPaths& paths) : t_(t), paths_(paths) {}

  HostTopology run(const std::string& source) {
    HostTopology h;
    h.source = source;
    hwloc_obj_t root = hwloc_get_root_obj(t_);
    if (const char* hn = info(root, "HostName")) {
      std::string s = hn;
      h.hostname = s.substr(0, s.find('.'));
    }
    h.packages = std::max(0, hwloc_get_nbobjs_by_type(t_, HWLOC_OBJ_PACKAGE));
    h.cores = std::max(0, hwloc_get_nbobjs_by_type(t_, HWLOC_OBJ_CORE));
    h.pus = std::max(0, hwloc_get_nbobjs_by_type(t_, HWLOC_OBJ_PU));
    numa(h, root);
    devices(h);
    links(h);
    return h;
  }

 private:
  void numa(HostTopology& h, hwloc_obj_t root) {
    for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(t_, HWLOC_OBJ_NUMANODE, n));) {
      std::optional<std::uint64_t> mem;
      if (n->attr && n->attr->numanode.local_memory) mem = n->attr->numanode.local_memory;
      h.numa_nodes.push_back({int(n->os_index), cpuset_text(n->cpuset), mem});
      numa_objs_.push_back(n);
    }
    // hwloc 2 always makes one; this keeps the promise for any importer that would not.
    if (h.numa_nodes.empty()) h.numa_nodes.push_back({0, cpuset_text(root->cpuset), std::nullopt});
    std::sort(h.numa_nodes.begin(), h.numa_nodes.end(), [](auto& a, auto& b) { return a.os_index < b.os_index; });
  }

  std::optional<int> numa_of(hwloc_obj_t o) {
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t_, o);
    if (numa_objs_.empty()) return 0;  // the synthesized node
    if (!anc || !anc->cpuset || hwloc_bitmap_iszero(anc->cpuset)) return std::nullopt;
    for (hwloc_obj_t n : numa_objs_)
      if (n->cpuset && hwloc_bitmap_isincluded(anc->cpuset, n->cpuset)) return int(n->os_index);
    return std::nullopt;  // attached above several NUMA nodes
  }

  DeviceChain chain_of(hwloc_obj_t pci) {
    DeviceChain c;
    std::vector<PathNode> up;
    for (hwloc_obj_t p = pci->parent; p && p->type == HWLOC_OBJ_BRIDGE; p = p->parent) {
      bool host = raw_enum(p->attr->bridge.upstream_type) == HWLOC_OBJ_BRIDGE_HOST;
      up.push_back({"gp" + std::to_string(p->gp_index), host ? NodeKind::host_bridge : NodeKind::bridge});
    }
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t_, pci);
    c.ancestors.push_back({"gp" + std::to_string(anc ? anc->gp_index : 0), NodeKind::root});
    c.ancestors.insert(c.ancestors.end(), up.rbegin(), up.rend());
    c.numa = numa_of(pci);
    return c;
  }

  void devices(HostTopology& h) {
    std::vector<hwloc_obj_t> gpus;
    for (hwloc_obj_t p = nullptr; (p = hwloc_get_next_pcidev(t_, p));)
      if (is_gpu(p)) gpus.push_back(p);
    std::sort(gpus.begin(), gpus.end(), [](hwloc_obj_t a, hwloc_obj_t b) { return bus_id(a) < bus_id(b); });
    for (hwloc_obj_t p : gpus) {
      Gpu g;
      g.index = int(h.gpus.size());
      const auto& a = p->attr->pcidev;
      g.vendor = vendor_name(a.vendor_id);
      g.pci_bus_id = bus_id(p);
      g.numa_node = numa_of(p);
      std::string model;
      for (hwloc_obj_t os : os_children(p)) {
        const auto t = raw_enum(os->attr->osdev.type);
        if (t != HWLOC_OBJ_OSDEV_GPU && t != HWLOC_OBJ_OSDEV_COPROC) continue;
        if (os->name) g.os_names.push_back(os->name);
        if (const char* m = info(os, "GPUModel"); m && model.empty()) model = m;
        for (const char* key : {"NVIDIAUUID", "AMDUUID"})
          if (const char* u = info(os, key); u && !g.uuid && !all_zero(u)) g.uuid = u;
      }
      if (model.empty())
        if (const char* m = info(p, "PCIDevice")) model = m;
      g.model = model.empty() ? gpu_model_from_pci(a.vendor_id, a.device_id) : model;
      gpu_index_[p] = g.index;
      paths_.gpus[g.index] = chain_of(p);
      h.gpus.push_back(std::move(g));
    }

    for (hwloc_obj_t p = nullptr; (p = hwloc_get_next_pcidev(t_, p));) {
      if (is_gpu(p)) continue;
      auto osdevs = os_children(p);
      std::vector<std::string> netdevs;
      hwloc_obj_t rdma = nullptr, slingshot = nullptr;
      for (hwloc_obj_t os : osdevs) {
        if (!os->name) continue;
        if (raw_enum(os->attr->osdev.type) == HWLOC_OBJ_OSDEV_NETWORK) {
          netdevs.push_back(os->name);
          if (os->subtype && std::string(os->subtype) == "Slingshot") slingshot = os;
        }
        if (raw_enum(os->attr->osdev.type) == HWLOC_OBJ_OSDEV_OPENFABRICS && !rdma) rdma = os;
      }
      const auto& a = p->attr->pcidev;
      bool efa = a.vendor_id == 0x1d0f && (a.device_id & 0xfff0) == 0xefa0;
      bool cxi = a.vendor_id == 0x17db;
      // Plain Ethernet (management ports, I210, X722) has only a network OS device: skip it.
      if (!rdma && !slingshot && !efa && !cxi) continue;
      Nic n;
      n.netdevs = netdevs;
      std::sort(n.netdevs.begin(), n.netdevs.end());
      if (efa) n.kind = "efa";
      else if (slingshot || cxi) n.kind = "slingshot";
      else n.kind = rdma_kind(rdma, netdevs);
      if (rdma) n.name = rdma->name;
      else if (slingshot) n.name = slingshot->name;
      else if (!netdevs.empty()) n.name = netdevs.front();
      else n.name = "pci-" + bus_id(p);
      n.pci_bus_id = bus_id(p);
      n.numa_node = numa_of(p);
      paths_.nics[n.name] = chain_of(p);
      h.nics.push_back(std::move(n));
    }
  }

  // hwloc records a port's LID: a non-zero LID exists only on InfiniBand. RoCE ports have LID 0.
  static std::string rdma_kind(hwloc_obj_t rdma, const std::vector<std::string>& netdevs) {
    if (const char* ll = info(rdma, "Port1LinkLayer")) {
      std::string s = ll;
      if (s == "InfiniBand") return "infiniband";
      if (s == "Ethernet") return "roce";
    }
    if (const char* lid = info(rdma, "Port1LID")) {
      unsigned long v = std::strtoul(lid, nullptr, 0);
      return v ? "infiniband" : "roce";
    }
    for (const auto& nd : netdevs)
      if (nd.rfind("ib", 0) == 0) return "infiniband";
    return "unknown";
  }

  std::optional<int> gpu_of(hwloc_obj_t o) {
    auto it = gpu_index_.find(pci_of(o));
    return it == gpu_index_.end() ? std::nullopt : std::optional<int>(it->second);
  }

  struct Matrix {
    std::vector<hwloc_obj_t> objs;
    std::vector<hwloc_uint64_t> values;
  };

  std::optional<Matrix> matrix(const char* name) {
    unsigned nr = 1;
    hwloc_distances_s* d = nullptr;
    if (hwloc_distances_get_by_name(t_, name, &nr, &d, 0) != 0 || nr == 0 || !d) return std::nullopt;
    Matrix m{{d->objs, d->objs + d->nbobjs}, {d->values, d->values + std::size_t(d->nbobjs) * d->nbobjs}};
    hwloc_distances_release(t_, d);
    return m;
  }

  void links(HostTopology& h) {
    std::map<std::pair<int, int>, GpuLink> out;
    auto gbps = [](hwloc_uint64_t mb_per_s) { return double(mb_per_s) * 8.0 / 1000.0; };  // MB/s -> Gb/s
    if (auto m = matrix("NVLinkBandwidth")) {
      std::size_t n = m->objs.size();
      auto v = [&](std::size_t i, std::size_t k) { return m->values[i * n + k]; };
      // NVML reports GPU<->switch links but not the trunks between switches, so a host's
      // NVSwitches are taken as one fabric: on DGX-2 the two baseboards' switches are
      // trunked, and no GPU pair shares a switch across them, yet all 16 reach each other.
      auto root = [](std::size_t) { return std::size_t(0); };
      std::map<int, std::map<std::size_t, std::pair<int, hwloc_uint64_t>>> on_fabric;  // gpu -> fabric -> (links, MB/s)
      for (std::size_t i = 0; i < n; ++i) {
        auto gi = gpu_of(m->objs[i]);
        if (!gi) continue;
        for (std::size_t k = 0; k < n; ++k) {
          if (i == k || !v(i, k)) continue;
          if (is_nvswitch(m->objs[k])) {
            auto& f = on_fabric[*gi][root(k)];
            f.first += 1;
            f.second += v(i, k);
          } else if (auto gk = gpu_of(m->objs[k]); gk && *gk != *gi) {
            auto key = std::minmax(*gi, *gk);
            out[{key.first, key.second}] = {key.first, key.second, "nvlink", 1, gbps(v(i, k))};
          }
        }
      }
      for (auto a = on_fabric.begin(); a != on_fabric.end(); ++a)
        for (auto b = std::next(a); b != on_fabric.end(); ++b)
          for (const auto& [fab, fa] : a->second) {
            auto fb = b->second.find(fab);
            if (fb == b->second.end() || out.count({a->first, b->first})) continue;
            out[{a->first, b->first}] = {a->first, b->first, "nvswitch", std::min(fa.first, fb->second.first),
                                         gbps(std::min(fa.second, fb->second.second))};
          }
    }
    // AMD: bandwidth when recorded, else hop counts (1 hop = a direct xGMI link). CPX
    // partitions are OS devices of one PCI GPU, so partition pairs fold into GPU pairs.
    auto bw = matrix("XGMIBandwidth");
    auto hops = bw ? std::nullopt : matrix("XGMIHops");
    if (auto& m = bw ? bw : hops) {
      std::size_t n = m->objs.size();
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < n; ++k) {
          hwloc_uint64_t x = m->values[i * n + k];
          if (i == k || !x || (hops && x != 1)) continue;
          auto gi = gpu_of(m->objs[i]), gk = gpu_of(m->objs[k]);
          if (!gi || !gk || *gi == *gk) continue;
          auto key = std::minmax(*gi, *gk);
          auto& l = out[{key.first, key.second}];
          double b = bw ? gbps(x) : 0.0;
          l = {key.first, key.second, "xgmi", 1,
               bw ? std::optional<double>(std::max(b, l.bandwidth_gbps.value_or(0.0))) : std::nullopt};
        }
    }
    for (auto& [k, l] : out) h.gpu_links.push_back(l);
  }

  hwloc_topology_t t_;
  PciPaths& paths_;
  std::vector<hwloc_obj_t> numa_objs_;
  std::map<hwloc_obj_t, int> gpu_index_;
};

}  // namespace

HostTopology extract(hwloc_topology_t topo, const std::string& source, PciPaths& paths) {
  paths.pix_bridges_below = 1;
  return Extractor(topo, paths).run(source);
}

// What hwloc's XML import does not check and then crashes on (found by fuzz_hwloc_xml, hwloc
// 2.9): an object with a cpuset but no complete_cpuset (one attribute name misspelt) makes
// hwloc_topology_load dereference NULL (SIGSEGV in hwloc_bitmap_compare_first). Every file hwloc
// writes has both or neither, of the cpusets and of the nodesets, in v1 and v2. The file is read
// with pugixml first, which also names the line of XML that is not well formed.
// The largest PU or NUMA os_index read: 2^20 (a million logical CPUs; the largest machines
// today have tens of thousands), a bitmap of 128 KiB.
constexpr unsigned long kMaxOsIndex = 1ul << 20;

// "0x0000ffff", "0x00000400,,,,0x0", "0xf...f,0x1", "": hwloc's bitmap text, which
// hwloc_bitmap_sscanf asserts on when it is anything else.
static bool hwloc_bitmap_text(std::string_view t) {
  std::size_t i = 0;
  bool first = true;
  while (true) {
    const std::size_t end = std::min(t.find(',', i), t.size());
    const std::string_view w = t.substr(i, end - i);
    const bool infinite = first && w == "0xf...f";
    if (!w.empty() && !infinite) {
      if (w.size() < 3 || w.size() > 10 || w[0] != '0' || w[1] != 'x') return false;
      for (char c : w.substr(2))
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    }
    if (end == t.size()) return true;
    i = end + 1;
    first = false;
  }
}

static void reject_what_hwloc_crashes_on(const std::string& content, const std::string& name) {
  pugi::xml_document doc;
  const auto res = doc.load_buffer(content.data(), content.size());
  if (!res)
    throw TopologyError(name, base::line_of_offset(content, std::size_t(res.offset)),
                        std::string("not well-formed XML: ") + res.description());
  for (const auto& x : doc.select_nodes("//object")) {
    const pugi::xml_node o = x.node();
    for (const auto& [set, complete] : {std::pair{"cpuset", "complete_cpuset"}, std::pair{"nodeset", "complete_nodeset"}})
      if (bool(o.attribute(set)) != bool(o.attribute(complete)))
        throw TopologyError(name, base::line_of_offset(content, std::size_t(o.offset_debug())),
                            std::string("object type=\"") + o.attribute("type").value() + "\" has " +
                                (o.attribute(set) ? set : complete) + " without " +
                                (o.attribute(set) ? complete : set) + " (hwloc writes both; its import crashes on one)");
    // A bitmap in any other shape than hwloc's own ("0x0000ffff,,0x1": words of 0x and up to 8
    // hex digits, empty ones between commas, "0xf...f" first for an infinite set) trips an
    // assert in hwloc_bitmap_sscanf and aborts the process (found by fuzz_hwloc_xml, 2026-12-07:
    // nodeset=",x00000002").
    for (const pugi::xml_attribute& a : o.attributes()) {
      const std::string key = a.name();
      const bool bitmap = key.size() >= 6 && (key.compare(key.size() - 6, 6, "cpuset") == 0 ||
                                              (key.size() >= 7 && key.compare(key.size() - 7, 7, "nodeset") == 0));
      if (bitmap && !hwloc_bitmap_text(a.value()))
        throw TopologyError(name, base::line_of_offset(content, std::size_t(o.offset_debug())),
                            std::string("object type=\"") + o.attribute("type").value() + "\" has " + key + "=\"" +
                                std::string(a.value()).substr(0, 40) + "\": not a bitmap as hwloc writes one (0x and hex words between commas)");
    }
    // A PU or NUMA node without an os_index, or with one past any machine's, is a bit that high
    // in a bitmap hwloc's import builds: os_index missing is 2^32 - 1, 512 MiB for one input
    // (found by fuzz_hwloc_xml, 2026-12-07). hwloc writes one for every PU and NUMA node.
    const std::string type = o.attribute("type").value();
    if (type == "PU" || type == "NUMANode") {
      const pugi::xml_attribute idx = o.attribute("os_index");
      const std::string text = idx.value();
      const bool digits = !text.empty() && text.size() <= 7 && text.find_first_not_of("0123456789") == std::string::npos;
      if (!idx || !digits || std::stoul(text) > kMaxOsIndex)
        throw TopologyError(name, base::line_of_offset(content, std::size_t(o.offset_debug())),
                            "object type=\"" + type + "\" has " +
                                (idx ? "os_index=\"" + text.substr(0, 20) + "\"" : std::string("no os_index")) +
                                ": hwloc writes one from 0 to " + std::to_string(kMaxOsIndex) + " for every PU and NUMA node");
    }
  }
}

HostTopology load_hwloc_xml(const std::string& content, const std::string& name, const std::string& hostname) {
  reject_unsafe_xml(content, name, true);  // before libxml2 sees a DOCTYPE or an entity
  require_utf8(content, name);
  reject_what_hwloc_crashes_on(content, name);
  HwlocTopology topo;
  // hwloc wants the terminating NUL counted in the size.
  if (hwloc_topology_set_xmlbuffer(topo.get(), content.c_str(), int(content.size() + 1)) != 0)
    throw TopologyError(name, 0, "hwloc rejected the XML buffer");
  hwloc_topology_set_io_types_filter(topo.get(), HWLOC_TYPE_FILTER_KEEP_ALL);
  // Count what the machine had, not what the recording process was allowed to use.
  hwloc_topology_set_flags(topo.get(), HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (hwloc_topology_load(topo.get()) != 0) throw TopologyError(name, 0, "hwloc could not load the XML topology");
  PciPaths paths;
  HostTopology h = extract(topo.get(), "hwloc-xml", paths);
  if (h.hostname.empty()) h.hostname = hostname;
  classify_pci(h, paths);
  classify(h);
  return h;
}

HostTopology load_hwloc_xml_isolated(const std::string& content, const std::string& name, const std::string& hostname) {
  const base::ChildOutcome r = base::run_in_child([&]() -> std::string {
    try {
      return "h" + to_json(load_hwloc_xml(content, name, hostname)).dump();
    } catch (const TopologyError& e) {
      // The message without the "file:line: " TopologyError put before it.
      const std::string prefix = e.file + (e.line > 0 ? ":" + std::to_string(e.line) : std::string{}) + ": ";
      std::string what = e.what();
      if (what.rfind(prefix, 0) == 0) what.erase(0, prefix.size());
      return "e" + nlohmann::json{{"line", e.line}, {"what", what}}.dump();
    }
  });
  switch (r.kind) {
    case base::ChildOutcome::Kind::returned: {
      const auto j = nlohmann::json::parse(r.text.substr(1));
      if (r.text[0] == 'h') return host_from_json(j);
      throw TopologyError(name, j.value("line", 0), j.value("what", std::string("hwloc could not load the XML topology")));
    }
    case base::ChildOutcome::Kind::threw: throw TopologyError(name, 0, r.text);
    case base::ChildOutcome::Kind::died: break;
  }
  throw TopologyError(name, 0, "hwloc's XML import crashed on this file (its process was " + r.text +
                                   "): it is not a topology hwloc wrote, or one this hwloc cannot read");
}

HostTopology discover_hwloc_live(const std::string& hostname, PciPaths& paths) {
  HwlocTopology topo;
  hwloc_topology_set_io_types_filter(topo.get(), HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_load(topo.get()) != 0) throw TopologyError("hwloc", 0, "could not load the live topology");
  HostTopology h = extract(topo.get(), "live", paths);
  h.hostname = hostname;
  return h;
}

}  // namespace ga::topo::detail
