// The sysfs port inventory against the trees in tests/data/rdma/ (modelled on the ibstat,
// ibstatus and ibv_devinfo outputs in tests/data/recorded/rdma/; README.md there says which).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "probes/devices/port_inventory.hpp"

namespace ga::rdma {
namespace {

namespace fs = std::filesystem;

std::string tree(const std::string& name) { return std::string(GA_TEST_DATA_DIR) + "/rdma/" + name; }

const PortInfo& port(const std::vector<PortInfo>& ps, const std::string& place) {
  for (const auto& p : ps)
    if (p.place_name() == place) return p;
  throw std::runtime_error("no port " + place);
}

TEST(RdmaParse, SysfsValues) {
  EXPECT_EQ(parse_state("4: ACTIVE"), "ACTIVE");
  EXPECT_EQ(parse_state("3: Disabled"), "Disabled");
  EXPECT_EQ(parse_state("LinkUp"), "LinkUp");
  auto r = parse_rate("200 Gb/sec (4X HDR)");
  EXPECT_EQ(r.gbps, 200);
  EXPECT_EQ(r.width, 4);
  EXPECT_EQ(r.speed, "HDR");
  r = parse_rate("25 Gb/sec (1X EDR)");
  EXPECT_EQ(r.gbps, 25);
  EXPECT_EQ(r.width, 1);
  r = parse_rate("10 Gb/sec");  // rxe and some Ethernet ports print no width
  EXPECT_EQ(r.gbps, 10);
  EXPECT_FALSE(r.width);
  EXPECT_FALSE(parse_rate("").gbps);
  EXPECT_FALSE(parse_rate("garbage").gbps);
  EXPECT_EQ(parse_mtu("4096"), 4096);
  EXPECT_EQ(parse_mtu("5"), 4096);  // enum ibv_mtu
  EXPECT_EQ(parse_mtu("1"), 256);
  EXPECT_FALSE(parse_mtu("x"));
}

TEST(RdmaInventory, H100TwelveCasThreeEthernetDown) {
  const auto ps = read_ports(tree("h100-12ca-3-eth-down"));
  ASSERT_EQ(ps.size(), 12u);
  // Natural order: mlx5_2 before mlx5_10 (ibstat prints them lexically).
  EXPECT_EQ(ps[2].device, "mlx5_2");
  EXPECT_EQ(ps[10].device, "mlx5_10");
  int active = 0;
  for (const auto& p : ps) active += p.active();
  EXPECT_EQ(active, 9);
  for (const char* d : {"mlx5_2", "mlx5_7", "mlx5_8"}) {
    const auto& p = port(ps, d);
    EXPECT_EQ(p.state, "DOWN") << d;
    EXPECT_EQ(p.phys_state, "Disabled") << d;
    EXPECT_EQ(p.rate_gbps, 40) << d;
    EXPECT_EQ(p.link_layer, "Ethernet") << d;
    EXPECT_EQ(p.fw_ver, "22.38.1002") << d;
  }
  const auto& m1 = port(ps, "mlx5_1");
  EXPECT_TRUE(m1.active());
  EXPECT_EQ(m1.rate_gbps, 100);
  EXPECT_EQ(m1.roce_v2_gid_index, 1);
  const auto& m0 = port(ps, "mlx5_0");
  EXPECT_EQ(m0.link_layer, "InfiniBand");
  EXPECT_EQ(m0.rate_gbps, 400);
  EXPECT_EQ(m0.speed_name, "NDR");
  EXPECT_EQ(m0.width, 4);
  EXPECT_EQ(m0.fw_ver, "28.39.1002");
  EXPECT_FALSE(m0.roce_v2_gid_index);  // InfiniBand has no RoCE GIDs
  EXPECT_FALSE(m0.is_vf);
  EXPECT_EQ(m0.numa_node, 0);
  EXPECT_EQ(port(ps, "mlx5_11").numa_node, 1);
  EXPECT_EQ(m0.pci_bus_id, "0000:18:00.0");
  EXPECT_FALSE(m0.active_mtu);  // mainline sysfs has no active_mtu
}

TEST(RdmaInventory, BlueFieldDownWithPhysicalLinkUp) {
  const auto ps = read_ports(tree("bluefield3-down-linkup"));
  ASSERT_EQ(ps.size(), 2u);
  for (const auto& p : ps) {
    EXPECT_FALSE(p.active());
    EXPECT_EQ(p.state, "DOWN");
    EXPECT_EQ(p.phys_state, "LinkUp");  // cable up, no subnet manager
    EXPECT_EQ(p.rate_gbps, 100);
    EXPECT_EQ(p.speed_name, "EDR");
    EXPECT_EQ(p.fw_ver, "32.47.1088");
  }
}

TEST(RdmaInventory, AzureVfsWithOneQdrPort) {
  const auto ps = read_ports(tree("azure-a100-8hdr-1qdr"));
  ASSERT_EQ(ps.size(), 9u);
  for (const auto& p : ps) {
    EXPECT_TRUE(p.is_vf) << p.device;
    EXPECT_TRUE(p.active()) << p.device;
    EXPECT_EQ(p.rate_gbps, p.device == "mlx5_8" ? 40 : 200) << p.device;
  }
  EXPECT_EQ(port(ps, "mlx5_8").speed_name, "QDR");
  EXPECT_EQ(port(ps, "mlx5_5").numa_node, 1);
}

TEST(RdmaInventory, DellActiveMtuWhereSysfsHasIt) {
  const auto ps = read_ports(tree("dell-8cx7-ndr400"));
  ASSERT_EQ(ps.size(), 8u);
  EXPECT_EQ(ps.front().active_mtu, 4096);
  EXPECT_EQ(ps.front().fw_ver, "28.41.1000");
  EXPECT_EQ(read_ports(tree("dell-8cx7-ndr-at-200")).front().rate_gbps, 200);
}

TEST(RdmaInventory, MixedFaults) {
  const auto ps = read_ports(tree("mixed-faults"));
  ASSERT_EQ(ps.size(), 11u);  // mlx5_9 has two ports
  EXPECT_EQ(port(ps, "mlx5_9").port, 1);
  EXPECT_EQ(port(ps, "mlx5_9:2").port, 2);
  EXPECT_EQ(port(ps, "mlx5_9:2").device, "mlx5_9");
  EXPECT_TRUE(port(ps, "mlx5_4").is_vf);
  EXPECT_FALSE(port(ps, "mlx5_3").is_vf);
  EXPECT_TRUE(port(ps, "mlx5_5").ethernet());
  EXPECT_FALSE(port(ps, "mlx5_5").roce_v2_gid_index);  // only a RoCE v1 GID
  EXPECT_EQ(port(ps, "mlx5_6").roce_v2_gid_index, 1);
  EXPECT_EQ(port(ps, "mlx5_7").rate_gbps, 200);
  EXPECT_EQ(port(ps, "mlx5_8").phys_state, "Polling");
}

TEST(RdmaInventory, NoDevices) {
  const fs::path dir = fs::temp_directory_path() / ("ga-rdma-empty-" + std::to_string(::getpid()));
  fs::create_directories(dir / "sys/class/infiniband");
  EXPECT_TRUE(read_ports(dir.string()).empty());  // the stack without adapters
  fs::remove_all(dir / "sys");
  EXPECT_TRUE(read_ports(dir.string()).empty());  // no RDMA stack at all
  fs::remove_all(dir);
}

TEST(RdmaInventory, ErrorCountersAreReread) {
  const fs::path dir = fs::temp_directory_path() / ("ga-rdma-counters-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(tree("bluefield3-down-linkup"), dir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const auto ps = read_ports(dir.string());
  auto before = read_error_counters(dir.string(), ps[0]);
  EXPECT_EQ(before.size(), error_counter_names().size());
  EXPECT_EQ(before.at("symbol_error"), 0u);
  EXPECT_FALSE(before.count("port_xmit_data"));  // traffic, not an error
  std::ofstream(dir / "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error") << "17\n";
  EXPECT_EQ(read_error_counters(dir.string(), ps[0]).at("symbol_error"), 17u);
  fs::remove_all(dir);
}

TEST(RdmaInventory, RoceHardwareCountersAreReadWhereTheDriverHasThem) {
  const auto ps = read_ports(tree("h100-12ca-3-eth-down"));
  ASSERT_EQ(ps.size(), 12u);
  const auto ib = read_error_counters(tree("h100-12ca-3-eth-down"), ps[0]);  // mlx5_0: no hw_counters/
  EXPECT_EQ(ib.size(), error_counter_names().size());
  ASSERT_EQ(ps[1].device, "mlx5_1");
  const auto roce = read_error_counters(tree("h100-12ca-3-eth-down"), ps[1]);
  EXPECT_EQ(roce.size(), error_counter_names().size() + hw_error_counter_names().size());
  for (const auto& n : hw_error_counter_names()) EXPECT_TRUE(roce.count(n)) << n;
  EXPECT_FALSE(roce.count("rx_write_requests"));  // a request count, not an error
  EXPECT_FALSE(roce.count("out_of_buffer"));      // the application's doing, not the port's
}

}  // namespace
}  // namespace ga::rdma
