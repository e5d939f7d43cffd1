// The adaptive isolation schedule on simulated clusters with several faults at once
// (bench/isolation_sim.hpp; bench/isolation_bench runs 100 seeds at 64, 512 and 4096 hosts and
// prints the table in docs/fabric.md). Here a smaller set, in CI: 20 seeds at 64 and 512 hosts.
// Never wrong: no healthy place blamed or left inconclusive, no faulty place passed.
#include <gtest/gtest.h>

#include "bench/isolation_sim.hpp"

namespace ga {
namespace {

void expect_never_wrong(int hosts, int leaf, int faults, int seeds) {
  const auto l = isolation_sim::run_line(hosts, leaf, faults, seeds);
  std::string why;
  for (const auto& w : l.wrong_why) why += "\n  " + w;
  EXPECT_EQ(l.wrong, 0) << hosts << " hosts, " << faults << " fault(s):" << why;
  EXPECT_EQ(l.right + l.inconclusive + l.wrong, seeds);
  std::printf("[ isolation sim ] hosts=%d faults=%d seeds=%d right=%d inconclusive=%d wrong=%d rounds=%d\n", hosts,
              faults, seeds, l.right, l.inconclusive, l.wrong, l.rounds);
}

TEST(IsolationSim, OneOrTwoFaultsAreNamedAloneAt64And512Hosts) {
  for (int faults : {1, 2}) {
    const auto small = isolation_sim::run_line(64, 16, faults, 20);
    EXPECT_EQ(small.right, 20) << faults;  // a slow host, and a slow leaf path: right every time
    expect_never_wrong(512, 32, faults, 20);
  }
}

TEST(IsolationSim, ThreeFaultsAt512HostsAreNeverWrong) {
  // A leaf's slow uplinks are named as its links to other leaves, or left inconclusive: the
  // schedule has no one place for them (docs/fabric.md).
  expect_never_wrong(512, 32, 3, 20);
}

// Three faults on 64 hosts in 4 leaves: a leaf's slow uplinks and a slow leaf path make 4 of
// the 6 leaf pairs slow, so the median of cross-leaf measurements is a slow one. Before the
// cross reference was also taken per leaf pair, every seed passed both faults.
TEST(IsolationSim, ThreeFaultsAt64HostsWhereMostLeafPairsAreSlowAreNamed) {
  const auto l = isolation_sim::run_line(64, 16, 3, 20);
  EXPECT_EQ(l.right, 20);
  expect_never_wrong(64, 16, 3, 20);
}

// The per-leaf-pair reference must not take an oversubscribed fabric's uniform cross-leaf
// slowness (every leaf pair 2x below what hosts do inside a leaf) for a fault.
TEST(IsolationSim, UniformlySlowerCrossLeafTrafficNamesNothing) {
  for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
    isolation_sim::Cluster c;
    c.hosts = 64, c.leaf = 16;
    c.host_slow.assign(64, 1.0);
    for (int g = 0; g < 4; ++g)
      for (int h = g + 1; h < 4; ++h) c.path[{g, h}] = 2.0;
    const auto r = isolation_sim::run(c, isolation_sim::p2p_options(seed), seed);
    EXPECT_EQ(r.score, isolation_sim::Score::right) << "seed " << seed << ":" << r.why;
  }
}

// The scoring itself can fail: a faulty place passed is wrong.
TEST(IsolationSim, AFaultTheVerdictMissesScoresWrong) {
  std::mt19937_64 rng(3);
  isolation_sim::Cluster c = isolation_sim::make_cluster(64, 16, 1, rng);
  c.faults.push_back({isolation_sim::FaultKind::host, "n0001"});  // claimed, never made slow
  ASSERT_EQ(c.host_slow[0], 1.0) << "seed 3 must not make n0001 the real fault";
  const auto r = isolation_sim::run(c, isolation_sim::p2p_options(3), 3);
  EXPECT_EQ(r.score, isolation_sim::Score::wrong);
  EXPECT_NE(r.why.find("missed n0001"), std::string::npos) << r.why;
}

}  // namespace
}  // namespace ga
