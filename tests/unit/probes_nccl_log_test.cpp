// The transport audit's parser on real NCCL logs (tests/data/recorded/nccl-logs, PROVENANCE.md)
// and on the fake NCCL's lines.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "probes/nccl/nccl_log.hpp"

namespace ga::nccl_log {
namespace {

Summary recorded(const std::string& name) {
  const std::string path = std::string(GA_FIXTURES_DIR) + "/nccl-logs/" + name;
  std::ifstream f(path);
  EXPECT_TRUE(f) << path;
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_text(ss.str());
}

TEST(NcclLog, IbWithGpuDirectRdma) {
  const auto s = recorded("ib-gdrdma-aks.log");
  EXPECT_EQ(s.network(), "IB");
  EXPECT_EQ(s.net_channels, 7);
  EXPECT_EQ(s.gdr_channels, 7);
  EXPECT_EQ(s.net_devices_used, (std::set<int>{0, 4, 6}));
  // No "NET/IB : Using" line in the excerpt: the devices are named by index.
  EXPECT_EQ(s.nics_used(), (std::vector<std::string>{"NET/0", "NET/4", "NET/6"}));
  EXPECT_EQ(s.info_lines, 9);
}

TEST(NcclLog, IbWithoutGpuDirectRdma) {
  const auto s = recorded("ib-no-gdr-module.log");
  EXPECT_EQ(s.network(), "IB");
  EXPECT_EQ(s.net_channels, 5);
  EXPECT_EQ(s.gdr_channels, 0);
  EXPECT_EQ(s.gdr_disabled, (std::vector<std::string>{"mlx5_1", "mlx5_2", "mlx5_3"}));
  EXPECT_TRUE(s.gdr_enabled.empty());
}

TEST(NcclLog, PluginNetworkAndRoceDevices) {
  const auto s = recorded("ib-sharp-plugin-roce.log");
  EXPECT_EQ(s.version, "2.21.5+cuda12.4");
  EXPECT_EQ(s.network_said, "IBext_v8");
  EXPECT_EQ(s.network(), "IB");  // no channel line in the excerpt: "Using network" decides
  ASSERT_EQ(s.ib_devices.size(), 5u);
  EXPECT_EQ(s.ib_devices[0], (NetDevice{0, "mlx5_0", 1, "IB"}));
  EXPECT_EQ(s.ib_devices[4], (NetDevice{4, "mlx5_2", 1, "RoCE"}));
  EXPECT_TRUE(s.socket_devices.empty());
}

TEST(NcclLog, SocketsOnly) {
  const auto s = recorded("socket-no-ib-device.log");
  EXPECT_TRUE(s.ib_no_device);
  EXPECT_EQ(s.network(), "Socket");
  ASSERT_FALSE(s.socket_devices.empty());
  EXPECT_EQ(s.socket_devices.back().name, "enp1s0");
}

TEST(NcclLog, SocketRingOfTheOldForm) {
  const auto s = recorded("socket-two-nics-ring.log");
  EXPECT_EQ(s.network(), "Socket");
  EXPECT_EQ(s.net_channels, 4);
  ASSERT_EQ(s.socket_devices.size(), 2u);
  EXPECT_EQ(s.socket_devices[1].name, "enP1p1s0f1");
  // Every connection on NET/Socket/0 although two interfaces were offered (the point).
  EXPECT_EQ(s.nics_used(), (std::vector<std::string>{"enP1p1s0f0"}));
}

TEST(NcclLog, OldLogWithoutUsingNetworkPrefersIb) {
  const auto s = recorded("ib-and-socket-init-old.log");
  EXPECT_EQ(s.version, "2.4.7+cuda10.0");
  EXPECT_TRUE(s.network_said.empty());
  EXPECT_EQ(s.network(), "IB");
  EXPECT_EQ(s.ib_devices, (std::vector<NetDevice>{{0, "mlx5_0", 1, "IB"}}));
}

TEST(NcclLog, NvlsChannelsAndMulticast) {
  const auto a = recorded("nvls-channels-h800.log");
  EXPECT_EQ(a.nvls_channels, 0);
  EXPECT_FALSE(a.collnet_channels);
  EXPECT_EQ(a.channel_transports, (std::set<std::string>{"P2P"}));
  EXPECT_EQ(a.network(), "");  // inside one host: no network at all
  const auto b = recorded("nvls-multicast-h100.log");
  EXPECT_TRUE(b.nvls_multicast);
  EXPECT_FALSE(b.nvls_channels);
}

TEST(NcclLog, NewerChannelSummaryWithCollnet) {
  const auto s = parse({"h:1:2 [0] NCCL INFO 24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer",
                        "h:1:2 [0] NCCL INFO Channel 02/0 : 1[1] -> 9[1] [send] via NET/IBext_v8/1(0)/GDRDMA"});
  EXPECT_EQ(s.collnet_channels, 24);
  EXPECT_EQ(s.nvls_channels, 16);
  EXPECT_EQ(s.network(), "IB");
  EXPECT_EQ(s.gdr_channels, 1);
  EXPECT_EQ(s.net_devices_used, (std::set<int>{1}));
}

TEST(NcclLog, MixedNetworksNameTheSockets) {
  const auto s = parse({"a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA",
                        "a:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] [send] via NET/Socket/0"});
  EXPECT_EQ(s.network(), "Socket");
}

TEST(NcclLog, TheFakeNcclsLines) {
  // tests/fakes/fake_libnccl.c, modelled on the logs above.
  const auto s = parse({"ga-h1:10:11 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
                        "ga-h1:10:11 [0] NCCL INFO NET/Socket : Using [0]veth0:10.0.0.1<0> [1]veth1:10.0.1.1<0>",
                        "ga-h1:10:11 [0] NCCL INFO Using network Socket",
                        "ga-h1:10:11 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'veth0'",
                        "ga-h1:10:11 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] [send] via NET/Socket/1",
                        "ga-h1:10:11 [0] NCCL INFO 2 coll channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer"});
  EXPECT_EQ(s.network(), "Socket");
  EXPECT_EQ(s.nics_used(), (std::vector<std::string>{"veth1"}));
  EXPECT_EQ(s.gdr_disabled, (std::vector<std::string>{"veth0"}));
  EXPECT_EQ(s.nvls_channels, 0);
}

TEST(NcclLog, NothingToSay) {
  const auto s = parse({"no nccl here", ""});
  EXPECT_EQ(s.network(), "");
  EXPECT_EQ(s.info_lines, 0);
  EXPECT_TRUE(s.nics_used().empty());
}

}  // namespace
}  // namespace ga::nccl_log

namespace ga::nccl_log {
namespace {
TEST(NcclLog, NicsOffTheGpusSwitch) {
  EXPECT_TRUE(off_switch({"mlx5_0"}, {"mlx5_0", "mlx5_1"}).empty());
  EXPECT_TRUE(off_switch({"mlx5_0:1"}, {"mlx5_0"}).empty());
  EXPECT_EQ(off_switch({"mlx5_0", "mlx5_4"}, {"mlx5_0"}), (std::vector<std::string>{"mlx5_4"}));
}
}  // namespace
}  // namespace ga::nccl_log
