// build_report: which section each metric lands in, where it sits, which verdicts it carries.
#include <gtest/gtest.h>

#include "base/quantity.hpp"
#include "reports/report.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

const PlacedMetric* find_row(const HostSection& s, const std::string& metric, const std::string& place,
                             double value) {
  for (const auto& r : s.rows)
    if (r.metric->metric == metric && r.place() == place && r.metric->value == value) return &r;
  return nullptr;
}

TEST(ReportsBuild, HostsSortedNaturallyWithTheirRanks) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Report r = build_report(j, g);
  ASSERT_EQ(r.hosts.size(), 2u);
  EXPECT_EQ(r.hosts[0].host, "node2");  // node2 before node10, as people count
  EXPECT_EQ(r.hosts[1].host, "node10");
  EXPECT_EQ(r.hosts[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.hosts[1].ranks, (std::vector<int>{2, 3}));
}

TEST(ReportsBuild, RowsSayWhereTheySit) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Report r = build_report(j, g);
  const auto& node2 = r.hosts[0];
  std::map<std::string, std::string> where;
  for (const auto& row : node2.rows) where[row.place()] = row.where();
  EXPECT_EQ(where["node2/numa:1"], "NUMA 1");
  EXPECT_EQ(where["node2/gpu:1"], "GPU 1 (NUMA 1, PCI 0000:4e:00.0)");
  EXPECT_EQ(where["node2/nic:mlx5_0"], "NIC mlx5_0 (NUMA 0)");
  EXPECT_EQ(where["node2"], "host");
  // host first, then NUMA, GPU, NIC
  ASSERT_EQ(node2.rows.size(), 4u);
  EXPECT_EQ(node2.rows[0].place(), "node2");
  EXPECT_EQ(node2.rows[1].place(), "node2/numa:1");
  EXPECT_EQ(node2.rows[2].place(), "node2/gpu:1");
  EXPECT_EQ(node2.rows[3].place(), "node2/nic:mlx5_0");
}

TEST(ReportsBuild, PairAndClusterMetricsGoToTheClusterSection) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Report r = build_report(j, g);
  ASSERT_EQ(r.cluster.rows.size(), 2u);
  EXPECT_EQ(r.cluster.rows[0].place(), "cluster");
  EXPECT_EQ(r.cluster.rows[1].place(), "node2/gpu:0~node10/gpu:0");
  EXPECT_EQ(r.cluster.rows[1].where(), "node2 GPU 0 (NUMA 0, PCI 0000:1b:00.0) ↔ node10 GPU 0 (NUMA 0, PCI 0000:1b:00.0)");
  for (const auto& s : r.hosts)
    for (const auto& row : s.rows) EXPECT_EQ(row.place().find('~'), std::string::npos) << row.place();
}

TEST(ReportsBuild, VerdictsAttachToTheRowTheyJudged) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Report r = build_report(j, g);
  const auto& node10 = r.hosts[1];
  // Two h2d rows differ only by size; the verdict carries 51 GB/s, so it judged the larger size.
  const auto* small = find_row(node10, "gpu.h2d_bw", "node10/gpu:0", 2.5e10);
  const auto* large = find_row(node10, "gpu.h2d_bw", "node10/gpu:0", 5.1e10);
  ASSERT_TRUE(small && large);
  EXPECT_TRUE(small->verdicts.empty());
  ASSERT_EQ(large->verdicts.size(), 1u);
  EXPECT_EQ(large->verdicts[0]->criterion, "gpu-h2d-bw");
  // A missing metric has no row: its verdict is listed apart, in its host's section.
  ASSERT_EQ(node10.other_verdicts.size(), 1u);
  EXPECT_EQ(node10.other_verdicts[0]->status, VerdictStatus::missing);
  EXPECT_EQ(node10.other_verdicts[0]->place, "node10/gpu:1");
}

TEST(ReportsBuild, RunInfoComesFromTheJournal) {
  auto j = test::make_journal();
  auto g = test::make_judgement();
  Report r = build_report(j, g);
  EXPECT_EQ(r.run["started"], "2025-03-14T09:26:53Z");
  EXPECT_TRUE(r.run["ended"].is_null());  // the run never recorded run_end
  EXPECT_EQ(r.run["hosts"], (nlohmann::json{"node2", "node10"}));
  EXPECT_EQ(r.run["ranks_per_host"]["node10"], 2);
  EXPECT_EQ(r.run["versions"]["nccl"], "2.21.5");
  EXPECT_EQ(r.run["slurm"]["job_id"], "81723");
  EXPECT_EQ(r.run["argv"][1], "run");
  j.end_time = "2025-03-14T09:30:00Z";
  j.run_start.erase("slurm");
  j.run_start["versions"].erase("nccl");
  Report r2 = build_report(j, g);
  EXPECT_EQ(r2.run["ended"], "2025-03-14T09:30:00Z");
  EXPECT_TRUE(r2.run["slurm"].is_null());
  ASSERT_TRUE(r2.run["versions"].contains("nccl"));
  EXPECT_TRUE(r2.run["versions"]["nccl"].is_null());
}

TEST(ReportsBuild, HostWithoutTopologyOrMetricsStillGetsASection) {
  auto j = test::make_journal();
  j.ranks.push_back({4, "node3", 0, 6001, ""});
  auto g = test::make_judgement();
  g.metrics.push_back(test::metric("gpu.hbm_bw", "node3/gpu:0", 1e12, "B/s"));
  Report r = build_report(j, g);
  ASSERT_EQ(r.hosts.size(), 3u);
  EXPECT_EQ(r.hosts[1].host, "node3");
  ASSERT_EQ(r.hosts[1].rows.size(), 1u);
  EXPECT_EQ(r.hosts[1].rows[0].where(), "GPU 0 (not in topology)");
}

// A GPU row names the card to return: its UUID and board serial from the topology (issue 12 item 7).
TEST(ReportsBuild, GpuRowsShowTheUuidAndSerialOfTheTopology) {
  auto j = test::make_journal();
  j.topology.hosts[0].gpus[1].uuid = "GPU-0b1c2d3e-aaaa-bbbb-cccc-0123456789ab";
  j.topology.hosts[0].gpus[1].serial = "1650923012345";
  auto g = test::make_judgement();
  g.metrics.push_back(test::metric("gpu.hbm_bw", "node2/gpu:1", 1e12, "B/s"));
  Report r = build_report(j, g);
  std::string where;
  for (const auto& row : r.hosts[0].rows)
    if (row.place() == "node2/gpu:1") where = row.where();
  EXPECT_NE(where.find("GPU-0b1c2d3e-aaaa-bbbb-cccc-0123456789ab"), std::string::npos) << where;
  EXPECT_NE(where.find("serial 1650923012345"), std::string::npos) << where;
}

// The writers print values through base::format_quantity, the judge's rule (base/quantity.hpp).
TEST(ReportsFormat, HumanUnits) {
  EXPECT_EQ(base::format_quantity(4.512e11, "B/s"), "451 GB/s");
  EXPECT_EQ(base::format_quantity(1.25e-3, "s"), "1.25 ms");
  EXPECT_EQ(base::format_quantity(9.3e-7, "s"), "930 ns");
  EXPECT_EQ(base::format_quantity(85899345920.0, "B"), "80 GiB");
  EXPECT_EQ(base::format_quantity(9.89e14, "FLOP/s"), "989 TFLOP/s");
  EXPECT_EQ(base::format_quantity(8, "count"), "8");
  EXPECT_EQ(base::format_quantity(1, "bool"), "yes");
  EXPECT_EQ(base::format_quantity(std::nan(""), "B/s"), "nan B/s");
  EXPECT_EQ(base::format_quantity(12.5, "%"), "12.5%");
}

}  // namespace
}  // namespace ga
