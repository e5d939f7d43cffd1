// The judge on the nccl probe's isolation pairs (nccl.pair_busbw, probes/nccl/nccl_isolation.hpp)
// with the built-in criteria: the culprit analysis shared with p2p (suites/fabric_analysis.hpp)
// names the slow rail endpoint or link, fails it only when re-tests confirmed it, and moves a
// failing cluster verdict of that rail onto it.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "suites/fabric_analysis.hpp"
#include "suites_fixture.hpp"

using namespace ga;
using ga::testing::JournalBuilder;

namespace {

const std::vector<std::string> kHosts = {"h1", "h2", "h3", "h4"};

std::string endpoint(int host, int rail) { return kHosts[static_cast<std::size_t>(host)] + "/rail:" + std::to_string(rail); }

// Healthy pairs differ by up to 4% (a real rail agrees within a few percent).
double noise(int a, int b, int pass) { return 1.0 - 0.04 * std::fmod((a * 7 + b * 13 + pass * 5) * 0.618, 1.0); }

struct Pairs {
  // Multiplier on a pair's busbw (<1 slower) by rail, hosts and pass; NaN: did not complete.
  std::function<double(int, int, int, int)> bw = [](int, int, int, int) { return 1.0; };
  std::vector<std::array<int, 3>> retests;  // {rail, host a, host b} measured again in pass 2
  std::function<void(JournalBuilder&)> more = [](JournalBuilder&) {};
};

JournalBuilder journal(const Pairs& p) {
  JournalBuilder jb(kHosts);
  auto emit = [&](int rail, int a, int b, int pass) {
    if (a > b) std::swap(a, b);
    const std::string ea = endpoint(a, rail), eb = endpoint(b, rail);
    nlohmann::json params = {{"direction", ea + "->" + eb}, {"size", 1048576}, {"pass", pass}, {"rail", rail},
                             {"path", "inter"}};
    const double f = p.bw(rail, a, b, pass);
    if (std::isnan(f)) {
      auto c = params;
      c["why"] = "aborted: still running at the round's time limit";
      jb.sample("nccl.pair_completed", ea + "~" + eb, 0, "bool", c);
    } else {
      jb.sample("nccl.pair_busbw", ea + "~" + eb, 45e9 * f * noise(a, b, pass), "B/s", params);
    }
  };
  for (int rail = 0; rail < 2; ++rail) {
    for (int h = 0; h < 4; ++h) jb.text("nccl.rail_devices", endpoint(h, rail), "GPU " + kHosts[h] + "/gpu:" + std::to_string(rail) + ", NIC mlx5_" + std::to_string(rail));
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) emit(rail, a, b, 1);
  }
  for (auto [rail, a, b] : p.retests) emit(rail, a, b, 2);
  p.more(jb);
  jb.probe("nccl");
  return jb;
}

Judgement judge_builtin(const Pairs& p) {
  auto crit = parse_criteria(builtin_criteria_text(), "builtin");
  return judge(journal(p).build(), crit);
}

std::set<std::string> not_passing(const Judgement& j) {  // criterion@place of nccl verdicts that fail or are inconclusive
  std::set<std::string> s;
  for (const auto& v : j.verdicts)
    if (v.criterion.rfind("nccl.", 0) == 0 && (v.status == VerdictStatus::fail || v.status == VerdictStatus::inconclusive))
      s.insert(v.criterion + "@" + v.place);
  return s;
}

const Verdict* find(const Judgement& j, const std::string& criterion, const std::string& place) {
  for (const auto& v : j.verdicts)
    if (v.criterion == criterion && v.place == place) return &v;
  return nullptr;
}

}  // namespace

TEST(NcclIsolation, CleanRailsPass) {
  auto j = judge_builtin(Pairs{});
  EXPECT_TRUE(not_passing(j).empty()) << *not_passing(j).begin();
  int passes = 0;
  for (const auto& v : j.verdicts) passes += v.criterion == "nccl.rail.busbw" && v.status == VerdictStatus::pass;
  EXPECT_EQ(passes, 8);  // every endpoint of both rails judged
}

TEST(NcclIsolation, SlowNicConfirmedByReTestsFailsThatRailEndpointAlone) {
  Pairs p;
  p.bw = [](int rail, int a, int b, int) { return rail == 1 && (a == 1 || b == 1) ? 0.3 : 1.0; };  // h2's rail-1 NIC
  p.retests = {{1, 1, 0}, {1, 1, 2}};
  auto j = judge_builtin(p);
  EXPECT_EQ(not_passing(j), std::set<std::string>{"nccl.rail.busbw@h2/rail:1"});
  const Verdict* v = find(j, "nccl.rail.busbw", "h2/rail:1");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->status, VerdictStatus::fail);
  EXPECT_NE(v->reason.find("[GPU h2/gpu:1, NIC mlx5_1]"), std::string::npos) << v->reason;
  EXPECT_NE(v->reason.find("sure: high"), std::string::npos) << v->reason;
  EXPECT_NE(v->reason.find("re-test h1/rail:1->h2/rail:1"), std::string::npos) << v->reason;
}

TEST(NcclIsolation, SlowEndpointNotReTestedIsInconclusive) {
  Pairs p;
  p.bw = [](int rail, int a, int b, int) { return rail == 0 && (a == 2 || b == 2) ? 0.3 : 1.0; };
  auto j = judge_builtin(p);
  EXPECT_EQ(not_passing(j), std::set<std::string>{"nccl.rail.busbw@h3/rail:0"});
  const Verdict* v = find(j, "nccl.rail.busbw", "h3/rail:0");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->status, VerdictStatus::inconclusive) << v->reason;
  EXPECT_NE(v->reason.find("not re-tested"), std::string::npos) << v->reason;
}

TEST(NcclIsolation, ReTestThatPassesClearsTheSuspect) {
  Pairs p;
  p.bw = [](int rail, int a, int b, int pass) { return pass == 1 && rail == 0 && (a == 2 || b == 2) ? 0.3 : 1.0; };
  p.retests = {{0, 2, 0}, {0, 2, 1}};
  auto j = judge_builtin(p);
  EXPECT_TRUE(not_passing(j).empty()) << *not_passing(j).begin();
  const Verdict* v = find(j, "nccl.rail.busbw", "h3/rail:0");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->status, VerdictStatus::pass);
}

TEST(NcclIsolation, SlowLinkBetweenHealthyEndpointsIsTheLinkAlone) {
  Pairs p;
  p.bw = [](int rail, int a, int b, int) { return rail == 0 && a == 0 && b == 3 ? 0.2 : 1.0; };  // h1~h4 on rail 0
  p.retests = {{0, 0, 3}};
  auto j = judge_builtin(p);
  EXPECT_EQ(not_passing(j), std::set<std::string>{"nccl.link.busbw@h1/rail:0~h4/rail:0"});
}

TEST(NcclIsolation, RailVerdictAtClusterMovesOntoTheBlamedEndpoint) {
  Pairs p;
  p.bw = [](int rail, int a, int b, int) { return rail == 1 && (a == 1 || b == 1) ? 0.3 : 1.0; };
  p.retests = {{1, 1, 0}, {1, 1, 2}};
  p.more = [](JournalBuilder& jb) {
    for (int rail : {0, 1}) {
      nlohmann::json q = {{"collective", "all_reduce"}, {"scope", "inter-host"}, {"rail", rail}, {"in_place", false},
                          {"size", 1048576}, {"ranks", 4}};
      jb.sample("nccl.busbw_of_theory", "cluster", 40, "%", q);  // both rails short of 80%
    }
  };
  auto j = judge_builtin(p);
  const Verdict* rail1 = nullptr;
  const Verdict* rail0 = nullptr;
  for (const auto& v : j.verdicts) {
    if (v.criterion != "nccl.all_reduce.inter_host") continue;
    (v.params.value("rail", -1) == 1 ? rail1 : rail0) = &v;
  }
  ASSERT_NE(rail1, nullptr);
  ASSERT_NE(rail0, nullptr);
  EXPECT_EQ(rail1->status, VerdictStatus::skipped) << rail1->reason;
  EXPECT_NE(rail1->reason.find("the isolation pass blamed h2/rail:1"), std::string::npos) << rail1->reason;
  // Rail 0 has no culprit: its shortfall stays the cluster's.
  EXPECT_EQ(rail0->status, VerdictStatus::fail) << rail0->reason;
  EXPECT_EQ(find(j, "nccl.rail.busbw", "h2/rail:1")->status, VerdictStatus::fail);
}
