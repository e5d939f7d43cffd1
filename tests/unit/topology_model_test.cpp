// Model, JSON round trip, features and classify() on hand-built hosts.
#include <gtest/gtest.h>

#include "topology/topology.hpp"

using namespace ga::topo;

namespace {

HostTopology two_gpu_host() {
  HostTopology h;
  h.hostname = "n1";
  h.source = "nccl-xml";
  h.packages = 2;
  h.cores = 8;
  h.pus = 16;
  h.numa_nodes = {{0, "0-7", 1024}, {1, "8-15", std::nullopt}};
  Gpu g0;
  g0.index = 0;
  g0.vendor = "nvidia";
  g0.model = "A100";
  g0.pci_bus_id = "0000:07:00.0";
  g0.numa_node = 0;
  g0.os_names = {"nvml0"};
  Gpu g1 = g0;
  g1.index = 1;
  g1.pci_bus_id = "0000:87:00.0";
  g1.numa_node = 1;
  g1.os_names = {"nvml1"};
  g1.uuid = "GPU-1";
  h.gpus = {g1, g0};  // out of order on purpose: classify sorts
  h.nics = {{"mlx5_0", "infiniband", {"ib0"}, "0000:0c:00.0", 0, 200.0},
            {"mlx5_1", "roce", {}, std::nullopt, 1, std::nullopt}};
  h.gpu_links = {{0, 1, "nvlink", 12, 300.0}};
  h.gpu_nic_paths[0]["mlx5_0"] = PathClass::PIX;  // as a PCI-aware loader would record it
  return h;
}

}  // namespace

TEST(TopologyModel, PathClassStrings) {
  for (PathClass c : {PathClass::PIX, PathClass::PXB, PathClass::PHB, PathClass::NODE, PathClass::SYS, PathClass::Unknown})
    EXPECT_EQ(path_class_from_string(to_string(c)), c);
  EXPECT_EQ(path_class_from_string("pxb"), PathClass::PXB);
  EXPECT_FALSE(path_class_from_string("NV12").has_value());
  EXPECT_LT(PathClass::PIX, PathClass::SYS);
}

TEST(TopologyModel, ClusterFind) {
  ClusterTopology c;
  c.hosts.push_back(two_gpu_host());
  c.hosts.push_back(two_gpu_host());
  c.hosts[1].hostname = "n2";
  ASSERT_NE(c.find("n2"), nullptr);
  EXPECT_EQ(c.find("n2"), &c.hosts[1]);
  EXPECT_EQ(c.find("n3"), nullptr);
  auto j = to_json(c);
  ASSERT_EQ(j["hosts"].size(), 2u);
  EXPECT_EQ(j["hosts"][1]["hostname"], "n2");
}

TEST(TopologyModel, ClassifyKeepsRecordedPathsAndFillsFromNuma) {
  auto h = two_gpu_host();
  classify(h);
  ASSERT_EQ(h.gpus[0].index, 0);
  EXPECT_EQ(h.gpu_nic_paths.at(0).at("mlx5_0"), PathClass::PIX);
  EXPECT_EQ(h.gpu_nic_paths.at(0).at("mlx5_1"), PathClass::SYS);
  EXPECT_EQ(h.gpu_nic_paths.at(1).at("mlx5_0"), PathClass::SYS);
  EXPECT_EQ(h.gpu_nic_paths.at(1).at("mlx5_1"), PathClass::NODE);
  EXPECT_EQ(h.gpus[0].nearest_nics, std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::PIX);
  EXPECT_EQ(h.gpus[1].nearest_nics, std::vector<std::string>{"mlx5_1"});
  EXPECT_EQ(h.gpus[1].nic_path, PathClass::NODE);
  EXPECT_EQ(h.gpu_link_islands, (std::vector<std::vector<int>>{{0, 1}}));
  EXPECT_TRUE(h.gpu_link_all_to_all);
}

TEST(TopologyModel, ClassifyIslandsChainIsNotAllToAll) {
  HostTopology h;
  for (int i = 0; i < 5; ++i) {
    Gpu g;
    g.index = i;
    h.gpus.push_back(g);
  }
  h.gpu_links = {{0, 1, "nvlink", 1, {}}, {1, 2, "nvlink", 1, {}}, {3, 4, "nvlink", 2, {}}, {4, 4, "nvlink", 1, {}}};
  classify(h);
  EXPECT_EQ(h.gpu_link_islands, (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4}}));
  EXPECT_FALSE(h.gpu_link_all_to_all);  // 0 and 2 meet only through 1
  h.gpu_links.push_back({2, 0, "nvlink", 1, {}});
  classify(h);
  EXPECT_TRUE(h.gpu_link_all_to_all);
  h.gpu_links = {{3, 3, "nvlink", 12, {}}};  // self links alone make no island
  classify(h);
  EXPECT_TRUE(h.gpu_link_islands.empty());
  EXPECT_FALSE(h.gpu_link_all_to_all);
}

TEST(TopologyModel, NoNicsMeansNoNearest) {
  HostTopology h;
  Gpu g;
  g.numa_node = 0;
  h.gpus.push_back(g);
  classify(h);
  EXPECT_TRUE(h.gpus[0].nearest_nics.empty());
  EXPECT_FALSE(h.gpus[0].nic_path.has_value());
  EXPECT_TRUE(h.gpu_nic_paths.empty());
}

TEST(TopologyModel, JsonShapeAndRoundTrip) {
  auto h = two_gpu_host();
  classify(h);
  auto j = to_json(h);
  EXPECT_EQ(j["numa_nodes"][1]["memory_bytes"], nullptr);
  EXPECT_EQ(j["numa_nodes"][0]["memory_bytes"], 1024);
  EXPECT_EQ(j["gpus"][0]["uuid"], nullptr);
  EXPECT_EQ(j["gpus"][0]["nic_path"], "PIX");
  EXPECT_EQ(j["nics"][1]["pci_bus_id"], nullptr);
  EXPECT_EQ(j["nics"][0]["rate_gbps"], 200.0);
  EXPECT_EQ(j["gpu_links"][0]["count"], 12);
  EXPECT_EQ(j["gpu_link_islands"], nlohmann::json::parse("[[0,1]]"));
  EXPECT_EQ(j["gpu_link_all_to_all"], true);
  EXPECT_EQ(j["gpu_nic_paths"]["1"]["mlx5_1"], "NODE");
  auto back = host_from_json(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.gpus[1].uuid, "GPU-1");
  EXPECT_EQ(back.gpu_nic_paths.at(0).at("mlx5_0"), PathClass::PIX);
  // through text too, as a report file would carry it
  EXPECT_EQ(to_json(host_from_json(nlohmann::json::parse(j.dump()))), j);
}

TEST(TopologyModel, JsonRejectsBadInput) {
  auto j = to_json(two_gpu_host());
  auto bad = j;
  bad.erase("gpus");
  EXPECT_THROW(host_from_json(bad), std::runtime_error);
  bad = j;
  bad["gpus"][0]["nic_path"] = "NV4";
  EXPECT_THROW(host_from_json(bad), std::runtime_error);
  bad = j;
  bad["gpu_nic_paths"] = {{"x", {{"mlx5_0", "PIX"}}}};
  EXPECT_THROW(host_from_json(bad), std::runtime_error);
  bad = j;
  bad["packages"] = "two";
  EXPECT_THROW(host_from_json(bad), std::runtime_error);
}

TEST(TopologyModel, FeaturesAreCanonicalAndOrdered) {
  auto h = two_gpu_host();
  h.gpus[0].numa_node.reset();  // GPU 1 (listed first) has no known NUMA node
  classify(h);
  auto f = features(h);
  auto find = [&](const std::string& sub, const std::string& m) -> const Feature* {
    for (const auto& x : f)
      if (x.subplace == sub && x.metric == m) return &x;
    return nullptr;
  };
  ASSERT_NE(find("", "topology.gpu_count"), nullptr);
  EXPECT_EQ(find("", "topology.gpu_count")->value, 2.0);
  EXPECT_EQ(find("", "topology.gpu_count")->unit, "count");
  EXPECT_EQ(find("", "topology.numa_count")->value, 2.0);
  EXPECT_EQ(find("", "topology.nic_count")->value, 2.0);
  EXPECT_EQ(find("", "topology.gpu_link_islands")->text, "0-1");
  EXPECT_EQ(find("", "topology.gpu_link_all_to_all")->value, 1.0);
  EXPECT_EQ(find("", "topology.gpu_link_all_to_all")->unit, "bool");
  EXPECT_EQ(find("gpu:0", "topology.gpu_model")->text, "A100");
  EXPECT_EQ(find("gpu:1", "topology.gpu_numa_node"), nullptr);
  EXPECT_EQ(find("gpu:0", "topology.gpu_numa_node")->value, 0.0);
  EXPECT_EQ(find("gpu:0", "topology.gpu_nearest_nics")->text, "mlx5_0");
  EXPECT_EQ(find("gpu:0", "topology.gpu_nic_path")->text, "PIX");
  EXPECT_EQ(find("gpu:1", "topology.gpu_nic_path")->text, "Unknown");  // mlx5_1 NUMA known, GPU's not
  EXPECT_EQ(find("gpu:1", "topology.gpu_nearest_nics")->text, "none");
  EXPECT_EQ(find("nic:mlx5_0", "topology.nic_kind")->text, "infiniband");
  EXPECT_EQ(find("nic:mlx5_0", "topology.nic_rate_gbps")->value, 200.0);
  EXPECT_EQ(find("nic:mlx5_1", "topology.nic_rate_gbps"), nullptr);
  EXPECT_EQ(find("nic:mlx5_1", "topology.nic_numa_node")->value, 1.0);
  // gpu:0 before gpu:1 before nic:*, whatever the model order
  std::vector<std::string> subs;
  for (const auto& x : f)
    if (subs.empty() || subs.back() != x.subplace) subs.push_back(x.subplace);
  EXPECT_EQ(subs, (std::vector<std::string>{"", "gpu:0", "gpu:1", "nic:mlx5_0", "nic:mlx5_1"}));
  // same input, same output
  auto f2 = features(h);
  ASSERT_EQ(f.size(), f2.size());
  for (std::size_t i = 0; i < f.size(); ++i) EXPECT_EQ(f[i].metric, f2[i].metric);
}
