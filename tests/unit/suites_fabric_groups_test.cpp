// The links between leaf groups (suites/fabric_groups.hpp): derived from p2p pair metrics and
// p2p.leaf, explained, and taking the blame off the pairs a bad group link explains.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "suites/criteria.hpp"
#include "suites/fabric_groups.hpp"

using namespace ga;
using namespace ga::judging;

namespace {

std::string host(int i) { return "h" + std::to_string(i + 1); }
std::string leaf(int i) { return "leaf" + std::to_string(i / 4 + 1); }  // four hosts a leaf

Metric value_metric(const std::string& metric, const std::string& place, nlohmann::json params, double v) {
  Metric m;
  m.metric = metric, m.probe = "p2p", m.place = place, m.params = std::move(params), m.value = m.min = m.max = v, m.count = 1;
  return m;
}

// 16 hosts in four leaves, every pair both ways; slow(s, d, pass) multiplies the latency and
// divides the bandwidth. Pairs across leaves are 1.3x the latency (one more hop).
std::vector<Metric> cluster(const std::function<double(int, int, int)>& slow, bool leaves = true, bool retest_01 = false) {
  std::vector<Metric> ms;
  auto pair = [&](int a, int b, int pass) {
    for (auto [s, d] : {std::pair{a, b}, std::pair{b, a}}) {
      nlohmann::json p = {{"direction", host(s) + "->" + host(d)}, {"pass", pass}, {"path", "inter"}};
      auto lp = p, bp = p;
      lp["size"] = 8, bp["size"] = 4194304;
      const double noise = 1 + 0.05 * std::fmod((s * 7 + d * 13 + pass) * 0.618, 1.0);
      const double hop = leaf(s) != leaf(d) ? 1.3 : 1.0;
      ms.push_back(value_metric("p2p.latency_p50", host(a) + "~" + host(b), lp, 10e-6 * hop * slow(s, d, pass) * noise));
      ms.push_back(value_metric("p2p.bw", host(a) + "~" + host(b), bp, 20e9 / slow(s, d, pass) / noise));
    }
  };
  for (int a = 0; a < 16; ++a)
    for (int b = a + 1; b < 16; ++b) pair(a, b, 1);
  if (retest_01) pair(1, 5, 2), pair(2, 6, 2);  // two re-tests between leaf1 and leaf2
  if (leaves)
    for (int i = 0; i < 16; ++i) {
      Metric m;
      m.metric = "p2p.leaf", m.probe = "p2p", m.place = host(i), m.text = leaf(i), m.count = 1;
      m.params = {{"source", "switch-map"}, {"uplinks", i < 8 ? "spine1,core" : "spine2,core"}};
      ms.push_back(m);
    }
  return ms;
}

std::map<std::string, double> group_values(const GroupAnalysis& a, const std::string& basis) {
  std::map<std::string, double> v;
  for (const auto& m : a.derived)
    if (m.metric == "p2p.group_link_slowdown" && m.params["basis"] == basis && m.value) v[m.place] = *m.value;
  return v;
}

double slow_between_1_2(int s, int d, int) {
  const bool across = (s / 4 == 0 && d / 4 == 1) || (s / 4 == 1 && d / 4 == 0);
  return across ? 4.0 : 1.0;
}

// A verdict as the judge would make it from the built-in criterion (<= 3).
Verdict verdict_on(const Metric& m) {
  Verdict v;
  v.criterion = "p2p.group_link." + m.params["basis"].get<std::string>();
  v.metric = m.metric, v.place = m.place, v.params = m.params, v.value = m.value, v.unit = "x";
  v.bounds = {{"op", "<="}, {"value", 3}};
  v.status = m.value && *m.value <= 3 ? VerdictStatus::pass : VerdictStatus::fail;
  v.reason = "p2p.group_link_slowdown " + std::to_string(m.value.value_or(0)) + " x";
  return v;
}

}  // namespace

TEST(FabricGroups, CleanClusterScoresAboutOne) {
  const auto a = analyze_groups(cluster([](int, int, int) { return 1.0; }));
  for (const std::string basis : {"latency", "bw"}) {
    const auto v = group_values(a, basis);
    EXPECT_EQ(v.size(), 6u) << "every two of four leaves";
    for (const auto& [place, x] : v) EXPECT_LT(x, 1.2) << basis << " " << place;
  }
  EXPECT_EQ(a.leaf_of.at("h5"), "leaf2");
}

TEST(FabricGroups, TwoGroupsThatPassAloneAndFailTogether) {
  const auto a = analyze_groups(cluster(slow_between_1_2));
  for (const std::string basis : {"latency", "bw"}) {
    const auto v = group_values(a, basis);
    EXPECT_GT(v.at("leaf:leaf1~leaf:leaf2"), 3.5) << basis;
    for (const auto& [place, x] : v) {
      if (place != "leaf:leaf1~leaf:leaf2") {
        EXPECT_LT(x, 1.2) << basis << " " << place;
      }
    }
  }
}

// A slow host makes its pairs across leaves slow, but its group link is as good as its best
// pair, which is another host's: the host's fault is not the link's.
TEST(FabricGroups, ASlowHostIsNotAGroupLink) {
  const auto a = analyze_groups(cluster([](int s, int d, int) { return s == 2 || d == 2 ? 5.0 : 1.0; }));
  for (const std::string basis : {"latency", "bw"})
    for (const auto& [place, x] : group_values(a, basis)) EXPECT_LT(x, 1.3) << basis << " " << place;
}

TEST(FabricGroups, NothingWithoutLeafGroups) {
  EXPECT_TRUE(analyze_groups(cluster(slow_between_1_2, false)).derived.empty());
}

TEST(FabricGroups, ConfirmedGroupLinkFailsAndTakesTheBlameOffItsPairs) {
  auto metrics = cluster(slow_between_1_2, true, true);
  const auto a = add_group_metrics(metrics);
  std::vector<Verdict> verdicts;
  for (const auto& m : a.derived) verdicts.push_back(verdict_on(m));
  // The pair links the culprit analysis would have failed between the two leaves, and one
  // elsewhere that must stay as it is.
  Verdict across;
  across.metric = "p2p.link_slowdown", across.place = "h2~h6", across.status = VerdictStatus::fail;
  Verdict across_unsure = across;
  across_unsure.place = "h3~h7", across_unsure.status = VerdictStatus::inconclusive;
  Verdict elsewhere = across;
  elsewhere.place = "h9~h13";
  verdicts.push_back(across), verdicts.push_back(across_unsure), verdicts.push_back(elsewhere);
  explain_group_verdicts(a, verdicts);
  int failed = 0;
  for (const auto& v : verdicts) {
    if (v.metric == "p2p.group_link_slowdown" && v.status == VerdictStatus::fail) {
      ++failed;
      EXPECT_EQ(v.place, "leaf:leaf1~leaf:leaf2");
      EXPECT_NE(v.reason.find("suspect link between leaf groups leaf1 and leaf2 (through switch spine1)"), std::string::npos)
          << v.reason;
      EXPECT_NE(v.reason.find("sure: high"), std::string::npos) << v.reason;
      EXPECT_NE(v.reason.find("re-test h2->h6"), std::string::npos) << v.reason;
    }
    if (v.metric == "p2p.link_slowdown") {
      if (v.place == "h9~h13") EXPECT_EQ(v.status, VerdictStatus::fail);
      else {
        EXPECT_EQ(v.status, VerdictStatus::skipped) << v.place;
        EXPECT_NE(v.reason.find("the link between leaf groups leaf1 and leaf2 explains it"), std::string::npos) << v.reason;
      }
    }
  }
  EXPECT_EQ(failed, 2) << "latency and bandwidth";
  // Sorted merge: the derived metrics are among the others in order.
  EXPECT_NE(std::find_if(metrics.begin(), metrics.end(), [](const Metric& m) { return m.metric == "p2p.group_link_slowdown"; }),
            metrics.end());
}

TEST(FabricGroups, UnconfirmedGroupLinkIsInconclusive) {
  const auto a = analyze_groups(cluster(slow_between_1_2));
  std::vector<Verdict> verdicts;
  for (const auto& m : a.derived) verdicts.push_back(verdict_on(m));
  explain_group_verdicts(a, verdicts);
  int unsure = 0;
  for (const auto& v : verdicts) {
    EXPECT_NE(v.status, VerdictStatus::fail) << v.place;
    if (v.status == VerdictStatus::inconclusive) {
      ++unsure;
      EXPECT_NE(v.reason.find("no re-test between them confirmed it"), std::string::npos) << v.reason;
    }
  }
  EXPECT_EQ(unsure, 2);
}

TEST(FabricGroups, BuiltInCriteriaJudgeIt) {
  const auto crit = parse_criteria(builtin_criteria_text(), "builtin");
  int n = 0;
  for (const auto& c : crit.criteria) n += c.metric == "p2p.group_link_slowdown";
  EXPECT_EQ(n, 2);
}
