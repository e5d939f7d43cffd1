// Issue 36: past kFoldPassingAbove hosts the judge counts passing verdicts per criterion and
// kind of place instead of listing them; every verdict that does not pass stays listed, the
// summary still counts every verdict, and a re-test's suspects keep their passes listed.
#include <gtest/gtest.h>

#include <cmath>

#include "suites/pass_fold.hpp"
#include "suites_fixture.hpp"

namespace ga {
namespace {

using testing::JournalBuilder;
using testing::criteria;

const char* kCriteria = "  - {name: c, metric: x.v, compare: \">=\", value: 10.0e9}\n";

// x.v at every one of `n` hosts, 12 GB/s but for the given ones.
JournalBuilder hosts_with(std::size_t n, const std::map<std::string, double>& odd) {
  std::vector<std::string> hosts;
  for (std::size_t i = 0; i < n; ++i) hosts.push_back("n" + std::to_string(i + 1));
  JournalBuilder b(hosts);
  b.probe("x");
  for (const auto& h : hosts) b.sample("x.v", h, odd.count(h) ? odd.at(h) : 12e9, "B/s");
  return b;
}

TEST(JudgeFold, UpToTheThresholdEveryVerdictIsListed) {
  const Judgement j = judge(hosts_with(kFoldPassingAbove, {{"n7", 9e9}}).build(), criteria(kCriteria));
  EXPECT_FALSE(j.folded);
  EXPECT_TRUE(j.passing.empty());
  EXPECT_EQ(j.verdicts.size(), kFoldPassingAbove);
}

TEST(JudgeFold, PastItPassesAreCountedAndFailuresListedInFull) {
  const std::size_t n = kFoldPassingAbove + 1;
  const std::string two = std::string(kCriteria) + "  - {name: d, metric: x.v, compare: \"<=\", value: 20.0e9}\n";
  const Judgement j = judge(hosts_with(n, {{"n7", 9e9}, {"n200", 10.5e9}}).build(), criteria(two));
  ASSERT_TRUE(j.folded);
  // n7's failure alone: its pass of d is counted with the others' (the host's report section
  // lists its failures and counts its passes).
  ASSERT_EQ(j.verdicts.size(), 1u);
  EXPECT_EQ(j.verdicts[0].place, "n7");
  EXPECT_EQ(j.verdicts[0].criterion, "c");
  EXPECT_EQ(j.verdicts[0].status, VerdictStatus::fail);
  ASSERT_EQ(j.passing.size(), 2u);
  EXPECT_EQ(j.passing[1].criterion, "d");
  EXPECT_EQ(j.passing[1].places, n);
  EXPECT_EQ(j.passing[1].hosts.size(), n);
  const PassingFold& f = j.passing[0];
  EXPECT_EQ(f.criterion, "c");
  EXPECT_EQ(f.kind, "host");
  EXPECT_EQ(f.places, n - 1);
  // The worst passing margin and its place: 10.5 GB/s against >= 10 GB/s, 5% to spare.
  ASSERT_TRUE(f.worst_margin);
  EXPECT_NEAR(*f.worst_margin, 0.05, 1e-12);
  EXPECT_EQ(f.worst.place, "n200");
  EXPECT_EQ(f.worst.reason, "x.v 10.5 GB/s >= 10 GB/s");
  EXPECT_EQ(f.hosts.size(), n - 1);
  EXPECT_EQ(f.hosts.front().host, "n1");
  EXPECT_EQ(f.hosts.back().host, "n257");  // natural order
  // The summary counts every verdict, folded or not.
  EXPECT_EQ(j.summary.pass, static_cast<int>(2 * n - 1));
  EXPECT_EQ(j.summary.fail, 1);
  EXPECT_EQ(j.summary.exit_code, kExitNodeFault);
}

TEST(JudgeFold, AReTestKeepsItsSuspectsPassesListed) {
  auto b = hosts_with(kFoldPassingAbove + 10, {});
  JournalData journal = b.build();
  // What the re-test copied of the earlier run (app/run_support.cpp): n3 was a suspect, n4 a
  // partner that had passed.
  journal.run_start["rerun_of"] = {
      {"run", "r1"},
      {"campaign",
       {{"hosts", {{{"host", "n3"}, {"criteria", {"c"}}}, {{"host", "n4"}, {"criteria", nlohmann::json::array()}}}}}}};
  EXPECT_EQ(hosts_kept_in_full(journal), (std::set<std::string>{"n3"}));
  const Judgement j = judge(journal, criteria(kCriteria));
  ASSERT_TRUE(j.folded);
  ASSERT_EQ(j.verdicts.size(), 1u);
  EXPECT_EQ(j.verdicts[0].place, "n3");
  EXPECT_EQ(j.verdicts[0].status, VerdictStatus::pass);
  EXPECT_EQ(j.passing.at(0).places, kFoldPassingAbove + 9);
}

// While the judge folds criterion by criterion, the fabric analyses have not yet explained the
// verdicts (they may turn a pass of a derived slowdown or a tail-event test inconclusive): those
// passes wait for the fold after the explanations; every other pass folds at once.
TEST(JudgeFold, PassesTheFabricAnalysesMayRewriteFoldOnlyAfterThem) {
  auto pass = [](const char* criterion, const char* metric, const char* place) {
    Verdict v;
    v.criterion = criterion, v.metric = metric, v.place = place, v.value = 1;
    return v;
  };
  std::vector<Verdict> vs = {pass("a", "x.v", "n1"), pass("h", "p2p.host_slowdown", "n1"),
                             pass("t", "p2p.host_tail_p", "n2"), pass("l", "nccl.link_slowdown", "n1~n2"),
                             pass("a", "x.v", "n2")};
  vs.push_back(pass("a", "x.v", "n3"));
  vs.back().status = VerdictStatus::fail;
  judging::PassFolder folder({});
  folder.take(vs, true);
  ASSERT_EQ(vs.size(), 4u);
  EXPECT_EQ(vs[0].metric, "p2p.host_slowdown");
  EXPECT_EQ(vs[1].metric, "p2p.host_tail_p");
  EXPECT_EQ(vs[2].metric, "nccl.link_slowdown");
  EXPECT_EQ(vs[3].status, VerdictStatus::fail);
  EXPECT_EQ(folder.folded(), 2u);
  folder.take(vs, false);
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(folder.folded(), 5u);
  Judgement j;
  folder.finish(j, {{"l", 0}, {"a", 1}});
  ASSERT_EQ(j.passing.size(), 4u);
  EXPECT_EQ(j.passing[0].criterion, "l");  // the criteria's order, not the order folded
  EXPECT_EQ(j.passing[0].kind, "pair");
  EXPECT_EQ(j.passing[0].hosts.size(), 2u);  // a link counts at both its ends
  EXPECT_EQ(j.passing[1].criterion, "a");
  EXPECT_EQ(j.passing[1].places, 2u);
  EXPECT_EQ(j.passing[2].criterion, "h");  // not in the order given: as they came
  EXPECT_TRUE(j.folded);
}

TEST(JudgeFold, MarginIsTheShareOfTheBoundToSpare) {
  Verdict v;
  v.value = 12;
  v.bounds = nlohmann::json{{"op", ">="}, {"value", 10}};
  EXPECT_NEAR(*margin(v), 0.2, 1e-12);
  v.bounds = nlohmann::json{{"op", "<="}, {"value", 10}};
  EXPECT_NEAR(*margin(v), -0.2, 1e-12);
  v.bounds = nlohmann::json{{"op", "between"}, {"low", 10}, {"high", 13}};
  EXPECT_NEAR(*margin(v), 1.0 / 13, 1e-12);  // nearer the high end
  v.bounds = nlohmann::json{{"op", "equals"}, {"text", "x"}};
  EXPECT_FALSE(margin(v));
  v.value.reset();
  v.bounds = nlohmann::json{{"op", ">="}, {"value", 10}};
  EXPECT_FALSE(margin(v));
}

}  // namespace
}  // namespace ga
