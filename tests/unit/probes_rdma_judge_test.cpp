// The rdma probe run on recorded sysfs trees (one process per "host", no MPI), its samples
// judged with the built-in criteria: the failing verdicts must name exactly the bad ports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "probes_rdma_fixture.hpp"
#include "suites_fixture.hpp"
#include "topology/place.hpp"
#include "topology/topology.hpp"

namespace ga {
namespace {

namespace fs = std::filesystem;

std::string tree(const std::string& name) { return std::string(GA_TEST_DATA_DIR) + "/rdma/" + name; }

using rdma_fixture::judge_runs;
using rdma_fixture::run_on;

// criterion -> failing places, rdma criteria only
std::map<std::string, std::set<std::string>> failures(const Judgement& j) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& v : j.verdicts)
    if (v.criterion.rfind("rdma.", 0) == 0 && (v.status == VerdictStatus::fail || v.status == VerdictStatus::missing ||
                                                v.status == VerdictStatus::tool_error))
      out[v.criterion].insert(v.place);
  return out;
}

std::set<std::string> failing_places(const Judgement& j) {
  std::set<std::string> s;
  for (const auto& [c, ps] : failures(j)) s.insert(ps.begin(), ps.end());
  return s;
}

int passes(const Judgement& j, const std::string& criterion) {
  int n = 0;
  for (const auto& v : j.verdicts) n += v.criterion == criterion && v.status == VerdictStatus::pass;
  return n;
}

fs::path copy_tree(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ga-rdma-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(tree(name), dir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return dir;
}

TEST(RdmaJudge, MixedFaultsNameExactlyTheBadPorts) {
  const fs::path dir = copy_tree("mixed-faults");
  // Counters rise between the run's two readings, as a sick cable's would during the run.
  auto hook = [&] {
    std::ofstream(dir / "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error") << "12\n";
    std::ofstream(dir / "sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data") << "999999\n";
  };
  auto r = run_on("n1", dir.string(), hook);
  EXPECT_EQ(r.outcome.status, ProbeStatus::ok) << r.outcome.reason;
  EXPECT_NE(r.outcome.reason.find("no traffic"), std::string::npos) << r.outcome.reason;
  EXPECT_NE(r.outcome.reason.find("not been validated on RDMA hardware"), std::string::npos) << r.outcome.reason;
  bool said = false;
  for (const auto& s : r.samples)
    if (s.metric == "rdma.data_path" && s.place == "n1" && s.text->find("not been validated") != std::string::npos) said = true;
  EXPECT_TRUE(said) << "the report's metrics must say the verbs path is not validated";
  const auto j = judge_runs({r});
  const auto f = failures(j);
  EXPECT_EQ(f.at("rdma.port.active"), (std::set<std::string>{"n1/nic:mlx5_8"}));
  EXPECT_EQ(f.at("rdma.rate.infiniband_median"), (std::set<std::string>{"n1/nic:mlx5_7", "n1/nic:mlx5_8"}));
  EXPECT_EQ(f.at("rdma.vf.majority"), (std::set<std::string>{"n1/nic:mlx5_4"}));
  EXPECT_EQ(f.at("rdma.roce.v2_gid"), (std::set<std::string>{"n1/nic:mlx5_5"}));
  EXPECT_EQ(f.at("rdma.link.symbol_ber"), (std::set<std::string>{"n1/nic:mlx5_0"}));
  EXPECT_EQ(failing_places(j), (std::set<std::string>{"n1/nic:mlx5_0", "n1/nic:mlx5_4", "n1/nic:mlx5_5",
                                                        "n1/nic:mlx5_7", "n1/nic:mlx5_8"}));
  EXPECT_EQ(passes(j, "rdma.port.active"), 10);  // 11 ports, the second port of mlx5_9 included
  const Verdict* second = testing::verdict_at(j, "rdma.port.active", "n1/nic:mlx5_9:2");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, VerdictStatus::pass);
  // Only error counters are judged (traffic counters moved too), and only the one that rose fails.
  for (const auto& v : j.verdicts)
    if (v.metric.rfind("rdma.counter", 0) == 0 && v.status == VerdictStatus::fail) {
      EXPECT_EQ(v.metric, "rdma.counter_per_bit.symbol_error");
    }
  fs::remove_all(dir);
}

TEST(RdmaJudge, NdrPortsTrainedToHdrOnOneHostFailAgainstTheMajority) {
  auto a = run_on("n1", tree("dell-8cx7-ndr400"));
  auto b = run_on("n2", tree("dell-8cx7-ndr400"));
  auto c = run_on("n3", tree("dell-8cx7-ndr-at-200"));
  const auto j = judge_runs({a, b, c});
  std::set<std::string> want;
  for (int i : {0, 3, 4, 5, 6, 9, 10, 11}) want.insert("n3/nic:mlx5_" + std::to_string(i));
  // 100% of their own rate, and still a finding: below the same port of the other hosts.
  EXPECT_EQ(failures(j).at("rdma.rate.majority"), want);
  EXPECT_EQ(failing_places(j), want);
  EXPECT_EQ(passes(j, "rdma.rate.majority"), 16);
}

TEST(RdmaJudge, AzureQdrPortAmongHdrVfs) {
  const auto j = judge_runs({run_on("az1", tree("azure-a100-8hdr-1qdr"))});
  EXPECT_EQ(failing_places(j), (std::set<std::string>{"az1/nic:mlx5_8"}));
  EXPECT_EQ(failures(j).at("rdma.rate.infiniband_median"), (std::set<std::string>{"az1/nic:mlx5_8"}));
  EXPECT_EQ(passes(j, "rdma.vf.majority"), 9);  // every port a VF: a cloud, not a fault
}

TEST(RdmaJudge, H100EthernetPortsDown) {
  const auto j = judge_runs({run_on("h1", tree("h100-12ca-3-eth-down"))});
  EXPECT_EQ(failing_places(j), (std::set<std::string>{"h1/nic:mlx5_2", "h1/nic:mlx5_7", "h1/nic:mlx5_8"}));
  EXPECT_EQ(failures(j).at("rdma.port.active"), (std::set<std::string>{"h1/nic:mlx5_2", "h1/nic:mlx5_7", "h1/nic:mlx5_8"}));
  EXPECT_EQ(passes(j, "rdma.roce.v2_gid"), 4);
}

TEST(RdmaJudge, BlueFieldLinkUpButDown) {
  const auto j = judge_runs({run_on("c1", tree("bluefield3-down-linkup"))});
  EXPECT_EQ(failures(j).at("rdma.port.active"), (std::set<std::string>{"c1/nic:mlx5_0", "c1/nic:mlx5_1"}));
}

TEST(RdmaProbe, SkippedWithoutDevices) {
  const fs::path dir = fs::temp_directory_path() / ("ga-rdma-none-" + std::to_string(::getpid()));
  fs::create_directories(dir / "sys/class/infiniband");
  auto r = run_on("n1", dir.string());
  EXPECT_EQ(r.outcome.status, ProbeStatus::skipped);
  EXPECT_NE(r.outcome.reason.find("no RDMA devices"), std::string::npos) << r.outcome.reason;
  EXPECT_TRUE(r.samples.empty());
  fs::remove_all(dir);
}

TEST(RdmaProbe, SkippedOnThisMachine) {
  std::error_code ec;
  if (fs::exists("/sys/class/infiniband", ec) && !fs::is_empty("/sys/class/infiniband", ec))
    GTEST_SKIP() << "this machine has RDMA devices";
  auto r = run_on("here", "");
  EXPECT_EQ(r.outcome.status, ProbeStatus::skipped) << r.outcome.reason;
  // The reason says what verbs said: NULL with ENOSYS, an empty list, or no library.
  EXPECT_TRUE(r.outcome.reason.find("ibv_get_device_list") != std::string::npos ||
              r.outcome.reason.find("libibverbs") != std::string::npos)
      << r.outcome.reason;
}

TEST(RdmaProbe, CaveatInTheListing) {
  auto p = make_rdma_probe();
  EXPECT_NE(p->info().caveat.find("not been validated on RDMA hardware"), std::string::npos);
  EXPECT_TRUE(p->info().needs.rdma);
}

TEST(RdmaProbe, UnknownTransportFails) {
  auto r = run_on("n1", tree("bluefield3-down-linkup"), {}, {{"transport", "carrier-pigeon"}});
  EXPECT_EQ(r.outcome.status, ProbeStatus::failed);
  EXPECT_NE(r.outcome.reason.find("carrier-pigeon"), std::string::npos);
}

}  // namespace
}  // namespace ga
