// The progress channel's printer (probes/harness/progress_printer.hpp): what a line says, that
// its estimate is the steps left times their mean so far (none before a step ends), and the
// rate limit (the first step, then one line per interval; every step at interval 0).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "probes/harness/progress_printer.hpp"
#include "probes/probe.hpp"

namespace {

using ga::harness::ProgressPrinter;
using ga::harness::progress_line;
using Clock = std::chrono::steady_clock;
constexpr auto exact = ga::StepCount::exact;
constexpr auto at_most = ga::StepCount::at_most;

TEST(ProgressLine, FirstStepGivesOnlyTheDeadline) {
  EXPECT_EQ(progress_line("mpi-coll", "all_reduce 8 B out of place", 1, 24, "lines", exact, std::nullopt, 300),
            "mpi-coll: all_reduce 8 B out of place (1 of 24 lines), 300 s left to the probe's deadline");
}

TEST(ProgressLine, LaterStepsGiveStepsLeftTimesTheirMeanAndTheDeadline) {
  // Step 7 of 12 starts with 6 done at 2.5 s each: 6 steps left (this one too), 15 s.
  EXPECT_EQ(progress_line("p2p", "inter-host pairs", 7, 12, "rounds", exact, 2.5, 250),
            "p2p: inter-host pairs (7 of 12 rounds), about 15 s left at 2.5 s each so far, 250 s to the probe's deadline");
}

TEST(ProgressLine, ABoundIsSaidAsOneAndSoIsItsEstimate) {
  // The adaptive schedule's planner may stop long before its bound: "up to", not "about".
  EXPECT_EQ(progress_line("p2p", "adaptive schedule, cover pairs", 3, 48, "rounds", at_most, 0.75, 118),
            "p2p: adaptive schedule, cover pairs (3 of at most 48 rounds), up to 34.5 s left at 750 ms each so far, "
            "118 s to the probe's deadline");
}

TEST(ProgressLine, APassedDeadlineAndAnOvertakenBoundAreSaidAsTheyAre) {
  EXPECT_EQ(progress_line("nccl", "isolation", 9, 8, "rounds", at_most, 1.0, -3),
            "nccl: isolation (9 of at most 9 rounds), up to 1 s left at 1 s each so far, the probe's deadline has passed");
}

// A clock the test moves and a writer that keeps the lines.
struct Rig {
  Clock::time_point t = Clock::time_point{} + std::chrono::hours(1);
  std::vector<std::string> lines;
  ProgressPrinter make(double interval_s) {
    return ProgressPrinter("p", t + std::chrono::seconds(100), interval_s,
                           [this](const std::string& l) { lines.push_back(l); }, [this] { return t; });
  }
  void at(double s) { t = Clock::time_point{} + std::chrono::hours(1) + std::chrono::milliseconds(std::lround(s * 1000)); }
};

TEST(ProgressPrinter, PrintsTheFirstStepThenOneLinePerInterval) {
  Rig rig;
  auto pr = rig.make(5.0);
  for (int i = 0; i < 13; ++i) {  // one step a second, at 0..12 s
    rig.at(i);
    pr.step("s", i + 1, 13, "steps", exact);
  }
  ASSERT_EQ(rig.lines.size(), 3u);  // at 0, 5 and 10 s
  EXPECT_EQ(rig.lines[0], "p: s (1 of 13 steps), 100 s left to the probe's deadline");
  EXPECT_EQ(rig.lines[1], "p: s (6 of 13 steps), about 8 s left at 1 s each so far, 95 s to the probe's deadline");
  EXPECT_EQ(rig.lines[2], "p: s (11 of 13 steps), about 3 s left at 1 s each so far, 90 s to the probe's deadline");
}

TEST(ProgressPrinter, IntervalZeroPrintsEveryStep) {
  Rig rig;
  auto pr = rig.make(0.0);
  for (int i = 0; i < 13; ++i) {
    rig.at(i * 0.01);
    pr.step("s", i + 1, 13, "steps", exact);
  }
  EXPECT_EQ(rig.lines.size(), 13u);
}

TEST(ProgressPrinter, ANewSeriesStartsItsOwnMean) {
  Rig rig;
  auto pr = rig.make(0.0);
  rig.at(0);
  pr.step("inter", 1, 3, "rounds", exact);
  rig.at(10);
  pr.step("inter", 2, 3, "rounds", exact);  // 10 s a round
  rig.at(20);
  pr.step("intra", 1, 2, "rounds", exact);  // the index falls back: a new series, no mean yet
  rig.at(21);
  pr.step("intra", 2, 2, "rounds", exact);  // 1 s a round, not the inter rounds' 10
  rig.at(22);
  pr.step("retest", 1, 2, "re-test rounds", exact);
  ASSERT_EQ(rig.lines.size(), 5u);
  EXPECT_NE(rig.lines[1].find("about 20 s left at 10 s each so far"), std::string::npos) << rig.lines[1];
  EXPECT_EQ(rig.lines[2].find("each so far"), std::string::npos) << rig.lines[2];
  EXPECT_NE(rig.lines[3].find("about 1 s left at 1 s each so far"), std::string::npos) << rig.lines[3];
  EXPECT_EQ(rig.lines[4].find("each so far"), std::string::npos) << rig.lines[4];
}

}  // namespace
