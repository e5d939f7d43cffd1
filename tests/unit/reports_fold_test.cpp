// report.md and report.html fold hosts alike in topology whose every verdict passes into one
// line; a host with a verdict that does not pass is shown alone; report.json never folds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "reports/host_folds.hpp"
#include "reports/report.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

std::string name_of(int h) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "n%02d", h);
  return buf;
}

// n01..nN, one rank and one judged GPU metric each; `bad` fails its verdict; hosts in
// `other_topology` have one GPU more.
struct FoldRun {
  JournalData journal;
  Judgement judgement;
};

FoldRun make_run(int hosts, int bad = 0, std::vector<int> other_topology = {}) {
  FoldRun r;
  r.journal = test::make_journal();
  r.journal.ranks.clear();
  r.journal.topology.hosts.clear();
  nlohmann::json ranks = nlohmann::json::array();
  for (int h = 1; h <= hosts; ++h) {
    r.journal.ranks.push_back({h - 1, name_of(h), 0, 100L + h, ""});
    ranks.push_back({{"rank", h - 1}, {"host", name_of(h)}, {"local_rank", 0}, {"pid", 100 + h}});
    auto t = test::two_gpu_host(name_of(h));
    if (std::find(other_topology.begin(), other_topology.end(), h) != other_topology.end()) {
      auto g = t.gpus.back();
      g.index = 2;
      g.pci_bus_id = "0000:9a:00.0";
      t.gpus.push_back(g);
    }
    r.journal.topology.hosts.push_back(t);
  }
  r.journal.run_start["ranks"] = ranks;
  r.journal.run_start["hosts"] = nlohmann::json::array();
  for (int h = 1; h <= hosts; ++h) r.journal.run_start["hosts"].push_back(name_of(h));
  r.journal.probes.clear();
  r.journal.signals.clear();
  for (int h = 1; h <= hosts; ++h) {
    const std::string place = name_of(h) + "/gpu:0";
    const double v = h == bad ? 1e12 : 4.5e12;
    r.judgement.metrics.push_back(test::metric("gpu.hbm_bw", place, v, "B/s"));
    r.judgement.verdicts.push_back(test::verdict("gpu-hbm-bw", "gpu.hbm_bw", place,
                                                 h == bad ? VerdictStatus::fail : VerdictStatus::pass, v, "B/s",
                                                 {{"op", ">="}, {"value", 4e12}},
                                                 h == bad ? "gpu.hbm_bw is below the floor" : "gpu.hbm_bw >= 4 TB/s"));
  }
  r.judgement.summary.overall = bad ? "FAIL" : "PASS";
  return r;
}

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

TEST(ReportsFold, HostRangesJoinConsecutiveNumbers) {
  EXPECT_EQ(report_fold::host_ranges({"n01", "n02", "n03", "n05", "n06", "x", "n08"}), "n01-n03, n05, n06, x, n08");
  EXPECT_EQ(report_fold::host_ranges({"node0009", "node0010"}), "node0009, node0010");
  EXPECT_EQ(report_fold::host_ranges({"a9", "a10"}), "a9, a10");  // widths differ: not one range
  EXPECT_EQ(report_fold::host_ranges({"node0001", "node0002", "node0003"}), "node0001-node0003");
}

TEST(ReportsFold, TenIdenticalPassingHostsAreOneLine) {
  FoldRun run = make_run(10);
  Report r = build_report(run.journal, run.judgement);
  const std::string md = report_to_markdown(r);
  EXPECT_NE(md.find("### n01-n10 (10 hosts): identical topology, every verdict passes\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("### n01\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("n05/gpu:0"), std::string::npos) << md;  // no per-host rows
  EXPECT_EQ(count(md, "\n### "), 1u) << md;
  EXPECT_NE(md.find("Topology: 2 NUMA nodes, 2 GPUs, 2 NICs"), std::string::npos) << md;
  const std::string html = report_to_html(r);
  EXPECT_NE(html.find("n01-n10 (10 hosts): identical topology, every verdict passes"), std::string::npos);
  EXPECT_EQ(count(html, "<details class=\"host"), 1u);
  for (int i = 0; i < 10; ++i)  // every host keeps an anchor, so links to it land on the fold
    EXPECT_NE(html.find("id=\"h-" + std::to_string(i) + "\""), std::string::npos) << i;
  // report.json is the record: every host's metric and verdict is there.
  std::ostringstream json;
  write_report_json(r, json);
  for (int h = 1; h <= 10; ++h) EXPECT_NE(json.str().find("\"" + name_of(h) + "/gpu:0\""), std::string::npos) << h;
}

TEST(ReportsFold, AFailingHostIsShownAlone) {
  FoldRun run = make_run(10, /*bad=*/4);
  Report r = build_report(run.journal, run.judgement);
  const std::string md = report_to_markdown(r);
  EXPECT_NE(md.find("### n01-n03, n05-n10 (9 hosts): identical topology, every verdict passes\n"), std::string::npos)
      << md;
  const auto alone = md.find("\n### n04\n");
  ASSERT_NE(alone, std::string::npos) << md;
  EXPECT_NE(md.find("| n04/gpu:0 |", alone), std::string::npos) << md;  // its rows in full
  EXPECT_EQ(count(md, "\n### "), 2u) << md;
  const std::string html = report_to_html(r);
  EXPECT_NE(html.find("n01-n03, n05-n10 (9 hosts)"), std::string::npos);
  EXPECT_EQ(count(html, "<details class=\"host\""), 1u);       // n04 in full
  EXPECT_EQ(count(html, "<details class=\"host fold\""), 1u);  // the rest folded
}

TEST(ReportsFold, HostsOfDifferentTopologyAreNotFoldedTogether) {
  FoldRun run = make_run(10, 0, {3, 7, 8});
  Report r = build_report(run.journal, run.judgement);
  const std::string md = report_to_markdown(r);
  EXPECT_NE(md.find("### n01, n02, n04-n06, n09, n10 (7 hosts): identical topology, every verdict passes\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### n03, n07, n08 (3 hosts): identical topology, every verdict passes\n"), std::string::npos)
      << md;
  EXPECT_NE(md.find("Topology: 2 NUMA nodes, 3 GPUs, 2 NICs"), std::string::npos) << md;
  // A lone host of its own topology is not a fold of one.
  FoldRun lone = make_run(4, 0, {2});
  const std::string md2 = report_to_markdown(build_report(lone.journal, lone.judgement));
  EXPECT_NE(md2.find("\n### n02\n"), std::string::npos) << md2;
  EXPECT_NE(md2.find("### n01, n03, n04 (3 hosts)"), std::string::npos) << md2;
}

// Pairs of n01..nN: nK~nK+1 with one judged metric (passing but for `bad`) and one raw one.
void add_pairs(FoldRun& run, int hosts, int bad) {
  for (int h = 1; h < hosts; ++h) {
    const std::string place = name_of(h) + "~" + name_of(h + 1);
    const double v = h == bad ? 9.0 : 1.0;
    run.judgement.metrics.push_back(test::metric("p2p.link_slowdown", place, v, "x"));
    run.judgement.metrics.push_back(test::metric("p2p.latency_max", place, 5e-6, "s"));
    run.judgement.verdicts.push_back(test::verdict("p2p.link", "p2p.link_slowdown", place,
                                                   h == bad ? VerdictStatus::fail : VerdictStatus::pass, v, "x",
                                                   {{"op", "<="}, {"value", 3}},
                                                   h == bad ? "p2p.link_slowdown 9 x is above the ceiling 3 x"
                                                            : "p2p.link_slowdown 1 x <= 3 x"));
  }
  auto by_name_place = [](const Metric& a, const Metric& b) {
    return a.metric != b.metric ? a.metric < b.metric : a.place < b.place;
  };
  std::stable_sort(run.judgement.metrics.begin(), run.judgement.metrics.end(), by_name_place);
}

TEST(ReportsFold, PairRowsThatPassAreCountedAbove64Hosts) {
  const int hosts = static_cast<int>(report_fold::kPairsInFullUpTo) + 1;
  FoldRun run = make_run(hosts);
  add_pairs(run, hosts, 7);
  Report r = build_report(run.journal, run.judgement);
  const std::string md = report_to_markdown(r), html = report_to_html(r);
  const std::string note = "pair rows whose every verdict passes are not listed: " + std::to_string(hosts - 2) +
                           " such rows, and " + std::to_string(hosts - 1) + " pair rows no criterion judges";
  for (const std::string* doc : {&md, &html}) {
    EXPECT_NE(doc->find(note), std::string::npos);
    EXPECT_NE(doc->find("n07~n08"), std::string::npos);  // the failing pair is listed
    EXPECT_EQ(doc->find("n08~n09"), std::string::npos);  // a passing one is counted
  }
  // report.json keeps every pair row.
  std::ostringstream json;
  write_report_json(r, json);
  EXPECT_EQ(count(json.str(), "\"place\":\"n08~n09\""), 3u);  // two metrics and the verdict
}

TEST(ReportsFold, PairRowsAreListedUpTo64Hosts) {
  const int hosts = static_cast<int>(report_fold::kPairsInFullUpTo);
  FoldRun run = make_run(hosts);
  add_pairs(run, hosts, 7);
  Report r = build_report(run.journal, run.judgement);
  const std::string md = report_to_markdown(r);
  EXPECT_NE(md.find("n08~n09"), std::string::npos);
  EXPECT_EQ(md.find("are not listed"), std::string::npos);
}

}  // namespace
}  // namespace ga

