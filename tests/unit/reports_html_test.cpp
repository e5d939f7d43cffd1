// report.html: one file that needs nothing else, the status first, shapes coloured by the
// verdicts keyed to their places, and nothing from the journal able to become markup.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <regex>

#include "reports/report.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

std::string html_of(const JournalData& j, const Judgement& g) { return report_to_html(build_report(j, g)); }

std::string html_of(const Judgement& g) {
  static const auto j = test::make_journal();
  return html_of(j, g);
}

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

// The opening tag of the SVG element drawn for `place` (a <g class="place KIND TONE">).
std::string place_tag(const std::string& html, const std::string& place) {
  auto at = html.find("data-place=\"" + place + "\"");
  if (at == std::string::npos) return {};
  auto begin = html.rfind('<', at);
  return html.substr(begin, html.find('>', at) - begin + 1);
}

std::string section(const std::string& html, const std::string& id) {
  auto begin = html.find("id=\"" + id + "\"");
  if (begin == std::string::npos) return {};
  return html.substr(begin, html.find("</section>", begin) - begin);
}

TEST(ReportsHtml, SelfContainedNothingFetched) {
  std::string html = html_of(test::make_judgement());
  ASSERT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("<iframe"), std::string::npos);
  // any src= or url( must be a data: URI
  std::regex src(R"re((src\s*=\s*["']?|url\(\s*["']?)(.{0,5}))re", std::regex::icase);
  for (auto it = std::sregex_iterator(html.begin(), html.end(), src); it != std::sregex_iterator(); ++it)
    EXPECT_EQ((*it)[2].str(), "data:") << it->str();
  EXPECT_EQ(count(html, "<script"), 1u);  // our own few lines, inline
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_NE(html.rfind("</html>"), std::string::npos);
}

TEST(ReportsHtml, BannerCarriesOverallAndCounts) {
  auto g = test::make_judgement();
  std::string html = html_of(g);
  auto banner = html.substr(html.find("<header"), html.find("</header>") - html.find("<header"));
  EXPECT_NE(banner.find("ov-INCOMPLETE"), std::string::npos);
  EXPECT_NE(banner.find("<b>3</b>pass"), std::string::npos) << banner;
  EXPECT_NE(banner.find("<b>2</b>fail"), std::string::npos) << banner;
  EXPECT_NE(banner.find("<b>1</b>missing"), std::string::npos) << banner;
  EXPECT_NE(banner.find("2 hosts, 4 ranks"), std::string::npos) << banner;
  EXPECT_NE(banner.find("exit code 3"), std::string::npos) << banner;
  g.summary.overall = "PASS";
  EXPECT_NE(html_of(g).find("<header class=\"banner ov-PASS\""), std::string::npos);
}

TEST(ReportsHtml, IncompleteSectionNamesProbeRanksAndHosts) {
  auto g = test::make_judgement();
  std::string html = html_of(g);
  std::string inc = section(html, "incomplete");
  ASSERT_FALSE(inc.empty());
  EXPECT_NE(inc.find("<code>nccl</code> did not finish"), std::string::npos) << inc;
  EXPECT_NE(inc.find("watchdog: no progress for 120 s"), std::string::npos);
  EXPECT_NE(inc.find("<td class=\"n\">3<td>node10<td><span class=\"chip st-fail\">missing"), std::string::npos) << inc;
  EXPECT_NE(inc.find("Detected by rank 0"), std::string::npos);
  EXPECT_LT(html.find("id=\"incomplete\""), html.find("id=\"failing\""));
  // the host whose rank never arrived says so in the picture and is outlined red
  auto node10 = html.find("data-place=\"node10\"");
  ASSERT_NE(node10, std::string::npos);
  std::string box = html.substr(node10, html.find("</g>", node10) - node10);
  EXPECT_NE(box.find("<rect class=\"roll st-fail dash\""), std::string::npos) << box;
  EXPECT_NE(box.find("<tspan class=\"miss\">never arrived: rank 3</tspan>"), std::string::npos) << box;
  g.incomplete.reset();
  EXPECT_EQ(html_of(g).find("id=\"incomplete\""), std::string::npos);
}

TEST(ReportsHtml, FailingTableErrorsFirstAndBeforeThePicture) {
  std::string html = html_of(test::make_judgement());
  std::string failing = section(html, "failing");
  auto hbm = failing.find("node2/gpu:1");
  auto missing = failing.find("node10/gpu:1");
  auto warning = failing.find("node2/nic:mlx5_0");
  ASSERT_NE(hbm, std::string::npos);
  ASSERT_NE(warning, std::string::npos);
  EXPECT_LT(missing, warning);  // judged after the warning, printed before it
  EXPECT_EQ(failing.find("hostmem-triad"), std::string::npos);  // passing verdicts are not listed
  EXPECT_NE(failing.find("&gt;= 4 TB/s"), std::string::npos);
  EXPECT_LT(html.find("id=\"failing\""), html.find("id=\"topology\""));
  EXPECT_LT(html.find("id=\"topology\""), html.find("id=\"hosts\""));
}

TEST(ReportsHtml, PlacesAreColouredByTheirVerdicts) {
  std::string html = html_of(test::make_judgement());
  EXPECT_NE(place_tag(html, "node2/gpu:1").find("class=\"place gpu st-fail\""), std::string::npos)
      << place_tag(html, "node2/gpu:1");
  EXPECT_NE(place_tag(html, "node2/nic:mlx5_0").find("class=\"place nic st-warn\""), std::string::npos);
  EXPECT_NE(place_tag(html, "node2/numa:1").find("class=\"place numa st-pass\""), std::string::npos);
  EXPECT_NE(place_tag(html, "node2/gpu:0").find("class=\"place gpu st-none\""), std::string::npos);
  EXPECT_NE(place_tag(html, "node10/gpu:1").find("st-fail"), std::string::npos);  // missing
  // a tool error is never painted as the place's fault
  EXPECT_NE(place_tag(html, "node10/gpu:0").find("st-warn"), std::string::npos);
  EXPECT_NE(place_tag(html, "node2").find("class=\"place host st-pass\""), std::string::npos);
  // the host's outline is the worst anywhere in it; its tooltip names the failing GPU
  auto host = html.find("data-place=\"node2\"");
  auto outline = html.find("<rect class=\"roll ", host);
  EXPECT_EQ(html.substr(outline, 27), "<rect class=\"roll st-fail\" ");
  auto tip = html.substr(host, html.find("</title>", host) - host);
  EXPECT_NE(tip.find("gpu-hbm-bw at node2/gpu:1: HBM bandwidth | well below"), std::string::npos) << tip;
  // a GPU's own tooltip lists its failing verdict and where it sits
  auto gpu = html.find("data-place=\"node2/gpu:1\"");
  auto gtip = html.substr(gpu, html.find("</title>", gpu) - gpu);
  EXPECT_NE(gtip.find("PCI 0000:4e:00.0"), std::string::npos) << gtip;
  EXPECT_NE(gtip.find("✗ gpu-hbm-bw: HBM bandwidth"), std::string::npos) << gtip;
  // nearest NIC and path class as small text
  EXPECT_NE(html.find(">→ mlx5_1 PXB</text>"), std::string::npos);
}

TEST(ReportsHtml, DevicesWithoutNumaOrOutsideTheTopologyAreStillDrawn) {
  auto j = test::make_journal();
  j.topology.hosts[0].gpus[0].numa_node.reset();
  auto g = test::make_judgement();
  g.verdicts.push_back(test::verdict("gpu-hbm-bw", "gpu.hbm_bw", "node10/gpu:7", VerdictStatus::missing,
                                     std::nullopt, "B/s", {{"op", ">="}, {"value", 4e12}}, "expected GPU absent"));
  std::string html = html_of(j, g);
  EXPECT_NE(html.find(">NUMA unknown</text>"), std::string::npos);
  EXPECT_NE(place_tag(html, "node2/gpu:0").find("st-none"), std::string::npos);
  EXPECT_NE(html.find(">not in topology</text>"), std::string::npos);
  EXPECT_NE(place_tag(html, "node10/gpu:7").find("class=\"place gpu st-fail\""), std::string::npos);
}

TEST(ReportsHtml, LinkIslandsAndPairArcs) {
  auto j = test::make_journal();
  for (auto& h : j.topology.hosts) {
    h.gpu_links = {{0, 1, "nvlink", 18, std::nullopt}};
    h.gpu_link_islands = {{0, 1}};
    h.gpu_link_all_to_all = true;
  }
  j.topology.hosts[1].gpu_links.clear();
  j.topology.hosts[1].gpu_link_islands = {{0}, {1}};
  j.topology.hosts[1].gpu_link_all_to_all = false;
  auto g = test::make_judgement();
  g.verdicts.push_back(test::verdict("p2p-lat", "nccl.p2p_lat", "node2/gpu:0~node10/gpu:0", VerdictStatus::fail,
                                     9.3e-7, "s", {{"op", "<="}, {"value", 5e-7}}, "slow pair"));
  std::string html = html_of(j, g);
  EXPECT_EQ(count(html, "<rect class=\"isl\""), 2u);  // node2's island of two; node10 has none of two
  EXPECT_NE(html.find("GPU links (nvlink): 1 island 0-1, all-to-all"), std::string::npos);
  EXPECT_NE(html.find("GPU links: none recorded"), std::string::npos);
  auto arc = html.find("<path class=\"pair st-fail\"");
  ASSERT_NE(arc, std::string::npos);
  EXPECT_NE(html.substr(arc, 400).find("slow pair"), std::string::npos);
}

TEST(ReportsHtml, LargeClusterIsAGridAndPairsATable) {
  JournalData j = test::make_journal();
  Judgement g = test::make_judgement();
  j.topology.hosts.clear();
  for (int h = 0; h < 100; ++h) j.topology.hosts.push_back(test::two_gpu_host("n" + std::to_string(h)));
  g.verdicts.push_back(test::verdict("p2p-bw", "p2p.bw", "n3~n97", VerdictStatus::fail, 1e9, "B/s",
                                     {{"op", ">="}, {"value", 2e9}}, "pair too slow"));
  g.verdicts.push_back(test::verdict("p2p-bw", "p2p.bw", "n4~n5", VerdictStatus::pass, 3e9, "B/s",
                                     {{"op", ">="}, {"value", 2e9}}, "ok"));
  g.verdicts.push_back(test::verdict("gpu-hbm-bw", "gpu.hbm_bw", "n42/gpu:1", VerdictStatus::fail, 1e12, "B/s",
                                     {{"op", ">="}, {"value", 4e12}}, "slow HBM"));
  std::string html = html_of(j, g);
  EXPECT_NE(html.find("aria-label=\"hosts as a grid\""), std::string::npos);
  EXPECT_EQ(html.find("<path class=\"pair"), std::string::npos);  // not drawn
  EXPECT_NE(html.find("listed here rather than drawn"), std::string::npos);
  EXPECT_NE(html.find("<td>n3<td>n97<td><span class=\"chip st-fail\">fail"), std::string::npos);
  EXPECT_NE(html.find("1 with no failing verdict (not listed)"), std::string::npos);
  // the failing host is drawn in detail, with its failing GPU; a passing host is only a cell
  EXPECT_NE(place_tag(html, "n42/gpu:1").find("st-fail"), std::string::npos);
  EXPECT_TRUE(place_tag(html, "n41/gpu:1").empty());
  EXPECT_EQ(count(html, "<details class=\"host\""), 100u + 2u);  // plus node2, node10 from the ranks
}

TEST(ReportsHtml, HostSectionsHoldEveryMetricAndTheRunItsProvenance) {
  std::string html = html_of(test::make_judgement());
  auto node2 = html.find("<details class=\"host\" id=\"h-0\" open><summary>");
  auto node10 = html.find("<details class=\"host\" id=\"h-1\" open><summary>");
  ASSERT_NE(node2, std::string::npos);
  ASSERT_NE(node10, std::string::npos);
  EXPECT_LT(node2, node10);  // node2 before node10
  EXPECT_NE(html.substr(node2, 200).find("<b>node2</b>"), std::string::npos);
  std::string host2 = html.substr(node2, node10 - node2);
  // the h2d sweep: one place cell spanning both rows, each row with its params and value
  EXPECT_NE(html.find("<td class=\"pl st-warn\" rowspan=\"3\">node10/gpu:0<td rowspan=\"3\">GPU 0 (NUMA 0, PCI 0000:1b:00.0)"),
            std::string::npos);
  EXPECT_NE(html.find("<td>gpu.h2d_bw<td>size=268435456<td class=\"n\">51 GB/s<td><span class=\"v st-pass\" title=\"51 GB/s &gt;= 48 GB/s\">✓ gpu-h2d-bw</span>"),
            std::string::npos);
  EXPECT_NE(host2.find("<tr class=\"bad\"><td class=\"pl st-fail\">node2/gpu:1"), std::string::npos) << host2;
  EXPECT_NE(host2.find("1 (NUMA 1, NIC mlx5_1 PXB)"), std::string::npos);
  // the missing verdict has no row: it is listed apart
  EXPECT_NE(html.find("(missing)</span> at <code>node10/gpu:1</code>: required metric not measured"), std::string::npos);
  // pairs and the cluster have their own section
  std::string pairs = section(html, "pairs");
  EXPECT_NE(pairs.find("node2/gpu:0~node10/gpu:0"), std::string::npos);
  EXPECT_NE(pairs.find(">cluster<"), std::string::npos);
  std::string run = section(html, "run");
  EXPECT_NE(run.find("gpuaccept run --suite quick --expect-topology h200.xml"), std::string::npos);
  EXPECT_NE(run.find("<tr><th>nccl<td>2.21.5"), std::string::npos);
  EXPECT_NE(run.find("<tr><th>criteria<td>builtin"), std::string::npos);
  EXPECT_NE(run.find("SIGKILL"), std::string::npos);
  EXPECT_NE(run.find("<pre>schema_version: 1&#10;criteria: []&#10;</pre>"), std::string::npos);
}

TEST(ReportsHtml, NothingFromTheJournalBecomesMarkup) {
  JournalData j = test::make_journal();
  const std::string evil = "<script>alert(1)</script>";
  j.topology.hosts[0].hostname = evil;
  j.topology.hosts[0].nics[0].name = "mlx5_\"><img src=x onerror=alert(2)>";
  j.run_start["argv"].push_back("--x='<b>'&");
  Judgement g = test::make_judgement();
  g.verdicts.push_back(test::verdict("c\"r<i>", "gpu.hbm_bw", evil + "/gpu:0", VerdictStatus::fail, 1.0, "B/s",
                                     {{"op", ">="}, {"value", 2.0}}, "reason </title><script>alert(3)</script>\x01\xff"));
  g.incomplete->missing_ranks.push_back({9, evil});
  std::string html = html_of(j, g);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("</title><script"), std::string::npos);
  EXPECT_EQ(html.find("<b>'"), std::string::npos);
  EXPECT_EQ(count(html, "<script"), 1u);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("c&quot;r&lt;i&gt;"), std::string::npos);
  // every SVG is well-formed XML (pugixml), so no attribute or title was broken out of
  std::size_t svgs = 0;
  for (auto at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    auto end = html.find("</svg>", at);
    ASSERT_NE(end, std::string::npos);
    std::string svg = html.substr(at, end + 6 - at);
    pugi::xml_document doc;
    auto res = doc.load_buffer(svg.data(), svg.size());
    EXPECT_TRUE(res) << res.description() << " at " << res.offset << ": " << svg.substr(res.offset, 80);
    ++svgs;
    // the evil host's box is there, named by its escaped name
    if (svg.find("&lt;script&gt;") != std::string::npos) {
      auto host = doc.find_node([&](pugi::xml_node n) { return std::string(n.attribute("data-place").value()) == evil; });
      EXPECT_TRUE(host);
    }
  }
  EXPECT_EQ(svgs, 1u);
}

}  // namespace
}  // namespace ga

namespace ga {
namespace {

// The environment fingerprint (issue 14 item 3): the cell that differs from its column's
// majority is marked, like hosts share one line.
TEST(ReportHtmlEnvironment, TheOddDriverIsMarkedAndLikeHostsShareALine) {
  Judgement g = test::make_judgement();
  auto text = [](const std::string& metric, const std::string& place, const std::string& t) {
    Metric m = test::metric(metric, place, std::nullopt, "text");
    m.text = t;
    return m;
  };
  for (const std::string h : {"a1", "a2", "a3"}) g.metrics.push_back(text("gpu.nvidia_driver", h + "/gpu:0", "550.54.15"));
  g.metrics.push_back(text("gpu.nvidia_driver", "b1/gpu:0", "535.129.03"));
  for (const std::string h : {"a1", "a2", "a3", "b1"}) g.metrics.push_back(text("inventory.kernel", h, "6.1.0-18-amd64"));
  const std::string html = report_to_html(build_report(test::make_journal(), g));
  const auto at = html.find("<section id=\"environment\">");
  ASSERT_NE(at, std::string::npos);
  const std::string env = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(env.find("3 host(s): a1, a2, a3"), std::string::npos) << env;
  EXPECT_NE(env.find("<td class=\"bad\" data-differs=\"1\">535.129.03"), std::string::npos) << env;
  EXPECT_EQ(env.find("data-differs=\"1\">550.54.15"), std::string::npos) << env;
  EXPECT_EQ(count(env, "data-differs"), 1u) << env;
}

// collective-bandwidth draws each series' criterion bound in busbw: a bound on
// nccl.busbw_of_theory (percent) times the theoretical busbw of the same place and line.
TEST(ReportHtmlPlots, CollectiveBandwidthDrawsTheCriterionBoundInBusbw) {
  Judgement g = test::make_judgement();
  const nlohmann::json line = {{"collective", "all_reduce"}, {"scope", "intra-host"}, {"in_place", false}, {"size", 1 << 20}};
  for (double size : {1024.0, 1048576.0}) {
    nlohmann::json p = line;
    p["size"] = size;
    g.metrics.push_back(test::metric("nccl.busbw", "node2", size > 2000 ? 3.0e11 : 1e9, "B/s", p));
  }
  g.metrics.push_back(test::metric("nccl.busbw_theoretical", "node2", 4.0e11, "B/s", line));
  g.metrics.push_back(test::metric("nccl.busbw_of_theory", "node2", 75.0, "%", line));
  Verdict v = test::verdict("nccl.all_reduce.intra_host.no_nvls", "nccl.busbw_of_theory", "node2", VerdictStatus::pass, 75.0, "%",
                            {{"value", 70}}, "");
  v.params = line;
  g.verdicts.push_back(v);
  const std::string html = report_to_html(build_report(test::make_journal(), g));
  const auto at = html.find("<svg data-plot=\"collective-bandwidth\" data-probe=\"nccl\"");
  ASSERT_NE(at, std::string::npos);
  const std::string svg = html.substr(at, html.find("</svg>", at) - at);
  // 70 % of 400 GB/s.
  EXPECT_NE(svg.find("data-bound=\"280000000000.0\" data-series=\"all_reduce intra-host @node2\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("data-theory=\"400000000000.0\""), std::string::npos) << svg;
}

// gpu and storage: a bar per place and series, with the value report.json has.
TEST(ReportHtmlPlots, GpuAndStorageBarsCarryTheirValues) {
  Judgement g = test::make_judgement();
  g.metrics.push_back(test::metric("gpu.hbm_bw_of_theory", "node2/gpu:0", 91.5, "%"));
  g.metrics.push_back(test::metric("gpu.gemm_of_theory", "node2/gpu:0", 60.25, "%", {{"dtype", "bf16"}}));
  g.metrics.push_back(test::metric("storage.write_bw", "node2", 1.5e9, "B/s"));
  g.metrics.push_back(test::metric("storage.read_bw", "node2", 2.5e9, "B/s"));
  g.metrics.push_back(test::metric("storage.write_bw", "cluster", 9e9, "B/s"));
  const std::string html = report_to_html(build_report(test::make_journal(), g));
  EXPECT_NE(html.find("data-place=\"node2/gpu:0\" data-series=\"HBM\" data-value=\"91.5\""), std::string::npos);
  EXPECT_NE(html.find("data-place=\"node2/gpu:0\" data-series=\"GEMM/bf16\" data-value=\"60.25\""), std::string::npos);
  const auto at = html.find("<svg data-plot=\"storage\"");
  ASSERT_NE(at, std::string::npos);
  const std::string svg = html.substr(at, html.find("</svg>", at) - at);
  EXPECT_EQ(count(svg, "data-place="), 2u) << svg;  // the cluster's total is not a host's bar
  EXPECT_NE(svg.find("data-place=\"node2\" data-series=\"read\" data-value=\"2500000000.0\""), std::string::npos) << svg;
}

}  // namespace
}  // namespace ga
