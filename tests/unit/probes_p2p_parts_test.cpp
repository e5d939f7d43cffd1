// The p2p probe's pure parts: latency percentiles (singles and batches), parameter checking,
// the re-test plan.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "probes/p2p/latency_stats.hpp"
#include "probes/p2p/p2p_params.hpp"
#include "probes/p2p/retest_plan.hpp"

using namespace ga::p2p;

TEST(P2pLatencyStats, NearestRankPercentilesAndJitter) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i * 1e-6);
  v.push_back(5e-3);  // one preemption
  auto s = summarize_latency(v);
  EXPECT_EQ(s.count, 101);
  EXPECT_DOUBLE_EQ(s.p50, 51e-6);
  EXPECT_DOUBLE_EQ(s.p99, 100e-6);
  EXPECT_DOUBLE_EQ(s.max, 5e-3);
  EXPECT_DOUBLE_EQ(s.jitter, s.p99 - s.p50);
  EXPECT_EQ(summarize_latency(std::vector<double>{}).count, 0);
}

TEST(P2pLatencyStats, MedianFromBatchesTailFromSingles) {
  // Singles carry a clock read (+0.05 us here); the batches spread it over 64 round trips.
  OneWaySamples s;
  s.batch = 64;
  for (int i = 0; i < 99; ++i) s.push_back(0.20e-6 + (i % 3) * 0.01e-6);  // 0.20, 0.21, 0.22 us
  s.push_back(5e-3);                                                      // one preemption
  for (int i = 0; i < 9; ++i) s.batch_means.push_back(0.15e-6 + (i == 8 ? 2e-6 : 0));
  auto st = summarize_latency(s);
  EXPECT_DOUBLE_EQ(st.p50, 0.15e-6);                       // the median batch, not the singles' 0.21 us
  EXPECT_NEAR(st.p99, 0.15e-6 + (0.22e-6 - 0.21e-6), 1e-15);  // the singles' spread on that level
  EXPECT_NEAR(st.max, 0.15e-6 + (5e-3 - 0.21e-6), 1e-15);
  EXPECT_NEAR(st.jitter, st.p99 - st.p50, 1e-15);
  EXPECT_NEAR(st.jitter, 0.01e-6, 1e-15);                   // the clock read cancels out of it
  EXPECT_EQ(st.count, 100 + 9 * 64);
  EXPECT_LE(st.p50, st.p99);
  EXPECT_LE(st.p99, st.max);
}

TEST(P2pLatencyStats, WithoutBatchesEverythingFromTheSingles) {
  OneWaySamples s;
  for (int i = 1; i <= 100; ++i) s.push_back(i * 1e-6);
  auto a = summarize_latency(s);
  auto b = summarize_latency(std::vector<double>(s.begin(), s.end()));
  EXPECT_DOUBLE_EQ(a.p50, b.p50);
  EXPECT_DOUBLE_EQ(a.p99, b.p99);
  EXPECT_DOUBLE_EQ(a.max, b.max);
  EXPECT_EQ(a.count, 100);
  EXPECT_EQ(summarize_latency(OneWaySamples{}).count, 0);
  // Batches without singles (an exchange always ends on a whole cycle, but stay defined).
  OneWaySamples only;
  only.batch = 4;
  only.batch_means = {1e-6, 2e-6, 3e-6};
  auto c = summarize_latency(only);
  EXPECT_DOUBLE_EQ(c.p50, 2e-6);
  EXPECT_EQ(c.count, 12);
}

TEST(P2pParams, DefaultsSweepAndErrors) {
  auto d = parse_p2p_params(nlohmann::json::object());
  ASSERT_EQ(d.measurements().size(), 2u);
  EXPECT_EQ(d.measurements()[0].size, 8u);
  EXPECT_EQ(d.measurements()[1].size, 4194304u);
  auto sw = parse_p2p_params({{"sweep", true}});
  EXPECT_EQ(sw.sweep.front(), 8u);
  EXPECT_EQ(sw.sweep.back(), std::size_t(64) << 20);
  EXPECT_EQ(sw.measurements().size(), 2 * sw.sweep.size());
  auto sizes = parse_p2p_params({{"sizes", {1024, 16}}, {"bw_size", 65536}});
  EXPECT_EQ(sizes.sweep, (std::vector<std::size_t>{8, 16, 1024, 65536}));  // headline sizes kept
  auto rail = parse_p2p_params({{"unit", "rail"}, {"max_rails", 2}});
  EXPECT_EQ(rail.schedule.unit, ga::pairs::PairUnit::rail);
  for (auto bad : {nlohmann::json{{"unit", "nic"}}, nlohmann::json{{"latency_size", 4}}, nlohmann::json{{"measure_s", -1}},
                   nlohmann::json{{"measure_s", 9}, {"limit_s", 1}}, nlohmann::json{{"thresold", 1}},
                   nlohmann::json{{"retest", "yes"}}})
    EXPECT_THROW(parse_p2p_params(bad), std::invalid_argument) << bad.dump();
  try {
    parse_p2p_params({{"thresold", 1}});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("thresold"), std::string::npos);
  }
}

namespace {
std::vector<DirectedResult> matrix(int n, std::function<double(int, int)> lat, std::function<double(int, int)> bw) {
  std::vector<DirectedResult> r;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) r.push_back({a, b, 0, lat(a, b), bw(a, b)});
  return r;
}
}  // namespace

TEST(P2pRetestPlan, CleanNeedsNoReTest) {
  auto p = plan_retests(matrix(6, [](int, int) { return 10e-6; }, [](int, int) { return 1e9; }));
  EXPECT_TRUE(p.rounds.empty());
}

TEST(P2pRetestPlan, SuspectHostIsRePairedWithHealthyHostsInDisjointRounds) {
  auto p = plan_retests(matrix(6, [](int a, int b) { return a == 2 || b == 2 ? 1e-3 : 10e-6; },
                               [](int a, int b) { return a == 4 && b == 5 ? 1e8 : 1e9; }));
  EXPECT_EQ(p.suspect_endpoints, std::vector<int>{2});
  ASSERT_EQ(p.suspect_links.size(), 1u);
  EXPECT_EQ(p.suspect_links[0], (std::pair<int, int>{4, 5}));
  std::set<std::pair<int, int>> all;
  for (const auto& round : p.rounds) {
    std::set<int> busy;
    for (auto [a, b] : round) {
      EXPECT_LT(a, b);
      EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second) << "rank twice in a round";
      all.insert({a, b});
    }
  }
  int with2 = 0;
  for (auto [a, b] : all) with2 += a == 2 || b == 2;
  EXPECT_EQ(with2, 2);  // retest_partners
  EXPECT_TRUE(all.count({4, 5}));
}

TEST(P2pRetestPlan, IncompleteCountsAsSlowAndBetterMedianSurvivesHalfBad) {
  auto p = plan_retests(matrix(4, [](int a, int b) { return a == 3 || b == 3 ? NAN : 10e-6; },
                               [](int, int) { return 1e9; }));
  EXPECT_EQ(p.suspect_endpoints, std::vector<int>{3});
  EXPECT_DOUBLE_EQ(better_median({1, 1, 9, 9}, true), 1);
  EXPECT_DOUBLE_EQ(better_median({1, 1, 9, 9}, false), 9);
}

TEST(P2pLatencyStats, TailEventsCountSinglesAndBatchesFarOverTheMedian) {
  OneWaySamples s;
  s.batch = 4;
  s.assign(100, 40e-6);
  s[7] = 10e-3;                       // a retransmission timeout's stall, timed singly
  s[8] = 600e-6;                      // 15 x: a scheduling delay, under the 20 x bar
  s.batch_means = {40e-6, 40e-6 + 2e-3 / 4, 40e-6 + 500e-6 / 4};  // one batch held a 2 ms round trip; one 0.5 ms
  EXPECT_EQ(count_tail_events(s, 40e-6, 20), 2);  // the 10 ms single and the batch with 2 ms (> 19 x 40 us more)
  EXPECT_EQ(count_tail_events(s, 40e-6, 10), 4);  // at 10 x the 15 x single and the 0.5 ms batch excess (> 9 x 40 us) count too
  EXPECT_EQ(count_tail_events(s, 0, 20), 0);      // no median: nothing to hold them against
  EXPECT_EQ(count_tail_events(s, 40e-6, 1), 0);   // a factor of 1 would count half of every measurement
}
