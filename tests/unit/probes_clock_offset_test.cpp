// The offset arithmetic on synthetic exchanges whose true offsets and delays are known.
#include <gtest/gtest.h>

#include <random>

#include "probes/clock/bounded_command.hpp"
#include "probes/clock/offset_math.hpp"

namespace ga::clock {
namespace {

// An exchange starting at reference time t, with one-way delays `out` and `back`, against a
// remote whose clock reads `offset` ahead of the reference.
Exchange make(double t, double out, double back, double offset) {
  Exchange e;
  e.send_real = 1.7e9 + t;
  e.send_mono = 1000 + t;
  e.remote_real = e.send_real + out + offset;
  e.recv_real = e.send_real + out + back;
  e.recv_mono = e.send_mono + out + back;
  return e;
}

TEST(ClockOffset, SymmetricPathIsExact) {
  std::vector<Exchange> ex = {make(0, 10e-6, 10e-6, 5.0)};
  auto est = estimate_offset(ex, 4);
  ASSERT_TRUE(est);
  EXPECT_NEAR(est->offset, 5.0, 1e-9);
  EXPECT_NEAR(est->rtt, 20e-6, 1e-12);
  EXPECT_NEAR(est->uncertainty, 10e-6, 1e-12);
  EXPECT_EQ(est->used, 1);
  EXPECT_EQ(est->kept, 1);
}

TEST(ClockOffset, LowestRoundTripWinsAndBoundsTheError) {
  // Queueing delays mostly on one side (asymmetric): only the quiet exchange is near the truth.
  const double truth = -0.0021;
  std::vector<Exchange> ex = {make(0.000, 900e-6, 20e-6, truth), make(0.001, 15e-6, 12e-6, truth),
                              make(0.002, 30e-6, 400e-6, truth), make(0.003, 200e-6, 20e-6, truth)};
  auto est = estimate_offset(ex, 2);
  ASSERT_TRUE(est);
  EXPECT_NEAR(est->rtt, 27e-6, 1e-12);
  EXPECT_NEAR(est->uncertainty, 13.5e-6, 1e-12);
  // Epoch seconds in a double resolve 0.24 us: far below any MPI round trip.
  EXPECT_NEAR(est->offset, truth + (15e-6 - 12e-6) / 2, 1e-6);
  EXPECT_LE(std::abs(est->offset - truth), est->uncertainty);
  EXPECT_EQ(est->kept, 2);
  // The second-best (rtt 220 us, 180 us asymmetry) differs by 90 us from the truth.
  EXPECT_NEAR(est->kept_spread, std::abs((200e-6 - 20e-6) / 2 - (15e-6 - 12e-6) / 2), 1e-6);
}

TEST(ClockOffset, TruthAlwaysInsideTheBound) {
  std::mt19937 rng(7);
  std::exponential_distribution<double> queue(1.0 / 50e-6);
  for (int trial = 0; trial < 200; ++trial) {
    const double truth = std::uniform_real_distribution<double>(-1, 1)(rng);
    std::vector<Exchange> ex;
    for (int i = 0; i < 32; ++i) ex.push_back(make(i * 1e-3, 5e-6 + queue(rng), 5e-6 + queue(rng), truth));
    auto est = estimate_offset(ex, 8);
    ASSERT_TRUE(est);
    EXPECT_LE(std::abs(est->offset - truth), est->uncertainty + 1e-9) << "trial " << trial;
  }
}

TEST(ClockOffset, ClockStepDuringAnExchangeIsRejected) {
  Exchange stepped = make(0, 5e-6, 5e-6, 0);
  stepped.recv_real += 0.5;  // someone ran `date -s` while the message was in flight
  std::vector<Exchange> ex = {stepped, make(0.001, 40e-6, 40e-6, 0)};
  auto est = estimate_offset(ex, 8);
  ASSERT_TRUE(est);
  EXPECT_EQ(est->rejected, 1);
  EXPECT_EQ(est->used, 1);
  EXPECT_NEAR(est->rtt, 80e-6, 1e-12);  // the stepped one had the lower round trip but is gone
  EXPECT_FALSE(estimate_offset(std::vector<Exchange>{stepped}, 8));
  EXPECT_FALSE(estimate_offset(std::vector<Exchange>{}, 8));
}

TEST(ClockOffset, Median) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({-5}), -5);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(ClockOffset, WrongClockOnTheReferenceHostIsBlamedOnIt) {
  // Measured against host 0 (the reference), whose clock is 5 s ahead of everyone else's.
  const std::vector<double> to_ref = {0, -5.0, -5.00001, -4.99999};
  const std::vector<double> unc = {0, 20e-6, 20e-6, 20e-6};
  auto c = relative_to_median(to_ref, unc);
  EXPECT_NEAR(c.median, -4.999995, 1e-12);  // even count: the mean of -5 and -4.99999
  ASSERT_EQ(c.hosts.size(), 4u);
  EXPECT_NEAR(c.hosts[0].offset, 4.999995, 1e-9);
  EXPECT_GT(c.hosts[0].abs_bound, 1e-3);
  for (int h = 1; h < 4; ++h) EXPECT_LT(c.hosts[static_cast<std::size_t>(h)].abs_bound, 1e-4) << h;
}

TEST(ClockOffset, IntervalsAroundTheMedian) {
  const std::vector<double> off = {0, 100e-6, 5e-3};
  const std::vector<double> unc = {0, 10e-6, 30e-6};
  auto c = relative_to_median(off, unc);
  EXPECT_NEAR(c.median, 100e-6, 1e-15);
  EXPECT_NEAR(c.median_low, 90e-6, 1e-15);
  EXPECT_NEAR(c.median_high, 110e-6, 1e-15);
  // Host 2: [4.97 ms, 5.03 ms] minus [90 us, 110 us].
  EXPECT_NEAR(c.hosts[2].offset, 4.9e-3, 1e-12);
  EXPECT_NEAR(c.hosts[2].low, 4.97e-3 - 110e-6, 1e-12);
  EXPECT_NEAR(c.hosts[2].high, 5.03e-3 - 90e-6, 1e-12);
  EXPECT_NEAR(c.hosts[2].uncertainty, 40e-6, 1e-12);
  EXPECT_NEAR(c.hosts[2].abs_bound, 4.94e-3, 1e-12);
  // The median host itself: offset 0, but not known better than its own and the median's bounds.
  EXPECT_NEAR(c.hosts[1].offset, 0, 1e-15);
  EXPECT_NEAR(c.hosts[1].uncertainty, 20e-6, 1e-12);
  // The reference: exact against itself, uncertain against the median.
  EXPECT_NEAR(c.hosts[0].offset, -100e-6, 1e-15);
  EXPECT_NEAR(c.hosts[0].abs_bound, 110e-6, 1e-12);
  EXPECT_THROW(relative_to_median({1, 2}, {0}), std::invalid_argument);
  EXPECT_THROW(relative_to_median({}, {}), std::invalid_argument);
}

TEST(ClockOffset, TwoHostsCannotTellWhichIsWrong) {
  auto c = relative_to_median({0, 5.0}, {0, 1e-5});
  EXPECT_NEAR(c.hosts[0].offset, -2.5, 1e-9);
  EXPECT_NEAR(c.hosts[1].offset, 2.5, 1e-9);
}

TEST(ClockOffset, MaxSkew) {
  auto s = max_skew({0, 3e-3, -1e-3, 1e-3}, {0, 10e-6, 20e-6, 5e-6});
  EXPECT_NEAR(s.value, 4e-3, 1e-15);
  EXPECT_EQ(s.fast, 1);
  EXPECT_EQ(s.slow, 2);
  EXPECT_NEAR(s.uncertainty, 30e-6, 1e-15);
  auto flat = max_skew({0, 0, 0}, {0, 10e-6, 20e-6});
  EXPECT_DOUBLE_EQ(flat.value, 0);
  EXPECT_NEAR(flat.uncertainty, 30e-6, 1e-15);
  EXPECT_DOUBLE_EQ(max_skew({0}, {0}).uncertainty, 0);
}

TEST(ClockOffset, Drift) {
  Estimate a, b;
  a.offset = 1e-3;
  a.uncertainty = 10e-6;
  a.mid_mono = 100;
  b.offset = 1e-3 + 50e-6;  // 50 us in 2 s: 25 ppm fast
  b.uncertainty = 10e-6;
  b.mid_mono = 102;
  auto d = drift(a, b);
  EXPECT_NEAR(d.ppm, 25, 1e-6);
  EXPECT_NEAR(d.uncertainty_ppm, 10, 1e-9);
  EXPECT_NEAR(d.interval, 2, 1e-12);
  EXPECT_THROW(drift(b, a), std::invalid_argument);
}

TEST(ClockCommand, CapturesOutputAndExitCode) {
  auto r = run_bounded({"sh", "-c", "echo out; echo err >&2; exit 3"}, 5);
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.problem.find("exited with 3: err"), std::string::npos) << r.problem;
  auto c = run_bounded({"sh", "-c", "echo $LC_ALL"}, 5);
  EXPECT_EQ(c.out, "C\n");
  EXPECT_EQ(c.problem, "");
}

TEST(ClockCommand, NeverHangs) {
  // The child and its own child (the sleep) hold the pipe; both must go.
  auto r = run_bounded({"sh", "-c", "sleep 30 & sleep 30"}, 0.3);
  EXPECT_TRUE(r.timed_out);
  EXPECT_NE(r.problem.find("did not finish"), std::string::npos) << r.problem;
}

TEST(ClockCommand, AbsentTool) {
  auto r = run_bounded({"gpuaccept-no-such-tool"}, 1);
  EXPECT_FALSE(r.found);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.problem.find("not found on PATH"), std::string::npos);
}

}  // namespace
}  // namespace ga::clock
