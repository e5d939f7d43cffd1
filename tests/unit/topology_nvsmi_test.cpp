// nvidia-smi topo -m / -mp text fixtures against PROVENANCE.md, and the synthetic DGX-1 mesh.
#include <gtest/gtest.h>

#include "topology_test_util.hpp"

using namespace ga::topo;
using namespace topo_test;

TEST(TopologyNvsmi, DgxA100AllNv12) {
  auto h = load_topology_file(fixture("nvidia-smi-topo/nvidia-dgx-a100-8xA100-nv12-12xmlx5-nps4.txt"));
  EXPECT_EQ(h.source, "nvidia-smi");
  ASSERT_EQ(h.gpus.size(), 8u);
  for (const auto& g : h.gpus) EXPECT_FALSE(g.pci_bus_id.has_value());
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{3, 3, 1, 1, 7, 7, 5, 5}));
  ASSERT_EQ(h.numa_nodes.size(), 4u);
  EXPECT_EQ(h.numa_nodes[1].os_index, 3);
  EXPECT_EQ(h.numa_nodes[1].cpuset, "48-63,176-191");
  ASSERT_EQ(h.nics.size(), 12u);
  EXPECT_EQ(h.nics[11].name, "mlx5_11");
  EXPECT_EQ(h.gpu_links.size(), 28u);
  for (const auto& l : h.gpu_links) EXPECT_EQ(l.count, 12);
  EXPECT_EQ(h.gpu_link_islands, (Islands{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_TRUE(h.gpu_link_all_to_all);
  const Names want[] = {{"mlx5_0", "mlx5_1"}, {"mlx5_2", "mlx5_3"}, {"mlx5_6", "mlx5_7"}, {"mlx5_8", "mlx5_9"}};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(h.gpus[i].nearest_nics, want[i / 2]) << i;
    EXPECT_EQ(h.gpus[i].nic_path, PathClass::PXB);
  }
  // storage/inband NICs: SYS from every GPU, so their NUMA node cannot be told
  EXPECT_EQ(h.gpu_nic_paths.at(0).at("mlx5_4"), PathClass::SYS);
  EXPECT_FALSE(nic(h, "mlx5_4")->numa_node.has_value());
  EXPECT_EQ(nic(h, "mlx5_0")->numa_node, 3);
  EXPECT_EQ(nic(h, "mlx5_9")->numa_node, 5);
}

TEST(TopologyNvsmi, DellH100MpWithNicLegend) {
  auto h = load_topology_file(fixture("nvidia-smi-topo/dell-8xH100-topo-mp-pcie-only-12nic-deepep397.txt"));
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(h.numa_nodes[0].cpuset, "0,2,4,6,8,10");
  EXPECT_EQ(h.numa_nodes[1].cpuset, "1,3,5,7,9,11");
  ASSERT_EQ(h.nics.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(h.nics[i].name, "mlx5_" + std::to_string(i));  // names from the legend
  const Names want[] = {{"mlx5_0", "mlx5_1", "mlx5_2"}, {"mlx5_3"}, {"mlx5_4"}, {"mlx5_5"},
                        {"mlx5_6", "mlx5_7", "mlx5_8"}, {"mlx5_9"}, {"mlx5_10"}, {"mlx5_11"}};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(h.gpus[i].nearest_nics, want[i]) << i;
    EXPECT_EQ(h.gpus[i].nic_path, PathClass::PIX);
  }
  EXPECT_TRUE(h.gpu_links.empty());  // -mp has no NV entries
  EXPECT_TRUE(h.gpu_link_islands.empty());
  EXPECT_FALSE(h.gpu_link_all_to_all);
}

TEST(TopologyNvsmi, DellaTwoPcieA100) {
  auto h = load_topology_file(fixture("nvidia-smi-topo/princeton-della-2xA100-pcie-2numa.txt"));
  ASSERT_EQ(h.gpus.size(), 2u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 1}));
  EXPECT_EQ(h.numa_nodes[0].cpuset, "0-63");
  EXPECT_EQ(h.numa_nodes[1].cpuset, "64-127");
  EXPECT_TRUE(h.gpu_link_islands.empty());
  EXPECT_EQ(h.gpus[0].nearest_nics, (Names{"mlx5_0"}));
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::NODE);
  EXPECT_EQ(h.gpus[1].nearest_nics, (Names{"mlx5_1"}));
  EXPECT_EQ(h.gpus[1].nic_path, PathClass::NODE);
  EXPECT_EQ(nic(h, "mlx5_0")->numa_node, 0);
  EXPECT_EQ(nic(h, "mlx5_1")->numa_node, 1);
}

TEST(TopologyNvsmi, PcieOnlyEightGpusNoNics) {
  auto h = load_topology_file(fixture("nvidia-smi-topo/pcie-only-8gpu-2numa-no-nvlink-no-nic.txt"));
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(h.numa_nodes[1].cpuset, "32-63,96-123");
  EXPECT_TRUE(h.nics.empty());
  EXPECT_TRUE(h.gpu_links.empty());
  EXPECT_TRUE(h.gpu_link_islands.empty());
  for (const auto& g : h.gpus) EXPECT_FALSE(g.nic_path.has_value());
}

TEST(TopologyNvsmi, HybridCubeMeshIsOneIslandButNotAllToAll) {
  auto h = load_topology_file(data("dgx1-hybrid-cube-mesh-topo-m.txt"));
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(h.gpu_links.size(), 16u);  // 8 GPUs x 4 peers / 2
  EXPECT_EQ(h.gpu_link_islands, (Islands{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_FALSE(h.gpu_link_all_to_all);
  EXPECT_EQ(h.gpus[0].nearest_nics, (Names{"mlx5_0"}));
  EXPECT_EQ(h.gpus[2].nic_path, PathClass::PHB);
  auto f = features(h);
  bool found = false;
  for (const auto& x : f)
    if (x.metric == "topology.gpu_link_all_to_all") {
      EXPECT_EQ(x.value, 0.0);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(TopologyNvsmi, SpacesInsteadOfTabsAndCrlf) {
  const std::string txt =
      "        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity\r\n"
      "GPU0     X      NV4     PHB     0-7     0\r\n"
      "GPU1    NV4      X      SYS     8-15    1\r\n"
      "NIC0    PHB     SYS      X\r\n"
      "\r\n"
      "NIC Legend:\r\n"
      "  NIC0: mlx5_2\r\n";
  auto h = load_topology_text(txt, "spaced");
  ASSERT_EQ(h.gpus.size(), 2u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 1}));
  EXPECT_EQ(nic_names(h), (Names{"mlx5_2"}));
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::PHB);
  ASSERT_EQ(h.gpu_links.size(), 1u);
  EXPECT_EQ(h.gpu_links[0].count, 4);
  EXPECT_TRUE(h.gpu_link_all_to_all);
}

TEST(TopologyNvsmi, ErrorsNameFileAndLine) {
  try {
    load_topology_text("\tGPU0\tGPU1\nGPU0\t X \tNV2\nGPU1\tNV2\tBOGUS\n", "t.txt");
    FAIL();
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.file, "t.txt");
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(std::string(e.what()).find("BOGUS"), std::string::npos);
  }
  try {
    load_topology_text("\tGPU0\tGPU1\nGPU0\t X\n", "short.txt");
    FAIL();
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.line, 2);
  }
}

// Real output whose CPU Affinity cell is empty on GPU0-3 ("NODE\t\t0\t\tN/A"): with the cells
// split on whitespace the NUMA node 0 slid into CPU Affinity and those GPUs lost their node.
TEST(TopologyNvsmi, DellaPliEmptyCpuAffinityKeepsNumaNode) {
  auto h = load_topology_file(fixture("nvidia-smi-topo/princeton-della-pli-8xH100-nv18-6nic-empty-cpu-affinity.txt"));
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  ASSERT_EQ(h.numa_nodes.size(), 2u);
  EXPECT_EQ(h.numa_nodes[0].os_index, 0);
  EXPECT_EQ(h.numa_nodes[0].cpuset, "");  // as printed: empty
  EXPECT_EQ(h.numa_nodes[1].os_index, 1);
  EXPECT_EQ(h.numa_nodes[1].cpuset, "1");  // as printed (the job's CPU set), not the node's
  EXPECT_EQ(nic_names(h), (Names{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5"}));
  ASSERT_EQ(h.gpu_links.size(), 28u);
  for (const auto& l : h.gpu_links) EXPECT_EQ(l.count, 18);
  EXPECT_TRUE(h.gpu_link_all_to_all);
  EXPECT_EQ(h.gpus[0].nearest_nics, (Names{"mlx5_0", "mlx5_1"}));
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::PIX);
  EXPECT_EQ(h.gpus[3].nearest_nics, (Names{"mlx5_2"}));
  EXPECT_EQ(h.gpus[4].nearest_nics, (Names{"mlx5_3", "mlx5_4"}));
  EXPECT_EQ(h.gpus[6].nearest_nics, (Names{"mlx5_5"}));
  EXPECT_EQ(h.gpus[1].nic_path, PathClass::NODE);  // no PIX NIC: all six at NODE
  EXPECT_EQ(h.gpus[1].nearest_nics.size(), 6u);
  // every NIC is NODE to GPUs of both nodes, so the matrix cannot place any of them
  for (const auto& n : h.nics) EXPECT_FALSE(n.numa_node.has_value()) << n.name;
}

// Old driver (2017, Tesla K40m): SOC for SYS, the RDMA device as its own heading, no NUMA
// Affinity, no NIC legend, and the NIC row ends at its diagonal.
TEST(TopologyNvsmi, OldDriverSocWithoutNumaAffinity) {
  auto h = load_topology_file(fixture("nvidia-smi-topo/tensorflow-gdr-4xK40m-soc-mlx4-old-driver.txt"));
  ASSERT_EQ(h.gpus.size(), 4u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{-1, -1, -1, -1}));
  EXPECT_TRUE(h.numa_nodes.empty());
  EXPECT_EQ(nic_names(h), (Names{"mlx4_0"}));
  EXPECT_FALSE(h.nics[0].numa_node.has_value());
  EXPECT_EQ(h.gpu_nic_paths.at(0).at("mlx4_0"), PathClass::SYS);  // printed SOC
  EXPECT_EQ(h.gpu_nic_paths.at(1).at("mlx4_0"), PathClass::SYS);
  EXPECT_EQ(h.gpus[2].nearest_nics, (Names{"mlx4_0"}));
  EXPECT_EQ(h.gpus[2].nic_path, PathClass::PHB);
  EXPECT_EQ(h.gpus[3].nic_path, PathClass::PHB);
  EXPECT_TRUE(h.gpu_links.empty());
  EXPECT_TRUE(h.gpu_link_islands.empty());
}

// GB200 as pasted with tabs expanded: NUMA Affinity is a node list and GPU NUMA ID carries the
// GPUs' memory nodes (2, 10, 18, 26), which must not be read as their NUMA node.
TEST(TopologyNvsmi, Gb200GpuNumaIdIsNotNumaAffinity) {
  auto h = load_topology_file(fixture("nvidia-smi-topo/gb200-4gpu-nv18-8nic-gpu-numa-id-tabs-expanded.txt"));
  ASSERT_EQ(h.gpus.size(), 4u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{-1, -1, -1, -1}));  // "0,3-9,11-17" names no single node
  EXPECT_TRUE(h.numa_nodes.empty());
  EXPECT_EQ(nic_names(h), (Names{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"}));
  for (const auto& g : h.gpus) {
    EXPECT_EQ(g.nic_path, PathClass::SYS) << g.index;
    EXPECT_EQ(g.nearest_nics.size(), 8u) << g.index;
  }
  ASSERT_EQ(h.gpu_links.size(), 6u);
  for (const auto& l : h.gpu_links) EXPECT_EQ(l.count, 18);
  EXPECT_TRUE(h.gpu_link_all_to_all);
}

// NUMA affinity N/A (a desktop): nvidia-smi puts an empty cell before that N/A as well.
TEST(TopologyNvsmi, NumaAffinityNotAvailableWithPaddingCells) {
  auto h = load_topology_file(fixture("nvidia-smi-topo/desktop-2gpu-phb-numa-na-padded-cells.txt"));
  ASSERT_EQ(h.gpus.size(), 2u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{-1, -1}));
  EXPECT_TRUE(h.numa_nodes.empty());
  EXPECT_TRUE(h.nics.empty());
  EXPECT_TRUE(h.gpu_links.empty());
}

// The smallest form of the reported defect: the empty CPU Affinity cell is a cell.
TEST(TopologyNvsmi, EmptyCpuAffinityCellIsACell) {
  const std::string txt =
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV4\tPIX\t\t0\t\tN/A\n"
      "GPU1\tNV4\t X \tSYS\t8-15\t1\t\t9\n"
      "NIC0\tPIX\tSYS\t X \t\t\t\t\n"
      "\n"
      "Legend:\n"
      "\n"
      "  X    = Self\n"
      "\n"
      "NIC Legend:\n"
      "\n"
      "  NIC0: mlx5_0\n";
  auto h = load_topology_text(txt, "empty-cpu.txt");
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 1}));  // GPU1's GPU NUMA ID 9 is not its NUMA node
  ASSERT_EQ(h.numa_nodes.size(), 2u);
  EXPECT_EQ(h.numa_nodes[0].cpuset, "");
  EXPECT_EQ(h.numa_nodes[1].cpuset, "8-15");
  EXPECT_EQ(nic(h, "mlx5_0")->numa_node, 0);
}

TEST(TopologyNvsmi, BadNumaAffinityNamesFileAndLine) {
  try {
    load_topology_text("\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-7\tbogus\n", "numa.txt");
    FAIL();
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.file, "numa.txt");
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(std::string(e.what()).find("bogus"), std::string::npos);
  }
}
