// NCCL / RCCL topology XML fixtures against PROVENANCE.md.
#include <gtest/gtest.h>

#include "topology_test_util.hpp"

using namespace ga::topo;
using namespace topo_test;

TEST(TopologyNccl, AwsP4dEachGpuPairsWithTheEfaUnderItsSwitch) {
  auto h = load_topology_file(fixture("nccl-topo/aws-p4d.24xlarge-topo.xml"));
  EXPECT_EQ(h.source, "nccl-xml");
  ASSERT_EQ(h.numa_nodes.size(), 2u);
  EXPECT_EQ(h.numa_nodes[0].cpuset, "000000ff,ffff0000,00ffffff");
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(gpu_buses(h), (Names{"0000:10:1c.0", "0000:10:1d.0", "0000:20:1c.0", "0000:20:1d.0", "0000:90:1c.0",
                                 "0000:90:1d.0", "0000:a0:1c.0", "0000:a0:1d.0"}));
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(h.gpus[0].model, "A100-SXM4-40GB");
  ASSERT_EQ(h.nics.size(), 4u);
  for (const auto& n : h.nics) EXPECT_EQ(n.kind, "efa");
  EXPECT_EQ(nic_names(h), (Names{"pci-0000:10:1b.0", "pci-0000:20:1b.0", "pci-0000:90:1b.0", "pci-0000:a0:1b.0"}));
  const char* prefix[] = {"10", "20", "90", "a0"};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(h.gpus[i].nearest_nics, (Names{std::string("pci-0000:") + prefix[i / 2] + ":1b.0"})) << i;
    EXPECT_EQ(h.gpus[i].nic_path, PathClass::PIX);
  }
  EXPECT_EQ(nic(h, "pci-0000:90:1b.0")->numa_node, 1);
  EXPECT_EQ(h.gpu_nic_paths.at(0).at("pci-0000:20:1b.0"), PathClass::PHB);  // other switch, same CPU
  EXPECT_EQ(h.gpu_nic_paths.at(0).at("pci-0000:90:1b.0"), PathClass::SYS);
  EXPECT_TRUE(h.gpu_link_islands.empty());
}

TEST(TopologyNccl, AzureNdv4TwoGpusTwoHcasPerNuma) {
  auto h = load_topology_file(fixture("nccl-topo/azure-ndv4-topo.xml"));
  ASSERT_EQ(h.numa_nodes.size(), 4u);
  ASSERT_EQ(h.gpus.size(), 8u);
  // logical order is bus order, not file order
  EXPECT_EQ(gpu_buses(h), (Names{"0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0004:00:00.0", "000b:00:00.0",
                                 "000c:00:00.0", "000d:00:00.0", "000e:00:00.0"}));
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{1, 1, 0, 0, 3, 3, 2, 2}));
  ASSERT_EQ(h.nics.size(), 8u);
  for (const auto& n : h.nics) EXPECT_EQ(n.kind, "infiniband");
  EXPECT_EQ(nic(h, "pci-0103:00:00.0")->numa_node, 0);
  EXPECT_EQ(nic(h, "pci-0105:00:00.0")->numa_node, 3);
  EXPECT_EQ(h.gpus[0].nearest_nics, (Names{"pci-0101:00:00.0", "pci-0102:00:00.0"}));
  EXPECT_EQ(h.gpus[2].nearest_nics, (Names{"pci-0103:00:00.0", "pci-0104:00:00.0"}));
  EXPECT_EQ(h.gpus[4].nearest_nics, (Names{"pci-0105:00:00.0", "pci-0106:00:00.0"}));
  EXPECT_EQ(h.gpus[7].nearest_nics, (Names{"pci-0107:00:00.0", "pci-0108:00:00.0"}));
  for (const auto& g : h.gpus) EXPECT_EQ(g.nic_path, PathClass::PIX);
  EXPECT_EQ(h.gpus[0].vendor, "unknown");  // PCI-only file without vendor ids
}

TEST(TopologyNccl, AzureNdv5OneGpuOneHcaPerSwitch) {
  auto h = load_topology_file(fixture("nccl-topo/azure-ndv5-topo.xml"));
  ASSERT_EQ(h.numa_nodes.size(), 2u);
  EXPECT_EQ(gpu_buses(h), (Names{"0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0008:00:00.0", "0009:00:00.0",
                                 "000a:00:00.0", "000b:00:00.0", "000c:00:00.0"}));
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  ASSERT_EQ(h.nics.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(h.gpus[i].nearest_nics, (Names{"pci-010" + std::to_string(i + 1) + ":00:00.0"})) << i;
    EXPECT_EQ(h.gpus[i].nic_path, PathClass::PIX);
  }
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(nic(h, "pci-010" + std::to_string(i) + ":00:00.0")->numa_node, 0);
  for (int i = 5; i <= 8; ++i) EXPECT_EQ(nic(h, "pci-010" + std::to_string(i) + ":00:00.0")->numa_node, 1);
}

TEST(TopologyNccl, AzureNdv2OneHcaOnNumaZero) {
  auto h = load_topology_file(fixture("nccl-topo/azure-ndv2-topo.xml"));
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(nic_names(h), (Names{"pci-0101:00:00.0"}));
  EXPECT_EQ(h.nics[0].numa_node, 0);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(h.gpus[i].nearest_nics, (Names{"pci-0101:00:00.0"}));
    EXPECT_EQ(h.gpus[i].nic_path, i < 4 ? PathClass::PHB : PathClass::SYS) << i;  // no switches
  }
}

TEST(TopologyNccl, AzureNcv4SelfNvlinkIgnored) {
  auto h = load_topology_file(fixture("nccl-topo/azure-ncv4-topo.xml"));
  ASSERT_EQ(h.gpus.size(), 4u);
  EXPECT_EQ(gpu_buses(h), (Names{"0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0004:00:00.0"}));
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(h.gpus[0].model, "A100 80GB PCIe");
  EXPECT_EQ(nic_names(h), (Names{"eth0"}));
  EXPECT_EQ(h.nics[0].numa_node, 0);
  EXPECT_EQ(h.nics[0].rate_gbps, 100.0);
  EXPECT_FALSE(h.nics[0].pci_bus_id.has_value());
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::PHB);
  EXPECT_EQ(h.gpus[1].nic_path, PathClass::SYS);
  EXPECT_TRUE(h.gpu_links.empty());
  EXPECT_TRUE(h.gpu_link_islands.empty());
  EXPECT_FALSE(h.gpu_link_all_to_all);
}

TEST(TopologyNccl, GraphDumpIsRejected) {
  try {
    load_topology_file(fixture("nccl-topo/azure-ncv4-graph-dump.xml"));
    FAIL() << "a graph dump loaded as a topology";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("NCCL graph dump, not a topology"), std::string::npos) << e.what();
    EXPECT_NE(e.file.find("azure-ncv4-graph-dump.xml"), std::string::npos);
    EXPECT_EQ(e.line, 1);
  }
}

TEST(TopologyNccl, RcclMi300xXgmiAllToAllNicIPerGpuI) {
  auto h = load_topology_file(fixture("nccl-topo/rccl-topo_8p_940-8xMI300X-8xCX7-400G.xml"));
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(gpu_numas(h), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  for (const auto& g : h.gpus) {
    EXPECT_EQ(g.vendor, "amd");
    EXPECT_EQ(g.model, "Instinct MI300X");
  }
  EXPECT_EQ(nic_names(h), (Names{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"}));
  for (int i = 0; i < 8; ++i) {
    const Nic* n = nic(h, "mlx5_" + std::to_string(i));
    EXPECT_EQ(n->numa_node, i < 4 ? 0 : 1);
    EXPECT_EQ(n->rate_gbps, 400.0);
    EXPECT_EQ(n->kind, "infiniband");
    EXPECT_EQ(h.gpus[i].nearest_nics, (Names{"mlx5_" + std::to_string(i)}));
    EXPECT_EQ(h.gpus[i].nic_path, PathClass::PXB);  // same top switch, GPU two switches below it
  }
  EXPECT_EQ(h.gpu_links.size(), 28u);
  for (const auto& l : h.gpu_links) EXPECT_EQ(l.type, "xgmi");
  EXPECT_EQ(h.gpu_link_islands, (Islands{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_TRUE(h.gpu_link_all_to_all);
}

TEST(TopologyNccl, NvSwitchTargetAndNamedNicsAndErrors) {
  // Three GPUs on one switch target, a fourth with a direct link only: island of 4, not all-to-all.
  const std::string xml = R"(<system version="1">
  <cpu numaid="0" affinity="ff">
    <pci busid="0000:10:00.0" class="0x060400">
      <pci busid="0000:11:00.0" class="0x060400">
        <pci busid="0000:12:00.0" class="0x030200" vendor="0x10de" device="0x2330">
          <gpu dev="0"><nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/></gpu>
        </pci>
      </pci>
      <pci busid="0000:13:00.0" class="0x020700" vendor="0x15b3" device="0x1021">
        <nic><net name="mlx5_3" speed="400000"/><net name="mlx5_4" speed="400000"/></nic>
      </pci>
    </pci>
    <pci busid="0000:20:00.0" class="0x030200" vendor="0x10de" device="0x2330">
      <gpu dev="1"><nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/></gpu>
    </pci>
    <pci busid="0000:30:00.0" class="0x030200" vendor="0x10de" device="0x2330">
      <gpu dev="2"><nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/>
                   <nvlink target="0000:40:00.0" count="2" tclass="0x030200"/></gpu>
    </pci>
    <pci busid="0000:40:00.0" class="0x030200" vendor="0x10de" device="0x2330"/>
  </cpu>
</system>)";
  auto h = load_topology_text(xml, "h100-like");
  EXPECT_EQ(h.hostname, "h100-like");
  ASSERT_EQ(h.gpus.size(), 4u);
  EXPECT_EQ(h.gpus[0].model, "H100 80GB HBM3");
  EXPECT_EQ(nic_names(h), (Names{"mlx5_3", "mlx5_4"}));  // one NIC per <net>
  EXPECT_EQ(h.nics[0].pci_bus_id, "0000:13:00.0");
  EXPECT_EQ(h.gpus[0].nic_path, PathClass::PXB);  // nested switch on the GPU side
  EXPECT_EQ(h.gpus[1].nic_path, PathClass::PHB);
  EXPECT_EQ(h.gpu_link_islands, (Islands{{0, 1, 2, 3}}));
  EXPECT_FALSE(h.gpu_link_all_to_all);
  int nvswitch = 0;
  for (const auto& l : h.gpu_links) nvswitch += l.type == "nvswitch";
  EXPECT_EQ(nvswitch, 3);

  EXPECT_THROW(load_topology_text("<system><cpu numaid=\"x\"/></system>", "bad"), TopologyError);
  try {
    load_topology_text("<system>\n<cpu numaid=\"0\">\n<pci class=\"0x030200\"/>\n</cpu></system>", "nobus.xml");
    FAIL();
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.line, 3) << e.what();
    EXPECT_EQ(e.file, "nobus.xml");
  }
  try {
    load_topology_text("<system>\n<cpu numaid=\"0\">\n<pci busid=\"0000:01:00.0\"\n</cpu></system>", "broken.xml");
    FAIL();
  } catch (const TopologyError& e) {
    EXPECT_GE(e.line, 3) << e.what();
  }
}
