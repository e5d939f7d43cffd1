// hwloc XML fixtures (v1 and v2) against PROVENANCE.md.
#include <gtest/gtest.h>

#include "topology_test_util.hpp"

using namespace ga::topo;
using namespace topo_test;

TEST(TopologyHwloc, Dgx2SixteenV100OneNvSwitchIsland) {
  auto h = load_topology_file(fixture("hwloc/nvidia-dgx2h-16xV100-nvswitch.hwloc-v2.xml"));
  EXPECT_EQ(h.source, "hwloc-xml");
  EXPECT_EQ(h.packages, 2);
  ASSERT_EQ(h.numa_nodes.size(), 2u);
  EXPECT_EQ(h.numa_nodes[0].cpuset, "0x00000003");
  EXPECT_EQ(h.numa_nodes[1].cpuset, "0x03000000");
  ASSERT_EQ(h.gpus.size(), 16u);
  EXPECT_EQ(gpu_buses(h), (Names{"0000:34:00.0", "0000:36:00.0", "0000:39:00.0", "0000:3b:00.0", "0000:57:00.0",
                                 "0000:59:00.0", "0000:5c:00.0", "0000:5e:00.0", "0000:b7:00.0", "0000:b9:00.0",
                                 "0000:bc:00.0", "0000:be:00.0", "0000:e0:00.0", "0000:e2:00.0", "0000:e5:00.0",
                                 "0000:e7:00.0"}));
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(h.gpus[i].numa_node, i < 8 ? 0 : 1) << i;
    EXPECT_EQ(h.gpus[i].model, "Tesla V100-SXM3-32GB-H");
    EXPECT_EQ(h.gpus[i].vendor, "nvidia");
    EXPECT_FALSE(h.gpus[i].nic_path.has_value());
  }
  EXPECT_EQ(h.gpus[0].os_names, (Names{"nvml0"}));
  EXPECT_EQ(h.gpus[15].os_names, (Names{"nvml15"}));
  EXPECT_TRUE(h.nics.empty());
  ASSERT_EQ(h.gpu_link_islands.size(), 1u);
  EXPECT_EQ(h.gpu_link_islands[0].size(), 16u);
  EXPECT_TRUE(h.gpu_link_all_to_all);
  ASSERT_EQ(h.gpu_links.size(), 16u * 15 / 2);  // every pair, through the switches
  for (const auto& l : h.gpu_links) {
    EXPECT_EQ(l.type, "nvswitch");
    EXPECT_EQ(l.count, 6);  // 6 NVLinks per V100 into the switches
    EXPECT_EQ(l.bandwidth_gbps, 6 * 25000 * 8 / 1000.0);
  }
  // NVSwitch PCI devices are not GPUs, whatever their recorded class
  for (const auto& g : h.gpus) EXPECT_NE(g.pci_bus_id, "0000:66:00.0");
}

TEST(TopologyHwloc, TuolumneSpxFourMi300aWithSlingshot) {
  auto h = load_topology_file(fixture("hwloc/hpe-cray-ex255a-4xMI300A-SPX-tuolumne.hwloc-v2.xml"));
  EXPECT_EQ(h.packages, 4);
  EXPECT_EQ(h.pus, 192);
  ASSERT_EQ(h.numa_nodes.size(), 4u);
  ASSERT_EQ(h.gpus.size(), 4u);
  EXPECT_EQ(gpu_buses(h), (Names{"0000:02:00.0", "0001:02:00.0", "0002:02:00.0", "0003:02:00.0"}));
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(nic_names(h), (Names{"hsi0", "hsi1", "hsi2", "hsi3"}));  // no mlx5, no I210
  for (int i = 0; i < 4; ++i) {
    const auto& g = h.gpus[i];
    EXPECT_EQ(g.vendor, "amd");
    EXPECT_EQ(g.os_names, (Names{"rsmi" + std::to_string(i)}));
    EXPECT_FALSE(g.uuid.has_value());  // all-zero AMDUUID is no identity
    const Nic* n = nic(h, "hsi" + std::to_string(i));
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->kind, "slingshot");
    EXPECT_EQ(n->numa_node, i);
    EXPECT_EQ(n->pci_bus_id, "000" + std::to_string(i) + ":01:00.0");
    EXPECT_EQ(g.nearest_nics, (Names{"hsi" + std::to_string(i)}));
    EXPECT_EQ(g.nic_path, PathClass::PHB);  // same root complex, different root ports
  }
  EXPECT_EQ(h.gpu_link_islands, (Islands{{0, 1, 2, 3}}));
  EXPECT_TRUE(h.gpu_link_all_to_all);
  ASSERT_EQ(h.gpu_links.size(), 6u);
  for (const auto& l : h.gpu_links) {
    EXPECT_EQ(l.type, "xgmi");
    EXPECT_EQ(l.bandwidth_gbps, 800.0);  // 100000 MB/s
  }
}

TEST(TopologyHwloc, TuolumneCpxPartitionsFoldIntoTheirApu) {
  auto h = load_topology_file(fixture("hwloc/hpe-cray-ex255a-4xMI300A-CPX-tuolumne.hwloc-v2.xml"));
  // A GPU is a PCI function; the 24 rsmi partitions (6 per APU) are its OS devices.
  ASSERT_EQ(h.gpus.size(), 4u);
  int partitions = 0;
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(h.gpus[i].os_names.size(), 6u);
    EXPECT_EQ(h.gpus[i].os_names.front(), "rsmi" + std::to_string(6 * i));
    partitions += int(h.gpus[i].os_names.size());
    EXPECT_EQ(h.gpus[i].numa_node, i);
    EXPECT_EQ(h.gpus[i].nearest_nics, (Names{"hsi" + std::to_string(i)}));
  }
  EXPECT_EQ(partitions, 24);
  EXPECT_EQ(nic_names(h), (Names{"hsi0", "hsi1", "hsi2", "hsi3"}));
  EXPECT_EQ(h.gpu_link_islands, (Islands{{0, 1, 2, 3}}));
  EXPECT_TRUE(h.gpu_link_all_to_all);
}

TEST(TopologyHwloc, CoronaV1EightMi50OneHca) {
  auto h = load_topology_file(fixture("hwloc/supermicro-epyc7402-8xMI50-corona.hwloc-v1.xml"));
  EXPECT_EQ(h.hostname, "corona263");
  EXPECT_EQ(h.packages, 2);
  EXPECT_EQ(h.pus, 96);
  ASSERT_EQ(h.numa_nodes.size(), 2u);
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(gpu_buses(h), (Names{"0000:03:00.0", "0000:27:00.0", "0000:43:00.0", "0000:63:00.0", "0000:83:00.0",
                                 "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0"}));
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  for (const auto& g : h.gpus) EXPECT_EQ(g.vendor, "amd");
  EXPECT_EQ(h.gpus[0].model, "deon Instinct MI50 32GB");  // rsmi's truncated name, as recorded
  EXPECT_EQ(h.gpus[0].os_names, (Names{"rsmi2"}));         // OS numbering is not bus order
  EXPECT_EQ(nic_names(h), (Names{"mlx5_0"}));               // eno1/eno2 are not fabric NICs
  const Nic* n = nic(h, "mlx5_0");
  EXPECT_EQ(n->pci_bus_id, "0000:c4:00.0");
  EXPECT_EQ(n->numa_node, 1);
  EXPECT_EQ(n->netdevs, (Names{"hsi0"}));
  EXPECT_EQ(n->kind, "infiniband");  // Port1LID 0x5d
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::SYS);
  EXPECT_EQ(h.gpus[4].nic_path, PathClass::NODE);
  EXPECT_EQ(h.gpus[6].nic_path, PathClass::PHB);  // c3 and c4 share a host bridge
  EXPECT_TRUE(h.gpu_link_islands.empty());
  EXPECT_FALSE(h.gpu_link_all_to_all);
}

TEST(TopologyHwloc, JuwelsV1TwoGpusAndOneHcaPerSocket) {
  auto h = load_topology_file(fixture("hwloc/juwels-cluster-4xV100-2xEDR-jwc09n003.hwloc-v1.xml"));
  EXPECT_EQ(h.hostname, "jwc09n003");
  EXPECT_EQ(h.pus, 80);
  ASSERT_EQ(h.numa_nodes.size(), 2u);
  EXPECT_EQ(gpu_buses(h), (Names{"0000:5d:00.0", "0000:5e:00.0", "0000:88:00.0", "0000:89:00.0"}));
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 1, 1}));
  for (const auto& g : h.gpus) EXPECT_EQ(g.model, "Tesla V100-SXM2-16GB");  // from the PCI id table
  EXPECT_EQ(nic_names(h), (Names{"mlx5_0", "mlx5_1"}));                       // X722 ports are not NICs
  EXPECT_EQ(nic(h, "mlx5_0")->numa_node, 0);
  EXPECT_EQ(nic(h, "mlx5_0")->pci_bus_id, "0000:5f:00.0");
  EXPECT_EQ(nic(h, "mlx5_0")->netdevs, (Names{"ib0"}));
  EXPECT_EQ(nic(h, "mlx5_1")->numa_node, 1);
  EXPECT_EQ(nic(h, "mlx5_1")->pci_bus_id, "0000:8a:00.0");
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(h.gpus[i].nearest_nics, (Names{i < 2 ? "mlx5_0" : "mlx5_1"}));
    EXPECT_EQ(h.gpus[i].nic_path, PathClass::PIX);
  }
  EXPECT_EQ(h.gpu_nic_paths.at(0).at("mlx5_1"), PathClass::SYS);
}

TEST(TopologyHwloc, DeepEstNoNumaObjectsGetsNodeZero) {
  auto h = load_topology_file(fixture("hwloc/deep-esb-1socket-1xV100-1xEDR-dp-esb01.hwloc-v1.xml"));
  EXPECT_EQ(h.packages, 1);
  EXPECT_EQ(h.cores, 8);
  EXPECT_EQ(h.pus, 16);
  ASSERT_EQ(h.numa_nodes.size(), 1u);
  EXPECT_EQ(h.numa_nodes[0].os_index, 0);
  ASSERT_EQ(h.gpus.size(), 1u);
  EXPECT_EQ(h.gpus[0].pci_bus_id, "0000:65:00.0");
  EXPECT_TRUE(h.gpus[0].os_names.empty());
  EXPECT_EQ(h.gpus[0].numa_node, 0);
  EXPECT_EQ(nic_names(h), (Names{"mlx5_0"}));
  EXPECT_EQ(nic(h, "mlx5_0")->pci_bus_id, "0000:b3:00.0");
  EXPECT_EQ(nic(h, "mlx5_0")->numa_node, 0);
  EXPECT_EQ(h.gpus[0].nearest_nics, (Names{"mlx5_0"}));
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::NODE);
}

TEST(TopologyHwloc, Sl390sThreeGpusMlx4AndNoConsoleVga) {
  auto h = load_topology_file(fixture("hwloc/hp-sl390s-g7-2socket-mlx4-qdr.hwloc-v2.xml"));
  EXPECT_EQ(h.pus, 24);
  ASSERT_EQ(h.gpus.size(), 3u);  // the ATI ES1000 console VGA is not one
  EXPECT_EQ(gpu_buses(h), (Names{"0000:06:00.0", "0000:11:00.0", "0000:14:00.0"}));
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(nic_names(h), (Names{"mlx4_0"}));  // eth0/eth1 (82576) are not
  const Nic* n = nic(h, "mlx4_0");
  EXPECT_EQ(n->pci_bus_id, "0000:05:00.0");
  EXPECT_EQ(n->numa_node, 0);
  EXPECT_EQ(n->netdevs, (Names{"eth2", "ib0"}));
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::PHB);
  EXPECT_EQ(h.gpus[1].nic_path, PathClass::SYS);
  EXPECT_EQ(h.gpus[2].nearest_nics, (Names{"mlx4_0"}));
}

TEST(TopologyHwloc, FourSocketNoIo) {
  auto h = load_topology_file(fixture("hwloc/intel-4socket-noio-16em64t-4s2c2t.hwloc-v2.xml"));
  EXPECT_EQ(h.packages, 4);
  EXPECT_EQ(h.cores, 8);
  EXPECT_EQ(h.pus, 16);
  ASSERT_EQ(h.numa_nodes.size(), 1u);
  EXPECT_EQ(h.numa_nodes[0].os_index, 0);
  EXPECT_FALSE(h.numa_nodes[0].memory_bytes.has_value());
  EXPECT_TRUE(h.gpus.empty());
  EXPECT_TRUE(h.nics.empty());
  EXPECT_TRUE(h.gpu_link_islands.empty());
  EXPECT_EQ(h.hostname, "intel-4socket-noio-16em64t-4s2c2t");  // none recorded: the file's name
}

TEST(TopologyHwloc, EveryFixtureRoundTripsThroughJson) {
  for (const char* f : {"nvidia-dgx2h-16xV100-nvswitch.hwloc-v2.xml", "hpe-cray-ex255a-4xMI300A-CPX-tuolumne.hwloc-v2.xml",
                        "supermicro-epyc7402-8xMI50-corona.hwloc-v1.xml", "hp-sl390s-g7-2socket-mlx4-qdr.hwloc-v2.xml"}) {
    auto h = load_topology_file(fixture(std::string("hwloc/") + f));
    auto j = to_json(h);
    EXPECT_EQ(to_json(host_from_json(j)), j) << f;
  }
}
