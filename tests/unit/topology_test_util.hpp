// Helpers shared by the topology tests.
#pragma once
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace topo_test {

inline std::string fixture(const std::string& rel) { return std::string(GA_FIXTURES_DIR) + "/" + rel; }
inline std::string data(const std::string& rel) { return std::string(GA_TEST_DATA_DIR) + "/topology/" + rel; }

// A whole file as bytes (the hostile-input tests edit fixtures in memory).
inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline const ga::topo::Nic* nic(const ga::topo::HostTopology& h, const std::string& name) {
  for (const auto& n : h.nics)
    if (n.name == name) return &n;
  return nullptr;
}

inline std::vector<std::string> nic_names(const ga::topo::HostTopology& h) {
  std::vector<std::string> v;
  for (const auto& n : h.nics) v.push_back(n.name);
  return v;
}

inline std::vector<int> gpu_numas(const ga::topo::HostTopology& h) {
  std::vector<int> v;
  for (const auto& g : h.gpus) v.push_back(g.numa_node.value_or(-1));
  return v;
}

inline std::vector<std::string> gpu_buses(const ga::topo::HostTopology& h) {
  std::vector<std::string> v;
  for (const auto& g : h.gpus) v.push_back(g.pci_bus_id.value_or("?"));
  return v;
}

using Names = std::vector<std::string>;
using Islands = std::vector<std::vector<int>>;

}  // namespace topo_test
