// poisson_upper_tail: the counting test behind the fabric's tail events (issue 33).
#include <gtest/gtest.h>

#include <cmath>

#include "base/poisson.hpp"

using ga::base::poisson_upper_tail;

TEST(Poisson, SmallCasesMatchTheClosedForm) {
  // P(N >= 1) = 1 - e^-l; P(N >= 2) = 1 - e^-l (1 + l).
  for (double l : {0.01, 0.5, 1.0, 3.0, 10.0}) {
    EXPECT_NEAR(poisson_upper_tail(1, l), 1 - std::exp(-l), 1e-12) << l;
    EXPECT_NEAR(poisson_upper_tail(2, l), 1 - std::exp(-l) * (1 + l), 1e-12) << l;
  }
  EXPECT_DOUBLE_EQ(poisson_upper_tail(0, 2.0), 1.0);
  EXPECT_DOUBLE_EQ(poisson_upper_tail(-3, 2.0), 1.0);
}

TEST(Poisson, FarTailIsNotRoundedToZeroOrOne) {
  // 20 events where 0.3 were expected: e^-0.3 0.3^20 / 20! (the first term dominates), ~1.1e-29.
  const double first = std::exp(-0.3 + 20 * std::log(0.3) - std::lgamma(21.0));
  const double p = poisson_upper_tail(20, 0.3);
  EXPECT_GT(p, first);
  EXPECT_LT(p, first * 1.02);
  // Few events where many were expected: nearly 1, never above.
  EXPECT_LE(poisson_upper_tail(3, 100), 1.0);
  EXPECT_GT(poisson_upper_tail(3, 100), 0.999999);
}

TEST(Poisson, MonotoneInKAndLambda) {
  double last = 1.0;
  for (int k = 1; k < 60; ++k) {
    const double p = poisson_upper_tail(k, 7.5);
    EXPECT_LE(p, last) << k;
    last = p;
  }
  EXPECT_LT(poisson_upper_tail(5, 1.0), poisson_upper_tail(5, 2.0));
}

TEST(Poisson, DegenerateRates) {
  EXPECT_DOUBLE_EQ(poisson_upper_tail(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(poisson_upper_tail(1, 0), 0.0);
  EXPECT_DOUBLE_EQ(poisson_upper_tail(1, -1), 0.0);
  EXPECT_DOUBLE_EQ(poisson_upper_tail(1, NAN), 1.0);
  EXPECT_DOUBLE_EQ(poisson_upper_tail(NAN, 1), 1.0);
}

TEST(Poisson, MeanForKEventsAtConfidence) {
  using ga::base::poisson_mean_for;
  // 1 event with p: -ln(1 - p) exactly; 3 events at 95%: 6.2958 (tables of the Poisson).
  EXPECT_NEAR(poisson_mean_for(1, 0.95), -std::log(0.05), 1e-7);
  EXPECT_NEAR(poisson_mean_for(3, 0.95), 6.2958, 1e-3);
  // What it returns really gives the confidence, and a little less would not.
  for (int k : {1, 3, 10})
    for (double p : {0.5, 0.9, 0.99}) {
      const double l = poisson_mean_for(k, p);
      EXPECT_GE(poisson_upper_tail(k, l), p - 1e-9) << k << " " << p;
      EXPECT_LT(poisson_upper_tail(k, l * 0.999), p) << k << " " << p;
    }
  EXPECT_EQ(poisson_mean_for(0, 0.95), 0);
}
