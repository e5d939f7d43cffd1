// Entry points of the topology module: discovery, loading recorded files, classification,
// features (the comparable facts of a host) and JSON.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "topology/model.hpp"

namespace ga::topo {

struct TopologyError : std::runtime_error {
  TopologyError(const std::string& file, int line, const std::string& what)
      : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : std::string{}) + ": " + what),
        file(file), line(line) {}
  std::string file;
  int line;
};

enum class Format { hwloc_xml, nccl_xml, nvidia_smi_text };
// Detected from the content, never from the file name. Throws TopologyError.
Format detect_format(const std::string& content, const std::string& name);
// Loads a recorded topology (one host). hostname: the file's host when recorded, else `name`.
HostTopology load_topology_file(const std::string& path);
HostTopology load_topology_text(const std::string& content, const std::string& name);
// This host, live: hwloc with I/O objects kept, plus sysfs for RDMA devices.
// sysfs_root lets tests feed recorded /sys trees ("" = "/").
HostTopology discover_local(const std::string& hostname, const std::string& sysfs_root = "");

// Fills nearest_nics, nic_path, gpu_nic_paths, gpu_link_islands, gpu_link_all_to_all from the
// rest of the model. Loaders call it; exposed for tests and for discovery adapters.
void classify(HostTopology&);

// Comparable facts of a host, each keyed to a place relative to the host
// ("" for the host itself, "gpu:3", "numa:1", "nic:mlx5_0").
struct Feature {
  std::string subplace;
  std::string metric;                   // "topology.gpu_count", "topology.gpu_numa_node" ...
  std::optional<double> value;
  std::optional<std::string> text;
  std::string unit;
};
std::vector<Feature> features(const HostTopology&);

nlohmann::json to_json(const HostTopology&);
HostTopology host_from_json(const nlohmann::json&);  // throws std::runtime_error
nlohmann::json to_json(const ClusterTopology&);     // {"hosts": [...]}

}  // namespace ga::topo
