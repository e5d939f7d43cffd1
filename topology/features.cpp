// The comparable facts of a host. Text features use one canonical spelling each so that
// two hosts compare equal exactly when their topologies agree.
#include <algorithm>

#include "base/units.hpp"
#include "topology/topology.hpp"

namespace ga::topo {
namespace {

Feature count(std::string sub, std::string metric, double v) {
  return {std::move(sub), std::move(metric), v, std::nullopt, unit::count};
}
Feature text(std::string sub, std::string metric, std::string t) {
  return {std::move(sub), std::move(metric), std::nullopt, std::move(t), unit::text};
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string islands_text(std::vector<std::vector<int>> islands) {
  if (islands.empty()) return "none";
  for (auto& i : islands) std::sort(i.begin(), i.end());
  std::sort(islands.begin(), islands.end());
  std::vector<std::string> parts;
  for (const auto& i : islands) {
    std::vector<std::string> ids;
    for (int g : i) ids.push_back(std::to_string(g));
    parts.push_back(join(ids, "-"));
  }
  return join(parts, "|");
}

}  // namespace

std::vector<Feature> features(const HostTopology& h) {
  std::vector<Feature> f;
  f.push_back(count("", "topology.numa_count", double(h.numa_nodes.size())));
  // Zero means the source did not say (nvidia-smi text records no CPUs): a real host has at
  // least one of each, and an expected 0 would fail every host against a file's silence.
  if (h.packages > 0) f.push_back(count("", "topology.package_count", h.packages));
  if (h.cores > 0) f.push_back(count("", "topology.core_count", h.cores));
  if (h.pus > 0) f.push_back(count("", "topology.pu_count", h.pus));
  f.push_back(count("", "topology.gpu_count", double(h.gpus.size())));
  f.push_back(count("", "topology.nic_count", double(h.nics.size())));
  f.push_back(text("", "topology.gpu_link_islands", islands_text(h.gpu_link_islands)));
  f.push_back({"", "topology.gpu_link_all_to_all", h.gpu_link_all_to_all ? 1.0 : 0.0, std::nullopt, unit::boolean});

  std::vector<const Gpu*> gpus;
  for (const auto& g : h.gpus) gpus.push_back(&g);
  std::sort(gpus.begin(), gpus.end(), [](const Gpu* a, const Gpu* b) { return a->index < b->index; });
  for (const Gpu* g : gpus) {
    std::string sub = "gpu:" + std::to_string(g->index);
    f.push_back(text(sub, "topology.gpu_model", g->model));
    if (g->numa_node) f.push_back(count(sub, "topology.gpu_numa_node", *g->numa_node));
    auto nearest = g->nearest_nics;
    std::sort(nearest.begin(), nearest.end());
    f.push_back(text(sub, "topology.gpu_nearest_nics", nearest.empty() ? "none" : join(nearest, ",")));
    f.push_back(text(sub, "topology.gpu_nic_path", g->nic_path ? to_string(*g->nic_path) : "none"));
  }

  std::vector<const Nic*> nics;
  for (const auto& n : h.nics) nics.push_back(&n);
  std::sort(nics.begin(), nics.end(), [](const Nic* a, const Nic* b) { return a->name < b->name; });
  for (const Nic* n : nics) {
    std::string sub = "nic:" + n->name;
    if (n->numa_node) f.push_back(count(sub, "topology.nic_numa_node", *n->numa_node));
    f.push_back(text(sub, "topology.nic_kind", n->kind));
    if (n->rate_gbps) f.push_back({sub, "topology.nic_rate_gbps", *n->rate_gbps, std::nullopt, "Gb/s"});
  }
  return f;
}

}  // namespace ga::topo
