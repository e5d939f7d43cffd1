// report.prom: Prometheus' text format, one status series per host and criterion, worst margins
// per host as ratios, labels without JSON, every family declared once with HELP and TYPE, the
// same file folded or not.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "reports_fixture.hpp"
#include "reports/report.hpp"

namespace ga {
namespace {

std::string prom_of(const Judgement& g) {
  const JournalData j = test::make_journal();
  std::ostringstream out;
  write_report_prom(build_report(j, g), out);
  return out.str();
}

TEST(ReportProm, OneStatusSeriesPerHostAndCriterionAndEveryFamilyDeclaredOnce) {
  const Judgement g = test::make_judgement();
  const std::string text = prom_of(g);
  std::istringstream in(text);
  std::string line;
  std::map<std::string, int> help, type;
  std::set<std::string> seen_families;
  std::string open;  // the family whose series may follow
  int statuses = 0;
  while (std::getline(in, line)) {
    ASSERT_FALSE(line.empty());
    if (line.rfind("# HELP ", 0) == 0) {
      const auto name = line.substr(7, line.find(' ', 7) - 7);
      ++help[name];
      EXPECT_TRUE(seen_families.insert(name).second) << "family " << name << " declared twice";
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      const auto name = line.substr(7, line.find(' ', 7) - 7);
      ++type[name];
      EXPECT_EQ(line, "# TYPE " + name + " gauge");
      open = name;
      continue;
    }
    const auto name = line.substr(0, line.find_first_of("{ "));
    EXPECT_EQ(name, open) << "a series outside its family: " << line;
    // No timestamp: the value is the last field, and there are no more after it.
    const auto labels_end = line.rfind('}');
    const auto rest = line.substr(labels_end == std::string::npos ? name.size() : labels_end + 1);
    EXPECT_EQ(std::count(rest.begin(), rest.end(), ' '), 1) << line;
    // Labels are words, never JSON.
    const auto labels = line.substr(0, labels_end == std::string::npos ? 0 : labels_end);
    EXPECT_EQ(labels.find('{', name.size() + 1), std::string::npos) << line;
    if (name == "gpuaccept_status") ++statuses;
  }
  // node2: hostmem-triad, rdma-write-bw, gpu-hbm-bw, driver-homogeneous; node10: gpu-hbm-bw, gpu-h2d-bw.
  EXPECT_EQ(statuses, 6);
  for (const auto& [n, k] : help) EXPECT_EQ(type[n], 1) << n;
  EXPECT_NE(text.find("gpuaccept_run_exit_code 3\n"), std::string::npos);
  EXPECT_NE(text.find("gpuaccept_host_outcome{host=\"node10\",outcome=\"node_fault\"} 1\n"), std::string::npos);
  // The worst of a host's places: node10's gpu-hbm-bw is missing at one GPU (a node fault) and
  // a tool error at the other; a failed warning is a node fault of severity warning.
  EXPECT_NE(text.find("gpuaccept_status{host=\"node10\",criterion=\"gpu-hbm-bw\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpuaccept_status{host=\"node10\",criterion=\"gpu-h2d-bw\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpuaccept_status{host=\"node2\",criterion=\"rdma-write-bw\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpuaccept_criterion_info{criterion=\"rdma-write-bw\",severity=\"warning\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("gpuaccept_criterion_info{criterion=\"gpu-hbm-bw\",severity=\"error\"} 1\n"), std::string::npos);
  EXPECT_EQ(text.find("params="), std::string::npos);
}

TEST(ReportProm, StatusValuesMarginsInBaseUnitsAndTheClusterApart) {
  Judgement g = test::make_judgement();
  g.verdicts.push_back(test::verdict("nccl-busbw", "nccl.allreduce_busbw", "cluster", VerdictStatus::inconclusive, 3.66e11,
                                     "B/s", {{"op", ">="}, {"value", 3e11}}, "not confirmed"));
  g.verdicts.push_back(test::verdict("p2p-link", "p2p.link_slowdown", "node2~node10", VerdictStatus::tool_error, 1.0, "x",
                                     {{"op", "<="}, {"value", 2.0}}, "the probe broke"));
  const std::string text = prom_of(g);
  EXPECT_NE(text.find("gpuaccept_cluster_status{criterion=\"nccl-busbw\"} 3\n"),
            std::string::npos)
      << text;
  // A link between two hosts counts at both.
  EXPECT_NE(text.find("gpuaccept_status{host=\"node2\",criterion=\"p2p-link\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("gpuaccept_status{host=\"node10\",criterion=\"p2p-link\"} 2\n"),
            std::string::npos);
  // Margins are ratios of the bound: 120.4 GB/s against >= 100 GB/s is 0.204 to spare; 3.1 TB/s
  // against >= 4 TB/s is 0.225 short; the link's 1 against <= 2 is 0.5 to spare.
  EXPECT_NE(text.find("gpuaccept_host_worst_margin_ratio{host=\"node2\",kind=\"numa\"} 0.204\n"), std::string::npos);
  EXPECT_NE(text.find("gpuaccept_host_worst_margin_ratio{host=\"node2\",kind=\"gpu\"} -0.225\n"), std::string::npos);
  EXPECT_NE(text.find("gpuaccept_host_worst_margin_ratio{host=\"node10\",kind=\"pair\"} 0.5\n"), std::string::npos);
  // No unit but a ratio is named: the values are gone, and the margins are ratios.
  for (const char* unit : {"_mhz", "_watts", "_gbps", "_ppm", "_bytes_per_second{"})
    EXPECT_EQ(text.find(unit), std::string::npos) << unit;
}

// Issue 36: the file of a folded judgement is the file of the same judgement unfolded.
TEST(ReportProm, FoldedAndListedPassesGiveTheSameFile) {
  Judgement g = test::make_judgement();
  // Every pass folds, node2's and node10's beside their failures too.
  g.verdicts.push_back(test::verdict("hostmem-triad", "hostmem.triad_bw", "node20/numa:0", VerdictStatus::pass, 1.1e11,
                                     "B/s", {{"op", ">="}, {"value", 1e11}}, "110 GB/s >= 100 GB/s"));
  Judgement folded = g;
  fold_passing_verdicts(folded, {});
  ASSERT_TRUE(folded.folded);
  ASSERT_LT(folded.verdicts.size(), g.verdicts.size());
  EXPECT_EQ(prom_of(folded), prom_of(g));
  EXPECT_NE(prom_of(folded).find("gpuaccept_status{host=\"node20\",criterion=\"hostmem-triad\"} 0\n"),
            std::string::npos);
}

// Each value as the shortest of printf's %.15g and %.17g that reads back as the value (the
// writer uses std::to_chars and from_chars, which are specified to print and read the same).
// A bound of 0 makes the margin the value itself (ga::margin).
TEST(ReportProm, ValuesPrintAsTheShortestOfFifteenAndSeventeenDigitsThatReadBack) {
  const double values[] = {0.1, 1.0 / 3, 0.30000000000000004, 1e21, 1e-7, 123456789012345678.0, 5e-324, 1e15,
                           1e16, -2.5, 0.0, 1.7976931348623157e308, 100.0, 2.2250738585072014e-308, 9.5e-5,
                           123456.789, 4194304.0};
  Judgement g = test::make_judgement();
  for (std::size_t i = 0; i < std::size(values); ++i)
    g.verdicts.push_back(test::verdict("digits", "test.digits", "h" + std::to_string(i), VerdictStatus::pass, values[i],
                                       "", {{"op", ">="}, {"value", 0.0}}, "digits"));
  const std::string text = prom_of(g);
  for (std::size_t i = 0; i < std::size(values); ++i) {
    char want[32];
    std::snprintf(want, sizeof want, "%.15g", values[i]);
    if (std::strtod(want, nullptr) != values[i]) std::snprintf(want, sizeof want, "%.17g", values[i]);
    const std::string line =
        "gpuaccept_host_worst_margin_ratio{host=\"h" + std::to_string(i) + "\",kind=\"host\"} " + want + "\n";
    EXPECT_NE(text.find(line), std::string::npos) << line << text;
  }
}

}  // namespace
}  // namespace ga
