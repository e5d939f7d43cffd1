// JSON form of the topology model. host_from_json is the exact inverse of to_json, so a
// topology gathered on one rank (or written into a report) can be read back unchanged.
#include <stdexcept>

#include "topology/topology.hpp"

namespace ga::topo {
namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
std::optional<T> get_opt(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

PathClass path_or_throw(const std::string& s) {
  auto c = path_class_from_string(s);
  if (!c) throw std::runtime_error("topology json: unknown path class '" + s + "'");
  return *c;
}

}  // namespace

nlohmann::json to_json(const HostTopology& h) {
  nlohmann::json j;
  j["hostname"] = h.hostname;
  j["source"] = h.source;
  j["packages"] = h.packages;
  j["cores"] = h.cores;
  j["pus"] = h.pus;
  j["numa_nodes"] = nlohmann::json::array();
  for (const auto& n : h.numa_nodes)
    j["numa_nodes"].push_back({{"os_index", n.os_index}, {"cpuset", n.cpuset}, {"memory_bytes", opt(n.memory_bytes)}});
  j["gpus"] = nlohmann::json::array();
  for (const auto& g : h.gpus) {
    nlohmann::json gj = {{"index", g.index},
                         {"vendor", g.vendor},
                         {"model", g.model},
                         {"pci_bus_id", opt(g.pci_bus_id)},
                         {"numa_node", opt(g.numa_node)},
                         {"os_names", g.os_names},
                         {"uuid", opt(g.uuid)},
                         {"nearest_nics", g.nearest_nics},
                         {"nic_path", g.nic_path ? nlohmann::json(to_string(*g.nic_path)) : nlohmann::json(nullptr)}};
    if (g.serial) gj["serial"] = *g.serial;  // only when known: recorded topologies have none
    j["gpus"].push_back(std::move(gj));
  }
  j["nics"] = nlohmann::json::array();
  for (const auto& n : h.nics)
    j["nics"].push_back({{"name", n.name},
                         {"kind", n.kind},
                         {"netdevs", n.netdevs},
                         {"pci_bus_id", opt(n.pci_bus_id)},
                         {"numa_node", opt(n.numa_node)},
                         {"rate_gbps", opt(n.rate_gbps)}});
  j["gpu_links"] = nlohmann::json::array();
  for (const auto& l : h.gpu_links)
    j["gpu_links"].push_back(
        {{"a", l.a}, {"b", l.b}, {"type", l.type}, {"count", l.count}, {"bandwidth_gbps", opt(l.bandwidth_gbps)}});
  j["gpu_link_islands"] = h.gpu_link_islands;
  j["gpu_link_all_to_all"] = h.gpu_link_all_to_all;
  j["gpu_nic_paths"] = nlohmann::json::object();
  for (const auto& [gpu, row] : h.gpu_nic_paths) {
    nlohmann::json r = nlohmann::json::object();
    for (const auto& [nic, c] : row) r[nic] = to_string(c);
    j["gpu_nic_paths"][std::to_string(gpu)] = r;
  }
  return j;
}

HostTopology host_from_json(const nlohmann::json& j) {
  try {
    HostTopology h;
    h.hostname = j.at("hostname").get<std::string>();
    h.source = j.at("source").get<std::string>();
    h.packages = j.at("packages").get<int>();
    h.cores = j.at("cores").get<int>();
    h.pus = j.at("pus").get<int>();
    for (const auto& n : j.at("numa_nodes"))
      h.numa_nodes.push_back({n.at("os_index").get<int>(), n.at("cpuset").get<std::string>(),
                              get_opt<std::uint64_t>(n, "memory_bytes")});
    for (const auto& g : j.at("gpus")) {
      Gpu x;
      x.index = g.at("index").get<int>();
      x.vendor = g.at("vendor").get<std::string>();
      x.model = g.at("model").get<std::string>();
      x.pci_bus_id = get_opt<std::string>(g, "pci_bus_id");
      x.numa_node = get_opt<int>(g, "numa_node");
      x.os_names = g.at("os_names").get<std::vector<std::string>>();
      x.uuid = get_opt<std::string>(g, "uuid");
      x.serial = get_opt<std::string>(g, "serial");
      x.nearest_nics = g.at("nearest_nics").get<std::vector<std::string>>();
      if (auto p = get_opt<std::string>(g, "nic_path")) x.nic_path = path_or_throw(*p);
      h.gpus.push_back(std::move(x));
    }
    for (const auto& n : j.at("nics")) {
      Nic x;
      x.name = n.at("name").get<std::string>();
      x.kind = n.at("kind").get<std::string>();
      x.netdevs = n.at("netdevs").get<std::vector<std::string>>();
      x.pci_bus_id = get_opt<std::string>(n, "pci_bus_id");
      x.numa_node = get_opt<int>(n, "numa_node");
      x.rate_gbps = get_opt<double>(n, "rate_gbps");
      h.nics.push_back(std::move(x));
    }
    for (const auto& l : j.at("gpu_links"))
      h.gpu_links.push_back({l.at("a").get<int>(), l.at("b").get<int>(), l.at("type").get<std::string>(),
                             l.at("count").get<int>(), get_opt<double>(l, "bandwidth_gbps")});
    h.gpu_link_islands = j.at("gpu_link_islands").get<std::vector<std::vector<int>>>();
    h.gpu_link_all_to_all = j.at("gpu_link_all_to_all").get<bool>();
    for (const auto& [gpu, row] : j.at("gpu_nic_paths").items()) {
      std::size_t used = 0;
      int idx = std::stoi(gpu, &used);
      if (used != gpu.size()) throw std::runtime_error("topology json: gpu_nic_paths key '" + gpu + "' is not a GPU index");
      for (const auto& [nic, c] : row.items()) h.gpu_nic_paths[idx][nic] = path_or_throw(c.get<std::string>());
    }
    return h;
  } catch (const nlohmann::json::exception& e) {
    // Callers catch std::runtime_error only; nlohmann's exceptions derive from std::exception.
    throw std::runtime_error(std::string("topology json: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("topology json: bad number: ") + e.what());
  } catch (const std::out_of_range& e) {
    throw std::runtime_error(std::string("topology json: number out of range: ") + e.what());
  }
}

nlohmann::json to_json(const ClusterTopology& c) {
  nlohmann::json j;
  j["hosts"] = nlohmann::json::array();
  for (const auto& h : c.hosts) j["hosts"].push_back(to_json(h));
  return j;
}

}  // namespace ga::topo
