// The comparators, each on both sides of its boundary, and the references bounds come from.
#include <gtest/gtest.h>

#include "suites_fixture.hpp"
#include "topology/topology.hpp"

namespace ga {
namespace {

using testing::JournalBuilder;
using testing::criteria;
using testing::verdict_at;

// One metric x.v per host n1..nN with the given values, judged by one criterion.
Judgement judge_values(const std::vector<double>& values, const std::string& criterion, const std::string& unit = "B/s") {
  std::vector<std::string> hosts;
  for (std::size_t i = 0; i < values.size(); ++i) hosts.push_back("n" + std::to_string(i + 1));
  JournalBuilder b(hosts);
  b.probe("x");
  for (std::size_t i = 0; i < values.size(); ++i) b.sample("x.v", hosts[i], values[i], unit);
  return judge(b.build(), criteria(criterion));
}

VerdictStatus status_at(const Judgement& j, const std::string& place) {
  const Verdict* v = verdict_at(j, "c", place);
  EXPECT_NE(v, nullptr) << place;
  return v ? v->status : VerdictStatus::tool_error;
}

TEST(JudgeCompare, GreaterOrEqualIncludesTheBoundary) {
  auto j = judge_values({10e9, 9.99e9, 11e9}, "  - {name: c, metric: x.v, compare: \">=\", value: 10.0e9}\n");
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n2"), VerdictStatus::fail);
  EXPECT_EQ(status_at(j, "n3"), VerdictStatus::pass);
  const Verdict* v = verdict_at(j, "c", "n2");
  EXPECT_EQ(v->bounds, (nlohmann::json{{"op", ">="}, {"value", 10e9}}));
  EXPECT_EQ(v->reason, "x.v 9.99 GB/s is 0.1% below the floor 10 GB/s");
  EXPECT_EQ(verdict_at(j, "c", "n1")->reason, "x.v 10 GB/s >= 10 GB/s");
  EXPECT_EQ(j.summary.exit_code, 1);
  EXPECT_EQ(j.summary.overall, "FAIL");
}

TEST(JudgeCompare, LessOrEqualIncludesTheBoundary) {
  auto j = judge_values({2e-6, 2.01e-6, 1e-6}, "  - {name: c, metric: x.v, compare: \"<=\", value: 2.0e-6}\n", "s");
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n2"), VerdictStatus::fail);
  EXPECT_EQ(status_at(j, "n3"), VerdictStatus::pass);
  // Seconds read as microseconds in reasons.
  EXPECT_EQ(verdict_at(j, "c", "n2")->reason, "x.v 2.01 us is 0.5% above the ceiling 2 us");
}

TEST(JudgeCompare, BetweenIncludesBothEnds) {
  auto j = judge_values({5, 10, 4.9, 10.1, 7}, "  - {name: c, metric: x.v, compare: between, low: 5, high: 10}\n",
                        "count");
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n2"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n3"), VerdictStatus::fail);
  EXPECT_EQ(status_at(j, "n4"), VerdictStatus::fail);
  EXPECT_EQ(status_at(j, "n5"), VerdictStatus::pass);
  EXPECT_EQ(verdict_at(j, "c", "n3")->reason, "x.v 4.9 is below [5, 10]");
  EXPECT_EQ(verdict_at(j, "c", "n4")->reason, "x.v 10.1 is above [5, 10]");
  EXPECT_EQ(verdict_at(j, "c", "n4")->bounds, (nlohmann::json{{"op", "between"}, {"low", 5}, {"high", 10}}));
}

TEST(JudgeCompare, EqualsNumbersWithinOnePartInABillion) {
  auto j = judge_values({8, 8 * (1 + 1e-12), 8 * (1 + 1e-6), 7}, "  - {name: c, metric: x.v, compare: equals, value: 8}\n",
                        "count");
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n2"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n3"), VerdictStatus::fail);
  EXPECT_EQ(status_at(j, "n4"), VerdictStatus::fail);
  EXPECT_EQ(verdict_at(j, "c", "n4")->reason, "x.v is 7, not 8");
}

TEST(JudgeCompare, EqualsTextExactly) {
  JournalBuilder b({"n1", "n2"});
  b.probe("inventory").text("inventory.kernel", "n1", "6.1.0").text("inventory.kernel", "n2", "6.1.0 ");
  auto j = judge(b.build(), criteria("  - {name: c, metric: inventory.kernel, compare: equals, value: \"6.1.0\"}\n"));
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n2"), VerdictStatus::fail);
  EXPECT_EQ(verdict_at(j, "c", "n2")->reason, "inventory.kernel is \"6.1.0 \", not \"6.1.0\"");
  EXPECT_EQ(*verdict_at(j, "c", "n2")->text, "6.1.0 ");
  EXPECT_EQ(verdict_at(j, "c", "n2")->bounds, (nlohmann::json{{"op", "equals"}, {"text", "6.1.0"}}));
}

TEST(JudgeCompare, TextMetricAgainstANumberIsAnError) {
  JournalBuilder b({"n1"});
  b.probe("inventory").text("inventory.kernel", "n1", "6");
  auto j = judge(b.build(), criteria("  - {name: c, metric: inventory.kernel, compare: \">=\", value: 6}\n"));
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::tool_error);
  // A criterion that cannot be applied is the tool's (or its criteria file's) failure, not the
  // node's: its own exit code, so a script does not drain n1 for it.
  EXPECT_EQ(j.summary.exit_code, kExitToolError);
  EXPECT_EQ(j.summary.overall, "TOOL ERROR");
  EXPECT_EQ(j.summary.tool_error, 1);
}

TEST(JudgeCompare, WithinPctOfMedianBoundaryAndReason) {
  // Median of {20.5, 20.5, 20.5, 12.1, 13.325} GB/s is 20.5; 13.325 is exactly 35% below.
  auto j = judge_values({20.5e9, 20.5e9, 20.5e9, 12.1e9, 13.325e9},
                        "  - {name: c, metric: x.v, compare: within_pct_of_median, pct: 35}\n");
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n4"), VerdictStatus::fail);
  EXPECT_EQ(status_at(j, "n5"), VerdictStatus::pass);
  const Verdict* v = verdict_at(j, "c", "n4");
  EXPECT_EQ(v->reason, "x.v 12.1 GB/s is 41% below the cluster median 20.5 GB/s (allowed 35%, over 5 hosts)");
  EXPECT_DOUBLE_EQ(*v->reference, 20.5e9);
  EXPECT_EQ(v->bounds["op"], "within_pct_of_median");
  EXPECT_DOUBLE_EQ(v->bounds["low"].get<double>(), 20.5e9 * 0.65);
  EXPECT_DOUBLE_EQ(v->bounds["high"].get<double>(), 20.5e9 * 1.35);
  EXPECT_EQ(v->unit, "B/s");
  // Above the median counts the same as below.
  auto up = judge_values({10, 10, 14}, "  - {name: c, metric: x.v, compare: within_pct_of_median, pct: 35}\n");
  EXPECT_EQ(status_at(up, "n3"), VerdictStatus::fail);
  EXPECT_NE(verdict_at(up, "c", "n3")->reason.find("40% above"), std::string::npos);
}

TEST(JudgeCompare, FractionOfTheMedian) {
  auto j = judge_values({10e9, 10e9, 5e9, 4.9e9},
                        "  - {name: c, metric: x.v, compare: \">=\", value: {fraction: 0.5, of: median}}\n");
  // Median of {4.9, 5, 10, 10} is 7.5; half of it 3.75: all pass.
  EXPECT_EQ(status_at(j, "n4"), VerdictStatus::pass);
  EXPECT_DOUBLE_EQ(*verdict_at(j, "c", "n4")->reference, 7.5e9);
  EXPECT_EQ(verdict_at(j, "c", "n4")->reason, "x.v 4.9 GB/s >= 0.5 x the cluster median 7.5 GB/s = 3.75 GB/s");
  auto k = judge_values({10e9, 10e9, 10e9, 4.9e9},
                        "  - {name: c, metric: x.v, compare: \">=\", value: {fraction: 0.5, of: median}}\n");
  EXPECT_EQ(status_at(k, "n4"), VerdictStatus::fail);
}

TEST(JudgeCompare, FractionOfATopologyFeatureConvertsUnits) {
  // 0.9 x 400 Gb/s = 45 GB/s, read from each NIC's own rate in its host's topology.
  JournalBuilder b({"n1", "n2"});
  b.data().topology.hosts[0] = JournalBuilder::host_topology("n1", 0, 1);
  b.data().topology.hosts[1] = JournalBuilder::host_topology("n2", 0, 1);
  b.data().topology.hosts[1].nics[0].rate_gbps = 200;
  b.probe("rdma").sample("rdma.write_bw", "n1/nic:mlx5_0", 45e9).sample("rdma.write_bw", "n2/nic:mlx5_0", 22e9);
  auto j = judge(b.build(), criteria("  - name: c\n    metric: rdma.write_bw\n    compare: \">=\"\n"
                                     "    value: {fraction: 0.9, of: topology.nic_rate_gbps}\n"));
  const Verdict* v1 = verdict_at(j, "c", "n1/nic:mlx5_0");
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(v1->status, VerdictStatus::pass);
  EXPECT_DOUBLE_EQ(v1->bounds["value"].get<double>(), 45e9);
  EXPECT_DOUBLE_EQ(*v1->reference, 50e9);
  const Verdict* v2 = verdict_at(j, "c", "n2/nic:mlx5_0");
  EXPECT_EQ(v2->status, VerdictStatus::fail);  // 22 < 0.9 x 25 GB/s
  EXPECT_EQ(v2->reason,
            "rdma.write_bw 22 GB/s is 2.22% below the floor 0.9 x topology.nic_rate_gbps of n2/nic:mlx5_0 200 Gb/s "
            "= 22.5 GB/s");
}

TEST(JudgeCompare, FeatureOfAPairAcrossHostsIsItsSlowerEnd) {
  JournalBuilder b({"n1", "n2"});
  b.data().topology.hosts[0] = JournalBuilder::host_topology("n1", 1, 1);
  b.data().topology.hosts[1] = JournalBuilder::host_topology("n2", 1, 1);
  b.data().topology.hosts[1].nics[0].rate_gbps = 200;
  b.probe("p2p").sample("p2p.bw", "n1/gpu:0~n2/gpu:0", 24e9);
  auto j = judge(b.build(), criteria("  - {name: c, metric: p2p.bw, compare: \">=\", "
                                     "value: {fraction: 0.9, of: topology.nic_rate_gbps}}\n"));
  const Verdict* v = verdict_at(j, "c", "n1/gpu:0~n2/gpu:0");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->status, VerdictStatus::pass);
  EXPECT_DOUBLE_EQ(v->bounds["value"].get<double>(), 22.5e9);
}

TEST(JudgeCompare, UnitMismatchWithTheCriterionIsAnError) {
  auto j = judge_values({1}, "  - {name: c, metric: x.v, compare: \">=\", value: 0, unit: s}\n");
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::tool_error);
}

TEST(JudgeCompare, WhereSelectsParams) {
  JournalBuilder b({"n1"});
  b.probe("x").sample("x.v", "n1", 1, "count", {{"size", 4194304}}).sample("x.v", "n1", 100, "count", {{"size", 8}});
  auto j = judge(b.build(), criteria("  - {name: c, metric: x.v, compare: \"<=\", value: 10, where: {size: 4194304}}\n"));
  ASSERT_EQ(testing::verdicts_of(j, "c").size(), 1u);
  EXPECT_EQ(verdict_at(j, "c", "n1")->status, VerdictStatus::pass);
  EXPECT_EQ(verdict_at(j, "c", "n1")->params, (nlohmann::json{{"size", 4194304}}));
}

TEST(JudgeCompare, ScopeSelectsPlaceKind) {
  JournalBuilder b({"n1"});
  b.probe("x").sample("x.v", "n1", 100, "count").sample("x.v", "n1/numa:0", 1, "count");
  auto j = judge(b.build(), criteria("  - {name: c, metric: x.v, compare: \"<=\", value: 10, scope: numa}\n"));
  ASSERT_EQ(testing::verdicts_of(j, "c").size(), 1u);
  EXPECT_EQ(verdict_at(j, "c", "n1/numa:0")->status, VerdictStatus::pass);
}

TEST(JudgeMajority, NamesTheOddHost) {
  auto j = judge_values({8, 8, 7, 8}, "  - {name: c, metric: x.v, compare: equals, value: majority}\n", "count");
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n3"), VerdictStatus::fail);
  const Verdict* v = verdict_at(j, "c", "n3");
  EXPECT_EQ(v->reason, "x.v is 7, not the majority 8 (3 of 4 hosts)");
  EXPECT_DOUBLE_EQ(*v->reference, 8);
  EXPECT_EQ(j.summary.fail, 1);
  EXPECT_EQ(j.summary.pass, 3);
}

TEST(JudgeMajority, TieTakesTheFirstPlaceAndSaysSo) {
  auto j = judge_values({7, 8, 8, 7}, "  - {name: c, metric: x.v, compare: equals, value: majority}\n", "count");
  EXPECT_EQ(status_at(j, "n1"), VerdictStatus::pass);
  EXPECT_EQ(status_at(j, "n2"), VerdictStatus::fail);
  EXPECT_EQ(verdict_at(j, "c", "n2")->reason,
            "x.v is 8, not the majority 7 (tie: 2 of 4 hosts each; took the value of n1, first in order)");
}

TEST(JudgeMajority, TextAndPlaceByPlace) {
  // gpu:0 is compared with gpu:0 of the other hosts, gpu:1 with gpu:1: two NUMA nodes per
  // host is a layout, not a disagreement.
  JournalBuilder b({"n1", "n2", "n3"}, 2);
  b.probe("topology");
  for (const char* h : {"n1", "n2", "n3"}) {
    b.sample("topology.gpu_numa_node", std::string(h) + "/gpu:0", 0, "count");
    b.sample("topology.gpu_numa_node", std::string(h) + "/gpu:1", std::string(h) == "n2" ? 0 : 1, "count");
    b.text("topology.gpu_model", std::string(h) + "/gpu:0", std::string(h) == "n3" ? "A100" : "H100");
    b.text("topology.gpu_model", std::string(h) + "/gpu:1", "H100");
  }
  auto j = judge(b.build(), criteria("  - {name: c, metric: topology.*, compare: equals, value: majority}\n"));
  int checked = 0;
  for (const auto& v : j.verdicts) {
    if (v.metric == "topology.gpu_numa_node" && v.place == "n1/gpu:1") {
      ++checked;
      EXPECT_EQ(v.status, VerdictStatus::pass);
    }
    if (v.metric == "topology.gpu_numa_node" && v.place == "n2/gpu:1") {
      ++checked;
      EXPECT_EQ(v.status, VerdictStatus::fail);
    }
    if (v.metric == "topology.gpu_model" && v.place == "n3/gpu:0") {
      ++checked;
      EXPECT_EQ(v.status, VerdictStatus::fail);
      EXPECT_EQ(v.reason, "topology.gpu_model is \"A100\", not the majority \"H100\" (2 of 3 GPUs)");
      EXPECT_EQ(*v.reference_text, "H100");
    }
  }
  EXPECT_EQ(checked, 3);
  EXPECT_EQ(j.verdicts.size(), 12u);  // 2 metrics x 2 GPUs x 3 hosts, nothing missing
}

TEST(JudgeExpected, AgainstAStatedTopology) {
  JournalBuilder b({"n1", "n2"}, 2);
  b.data().topology.hosts[1] = JournalBuilder::host_topology("n2", 1);
  b.expect(JournalBuilder::host_topology("expected", 2));
  b.probe("topology");
  for (const auto& h : b.build().topology.hosts)
    for (const auto& f : topo::features(h)) {
      Sample s;
      s.probe = "topology";
      s.metric = f.metric;
      s.place = f.subplace.empty() ? h.hostname : h.hostname + "/" + f.subplace;
      s.value = f.value;
      s.text = f.text;
      s.unit = f.unit;
      b.data().samples.push_back(s);
    }
  auto j = judge(b.build(), criteria("  - {name: c, metric: topology.gpu_count, compare: equals, value: expected}\n"
                                     "  - {name: all, metric: topology.*, compare: equals, value: expected}\n"));
  EXPECT_EQ(verdict_at(j, "c", "n1")->status, VerdictStatus::pass);
  const Verdict* v = verdict_at(j, "c", "n2");
  EXPECT_EQ(v->status, VerdictStatus::fail);
  EXPECT_EQ(v->reason, "topology.gpu_count is 1, not the expected 2 (--expect-topology)");
  // The GPU the expected topology states and n2 lacks is missing there, once per feature.
  const Verdict* model = nullptr;
  for (const auto& x : j.verdicts)
    if (x.criterion == "all" && x.metric == "topology.gpu_model" && x.place == "n2/gpu:1") model = &x;
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->status, VerdictStatus::missing);
  EXPECT_EQ(j.summary.exit_code, 1);
}

TEST(JudgeExpected, SkippedWithoutAnExpectedTopology) {
  auto j = judge_values({8}, "  - {name: c, metric: x.v, compare: equals, value: expected}\n", "count");
  ASSERT_EQ(testing::verdicts_of(j, "c").size(), 1u);
  const Verdict* v = verdict_at(j, "c", "cluster");
  EXPECT_EQ(v->status, VerdictStatus::skipped);
  EXPECT_NE(v->reason.find("no --expect-topology given"), std::string::npos);
  EXPECT_EQ(j.summary.exit_code, 0);
}

}  // namespace
}  // namespace ga

// A probe's explanation (params.reason) reaches the reason of a verdict that does not pass,
// and stays out of one that passes.
TEST(JudgeReasons, ProbeExplanationEndsAFailingReason) {
  using namespace ga::testing;
  JournalBuilder b({"n1", "n2"});
  b.sample("clock.synchronized", "n1", 0.0, "bool", {{"reason", "STA_UNSYNC set"}})
      .sample("clock.synchronized", "n2", 1.0, "bool", {{"reason", "chrony: Normal"}})
      .probe("clock");
  auto g = ga::judge(b.build(), criteria(R"(
  - name: clock.synchronized
    metric: clock.synchronized
    compare: equals
    value: 1
)"));
  const auto* bad = verdict_at(g, "clock.synchronized", "n1");
  const auto* good = verdict_at(g, "clock.synchronized", "n2");
  ASSERT_NE(bad, nullptr);
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(bad->status, ga::VerdictStatus::fail);
  EXPECT_NE(bad->reason.find(": STA_UNSYNC set"), std::string::npos) << bad->reason;
  EXPECT_EQ(good->status, ga::VerdictStatus::pass);
  EXPECT_EQ(good->reason.find("chrony"), std::string::npos) << good->reason;
}

namespace ga {
namespace {

// The criteria are judged two at a time (judge.cpp, judge_criteria); the verdicts must still
// come in the criteria's order, each criterion's exactly as when it is judged alone.
TEST(JudgeCompare, CriteriaJudgedSideBySideKeepTheirOrder) {
  std::vector<std::string> hosts;
  for (int i = 1; i <= 12; ++i) hosts.push_back("n" + std::to_string(i));
  testing::JournalBuilder b(hosts);
  b.probe("x");
  for (std::size_t i = 0; i < hosts.size(); ++i)
    for (int m = 0; m < 6; ++m) b.sample("x.m" + std::to_string(m), hosts[i], 10.0 + double(i) + m, "B/s");
  const JournalData journal = b.build();
  std::string all;
  std::vector<std::string> each;
  for (int c = 0; c < 15; ++c) {
    // A mix of cheap and costly rules, so that the two threads finish out of order.
    const std::string metric = "x.m" + std::to_string(c % 6);
    const std::string rule = c % 3 == 0   ? "compare: within_pct_of_median, pct: 20"
                             : c % 3 == 1 ? "compare: \">=\", value: " + std::to_string(12 + c)
                                          : "compare: mad_outlier, k: 3, floor_pct: 5";
    each.push_back("  - {name: c" + std::to_string(c) + ", metric: " + metric + ", " + rule + "}\n");
    all += each.back();
  }
  const Judgement together = judge(journal, testing::criteria(all));
  std::vector<Verdict> alone;
  for (const auto& c : each)
    for (auto& v : judge(journal, testing::criteria(c)).verdicts) alone.push_back(std::move(v));
  ASSERT_EQ(together.verdicts.size(), alone.size());
  ASSERT_EQ(alone.size(), 15u * hosts.size());
  for (std::size_t i = 0; i < alone.size(); ++i) {
    EXPECT_EQ(together.verdicts[i].criterion, alone[i].criterion) << i;
    EXPECT_EQ(together.verdicts[i].place, alone[i].place) << i;
    EXPECT_EQ(together.verdicts[i].status, alone[i].status) << i;
    EXPECT_EQ(together.verdicts[i].reason, alone[i].reason) << i;
  }
}

}  // namespace
}  // namespace ga

namespace ga {
namespace {

// Issue 32: exit codes combine, worst first; a signature that cannot be made never hides a
// node fault (it used to overwrite exit 1 with 5).
TEST(ExitCodes, CombineWorstFirst) {
  static_assert(worse_exit(kExitNodeFault, kExitToolError) == kExitNodeFault);
  EXPECT_EQ(worse_exit(kExitToolError, kExitNodeFault), kExitNodeFault);
  EXPECT_EQ(worse_exit(kExitPass, kExitToolError), kExitToolError);
  EXPECT_EQ(worse_exit(kExitInconclusive, kExitToolError), kExitToolError);
  EXPECT_EQ(worse_exit(kExitIncomplete, kExitNodeFault), kExitIncomplete);
  EXPECT_EQ(worse_exit(kExitPass, kExitInconclusive), kExitInconclusive);
  EXPECT_EQ(worse_exit(kExitPass, kExitPass), kExitPass);
}

}  // namespace
}  // namespace ga
