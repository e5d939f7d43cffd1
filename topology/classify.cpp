// Classification: GPU<->NIC path classes and nearest NICs, NVLink/xGMI islands.
#include <algorithm>
#include <numeric>
#include <set>

#include "topology/pci_path_internal.hpp"
#include "topology/topology.hpp"

namespace ga::topo {
namespace detail {

PathClass path_between(const DeviceChain& a, const DeviceChain& b, int pix_bridges_below) {
  std::size_t common = 0;
  while (common < a.ancestors.size() && common < b.ancestors.size() &&
         a.ancestors[common].id == b.ancestors[common].id)
    ++common;
  auto by_numa = [&] {
    if (!a.numa || !b.numa) return PathClass::Unknown;
    return *a.numa == *b.numa ? PathClass::NODE : PathClass::SYS;
  };
  if (common == 0) return by_numa();
  const PathNode& lca = a.ancestors[common - 1];
  switch (lca.kind) {
    case NodeKind::root: return by_numa();
    case NodeKind::host_bridge: return PathClass::PHB;
    case NodeKind::bridge: {
      auto below = [&](const DeviceChain& c) {
        return int(std::count_if(c.ancestors.begin() + long(common), c.ancestors.end(),
                                 [](const PathNode& n) { return n.kind == NodeKind::bridge; }));
      };
      return below(a) <= pix_bridges_below && below(b) <= pix_bridges_below ? PathClass::PIX : PathClass::PXB;
    }
  }
  return PathClass::Unknown;
}

void classify_pci(HostTopology& h, const PciPaths& paths) {
  for (const auto& [gpu, gc] : paths.gpus)
    for (const auto& [nic, nc] : paths.nics) h.gpu_nic_paths[gpu][nic] = path_between(gc, nc, paths.pix_bridges_below);
}

}  // namespace detail

namespace {

// Pairs a loader could not place in a PCI tree (no bus ids, JSON without paths) still have
// a NUMA relation; anything finer would be a guess.
PathClass path_from_numa(const Gpu& g, const Nic& n) {
  if (!g.numa_node || !n.numa_node) return PathClass::Unknown;
  return *g.numa_node == *n.numa_node ? PathClass::NODE : PathClass::SYS;
}

void classify_nics(HostTopology& h) {
  for (auto& g : h.gpus) {
    auto& row = h.gpu_nic_paths[g.index];
    for (const auto& n : h.nics)
      if (!row.count(n.name)) row[n.name] = path_from_numa(g, n);
    g.nearest_nics.clear();
    g.nic_path.reset();
    if (h.nics.empty()) continue;
    PathClass best = PathClass::Unknown;
    for (const auto& n : h.nics) best = std::min(best, row.at(n.name));
    g.nic_path = best;
    if (best == PathClass::Unknown) continue;  // no NIC is known to be near: name none
    for (const auto& n : h.nics)
      if (row.at(n.name) == best) g.nearest_nics.push_back(n.name);
    std::sort(g.nearest_nics.begin(), g.nearest_nics.end());
  }
  // Drop rows for GPUs without NICs so that an empty map means "no pairs".
  for (auto it = h.gpu_nic_paths.begin(); it != h.gpu_nic_paths.end();)
    it = it->second.empty() ? h.gpu_nic_paths.erase(it) : std::next(it);
}

void classify_links(HostTopology& h) {
  std::set<int> linked;
  std::set<std::pair<int, int>> direct;
  for (const auto& l : h.gpu_links) {
    if (l.a == l.b) continue;  // a self link (NCCL dumps have them) joins nothing
    linked.insert(l.a);
    linked.insert(l.b);
    direct.insert({std::min(l.a, l.b), std::max(l.a, l.b)});
  }
  std::vector<int> ids(linked.begin(), linked.end());
  std::map<int, int> parent;
  for (int i : ids) parent[i] = i;
  auto root = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& [a, b] : direct) parent[root(a)] = root(b);
  std::map<int, std::vector<int>> groups;
  for (int i : ids) groups[root(i)].push_back(i);
  h.gpu_link_islands.clear();
  for (auto& [r, members] : groups) h.gpu_link_islands.push_back(members);  // members ascending
  std::sort(h.gpu_link_islands.begin(), h.gpu_link_islands.end());
  // NVSwitch-mediated pairs are stored as links of their own (type "nvswitch"), so "every
  // pair joined directly or through one switch" is "every pair has a link".
  bool all = !h.gpu_link_islands.empty();
  for (const auto& isl : h.gpu_link_islands)
    for (std::size_t i = 0; all && i < isl.size(); ++i)
      for (std::size_t k = i + 1; all && k < isl.size(); ++k) all = direct.count({isl[i], isl[k]}) > 0;
  h.gpu_link_all_to_all = all;
}

}  // namespace

void classify(HostTopology& h) {
  std::sort(h.gpus.begin(), h.gpus.end(), [](const Gpu& a, const Gpu& b) { return a.index < b.index; });
  classify_nics(h);
  classify_links(h);
}

}  // namespace ga::topo
