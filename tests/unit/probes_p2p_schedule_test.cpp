// The pair schedule: every unordered pair exactly once, no participant twice in a round,
// N-1 rounds for even N and N for odd N; rank pairs built from rank_hosts.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "probes/harness/pair_schedule.hpp"

using namespace ga::pairs;

namespace {

void check_tournament(int n) {
  SCOPED_TRACE("n=" + std::to_string(n));
  const int rounds = round_count(n);
  EXPECT_EQ(rounds, n < 2 ? 0 : (n % 2 == 0 ? n - 1 : n));
  std::vector<std::vector<int>> met(n, std::vector<int>(n, 0));
  std::vector<int> byes(n, 0);
  for (int r = 0; r < rounds; ++r) {
    std::vector<int> seen(n, 0);
    auto pairs = round_pairs(n, r);
    EXPECT_EQ(static_cast<int>(pairs.size()), n / 2) << "every host busy (one bye when odd)";
    for (auto [a, b] : pairs) {
      ASSERT_LT(a, b);
      ++seen[a], ++seen[b];
      ++met[a][b];
    }
    for (int p = 0; p < n; ++p) {
      EXPECT_LE(seen[p], 1) << "participant " << p << " twice in round " << r;
      int q = opponent(n, r, p);
      if (q < 0) ++byes[p];
      else EXPECT_EQ(opponent(n, r, q), p);
    }
  }
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) EXPECT_EQ(met[a][b], 1) << a << "~" << b;
    if (n >= 2) EXPECT_EQ(byes[a], n % 2) << "byes of " << a;
  }
}

std::vector<std::string> hosts_of(int hosts, int per_host) {
  std::vector<std::string> v;
  for (int h = 0; h < hosts; ++h)
    for (int k = 0; k < per_host; ++k) v.push_back(std::string("h").append(std::to_string(h)));
  return v;
}

}  // namespace

TEST(PairSchedule, TournamentsUpTo40) {
  for (int n = 0; n <= 40; ++n) check_tournament(n);
}

TEST(PairSchedule, LargeEvenAndOdd) {
  check_tournament(256);
  check_tournament(257);
}

TEST(PairSchedule, OpponentRejectsBadInput) {
  EXPECT_THROW(opponent(4, 3, 0), std::out_of_range);
  EXPECT_THROW(opponent(4, 0, 4), std::out_of_range);
  EXPECT_THROW(opponent(1, 0, 0), std::out_of_range);
}

TEST(PairSchedule, HostModeUsesFirstRankAndCoversAllHostPairs) {
  // ranks interleaved across hosts: the first rank of each host stands for it
  std::vector<std::string> rh = {"a", "b", "c", "a", "b", "c", "d", "e"};
  PairPlan s(rh);
  ASSERT_EQ(s.hosts().size(), 5u);
  EXPECT_EQ(s.inter_rounds(), 5);  // 5 hosts: odd, 5 rounds
  std::set<std::pair<int, int>> host_pairs;
  for (int r = 0; r < s.inter_rounds(); ++r) {
    auto round = s.inter_round(r);
    std::set<int> ranks;
    for (auto& p : round.pairs) {
      EXPECT_FALSE(p.intra_host);
      EXPECT_LT(p.host_a, p.host_b);
      EXPECT_TRUE(ranks.insert(p.a).second);
      EXPECT_TRUE(ranks.insert(p.b).second);
      EXPECT_TRUE(host_pairs.insert({p.host_a, p.host_b}).second);
      for (int r : {p.a, p.b}) EXPECT_TRUE(r <= 2 || r >= 6) << "rank " << r << " is not its host's first";
    }
  }
  EXPECT_EQ(host_pairs.size(), 10u);
  // intra: a (0,3), b (1,4), c (2,5) have two ranks; d, e one
  ASSERT_EQ(s.intra_rounds(), 1);
  std::set<std::pair<int, int>> intra;
  for (auto& p : s.intra_round(0).pairs) {
    EXPECT_TRUE(p.intra_host);
    EXPECT_EQ(p.host_a, p.host_b);
    intra.insert({p.a, p.b});
  }
  EXPECT_EQ(intra, (std::set<std::pair<int, int>>{{0, 3}, {1, 4}, {2, 5}}));
  EXPECT_EQ(s.pair_count(), 13u);
}

TEST(PairSchedule, RailModePairsSameRailAcrossHosts) {
  PairPlan s(hosts_of(4, 3), {PairUnit::rail, 0, true});
  EXPECT_EQ(s.inter_rounds(), 3);
  std::set<std::tuple<int, int, int>> seen;
  for (int r = 0; r < s.inter_rounds(); ++r) {
    auto round = s.inter_round(r);
    EXPECT_EQ(round.pairs.size(), 2u * 3u);  // 2 host pairs x 3 rails, all busy
    std::set<int> ranks;
    for (auto& p : round.pairs) {
      EXPECT_EQ(p.a % 3, p.rail);
      EXPECT_EQ(p.b % 3, p.rail);
      EXPECT_TRUE(ranks.insert(p.a).second && ranks.insert(p.b).second);
      seen.insert({p.host_a, p.host_b, p.rail});
    }
  }
  EXPECT_EQ(seen.size(), 6u * 3u);
  // intra: 3 rails per host -> 3 rounds, each pair of rails once per host
  EXPECT_EQ(s.intra_rounds(), 3);
  std::size_t intra_pairs = 0;
  for (int r = 0; r < s.intra_rounds(); ++r) intra_pairs += s.intra_round(r).pairs.size();
  EXPECT_EQ(intra_pairs, 4u * 3u);
  EXPECT_EQ(s.pair_count(), 6u * 3u + 4u * 3u);
}

TEST(PairSchedule, MaxRailsAndNoIntra) {
  PairPlan s(hosts_of(3, 4), {PairUnit::rail, 2, false});
  EXPECT_EQ(s.inter_rounds(), 3);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(s.inter_round(r).pairs.size(), 2u);  // one host pair x 2 rails
  EXPECT_EQ(s.intra_rounds(), 0);
}

TEST(PairSchedule, SingleHostHasOnlyIntra) {
  PairPlan s(hosts_of(1, 4));
  EXPECT_EQ(s.inter_rounds(), 0);
  ASSERT_EQ(s.intra_rounds(), 1);
  auto round = s.intra_round(0);
  ASSERT_EQ(round.pairs.size(), 1u);
  EXPECT_EQ(round.pairs[0].a, 0);
  EXPECT_EQ(round.pairs[0].b, 1);
  EXPECT_FALSE(s.intra_pair_of(2, 0).has_value());
}

TEST(PairSchedule, RejectsEmptyHostName) {
  EXPECT_THROW(PairPlan({"a", ""}), std::invalid_argument);
}

TEST(PairSchedule, OwnPartnerAgreesWithTheRound) {
  for (auto [hosts, per] : {std::pair{5, 1}, {6, 3}, {7, 2}}) {
    for (auto unit : {PairUnit::host, PairUnit::rail}) {
      auto rh = hosts_of(hosts, per);
      PairPlan s(rh, {unit, 0, true});
      auto check = [&](int r, const Round& round, auto pair_of) {
        std::vector<int> in(rh.size(), -1);
        for (int i = 0; i < static_cast<int>(round.pairs.size()); ++i) in[round.pairs[i].a] = in[round.pairs[i].b] = i;
        for (int rank = 0; rank < static_cast<int>(rh.size()); ++rank) {
          auto p = pair_of(rank, r);
          ASSERT_EQ(p.has_value(), in[rank] >= 0) << "rank " << rank << " round " << r;
          if (p) EXPECT_EQ(std::tie(p->a, p->b, p->rail), std::tie(round.pairs[in[rank]].a, round.pairs[in[rank]].b,
                                                                  round.pairs[in[rank]].rail));
        }
      };
      for (int r = 0; r < s.inter_rounds(); ++r)
        check(r, s.inter_round(r), [&](int k, int rr) { return s.inter_pair_of(k, rr); });
      for (int r = 0; r < s.intra_rounds(); ++r)
        check(r, s.intra_round(r), [&](int k, int rr) { return s.intra_pair_of(k, rr); });
    }
  }
}

TEST(PairSchedule, FourThousandHostsIsCheap) {
  // The bound that matters (well under 1 s) is measured in bench/p2p_bench; here only the shape.
  PairPlan s(hosts_of(4096, 1));
  EXPECT_EQ(s.inter_rounds(), 4095);
  std::size_t pairs = 0;
  for (int r = 0; r < s.inter_rounds(); ++r) pairs += s.inter_round(r).pairs.size();
  EXPECT_EQ(pairs, 4096u * 4095u / 2u);
  EXPECT_EQ(s.pair_count(), pairs);
}

TEST(PairSchedule, WrittenOutMatchesThePlan) {
  auto rh = hosts_of(5, 2);
  PairPlan plan(rh);
  auto s = build_pair_schedule(rh);
  EXPECT_EQ(s.hosts, plan.hosts());
  ASSERT_EQ(static_cast<int>(s.inter.size()), plan.inter_rounds());
  ASSERT_EQ(static_cast<int>(s.intra.size()), plan.intra_rounds());
  EXPECT_EQ(s.pair_count(), plan.pair_count());
  EXPECT_EQ(s.pair_count(), 10u + 5u);
}
