// Issue 36: a folded judgement's report.json lists every verdict that does not pass and counts
// the passing ones; the streamed file and the DOM agree; a host section counts its folded
// passes (report.md's and report.html's host folds read them), and a failing host never folds.
#include <gtest/gtest.h>

#include <sstream>

#include "reports/host_folds.hpp"
#include "reports/report.hpp"
#include "reports_fixture.hpp"

namespace ga {
namespace {

using nlohmann::json;

// The fixture's judgement with three passing hosts more, folded.
Judgement folded_judgement() {
  Judgement g = test::make_judgement();
  for (const char* h : {"node20", "node21", "node22"}) {
    g.metrics.push_back(test::metric("hostmem.triad_bw", std::string(h) + "/numa:0", 1.3e11, "B/s"));
    Verdict v = test::verdict("hostmem-triad", "hostmem.triad_bw", std::string(h) + "/numa:0", VerdictStatus::pass,
                              1.3e11, "B/s", {{"op", ">="}, {"value", 1e11}}, "130 GB/s >= 100 GB/s");
    v.metric_index = g.metrics.size() - 1;
    g.verdicts.push_back(v);
  }
  fold_passing_verdicts(g, {});
  return g;
}

TEST(ReportsFoldedJudgement, ReportJsonListsTheFailuresAndCountsThePasses) {
  const JournalData j = test::make_journal();
  const Judgement g = folded_judgement();
  const Report r = build_report(j, g);
  std::ostringstream out;
  write_report_json(r, out);
  const json doc = json::parse(out.str());
  EXPECT_EQ(doc, report_to_json(r));
  EXPECT_EQ(doc["folded"], true);
  EXPECT_EQ(doc["folded_above_hosts"], kFoldPassingAbove);
  // Every verdict not passing is listed, and no pass: node2's and node10's passes are counted
  // with the others' though both hosts have a failure.
  for (const auto& v : doc["verdicts"]) EXPECT_NE(v["status"], "pass") << v.dump();
  EXPECT_EQ(doc["verdicts"].size(), 4u);
  // One fold per criterion and kind of place, in the order they came.
  ASSERT_EQ(doc["passing"].size(), 3u);
  EXPECT_EQ(doc["passing"][1]["criterion"], "gpu-h2d-bw");
  EXPECT_EQ(doc["passing"][2]["criterion"], "driver-homogeneous");
  EXPECT_EQ(doc["passing"][2]["kind"], "host");
  // The four passing NUMA nodes are counted under hostmem-triad, node2's the worst of them.
  const json& f = doc["passing"][0];
  EXPECT_EQ(f["criterion"], "hostmem-triad");
  EXPECT_EQ(f["kind"], "numa");
  EXPECT_EQ(f["places"], 4);
  EXPECT_EQ(f["worst"]["place"], "node2/numa:1");
  EXPECT_NEAR(f["worst_margin"].get<double>(), 0.204, 1e-12);
  ASSERT_EQ(f["hosts"].size(), 4u);
  EXPECT_EQ(f["hosts"][0]["host"], "node2");
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(f["hosts"][i]["host"], "node2" + std::to_string(i - 1));
    EXPECT_EQ(f["hosts"][i]["places"], 1);
    EXPECT_NEAR(f["hosts"][i]["worst_margin"].get<double>(), 0.3, 1e-12);
  }
  // Only the metrics a listed verdict (or a fold's worst) judged.
  EXPECT_EQ(doc["metrics_measured"], g.metrics.size());
  EXPECT_EQ(doc["metrics"].size(), doc["metrics_listed"].get<std::size_t>());
  std::set<std::string> places;
  for (const auto& m : doc["metrics"]) places.insert(m["place"]);
  EXPECT_LT(doc["metrics_listed"].get<std::size_t>(), g.metrics.size());
  EXPECT_FALSE(places.count("node20/numa:0"));  // folded, and not its fold's worst
}

TEST(ReportsFoldedJudgement, HostsCountTheirFoldedPassesAndFailingOnesNeverFold) {
  const JournalData j = test::make_journal();
  const Judgement g = folded_judgement();
  const Report r = build_report(j, g);
  for (const auto& s : r.hosts) {
    if (s.host == "node20") EXPECT_EQ(s.folded_passes, 1u);
    if (s.host == "node2") EXPECT_EQ(s.folded_passes, 2u);  // its hostmem and driver passes
  }
  const auto folds = report_fold::fold_hosts(r);
  for (std::size_t i = 0; i < r.hosts.size(); ++i) {
    const std::string& h = r.hosts[i].host;
    if (h == "node2" || h == "node10") {
      EXPECT_FALSE(folds.folded(i)) << h;
    }
  }
}

}  // namespace
}  // namespace ga
