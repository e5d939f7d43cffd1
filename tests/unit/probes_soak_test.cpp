// The soak's arithmetic (probes/soak/soak_stats.hpp), apart from any GPU: percentiles and the
// drift slope, the cross-GPU ratios rank 0 makes of every rank's interval, and the straggler:
// named only when it was the slowest in at least half of the intervals, with its evidence.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "probes/soak/soak_stats.hpp"

namespace {

using namespace ga::soak;

RankInterval rank(int r, const std::string& place, double compute, double wait, double memory) {
  RankInterval x;
  x.rank = r;
  x.place = place;
  x.steps = 10;
  x.compute_p50 = compute;
  x.wait_p50 = wait;
  x.step_p50 = compute + wait;
  x.step_p99 = 1.1 * (compute + wait);
  x.gemm_flops = 8e14 * 0.01 / compute;
  x.memory_used = memory;
  x.temperature = 50;
  x.throttle_mask = 0;
  return x;
}

const ga::Sample* find(const std::vector<ga::Sample>& v, const std::string& metric, const std::string& place) {
  for (const auto& s : v)
    if (s.metric == metric && s.place == place) return &s;
  return nullptr;
}

TEST(SoakStats, PercentileAndSlope) {
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 50), 3);
  EXPECT_DOUBLE_EQ(percentile({1, 2}, 50), 1.5);
  EXPECT_NEAR(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99), 9.91, 1e-9);
  EXPECT_DOUBLE_EQ(percentile({}, 50), 0);
  EXPECT_DOUBLE_EQ(slope({0, 1, 2, 3}, {1, 3, 5, 7}), 2);
  EXPECT_DOUBLE_EQ(slope({1}, {1}), 0);
}

TEST(SoakStats, SlowGpuIsTheStragglerWithEvidence) {
  History h;
  const std::map<std::string, double> peak = {{"a/gpu:0", 1e15}, {"a/gpu:1", 1e15}, {"b/gpu:0", 1e15}, {"b/gpu:1", 1e15}};
  const AnalysisConfig cfg{1.2};
  std::vector<ga::Sample> last;
  for (int i = 0; i < 4; ++i) {
    // b/gpu:0 computes 3x as long; the others wait for it in the all_reduce.
    last = interval_samples({rank(0, "a/gpu:0", 0.01, 0.02, 100), rank(1, "a/gpu:1", 0.01, 0.02, 100),
                             rank(2, "b/gpu:0", 0.03, 0.001, 100), rank(3, "b/gpu:1", 0.01, 0.02, 100)},
                            h, i + 0.5, peak, cfg);
  }
  ASSERT_NE(find(last, "soak.compute_vs_median", "b/gpu:0"), nullptr);
  EXPECT_DOUBLE_EQ(find(last, "soak.compute_vs_median", "b/gpu:0")->value.value(), 3);
  EXPECT_DOUBLE_EQ(find(last, "soak.compute_vs_median", "a/gpu:0")->value.value(), 1);
  EXPECT_EQ(find(last, "soak.straggler_intervals", "b/gpu:0")->value.value(), 4);
  EXPECT_EQ(find(last, "soak.straggler_intervals", "a/gpu:1")->value.value(), 0);
  EXPECT_EQ(find(last, "soak.gemm_of_theory", "a/gpu:0")->iter, 4);
  const auto fin = final_samples(h, cfg);
  const auto* who = find(fin, "soak.straggler", "cluster");
  ASSERT_NE(who, nullptr);
  EXPECT_EQ(who->text.value(), "b/gpu:0");
  const auto* named = find(fin, "soak.straggler_named", "b/gpu:0");
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->value.value(), 1);
  EXPECT_EQ(named->rank, 2);
  const std::string why = named->params.at("reason").get<std::string>();
  EXPECT_NE(why.find("b/gpu:0 (rank 2) computed 3.00x the median GPU"), std::string::npos) << why;
  EXPECT_NE(why.find("in 4 of 4 intervals"), std::string::npos) << why;
  EXPECT_NE(why.find("the other ranks waited for it"), std::string::npos) << why;
  for (const char* other : {"a/gpu:0", "a/gpu:1", "b/gpu:1"}) EXPECT_EQ(find(fin, "soak.straggler_named", other)->value.value(), 0);
}

TEST(SoakStats, NoStragglerWhenOnlyNoise) {
  History h;
  const AnalysisConfig cfg{1.2};
  // One interval of four with a slow GPU: not named (a shared host's slow moment).
  for (int i = 0; i < 4; ++i)
    interval_samples({rank(0, "a/gpu:0", i == 0 ? 0.05 : 0.01, 0.02, 100), rank(1, "a/gpu:1", 0.0105, 0.02, 100),
                      rank(2, "b/gpu:0", 0.0098, 0.02, 100)},
                     h, i, {}, cfg);
  EXPECT_EQ(find(final_samples(h, cfg), "soak.straggler", "cluster")->text.value(), "none");
}

TEST(SoakStats, MemoryAgainstMedianAndOverTime) {
  History h;
  const AnalysisConfig cfg{1.2};
  std::vector<ga::Sample> s;
  for (int i = 0; i < 3; ++i)
    s = interval_samples({rank(0, "a/gpu:0", 0.01, 0.01, 100), rank(1, "a/gpu:1", 0.01, 0.01, 100 + 20.0 * i),
                          rank(2, "b/gpu:0", 0.01, 0.01, 100)},
                         h, i, {}, cfg);
  EXPECT_DOUBLE_EQ(find(s, "soak.memory_vs_median", "a/gpu:1")->value.value(), 40);
  EXPECT_DOUBLE_EQ(find(s, "soak.memory_fluctuation", "a/gpu:1")->value.value(), 40);
  EXPECT_DOUBLE_EQ(find(s, "soak.memory_fluctuation", "a/gpu:0")->value.value(), 0);
  // Three intervals: the drift is stated (the step time did not move).
  ASSERT_NE(find(s, "soak.step_drift", "cluster"), nullptr);
  EXPECT_NEAR(find(s, "soak.step_drift", "cluster")->value.value(), 0, 1e-9);
}

TEST(SoakStats, SummaryRoundTrip) {
  RankInterval r = rank(3, "h/gpu:1", 0.01, 0.02, 5e9);
  r.ecc_uncorrected_rise = 2;
  const auto back = RankInterval::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.place, "h/gpu:1");
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.ecc_uncorrected_rise.value(), 2);
  EXPECT_FALSE(back.xid_rise.has_value());
  EXPECT_EQ(back.throttle_mask.value(), 0u);
}

}  // namespace
