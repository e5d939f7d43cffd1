// report.md: the status first, failures before detail, every metric placed, cells escaped.
#include <gtest/gtest.h>

#include "reports/report.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

std::string markdown(const Judgement& g) {
  static const auto j = test::make_journal();
  return report_to_markdown(build_report(j, g));
}

std::string line_with(const std::string& md, const std::string& needle) {
  auto at = md.find(needle);
  if (at == std::string::npos) return {};
  auto begin = md.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return md.substr(begin, md.find('\n', at) - begin);
}

TEST(ReportsMarkdown, FirstLineCarriesTheOverallStatus) {
  auto g = test::make_judgement();
  EXPECT_EQ(markdown(g).substr(0, markdown(g).find('\n')), "# gpuaccept: INCOMPLETE");
  g.summary.overall = "PASS";
  EXPECT_EQ(markdown(g).substr(0, 18), "# gpuaccept: PASS\n");
  g.summary.overall = "FAIL";
  std::string md = markdown(g);
  EXPECT_EQ(md.substr(0, 18), "# gpuaccept: FAIL\n");
  // the summary line: counts, hosts, ranks, when
  std::string summary = line_with(md, "3 pass");
  EXPECT_NE(summary.find("2 fail"), std::string::npos) << summary;
  EXPECT_NE(summary.find("2 hosts, 4 ranks"), std::string::npos) << summary;
  EXPECT_NE(summary.find("2025-03-14T09:26:53Z"), std::string::npos) << summary;
}

TEST(ReportsMarkdown, IncompleteSectionNamesProbeRanksAndHosts) {
  auto g = test::make_judgement();
  std::string md = markdown(g);
  auto section = md.find("## Incomplete");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(md.find("`nccl`", section), std::string::npos);
  EXPECT_NE(md.find("watchdog: no progress for 120 s", section), std::string::npos);
  EXPECT_NE(line_with(md, "Hosts with missing ranks").find("node10"), std::string::npos);
  std::string row = line_with(md, "| 3 | node10 |");
  EXPECT_NE(row.find("missing"), std::string::npos) << md;
  EXPECT_LT(section, md.find("## Failing criteria"));
  g.incomplete.reset();
  EXPECT_EQ(markdown(g).find("## Incomplete"), std::string::npos);
}

TEST(ReportsMarkdown, FailingCriteriaComeBeforeHostsErrorsBeforeWarnings) {
  std::string md = markdown(test::make_judgement());
  auto failing = md.find("## Failing criteria");
  auto hosts = md.find("## Hosts");
  ASSERT_NE(failing, std::string::npos);
  ASSERT_NE(hosts, std::string::npos);
  EXPECT_LT(failing, hosts);
  auto hbm = md.find("| error | fail | gpu-hbm-bw | node2/gpu:1 | 3.1 TB/s | >= 4 TB/s |");
  auto missing = md.find("| error | missing | gpu-hbm-bw | node10/gpu:1 | — |");
  auto rdma = md.find("| warning | fail | rdma-write-bw | node2/nic:mlx5_0 | 31 GB/s | >= 45 GB/s |");
  ASSERT_NE(hbm, std::string::npos) << md;
  ASSERT_NE(missing, std::string::npos) << md;
  ASSERT_NE(rdma, std::string::npos) << md;
  EXPECT_LT(hbm, hosts);
  EXPECT_LT(missing, rdma);  // the warning was judged first but prints after every error
  // passing verdicts are not in the failing table
  EXPECT_EQ(md.substr(failing, hosts - failing).find("hostmem-triad"), std::string::npos);
}

TEST(ReportsMarkdown, PerHostRowsSayWhereTheMetricSits) {
  std::string md = markdown(test::make_judgement());
  auto node2 = md.find("### node2\n");
  auto node10 = md.find("### node10\n");
  ASSERT_NE(node2, std::string::npos);
  ASSERT_LT(node2, node10);
  std::string gpu = line_with(md, "| node2/gpu:1 | GPU");
  EXPECT_NE(gpu.find("GPU 1 (NUMA 1, PCI 0000:4e:00.0)"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("3.1 TB/s"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("✗ gpu-hbm-bw"), std::string::npos) << gpu;
  std::string numa = line_with(md, "| node2/numa:1 | NUMA");
  EXPECT_NE(numa.find("| NUMA 1 |"), std::string::npos) << numa;
  EXPECT_NE(numa.find("✓ hostmem-triad"), std::string::npos) << numa;
  std::string nic = line_with(md, "| node2/nic:mlx5_0 | NIC");
  EXPECT_NE(nic.find("NIC mlx5_0 (NUMA 0)"), std::string::npos) << nic;
  EXPECT_NE(nic.find("(warning)"), std::string::npos) << nic;
  std::string sweep = line_with(md, "size=268435456");
  EXPECT_NE(sweep.find("51 GB/s"), std::string::npos) << sweep;
  EXPECT_NE(sweep.find("✓ gpu-h2d-bw"), std::string::npos) << sweep;
  // topology in brief: GPUs with NUMA, nearest NIC and path class; NICs with NUMA
  std::string gpus = line_with(md.substr(node2), "- GPUs:");
  EXPECT_NE(gpus.find("1 (NUMA 1, NIC mlx5_1 PXB)"), std::string::npos) << gpus;
  EXPECT_NE(line_with(md.substr(node2), "- NICs:").find("mlx5_1 (NUMA 1)"), std::string::npos);
  EXPECT_NE(line_with(md.substr(node2), "Ranks:").find("0-1"), std::string::npos);
}

TEST(ReportsMarkdown, ClusterAndPairMetricsHaveTheirOwnSection) {
  std::string md = markdown(test::make_judgement());
  auto section = md.find("## Cluster and pair metrics");
  ASSERT_NE(section, std::string::npos);
  EXPECT_GT(section, md.find("### node10\n"));
  auto pair = md.find("| node2/gpu:0~node10/gpu:0 |");
  EXPECT_GT(pair, section);
  EXPECT_NE(line_with(md, "| node2/gpu:0~node10/gpu:0 | node2").find("930 ns"), std::string::npos);
  EXPECT_GT(md.find("| cluster |"), section);
}

TEST(ReportsMarkdown, PipesInCellsAreEscaped) {
  std::string md = markdown(test::make_judgement());
  EXPECT_NE(md.find("HBM bandwidth \\| well below"), std::string::npos);
  EXPECT_EQ(md.find("HBM bandwidth | well below"), std::string::npos);
}

TEST(ReportsMarkdown, ProbesTableListsStatusAndReason) {
  std::string md = markdown(test::make_judgement());
  auto probes = md.find("## Probes");
  ASSERT_NE(probes, std::string::npos);
  EXPECT_LT(probes, md.find("## Hosts"));
  EXPECT_EQ(line_with(md, "| nccl |"), "| nccl | timeout | rank 3 (node10) never arrived |");
  EXPECT_EQ(line_with(md, "| hostmem |"), "| hostmem | ok |  |");
}

TEST(ReportsMarkdown, BoundsReadAsSentences) {
  auto g = test::make_judgement();
  g.verdicts.push_back(test::verdict("triad-uniform", "hostmem.triad_bw", "node2/numa:1", VerdictStatus::fail, 3e11,
                                     "B/s",
                                     {{"op", "within_pct_of_median"}, {"pct", 150}, {"median", 1e11},
                                      {"low", -5e10}, {"high", 2.5e11}},
                                     "off the median"));
  g.verdicts.push_back(test::verdict("lat-window", "nccl.p2p_lat", "node2/gpu:0~node10/gpu:0", VerdictStatus::fail,
                                     9.3e-7, "s", {{"op", "between"}, {"low", 1e-6}, {"high", 2.5e-3}}, "too fast"));
  std::string md = markdown(g);
  EXPECT_NE(line_with(md, "| triad-uniform |").find("| within 150% of median 100 GB/s (-50 GB/s to 250 GB/s) |"),
            std::string::npos)
      << line_with(md, "| triad-uniform |");
  EXPECT_NE(line_with(md, "| lat-window |").find("| between 1 us and 2.5 ms |"), std::string::npos)
      << line_with(md, "| lat-window |");
}

// mad_outlier records only the side it judges (a bandwidth: the low one) and what it was made of.
TEST(ReportsMarkdown, MadOutlierBoundsReadAsASentence) {
  auto g = test::make_judgement();
  g.verdicts.push_back(test::verdict("hbm-outlier", "gpu.hbm_bw", "node2/gpu:1", VerdictStatus::fail, 2e12, "B/s",
                                     {{"op", "mad_outlier"}, {"k", 5}, {"floor_pct", 2}, {"median", 3e12},
                                      {"mad", 1e10}, {"low", 2.92587e12}},
                                     "an outlier"));
  const std::string line = line_with(markdown(g), "| hbm-outlier |");
  EXPECT_NE(line.find("| >= 2.93 TB/s (median 3 TB/s, larger of 5 x 1.4826 MAD 10 GB/s and 2%) |"), std::string::npos)
      << line;
}

}  // namespace
}  // namespace ga
