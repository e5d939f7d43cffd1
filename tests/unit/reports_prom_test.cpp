// report.prom: Prometheus' text format, one status series per verdict, measured values per
// place in base units, every family declared once with HELP and TYPE.
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

TEST(ReportProm, OneStatusSeriesPerVerdictAndEveryFamilyDeclaredOnce) {
  const Judgement g = test::make_judgement();
  const std::string text = prom_of(g);
  std::istringstream in(text);
  std::string line;
  std::map<std::string, int> help, type;
  std::set<std::string> seen_families;
  std::string open;  // the family whose series may follow
  int verdicts = 0;
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
    if (name == "gpuaccept_verdict_ok") ++verdicts;
  }
  EXPECT_EQ(verdicts, static_cast<int>(g.verdicts.size()));
  for (const auto& [n, k] : help) EXPECT_EQ(type[n], 1) << n;
  EXPECT_NE(text.find("gpuaccept_run_exit_code 3\n"), std::string::npos);
  EXPECT_NE(text.find("gpuaccept_host_outcome{host=\"node10\",outcome=\"node_fault\"} 1\n"), std::string::npos);
}

TEST(ReportProm, ValuesInBaseUnitsLabelsEscapedPairsLeftToTheJson) {
  Judgement g = test::make_judgement();
  g.metrics.push_back(test::metric("storage.read_bw", "node2", 2.5e9, "B/s", {{"path", "/scratch/a \"b\"\\c"}}));
  g.metrics.push_back(test::metric("p2p.bw_share", "node2", 42, "%"));
  g.metrics.push_back(test::metric("topology.gpu_count", "node2", 2, "count"));
  const std::string text = prom_of(g);
  // A NaN is Prometheus' NaN; bandwidth is bytes per second; a percent a ratio.
  EXPECT_NE(text.find("gpuaccept_gpu_hbm_bw_bytes_per_second{place=\"node10/gpu:0\",host=\"node10\",params=\"{}\"} NaN\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpuaccept_p2p_bw_share_ratio{place=\"node2\",host=\"node2\",params=\"{}\"} 0.42"), std::string::npos);
  EXPECT_NE(text.find(R"(params="{\"path\":\"/scratch/a \\\"b\\\"\\\\c\"}"} 2500000000)"), std::string::npos) << text;
  // promtool: a gauge may not end as a histogram's series do.
  EXPECT_NE(text.find("gpuaccept_topology_gpu_count_value{"), std::string::npos);
  // The pair metric is in report.json only; the cluster's is here.
  EXPECT_EQ(text.find("nccl_p2p_lat"), std::string::npos);
  EXPECT_NE(text.find("gpuaccept_nccl_allreduce_busbw_bytes_per_second{place=\"cluster\",host=\"\""), std::string::npos);
  EXPECT_NE(text.find("gpuaccept_text_info{metric=\"inventory.driver\",place=\"node2\",host=\"node2\",params=\"{}\",value=\"550.54.15\"} 1"),
            std::string::npos);
}

// Each value as the shortest of printf's %.15g and %.17g that reads back as the value (the
// writer uses std::to_chars and from_chars, which are specified to print and read the same).
TEST(ReportProm, ValuesPrintAsTheShortestOfFifteenAndSeventeenDigitsThatReadBack) {
  const double values[] = {0.1, 1.0 / 3, 0.30000000000000004, 1e21, 1e-7, 123456789012345678.0, 5e-324, 1e15,
                           1e16, -2.5, 0.0, -0.0, 1.7976931348623157e308, 100.0, 2.2250738585072014e-308, 9.5e-5,
                           123456.789, 4194304.0};
  Judgement g = test::make_judgement();
  for (std::size_t i = 0; i < std::size(values); ++i)
    g.metrics.push_back(test::metric("test.digits", "node2", values[i], "", {{"k", i}}));
  const std::string text = prom_of(g);
  for (std::size_t i = 0; i < std::size(values); ++i) {
    char want[32];
    std::snprintf(want, sizeof want, "%.15g", values[i]);
    if (std::strtod(want, nullptr) != values[i]) std::snprintf(want, sizeof want, "%.17g", values[i]);
    const std::string line = "gpuaccept_test_digits{place=\"node2\",host=\"node2\",params=\"{\\\"k\\\":" +
                             std::to_string(i) + "}\"} " + want + "\n";
    EXPECT_NE(text.find(line), std::string::npos) << line << text;
  }
}

}  // namespace
}  // namespace ga
