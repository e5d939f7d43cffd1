// Format detection, entry-point errors and live discovery.
#include <gtest/gtest.h>

#include "topology_test_util.hpp"

using namespace ga::topo;
using namespace topo_test;

TEST(TopologyDetect, FromContentNotName) {
  EXPECT_EQ(detect_format("<?xml version=\"1.0\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology version=\"2.0\">", "x.txt"),
            Format::hwloc_xml);
  EXPECT_EQ(detect_format("<!--\nlicence\n-->\n<system version=\"1\">", "x.hwloc.xml"), Format::nccl_xml);
  EXPECT_EQ(detect_format("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tSYS\t0\n", "a.xml"), Format::nvidia_smi_text);
  EXPECT_THROW(detect_format("hello", "h"), TopologyError);
  EXPECT_THROW(detect_format("<foo/>", "h"), TopologyError);
  try {
    detect_format("\n\n<graphs version=\"1\">", "g.xml");
    FAIL();
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(std::string(e.what()).find("g.xml:3"), std::string::npos);
  }
}

TEST(TopologyDetect, EveryFixtureDetected) {
  EXPECT_EQ(detect_format("<topology>", "v"), Format::hwloc_xml);
  struct Case {
    const char* file;
    Format f;
  } cases[] = {{"hwloc/juwels-cluster-4xV100-2xEDR-jwc09n003.hwloc-v1.xml", Format::hwloc_xml},
               {"hwloc/nvidia-dgx2h-16xV100-nvswitch.hwloc-v2.xml", Format::hwloc_xml},
               {"nccl-topo/aws-p4d.24xlarge-topo.xml", Format::nccl_xml},
               {"nvidia-smi-topo/princeton-della-2xA100-pcie-2numa.txt", Format::nvidia_smi_text}};
  for (const auto& c : cases) {
    auto h = load_topology_file(fixture(c.file));
    const char* src = c.f == Format::hwloc_xml ? "hwloc-xml" : c.f == Format::nccl_xml ? "nccl-xml" : "nvidia-smi";
    EXPECT_EQ(h.source, src) << c.file;
  }
}

TEST(TopologyDetect, MissingFileNamesIt) {
  try {
    load_topology_file("/nonexistent/topo.xml");
    FAIL();
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.file, "/nonexistent/topo.xml");
  }
}

TEST(TopologyDetect, BrokenHwlocXmlIsATopologyError) {
  EXPECT_THROW(load_topology_text("<topology version=\"2.0\"><object type=\"Machine\"", "cut.xml"), TopologyError);
}

TEST(TopologyLive, ThisMachineWithoutRdma) {
  auto h = discover_local("here", data("no-such-sysfs"));
  EXPECT_EQ(h.hostname, "here");
  EXPECT_EQ(h.source, "live");
  EXPECT_GE(h.pus, 1);
  EXPECT_GE(h.cores, 1);
  EXPECT_GE(h.numa_nodes.size(), 1u);
  EXPECT_TRUE(h.nics.empty());
  for (const auto& g : h.gpus) EXPECT_TRUE(g.pci_bus_id.has_value());  // a GPU host still classifies
  auto j = to_json(h);
  EXPECT_EQ(to_json(host_from_json(j)), j);
}

TEST(TopologyLive, RdmaDevicesFromSysfs) {
  auto h = discover_local("here", data("sysfs-two-hcas"));
  const Nic* a = nic(h, "mlx5_0");
  const Nic* b = nic(h, "mlx5_1");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->kind, "infiniband");
  EXPECT_EQ(a->rate_gbps, 200.0);
  EXPECT_EQ(a->pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(a->numa_node, 0);
  EXPECT_EQ(a->netdevs, (Names{"ib0"}));
  EXPECT_EQ(b->kind, "roce");
  EXPECT_EQ(b->rate_gbps, 100.0);
  EXPECT_EQ(b->pci_bus_id, "0000:af:00.0");
  EXPECT_EQ(b->numa_node, 1);
  EXPECT_EQ(b->netdevs, (Names{"ens1f0np0"}));
}

TEST(TopologyLive, BrokenSysfsDoesNotStopDiscovery) {
  auto h = discover_local("here", data("sysfs-broken"));
  const Nic* r = nic(h, "rxe0");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->pci_bus_id.has_value());
  EXPECT_FALSE(r->rate_gbps.has_value());
  EXPECT_EQ(r->kind, "unknown");
}
